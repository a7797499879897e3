import { parse as parseQueryString } from 'node:querystring';
import { urlView, safeDecode, type UrlView } from '../url-view.js';
import { parseTemplate, type CompiledTemplate, type Part } from './template.js';
import { requiredLiteral } from './literal.js';
import { makeTransform, RuleError, type TemplateValue, type Tables, type TransformContext } from './transforms.js';
import type {
  ComparisonSpec, ConditionsSpec, EventFields, Fields, HooksModule, MapSpec,
  PatternSpec, RuleHook, RuleSpec, RulesFileSpec, SetValue, ValueTest, HookHelpers,
} from './types.js';

/*
 * A platform's rules are compiled to the source of one JavaScript function, made with
 * `new Function`: its conditions, captures and templates become straight-line code with the rule
 * variables as local variables. Interpreted by closures, each condition, template and rule was a
 * call through a site that saw every platform's closures, which V8 cannot inline: the rules cost
 * about two and a half times what the same rules written by hand cost (bench/README.md).
 * Nothing of a rules file reaches the source as code: every text (names, literals, keys) is
 * written with JSON.stringify, and regexes, tables, comparisons and hooks are passed in as values.
 */

/**
 * The parts of the URL view a rule may name (as a condition or a variable): the view's property
 * holding each, and whether a variable reads it as it is (always a string) or undefined when empty.
 */
const VIEW_PARTS: ReadonlyMap<string, { readonly prop: 'url' | 'pathname' | 'hostname' | 'search' | 'hash' | 'protocol'; readonly always: boolean }> = new Map([
  ['url', { prop: 'url', always: true }],
  ['path', { prop: 'pathname', always: true }],
  ['host', { prop: 'hostname', always: true }],
  ['search', { prop: 'search', always: false }],
  ['hash', { prop: 'hash', always: false }],
  ['protocol', { prop: 'protocol', always: false }],
] as const);

/** A variable that no rule set: a part of the URL, `query.x`, `queryi.x`, `ec.x` or `result.x`. */
export function baseValue(view: UrlView, ec: EventFields, result: Fields, name: string): TemplateValue {
  const part = VIEW_PARTS.get(name);
  if (part) return part.always ? view[part.prop] : view[part.prop] || undefined;
  const dotted = dottedName(name);
  if (dotted !== undefined) {
    const key = dotted.key;
    switch (dotted.ns) {
      case 'query': return view.query[key];
      case 'queryi': return queryIgnoringCase(view, dotted.lowerKey);
      case 'ec': return eventValue(ec, key);
      case 'result': return result[key];
    }
  }
  return undefined;
}

interface DottedName { readonly ns: string; readonly key: string; readonly lowerKey: string }

/**
 * `query.id` → namespace and key, remembered: hooks read the same few names on every event, and
 * slicing them each time made two strings per read.
 */
const dottedNames = new Map<string, DottedName | null>();

function dottedName(name: string): DottedName | undefined {
  let d = dottedNames.get(name);
  if (d === undefined) {
    const dot = name.indexOf('.');
    d = dot > 0 ? { ns: name.slice(0, dot), key: name.slice(dot + 1), lowerKey: name.slice(dot + 1).toLowerCase() } : null;
    // names come from rule files (a bounded set), but hooks may read any: keep the cache bounded
    if (dottedNames.size >= 10_000) dottedNames.clear();
    dottedNames.set(name, d);
  }
  return d ?? undefined;
}

/** A query parameter whose name equals `lowerName` in any case (the first such key in the URL). */
function queryIgnoringCase(view: UrlView, lowerName: string): string | string[] | undefined {
  const { query } = view;
  if (lowerName in query) return query[lowerName];
  for (const key in query) if (key.toLowerCase() === lowerName) return query[key];
  return undefined;
}

function eventValue(ec: EventFields, key: string): string | undefined {
  const v = ec[key];
  if (v === undefined || v === null) return undefined;
  return typeof v === 'string' ? v : String(v);
}

