import { makeTransform, RuleError, type TemplateValue, type Transform, type TransformContext } from './transforms.js';

/** Resolves a variable name (`pii`, `query.docId`, `ec.size`, `path`…) to its value. */
export type Resolver = (name: string) => TemplateValue;

/** A compiled template: undefined when any placeholder it uses is undefined or empty. */
export type CompiledTemplate = (resolve: Resolver, ctx: TransformContext) => string | undefined;

/** A transform of a placeholder: its name (lower-cased), its arguments, and the function. */
export interface TemplateTransform {
  readonly name: string;
  readonly args: readonly string[];
  readonly apply: Transform;
}

export interface Placeholder {
  readonly variable: string;
  readonly transforms: readonly TemplateTransform[];
  /** `{x?}`: an undefined or empty value gives '' instead of making the template undefined */
  readonly optional: boolean;
}

export type Part = string | Placeholder;

const NAME_CHAR = /[A-Za-z0-9_.\-$[\]]/;

/**
 * Template syntax: literal text with `{variable|transform:arg:arg|transform}` placeholders;
 * `{variable?…}` marks a placeholder that may be empty.
 * `{{` and `}}` are literal braces. An argument may be double-quoted (`"a:b|c"`, with `\"` for a
 * quote) when it holds `:`, `|`, `}` or leading/trailing spaces; backslashes are otherwise kept,
 * so regular expressions read as written.
 */
export function parseTemplate(text: string): Part[] {
  const parts: Part[] = [];
  let literal = '';
  let i = 0;
  const fail = (msg: string): never => {
    throw new RuleError(`template ${JSON.stringify(text)}: ${msg} at position ${i}`);
  };
  while (i < text.length) {
    const ch = text[i];
    if (ch === '{' && text[i + 1] === '{') { literal += '{'; i += 2; continue; }
    if (ch === '}' && text[i + 1] === '}') { literal += '}'; i += 2; continue; }
    if (ch === '}') fail('unmatched }');
    if (ch !== '{') { literal += ch; i++; continue; }
    if (literal) { parts.push(literal); literal = ''; }
    i++;
    let variable = '';
    while (i < text.length && NAME_CHAR.test(text[i])) variable += text[i++];
    if (!variable) fail('expected a variable name');
    const optional = text[i] === '?';
    if (optional) i++;
    const transforms: TemplateTransform[] = [];
    while (text[i] === '|') {
      i++;
      let name = '';
      while (i < text.length && /[a-z0-9_]/i.test(text[i])) name += text[i++];
      if (!name) fail('expected a transform name');
      const args: string[] = [];
      while (text[i] === ':') {
        i++;
        let arg = '';
        if (text[i] === '"') {
          i++;
          while (i < text.length && text[i] !== '"') {
            if (text[i] === '\\' && text[i + 1] === '"') { arg += '"'; i += 2; continue; }
            arg += text[i++];
          }
          if (text[i] !== '"') fail('unterminated quoted argument');
          i++;
        } else {
          while (i < text.length && text[i] !== ':' && text[i] !== '|' && text[i] !== '}') arg += text[i++];
        }
        args.push(arg);
      }
      const lower = name.toLowerCase();
      transforms.push({ name: lower, args, apply: makeTransform(lower, args) });
    }
    if (text[i] !== '}') fail('expected } or |');
    i++;
    parts.push({ variable, transforms, optional });
  }
  if (literal) parts.push(literal);
  return parts;
}

/** Names of the variables a template reads (to check them against what a rule captures). */
export function templateVariables(text: string): string[] {
  return parseTemplate(text).flatMap((p) => (typeof p === 'string' ? [] : [p.variable]));
}
