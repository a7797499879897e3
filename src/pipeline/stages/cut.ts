import type { EventStage } from './types.js';

/**
 * The `Extract` header (reference 3.8 `cut`): `source => expression => field1,field2`, where the
 * expression is `/regex/flags` (the captured groups, in order) or `split(separator)` (the parts;
 * the separator a plain string or `/regex/flags`). The new fields are added to the output.
 * Institutions use it to split a structured login (`user_O_section_I_department`) into columns.
 */
export interface ExtractSpec {
  readonly source: string;
  /** `match`: the groups of the pattern; `split`: the parts around it (literal when `literal`) */
  readonly kind: 'match' | 'split';
  readonly pattern: string;
  readonly flags: string;
  readonly literal: boolean;
  readonly fields: readonly string[];
}

export class ExtractError extends Error {}

const USAGE = 'write "source => /regex/flags => field1,field2" or "source => split(separator) => field1,field2"';
const REGEX = /^\/(.*)\/([a-z]*)$/s;
/** flags that change what a pattern matches; `g` and `y` would make it stateful */
const FLAGS = /^[imsu]*$/;
const FIELD = /^[^\s;,"]+$/;
/** names an event (a plain object) cannot hold as its own field */
const RESERVED = new Set(['__proto__']);

/** Reads an Extract header; throws ExtractError saying what is wrong. */
export function parseExtract(value: string): ExtractSpec {
  const first = value.indexOf('=>');
  const last = value.lastIndexOf('=>');
  if (first < 0 || first === last) throw new ExtractError(`invalid extract expression ${JSON.stringify(value)}: ${USAGE}`);
  const source = value.slice(0, first).trim();
  const expression = value.slice(first + 2, last).trim();
  const fields = value.slice(last + 2).split(',').map((f) => f.trim());
  if (!FIELD.test(source)) throw new ExtractError(`invalid extract expression: the source ${JSON.stringify(source)} is not a field name; ${USAGE}`);
  const badField = fields.find((f) => !FIELD.test(f) || RESERVED.has(f));
  if (badField !== undefined) throw new ExtractError(`invalid extract expression: ${JSON.stringify(badField)} is not a field name (no spaces, ";", "," or quotes, not __proto__); ${USAGE}`);
  const split = /^split\((.*)\)$/s.exec(expression);
  const regex = REGEX.exec(split ? split[1] : expression);
  if (!split && !regex) throw new ExtractError(`invalid extract expression: ${JSON.stringify(expression)} is neither /regex/flags nor split(separator); ${USAGE}`);
  if (split && split[1] === '') throw new ExtractError(`invalid extract expression: split() needs a separator; ${USAGE}`);
  const spec: ExtractSpec = regex
    ? { source, kind: split ? 'split' : 'match', pattern: regex[1], flags: regex[2], literal: false, fields }
    : { source, kind: 'split', pattern: split![1], flags: '', literal: true, fields };
  if (!spec.literal) {
    if (!FLAGS.test(spec.flags)) throw new ExtractError(`invalid extract expression: flags ${JSON.stringify(spec.flags)} (allowed: i, m, s, u)`);
    try {
      new RegExp(spec.pattern, spec.flags);
    } catch (err) {
      throw new ExtractError(`invalid extract expression: ${(err as Error).message}`);
    }
  }
  return spec;
}

/** The values an expression takes out of a text, in the order of the fields (undefined: no match). */
export function extractValues(spec: ExtractSpec, text: string, pattern: RegExp | string = compilePattern(spec)): Array<string | undefined> | undefined {
  if (spec.kind === 'split') return text.split(pattern);
  const m = (pattern as RegExp).exec(text);
  return m ? m.slice(1) : undefined;
}

function compilePattern(spec: ExtractSpec): RegExp | string {
  return spec.literal ? spec.pattern : new RegExp(spec.pattern, spec.flags);
}

/**
 * Sets each field to its value when the source field has a text; a field whose group did not
 * take part in the match, or beyond the last part, is left as it was.
 */
export function cutStage(spec: ExtractSpec): EventStage {
  const pattern = compilePattern(spec);
  return {
    name: 'cut',
    run(ec) {
      const text = ec[spec.source];
      if (typeof text !== 'string' || text === '') return undefined;
      const values = extractValues(spec, text, pattern);
      if (!values) return undefined;
      spec.fields.forEach((field, i) => {
        const v = values[i];
        if (v !== undefined) ec[field] = v;
      });
      return undefined;
    },
  };
}