function compilePattern(spec: PatternSpec, where: string): RegExp {
  const source = typeof spec === 'string' ? spec : spec?.re;
  const flags = typeof spec === 'string' ? '' : spec?.flags ?? '';
  if (typeof source !== 'string') throw new RuleError(`${where}: a pattern must be a string or {re, flags}`);
  if (/[gy]/.test(flags)) throw new RuleError(`${where}: flags g and y are not allowed`);
  try {
    return new RegExp(source, flags);
  } catch (err) {
    throw new RuleError(`${where}: invalid regular expression: ${(err as Error).message}`);
  }
}

/**
 * The names of a pattern's named groups, in order (a superset at worst: a `(?<x>` inside a class
 * or after an escaped parenthesis is listed too, and simply never found in a match). A name
 * written with escapes (`(?<\u0069d>`) is the name the escapes spell.
 */
function groupNames(re: RegExp): readonly string[] {
  const unescape = (name: string) => name.replace(/\\u\{([0-9a-fA-F]+)\}|\\u([0-9a-fA-F]{4})/g, (_, a?: string, b?: string) => String.fromCodePoint(parseInt(a ?? b!, 16)));
  return [...new Set(Array.from(re.source.matchAll(/\(\?<([^>=!][^>]*)>/g), (m) => unescape(m[1])))];
}

function isComparison(spec: unknown): spec is ComparisonSpec {
  return typeof spec === 'object' && spec !== null && !('re' in spec);
}

function compileComparison(spec: ComparisonSpec, where: string): (value: string) => boolean {
  const known = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in'];
  for (const k of Object.keys(spec)) {
    if (!known.includes(k)) throw new RuleError(`${where}: unknown comparison ${JSON.stringify(k)}`);
  }
  const tests: Array<(v: string, n: number) => boolean> = [];
  const num = (x: unknown, op: string): number => {
    if (typeof x !== 'number') throw new RuleError(`${where}: ${op} needs a number`);
    return x;
  };
  if (spec.eq !== undefined) { const e = String(spec.eq); tests.push((v) => v === e); }
  if (spec.ne !== undefined) { const e = String(spec.ne); tests.push((v) => v !== e); }
  if (spec.gt !== undefined) { const x = num(spec.gt, 'gt'); tests.push((_, n) => n > x); }
  if (spec.gte !== undefined) { const x = num(spec.gte, 'gte'); tests.push((_, n) => n >= x); }
  if (spec.lt !== undefined) { const x = num(spec.lt, 'lt'); tests.push((_, n) => n < x); }
  if (spec.lte !== undefined) { const x = num(spec.lte, 'lte'); tests.push((_, n) => n <= x); }
  if (spec.in !== undefined) {
    if (!Array.isArray(spec.in)) throw new RuleError(`${where}: in needs a list`);
    const set = new Set(spec.in.map(String));
    tests.push((v) => set.has(v));
  }
  return (value) => {
    const n = Number(value);
    return tests.every((t) => t(value, n));
  };
}

const RULE_KEYS = new Set(['name', 'when', 'let', 'set', 'unset', 'hook', 'rules', 'continue', 'ignore']);

const NO_TABLES: TransformContext = { tables: {} };

export const helpers: HookHelpers = {
  urlView,
  parseQuery: (q) => parseQueryString(q.startsWith('?') ? q.slice(1) : q) as Record<string, string | string[]>,
  base64: (text) => Buffer.from(text, 'base64').toString('utf8'),
  issn: (text) => makeTransform('issn', [])(text, NO_TABLES, () => undefined) as string | undefined,
  isbn: (text) => makeTransform('isbn', [])(text, NO_TABLES, () => undefined) as string | undefined,
  decode: safeDecode,
};

function mergeHookFields(result: Fields, fields: Record<string, string | undefined>): void {
  for (const [k, v] of Object.entries(fields)) {
    if (v === undefined || v === null || v === '') continue;
    result[k] = String(v);
  }
}

function checkMapping(spec: ConditionsSpec, where: string): void {
  if (typeof spec !== 'object' || spec === null || Array.isArray(spec)) {
    throw new RuleError(`${where}: conditions must be a mapping`);
  }
}

/** A value of the rules (a name, a key, a literal) written into the source. */
const lit = (value: string): string => JSON.stringify(value);

/** Marks a rule variable not set in its rule: reading it goes on to the enclosing rules'. */
const NOT_SET: unique symbol = Symbol('not set');

/**
 * The variables a rule sets (its captures, its `let`s, what an `any` branch adopted), each a
 * local variable of the generated function; reading a name goes from the innermost rule out, as
 * a rule sees its own variables, then its parents'.
 */
class Frame {
  readonly names = new Map<string, string>();
  /** how a name no rule set is read (a rule's; for a template alone, its resolver) */
  private readonly base: (name: string) => Read;

  constructor(readonly parent: Frame | undefined, private readonly source: Source, base?: (name: string) => Read) {
    this.base = base ?? parent?.base ?? baseRead;
  }

  /** the local variable holding `name` in this rule, declared at its first use */
  bind(name: string): string {
    let id = this.names.get(name);
    if (id === undefined) {
      id = this.source.id('v');
      this.names.set(name, id);
    }
    return id;
  }

  /** `let v1 = NS, …` for the block of this frame (empty when it binds nothing) */
  declarations(): string {
    return this.names.size ? `let ${[...this.names.values()].map((id) => `${id} = NS`).join(', ')};\n` : '';
  }

  /** Reading `name` as a rule of this frame reads it. */
  read(name: string): Read {
    const base = this.base(name);
    let code = base.code;
    const ids: string[] = [];
    for (let f: Frame | undefined = this; f; f = f.parent) {
      const id = f.names.get(name);
      if (id !== undefined) ids.push(id);
    }
    for (let i = ids.length - 1; i >= 0; i--) code = `(${ids[i]} !== NS ? ${ids[i]} : ${code})`;
    // a rule variable is a string (a capture, a template's value) or undefined
    return { code, type: base.type === 'list' ? 'list' : ids.length ? 'text' : base.type };
  }

  /** A resolver function over every variable visible here, for hooks. */
  resolver(): string {
    const seen = new Map<string, string[]>();
    for (let f: Frame | undefined = this; f; f = f.parent) {
      for (const [name, id] of f.names) (seen.get(name) ?? seen.set(name, []).get(name)!).push(id);
    }
    const cases = [...seen].map(([name, ids]) => `case ${lit(name)}: ${ids.map((id) => `if (${id} !== NS) return ${id};`).join(' ')} break;`);
    return `(($n) => { switch ($n) { ${cases.join(' ')} } return base(view, ec, result, $n); })`;
  }
}

/**
 * An expression reading a value, and what it may be: always a string (a part of the URL), a
 * string or undefined, or also a list (a repeated query parameter). The generated code leaves out
 * the checks a value cannot need: the rarely used platforms run in V8's interpreter, where each
 * costs.
 */
interface Read {
  readonly code: string;
  readonly type: 'string' | 'text' | 'list';
}

/** Reading a variable no rule set (baseValue, written out for a name known in advance). */
function baseRead(name: string): Read {
  const part = VIEW_PARTS.get(name);
  if (part) return part.always ? { code: `view.${part.prop}`, type: 'string' } : { code: `(view.${part.prop} || undefined)`, type: 'text' };
  const dotted = dottedName(name);
  if (dotted !== undefined) {
    switch (dotted.ns) {
      case 'query': return { code: `view.query[${lit(dotted.key)}]`, type: 'list' };
      case 'queryi': return { code: `qi(view, ${lit(dotted.lowerKey)})`, type: 'list' };
      case 'ec': return { code: `ev(ec, ${lit(dotted.key)})`, type: 'text' };
      case 'result': return { code: `result[${lit(dotted.key)}]`, type: 'text' };
    }
  }
  return { code: 'undefined', type: 'text' };
}

/** The generated function's source, and the values it refers to (`k0`, `k1`…). */
class Source {
  readonly values: unknown[] = [];
  private n = 0;

  id(prefix: string): string {
    return `${prefix}${this.n++}`;
  }

  value(v: unknown): string {
    this.values.push(v);
    return `k${this.values.length - 1}`;
  }
}

/** `v` takes the first value of a repeated parameter (nothing to do for other values). */
const first = (v: string, type: Read['type']) => (type === 'list' ? `if (Array.isArray(${v})) ${v} = ${v}[0];` : '');

/**
 * The code of one value test (`true`: present and not empty, `false`: absent or empty, a
 * comparison, or a pattern whose named groups are captured into `frame`); `fail` is the label to
 * leave when it does not hold.
 */
function valueTest(src: Source, spec: ValueTest, where: string, read: Read, frame: Frame, fail: string): string {
  const always = read.type === 'string';
  if (spec === true) return always ? `if (${read.code} === '') break ${fail};\n` : `{ const $x = ${read.code}; if ($x === undefined || $x === '') break ${fail}; }\n`;
  if (spec === false) return always ? `if (${read.code} !== '') break ${fail};\n` : `{ const $x = ${read.code}; if ($x !== undefined && $x !== '') break ${fail}; }\n`;
  const defined = always ? '' : `if ($x === undefined) break ${fail}; `;
  if (isComparison(spec)) {
    const cmp = src.value(compileComparison(spec, where));
    return `{ let $x = ${read.code}; ${first('$x', read.type)}${defined}if (!${cmp}($x)) break ${fail}; }\n`;
  }
  const re = compilePattern(spec, where);
  const names = groupNames(re);
  const r = src.value(re);
  if (names.length === 0) {
    return always ? `if (!${r}.test(${read.code})) break ${fail};\n` : `{ let $x = ${read.code}; ${first('$x', read.type)}${defined}if (!${r}.test($x)) break ${fail}; }\n`;
  }
  const captures = names.map((name) => `$y = $g[${lit(name)}]; if ($y !== undefined) ${frame.bind(name)} = $y;`).join(' ');
  return `{ let $x = ${read.code}; ${first('$x', read.type)}${defined}const $m = ${r}.exec($x); if ($m === null) break ${fail}; const $g = $m.groups; if ($g !== undefined) { let $y; ${captures} } }\n`;
}

/** The tests of a condition on the URL, the query or the event (url … field). */
function pureTests(src: Source, key: string, value: unknown, at: string, frame: Frame, fail: string): string {
  const part = VIEW_PARTS.get(key);
  if (part) {
    // a part of the URL takes a pattern or a boolean (`search: true`: there and not empty)
    if (typeof value !== 'boolean' && isComparison(value)) compilePattern(value as PatternSpec, at);
    return valueTest(src, value as ValueTest, at, { code: `view.${part.prop}`, type: 'string' }, frame, fail);
  }
  if (typeof value !== 'object' || value === null) throw new RuleError(`${at}: must be a mapping`);
  let code = '';
  for (const [name, test] of Object.entries(value as Record<string, ValueTest>)) {
    const read: Read = key === 'query' ? { code: `view.query[${lit(name)}]`, type: 'list' }
      : key === 'queryi' ? { code: `qi(view, ${lit(name.toLowerCase())})`, type: 'list' }
        : { code: `ev(ec, ${lit(name)})`, type: 'text' };
    code += valueTest(src, test, `${at}.${name}`, read, frame, fail);
  }
  return code;
}

const PURE_KEYS = new Set([...VIEW_PARTS.keys(), 'query', 'queryi', 'field']);

/** The code of a rule's conditions, in their order; captures go to `frame`. */
function conditions(src: Source, spec: ConditionsSpec, where: string, frame: Frame, fail: string): string {
  checkMapping(spec, where);
  let code = '';
  for (const [key, value] of Object.entries(spec)) {
    const at = `${where}.${key}`;
    if (PURE_KEYS.has(key)) {
      code += pureTests(src, key, value, at, frame, fail);
    } else if (key === 'var') {
      if (typeof value !== 'object' || value === null) throw new RuleError(`${at}: must be a mapping`);
      for (const [name, test] of Object.entries(value as Record<string, ValueTest>)) {
        code += valueTest(src, test, `${at}.${name}`, frame.read(name), frame, fail);
      }
    } else if (key === 'any' || key === 'all') {
      if (!Array.isArray(value)) throw new RuleError(`${at}: must be a list`);
      if (key === 'all') {
        // each branch on the rule's own variables
        value.forEach((c, i) => { code += conditions(src, c as ConditionsSpec, `${at}[${i}]`, frame, fail); });
        continue;
      }
      // the first branch that holds gives the rule the variables it captured
      const ok = src.id('$ok');
      code += `{ let ${ok} = false;\n`;
      value.forEach((c, i) => {
        const trial = new Frame(frame, src);
        const label = src.id('B');
        const body = conditions(src, c as ConditionsSpec, `${at}[${i}]`, trial, label);
        const adopt = [...trial.names].map(([name, id]) => `if (${id} !== NS) ${frame.bind(name)} = ${id};`).join(' ');
        code += `${label}: if (!${ok}) {\n${trial.declarations()}${body}${adopt}\n${ok} = true; }\n`;
      });
      code += `if (!${ok}) break ${fail}; }\n`;
    } else if (key === 'not') {
      const inner = new Frame(frame, src);
      const label = src.id('N');
      const hit = src.id('$hit');
      const body = conditions(src, value as ConditionsSpec, at, inner, label);
      code += `{ let ${hit} = false;\n${label}: {\n${inner.declarations()}${body}${hit} = true; }\nif (${hit}) break ${fail}; }\n`;
    } else {
      throw new RuleError(`${at}: unknown condition (expected url, path, host, search, hash, protocol, query, queryi, field, var, any, all, not)`);
    }
  }
  return code;
}

/**
 * Quick tests of a rule's own view conditions (`path: '^/doi/…'` needs a path starting with
 * `/doi/`): most rules tried fail on them, without a regex run. An expression, or undefined.
 */
function prechecks(spec: ConditionsSpec): string | undefined {
  const checks: string[] = [];
  for (const [key, value] of Object.entries(spec)) {
    const part = VIEW_PARTS.get(key);
    if (!part || typeof value === 'boolean') continue;
    const source = typeof value === 'string' ? value : value?.re;
    const flags = typeof value === 'string' ? '' : value?.flags ?? '';
    const literal = typeof source === 'string' ? requiredLiteral(source, flags) : undefined;
    if (!literal) continue;
    checks.push(`view.${part.prop}.${literal.anchored ? 'startsWith' : 'includes'}(${lit(literal.text)})`);
  }
  return checks.length ? checks.join(' && ') : undefined;
}

function parsedTemplate(text: string, where: string): Part[] {
  try {
    return parseTemplate(text);
  } catch (err) {
    throw new RuleError(`${where}: ${(err as Error).message}`);
  }
}

const NO_RESOLVER = (): undefined => undefined;

/** One placeholder's value into `$v` (its transforms applied; `or:NAME` reads NAME here). */
function placeholder(src: Source, p: Exclude<Part, string>, frame: Frame): string {
  const read = frame.read(p.variable);
  let code = `let $v = ${read.code};`;
  // after a transform, the value may be anything a transform gives
  let type: Read['type'] = read.type;
  for (const t of p.transforms) {
    if (t.name === 'or') {
      const other = frame.read(t.args[0]);
      code += ` { let $o = $v; ${first('$o', type)} if ($o === undefined || $o === '') $v = ${other.code}; }`;
      if (other.type === 'list') type = 'list';
    } else {
      code += ` $v = ${src.value(t.apply)}($v, ctx, NO_RESOLVER);`;
      type = 'list';
    }
  }
  return `${code} ${first('$v', type)}`;
}

/**
 * A template's value into `target`: undefined when a placeholder (not marked `?`) is undefined or
 * empty; a template of one placeholder gives undefined when it is, `?` or not.
 */
function template(src: Source, text: string, where: string, frame: Frame, target: string): string {
  return templateCode(src, parsedTemplate(text, where), frame, target);
}

function templateCode(src: Source, parts: readonly Part[], frame: Frame, target: string): string {
  if (parts.length === 0) return `${target} = undefined;\n`;
  if (parts.length === 1) {
    const only = parts[0];
    if (typeof only === 'string') return `${target} = ${lit(only)};\n`;
    return `{ ${placeholder(src, only, frame)} ${target} = $v === undefined || $v === '' ? undefined : $v; }\n`;
  }
  const label = src.id('T');
  let code = `${label}: { let $s = '';\n`;
  for (const p of parts) {
    if (typeof p === 'string') {
      code += `$s += ${lit(p)};\n`;
      continue;
    }
    const missing = p.optional ? '' : `{ ${target} = undefined; break ${label}; }`;
    code += `{ ${placeholder(src, p, frame)} if ($v === undefined || $v === '') ${missing || '{}'} else $s += $v; }\n`;
  }
  return `${code}${target} = $s; }\n`;
}

/**
 * The code setting `field` to a `set` value when it has one; the two commonest values in short,
 * a constant (`rtype: ARTICLE`) and one variable (`'{doi}'`).
 */
function setField(src: Source, value: SetValue, where: string, frame: Frame, field: string): string {
  if (typeof value === 'number' || typeof value === 'boolean') return `${field} = ${lit(String(value))};\n`;
  const parts = typeof value === 'string' ? parsedTemplate(value, where) : undefined;
  const only = parts?.length === 1 ? parts[0] : undefined;
  if (typeof only === 'string') return `${field} = ${lit(only)};\n`;
  if (only !== undefined && only.transforms.length === 0) {
    const read = frame.read(only.variable);
    return `{ let $v = ${read.code}; ${first('$v', read.type)} if ($v !== undefined && $v !== '') ${field} = $v; }\n`;
  }
  const code = parts ? templateCode(src, parts, frame, '$t') : setValue(src, value, where, frame, '$t');
  return `{ let $t; ${code}if ($t !== undefined) ${field} = $t; }\n`;
}

/** A `set` value into `target`: a constant, a template or a value map. */
function setValue(src: Source, value: SetValue, where: string, frame: Frame, target: string): string {
  if (typeof value === 'number' || typeof value === 'boolean') return `${target} = ${lit(String(value))};\n`;
  if (typeof value === 'string') return template(src, value, where, frame, target);
  if (typeof value === 'object' && value !== null && 'from' in value) return valueMap(src, value, where, frame, target);
  throw new RuleError(`${where}: a value must be a string, a number or {from, map}`);
}

/** A value map: the `from` template's value looked up (exact keys, or regexes in order). */
function valueMap(src: Source, spec: MapSpec, where: string, frame: Frame, target: string): string {
  const from = template(src, spec.from, `${where}.from`, frame, '$key');
  if (typeof spec.map !== 'object' || spec.map === null) throw new RuleError(`${where}: map must be a mapping`);
  const fallback = spec.default === undefined ? `${target} = undefined;\n` : setValue(src, spec.default as SetValue, `${where}.default`, frame, target);
  // Map values are templates too (a constant is a template without placeholders).
  const value = (v: string | number, k: string) => template(src, String(v), `${where}.map.${k}`, frame, target);
  if (spec.regex) {
    const label = src.id('M');
    let tests = '';
    for (const [k, v] of Object.entries(spec.map)) {
      const re = src.value(compilePattern(k, `${where}.map`));
      tests += `if (${re}.test($key)) { ${value(v, k)} break ${label}; }\n`;
    }
    return `{ let $key; ${from}${label}: { if ($key !== undefined) {\n${tests}}\n${fallback}} }\n`;
  }
  const entries = Object.entries(spec.map);
  const index = src.value(new Map(entries.map(([k], i) => [k, i])));
  const cases = entries.map(([k, v], i) => `case ${i}: ${value(v, k)} break;\n`).join('');
  return `{ let $key; ${from}const $i = $key === undefined ? undefined : ${index}.get($key);\nswitch ($i) {\n${cases}default: ${fallback}} }\n`;
}

/**
 * The code of one rule: leaves `list` when it matched (unless `continue`), returns undefined from
 * the whole function when it matched an `ignore` (nothing is recognised, whatever came before).
 */
function rule(src: Source, spec: RuleSpec, where: string, hooks: HooksModule, parent: Frame | undefined, list: string): string {
  if (typeof spec !== 'object' || spec === null || Array.isArray(spec)) throw new RuleError(`${where}: a rule must be a mapping`);
  for (const k of Object.keys(spec)) if (!RULE_KEYS.has(k)) throw new RuleError(`${where}: unknown key ${JSON.stringify(k)}`);
  const label = spec.name ? `${where} (${spec.name})` : where;
  if (!['set', 'let', 'unset', 'hook', 'rules', 'ignore', 'continue'].some((k) => k in spec)) {
    throw new RuleError(`${label}: the rule does nothing (it needs set, rules, hook or ignore)`);
  }
  const frame = new Frame(parent, src);
  const R = src.id('R');
  const when = spec.when ? conditions(src, spec.when, `${label}.when`, frame, R) : '';
  const pre = spec.when ? prechecks(spec.when) : undefined;
  let lets = '';
  for (const [k, v] of Object.entries(spec.let ?? {})) {
    // the value is computed before the name is bound: a let reads the enclosing rules' value of its own name
    const t = src.id('$l');
    lets += `let ${t}; ${template(src, String(v), `${label}.let.${k}`, frame, t)}${frame.bind(k)} = ${t};\n`;
  }
  let sets = '';
  for (const [k, v] of Object.entries(spec.set ?? {})) sets += setField(src, v, `${label}.set.${k}`, frame, `result[${lit(k)}]`);
  const unset = spec.unset ?? [];
  if (!Array.isArray(unset)) throw new RuleError(`${label}.unset: must be a list of field names`);
  let hook: RuleHook | undefined;
  if (spec.hook !== undefined) {
    hook = hooks.hooks?.[spec.hook];
    if (typeof hook !== 'function') throw new RuleError(`${label}.hook: the platform's hooks module has no hook ${JSON.stringify(spec.hook)}`);
  }
  if (spec.rules !== undefined && !Array.isArray(spec.rules)) throw new RuleError(`${label}.rules: must be a list`);
  const children = spec.rules ? ruleList(src, spec.rules, `${label}.rules`, hooks, frame) : '';

  let apply: string;
  if (spec.ignore === true) {
    apply = 'return undefined;\n';
  } else {
    apply = lets;
    if (hook) {
      const h = src.id('$h');
      apply += `const ${h} = ${src.value(hook)}({ view, ec, vars: ${frame.resolver()}, result, helpers: HELPERS, tables: ctx.tables });\n`
        + `if (${h} === null) break ${R};\n${sets}if (${h}) merge(result, ${h});\n`;
    } else {
      apply += sets;
    }
    apply += unset.map((k) => `delete result[${lit(String(k))}];\n`).join('');
    apply += children;
    if (spec.continue !== true) apply += `break ${list};\n`;
  }
  const body = `${pre ? `if (!(${pre})) break ${R};\n` : ''}${when}${apply}`;
  return `${R}: {\n${frame.declarations()}${body}}\n`;
}

/** A list of rules: the first that matches ends it. */
function ruleList(src: Source, specs: RuleSpec[], where: string, hooks: HooksModule, parent: Frame | undefined): string {
  const L = src.id('L');
  const rules = specs.map((r, i) => rule(src, r, `${where}[${i}]`, hooks, parent, L)).join('');
  return `${L}: {\n${rules}}\n`;
}

/** Rules of a rules file, nested ones included. */
export function countRules(specs: unknown): number {
  if (!Array.isArray(specs)) return 0;
  return specs.reduce((n: number, r: RuleSpec) => n + 1 + countRules(r?.rules), 0);
}

/** Recognises a consultation in an event: the platform's fields, or undefined. */
export type PlatformMatcher = (ec: EventFields, view: UrlView | undefined) => Fields | undefined;

export interface CompiledRules {
  readonly match: PlatformMatcher;
  readonly ruleCount: number;
}

/**
 * Compiles a platform's rules file (already parsed from YAML/JSON) into a matcher.
 * Throws RuleError with the path of the faulty rule. An error while matching (a rule error such
 * as a missing lookup table, a hook that throws) makes that event unrecognised rather than
 * failing the job, as a platform that throws recognises nothing in the reference.
 */
export function compileRules(file: RulesFileSpec | undefined, hooks: HooksModule, extraTables: Tables = {}): CompiledRules {
  const tables: Tables = { ...extraTables, ...(file?.tables ?? {}) };
  const ctx: TransformContext = { tables };
  if (!file) {
    if (!hooks.parse) throw new RuleError('a platform needs rules or a parse hook');
    const parse = hooks.parse;
    return {
      ruleCount: 1, // the parse hook is the platform's one rule
      match: (ec, view) => {
        const result: Fields = {};
        let fields;
        try {
          fields = parse({
            view, ec, vars: view ? (name) => baseValue(view, ec, result, name) : () => undefined, result, helpers, tables,
          });
        } catch {
          return undefined;
        }
        if (!fields) return undefined;
        mergeHookFields(result, fields);
        return Object.keys(result).length ? result : undefined;
      },
    };
  }
  if (typeof file !== 'object' || !Array.isArray(file.rules)) throw new RuleError('the rules file needs a "rules" list');
  for (const k of Object.keys(file)) {
    if (!['format', 'tables', 'rules'].includes(k)) throw new RuleError(`unknown top-level key ${JSON.stringify(k)}`);
  }
  if (file.format !== undefined && file.format !== 1) throw new RuleError(`unsupported rule format ${file.format}`);
  return { ruleCount: countRules(file.rules), match: generateMatcher(file.rules, hooks, ctx) };
}

/** What the generated functions call (by these names). */
const RUNTIME = { NS: NOT_SET, qi: queryIgnoringCase, ev: eventValue, base: baseValue, merge: mergeHookFields, HELPERS: helpers, NO_RESOLVER };

/** Makes the function `code` returns, with the runtime and the values of `src` in its scope. */
function build(src: Source, code: string, ctx?: TransformContext): unknown {
  const body = `'use strict';
const { ${Object.keys(RUNTIME).join(', ')} } = rt;
${src.values.map((_, i) => `const k${i} = values[${i}];`).join('\n')}
${code}`;
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- the source is made here, see the top of this file
  return new Function('rt', 'values', 'ctx', body)(RUNTIME, src.values, ctx);
}

/** A template alone, its variables read from a resolver (as a rule's templates are written). */
export function compileTemplate(text: string): CompiledTemplate {
  const src = new Source();
  const frame = new Frame(undefined, src, (name) => ({ code: `resolve(${lit(name)})`, type: 'list' }));
  const code = template(src, text, 'template', frame, '$out');
  return build(src, `return (resolve, ctx) => {\nlet $out;\n${code}return $out;\n};`) as CompiledTemplate;
}

function generateMatcher(rules: RuleSpec[], hooks: HooksModule, ctx: TransformContext): PlatformMatcher {
  const src = new Source();
  const list = ruleList(src, rules, 'rules', hooks, undefined);
  return build(src, `return function match(ec, view) {
if (!view) return undefined;
const result = {};
try {
${list}} catch {
return undefined;
}
for (const $ in result) return result;
return undefined;
};`, ctx) as PlatformMatcher;
}
