import { parse as parseQueryString } from 'node:querystring';
import { urlView, safeDecode, type UrlView } from '../url-view.js';
import { compileTemplate, type CompiledTemplate, type Resolver } from './template.js';
import { literalPrecheck, requiredLiteral } from './literal.js';
import { makeTransform, RuleError, type TemplateValue, type Tables, type TransformContext } from './transforms.js';
import type {
  ComparisonSpec, ConditionsSpec, EventFields, Fields, HookHelpers, HooksModule, MapSpec,
  PatternSpec, RuleHook, RuleSpec, RulesFileSpec, SetValue, ValueTest,
} from './types.js';

/**
 * Variables visible to a rule: its own captures and `let`s, then its parents'. A scope is made for
 * every rule tried, so it stays cheap: its variables and its resolver function are only made when
 * a rule writes a variable or a template reads one.
 */
class Scope {
  private own: Record<string, string | undefined> | undefined;
  private resolver: Resolver | undefined;

  constructor(
    readonly view: UrlView,
    readonly ec: EventFields,
    readonly result: Fields,
    private readonly parent?: Scope,
  ) {}

  child(): Scope {
    return new Scope(this.view, this.ec, this.result, this);
  }

  set(name: string, value: string | undefined): void {
    (this.own ??= Object.create(null) as Record<string, string | undefined>)[name] = value;
  }

  adopt(other: Scope): void {
    if (other.own) for (const k in other.own) this.set(k, other.own[k]);
  }

  get(name: string): TemplateValue {
    for (let s: Scope | undefined = this; s; s = s.parent) {
      const own = s.own;
      if (own === undefined) continue;
      const v = own[name];
      if (v !== undefined || name in own) return v;
    }
    switch (name) {
      case 'url': return this.view.url;
      case 'path': return this.view.pathname;
      case 'host': return this.view.hostname;
      case 'search': return this.view.search || undefined;
      case 'hash': return this.view.hash || undefined;
      case 'protocol': return this.view.protocol || undefined;
    }
    const dotted = dottedName(name);
    if (dotted !== undefined) {
      const key = dotted.key;
      switch (dotted.ns) {
        case 'query': return this.view.query[key];
        case 'queryi': return queryIgnoringCase(this.view, dotted.lowerKey);
        case 'ec': return eventValue(this.ec, key);
        case 'result': return this.result[key];
      }
    }
    return undefined;
  }

  /** `get` as a function, for templates and hooks */
  get read(): Resolver {
    return (this.resolver ??= (name) => this.get(name));
  }
}

interface DottedName { readonly ns: string; readonly key: string; readonly lowerKey: string }

/**
 * `query.id` → namespace and key, remembered: templates read the same few names on every event,
 * and slicing them each time made two strings per read.
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

type Condition = (scope: Scope) => boolean;

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
 * or after an escaped parenthesis is listed too, and simply never found in a match). Captures
 * are read by name: a for-in over the match's groups object costs several times more.
 */
function groupNames(re: RegExp): readonly string[] {
  const names = [...new Set(Array.from(re.source.matchAll(/\(\?<([^>=!][^>]*)>/g), (m) => m[1]))];
  // a name written with escapes (`(?<\u0061>`) is another name in the match: read those by for-in
  return names.some((n) => n.includes('\\')) ? ANY_NAMES : names;
}

/** Group names that must be read from the match itself. */
const ANY_NAMES: readonly string[] = Object.freeze(['']);

/** Stores a match's named groups as variables. */
function captureGroups(m: RegExpExecArray, names: readonly string[], scope: Scope): void {
  const groups = m.groups;
  if (groups === undefined) return;
  if (names === ANY_NAMES) {
    for (const k in groups) { const v = groups[k]; if (v !== undefined) scope.set(k, v); }
    return;
  }
  for (let i = 0; i < names.length; i++) {
    const v = groups[names[i]];
    if (v !== undefined) scope.set(names[i], v);
  }
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

const VIEW_KEYS = {
  url: (v: UrlView) => v.url,
  path: (v: UrlView) => v.pathname,
  host: (v: UrlView) => v.hostname,
  search: (v: UrlView) => v.search,
  hash: (v: UrlView) => v.hash,
  protocol: (v: UrlView) => v.protocol,
} as const;

/**
 * A condition that needs no scope: it reads the URL view or the event only. It gives false when it
 * fails, true when it holds without capturing, or the regex match whose named groups become
 * variables.
 */
type PureTest = (view: UrlView, ec: EventFields) => RegExpExecArray | boolean | null;

/** A pure test and the names of the groups its match may hold. */
interface Pure { readonly test: PureTest; readonly names: readonly string[] }

/** Condition keys whose tests read only the view, the query and the event. */
const PURE_KEYS = new Set(['url', 'path', 'host', 'search', 'hash', 'protocol', 'query', 'queryi', 'field']);

const NO_NAMES: readonly string[] = [];
const firstOf = (v: TemplateValue): string | undefined => (Array.isArray(v) ? v[0] : v);

/** A test reading its value from two arguments (the view and the event, or a scope). */
type TwoArgTest<A, B> = (a: A, b: B) => RegExpExecArray | boolean | null;

/**
 * A test of one value (a part of the URL, a query parameter, an event field, a variable), read by
 * `read`: `true` present and not empty, `false` absent or empty, a comparison, or a pattern
 * (tested with `test()`, no array made, when it has no named group).
 */
function valueTest<A, B>(spec: ValueTest, where: string, read: (a: A, b: B) => TemplateValue): { test: TwoArgTest<A, B>; names: readonly string[] } {
  if (spec === true) return { test: (a, b) => { const v = read(a, b); return v !== undefined && v !== ''; }, names: NO_NAMES };
  if (spec === false) return { test: (a, b) => { const v = read(a, b); return v === undefined || v === ''; }, names: NO_NAMES };
  if (isComparison(spec)) {
    const cmp = compileComparison(spec, where);
    return { test: (a, b) => { const v = firstOf(read(a, b)); return v !== undefined && cmp(v); }, names: NO_NAMES };
  }
  const re = compilePattern(spec, where);
  const names = groupNames(re);
  if (names.length === 0) return { test: (a, b) => { const v = firstOf(read(a, b)); return v !== undefined && re.test(v); }, names };
  return { test: (a, b) => { const v = firstOf(read(a, b)); return v === undefined ? false : re.exec(v); }, names };
}

/** The tests of one condition key of PURE_KEYS. */
function pureTestsOf(key: string, value: unknown, at: string): Pure[] {
  if (key in VIEW_KEYS) {
    // a part of the URL takes a pattern or a boolean (`search: true`: there and not empty)
    if (typeof value !== 'boolean' && isComparison(value)) compilePattern(value as PatternSpec, at);
    return [valueTest(value as ValueTest, at, VIEW_KEYS[key as keyof typeof VIEW_KEYS])];
  }
  if (typeof value !== 'object' || value === null) throw new RuleError(`${at}: must be a mapping`);
  return Object.entries(value as Record<string, ValueTest>).map(([name, test]) => {
    const lower = name.toLowerCase();
    const read: (view: UrlView, ec: EventFields) => TemplateValue =
      key === 'query' ? (view) => view.query[name]
        : key === 'queryi' ? (view) => queryIgnoringCase(view, lower)
          : (_, ec) => eventValue(ec, name);
    return valueTest(test, `${at}.${name}`, read);
  });
}

function checkMapping(spec: ConditionsSpec, where: string): void {
  if (typeof spec !== 'object' || spec === null || Array.isArray(spec)) {
    throw new RuleError(`${where}: conditions must be a mapping`);
  }
}

/** Stores a successful test's captures as variables. */
function capture(m: RegExpExecArray | true, names: readonly string[], scope: Scope): void {
  if (m !== true) captureGroups(m, names, scope);
}

/** A scope-free test as a condition on a scope (its captures stored in the scope). */
function pureInScope({ test, names }: Pure): Condition {
  return (scope) => {
    const m = test(scope.view, scope.ec);
    if (!m) return false;
    capture(m, names, scope);
    return true;
  };
}

function compileConditions(spec: ConditionsSpec, where: string): Condition {
  checkMapping(spec, where);
  const tests: Condition[] = [];
  for (const [key, value] of Object.entries(spec)) {
    const at = `${where}.${key}`;
    if (PURE_KEYS.has(key)) {
      for (const pure of pureTestsOf(key, value, at)) tests.push(pureInScope(pure));
    } else if (key === 'var') {
      if (typeof value !== 'object' || value === null) throw new RuleError(`${at}: must be a mapping`);
      for (const [name, test] of Object.entries(value as Record<string, ValueTest>)) {
        const { test: t, names } = valueTest(test, `${at}.${name}`, (scope: Scope) => scope.get(name));
        tests.push((scope) => {
          const m = t(scope, undefined);
          if (!m) return false;
          capture(m, names, scope);
          return true;
        });
      }
    } else if (key === 'any' || key === 'all') {
      if (!Array.isArray(value)) throw new RuleError(`${at}: must be a list`);
      const branches = value.map((c, i) => compileConditions(c as ConditionsSpec, `${at}[${i}]`));
      tests.push(key === 'any'
        ? (scope) => {
          for (const branch of branches) {
            const trial = scope.child();
            if (branch(trial)) { scope.adopt(trial); return true; }
          }
          return false;
        }
        : (scope) => branches.every((b) => b(scope)));
    } else if (key === 'not') {
      const inner = compileConditions(value as ConditionsSpec, at);
      tests.push((scope) => !inner(scope.child()));
    } else {
      throw new RuleError(`${at}: unknown condition (expected url, path, host, search, hash, protocol, query, queryi, field, var, any, all, not)`);
    }
  }
  return (scope) => {
    for (const t of tests) if (!t(scope)) return false;
    return true;
  };
}

/**
 * The conditions as scope-free tests, when they read only the view, the query and the event (no
 * `var`, `any`, `all`, `not`): a rule tried then makes no scope unless all of them hold.
 */
function pureConditions(spec: ConditionsSpec, where: string): Pure[] | undefined {
  checkMapping(spec, where);
  if (!Object.keys(spec).every((k) => PURE_KEYS.has(k))) return undefined;
  return Object.entries(spec).flatMap(([key, value]) => pureTestsOf(key, value, `${where}.${key}`));
}

/**
 * Quick tests of a rule's own view conditions (`path: '^/doi/…'` needs a path starting with
 * `/doi/`): most rules tried fail on them, and fail here without a regex run or a scope.
 */
function literalPrechecks(spec: ConditionsSpec): Array<(view: UrlView) => boolean> {
  const checks: Array<(view: UrlView) => boolean> = [];
  for (const [key, value] of Object.entries(spec)) {
    if (!(key in VIEW_KEYS) || typeof value === 'boolean') continue;
    const source = typeof value === 'string' ? value : value?.re;
    const flags = typeof value === 'string' ? '' : value?.flags ?? '';
    const literal = typeof source === 'string' ? requiredLiteral(source, flags) : undefined;
    if (!literal) continue;
    checks.push(viewPrecheck(key, literal.text, literal.anchored));
  }
  return checks;
}

/** One closure per pre-check (the common path and url cases read their field directly). */
function viewPrecheck(key: string, text: string, anchored: boolean): (view: UrlView) => boolean {
  if (key === 'path') return anchored ? (view) => view.pathname.startsWith(text) : (view) => view.pathname.includes(text);
  if (key === 'url') return anchored ? (view) => view.url.startsWith(text) : (view) => view.url.includes(text);
  const get = VIEW_KEYS[key as keyof typeof VIEW_KEYS];
  const test = literalPrecheck({ text, anchored });
  return (view) => test(get(view));
}

/** All pre-checks as one function, or undefined when there are none. */
function allOf(checks: Array<(view: UrlView) => boolean>): ((view: UrlView) => boolean) | undefined {
  if (checks.length === 0) return undefined;
  if (checks.length === 1) return checks[0];
  if (checks.length === 2) { const [a, b] = checks; return (view) => a(view) && b(view); }
  return (view) => checks.every((c) => c(view));
}

type ValueFn = (scope: Scope, ctx: TransformContext) => string | undefined;

function compileSetValue(value: SetValue, where: string): ValueFn {
  if (typeof value === 'number' || typeof value === 'boolean') {
    const s = String(value);
    return () => s;
  }
  if (typeof value === 'string') {
    const t = wrapTemplate(value, where);
    return (scope, ctx) => t(scope.read, ctx);
  }
  if (typeof value === 'object' && value !== null && 'from' in value) return compileMap(value, where);
  throw new RuleError(`${where}: a value must be a string, a number or {from, map}`);
}

function wrapTemplate(text: string, where: string): CompiledTemplate {
  try {
    return compileTemplate(text);
  } catch (err) {
    throw new RuleError(`${where}: ${(err as Error).message}`);
  }
}

function compileMap(spec: MapSpec, where: string): ValueFn {
  const from = wrapTemplate(spec.from, `${where}.from`);
  if (typeof spec.map !== 'object' || spec.map === null) throw new RuleError(`${where}: map must be a mapping`);
  const fallback = spec.default === undefined ? undefined : compileSetValue(spec.default as SetValue, `${where}.default`);
  // Map values are templates too (a constant is a template without placeholders).
  const value = (v: string | number, k: string) => wrapTemplate(String(v), `${where}.map.${k}`);
  if (spec.regex) {
    const entries = Object.entries(spec.map).map(([k, v]) => [compilePattern(k, `${where}.map`), value(v, k)] as const);
    return (scope, ctx) => {
      const key = from(scope.read, ctx);
      if (key !== undefined) for (const [re, v] of entries) if (re.test(key)) return v(scope.read, ctx);
      return fallback?.(scope, ctx);
    };
  }
  const table = new Map(Object.entries(spec.map).map(([k, v]) => [k, value(v, k)]));
  return (scope, ctx) => {
    const key = from(scope.read, ctx);
    const hit = key === undefined ? undefined : table.get(key);
    return hit ? hit(scope.read, ctx) : fallback?.(scope, ctx);
  };
}

const enum Outcome { None, Matched, Ignored }

type CompiledRule = (scope: Scope, ctx: TransformContext) => Outcome;

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

function compileRule(spec: RuleSpec, where: string, hooks: HooksModule): CompiledRule {
  if (typeof spec !== 'object' || spec === null || Array.isArray(spec)) throw new RuleError(`${where}: a rule must be a mapping`);
  for (const k of Object.keys(spec)) if (!RULE_KEYS.has(k)) throw new RuleError(`${where}: unknown key ${JSON.stringify(k)}`);
  const label = spec.name ? `${where} (${spec.name})` : where;
  if (!['set', 'let', 'unset', 'hook', 'rules', 'ignore', 'continue'].some((k) => k in spec)) {
    throw new RuleError(`${label}: the rule does nothing (it needs set, rules, hook or ignore)`);
  }
  // Conditions reading only the view, the query and the event are compiled once, scope-free.
  const pure = spec.when ? pureConditions(spec.when, `${label}.when`) : [];
  const when = spec.when && !pure ? compileConditions(spec.when, `${label}.when`) : undefined;
  const precheck = spec.when ? allOf(literalPrechecks(spec.when)) : undefined;
  const lets = Object.entries(spec.let ?? {}).map(([k, v]) => [k, wrapTemplate(String(v), `${label}.let.${k}`)] as const);
  const sets = Object.entries(spec.set ?? {}).map(([k, v]) => [k, compileSetValue(v, `${label}.set.${k}`)] as const);
  const unset = spec.unset ?? [];
  if (!Array.isArray(unset)) throw new RuleError(`${label}.unset: must be a list of field names`);
  let hook: RuleHook | undefined;
  if (spec.hook !== undefined) {
    hook = hooks.hooks?.[spec.hook];
    if (typeof hook !== 'function') throw new RuleError(`${label}.hook: the platform's hooks module has no hook ${JSON.stringify(spec.hook)}`);
  }
  if (spec.rules !== undefined && !Array.isArray(spec.rules)) throw new RuleError(`${label}.rules: must be a list`);
  const children = spec.rules ? compileRuleList(spec.rules, `${label}.rules`, hooks) : undefined;
  const ignore = spec.ignore === true;
  const cont = spec.continue === true;
  const setKeys = sets.map(([k]) => k);
  const setValues = sets.map(([, v]) => v);

  /** What a rule does once its conditions hold. */
  const apply = (scope: Scope, ctx: TransformContext): Outcome => {
    if (ignore) return Outcome.Ignored;
    for (const [k, t] of lets) scope.set(k, t(scope.read, ctx));
    if (hook) {
      const fields = hook({ view: scope.view, ec: scope.ec, vars: scope.read, result: scope.result, helpers, tables: ctx.tables });
      if (fields === null) return Outcome.None;
      setAll(scope, ctx);
      if (fields) mergeHookFields(scope.result, fields);
    } else {
      setAll(scope, ctx);
    }
    for (const k of unset) delete scope.result[k];
    if (children && children(scope, ctx) === Outcome.Ignored) return Outcome.Ignored;
    return cont ? Outcome.None : Outcome.Matched;
  };
  const setAll = (scope: Scope, ctx: TransformContext): void => {
    for (let i = 0; i < setKeys.length; i++) {
      const v = setValues[i](scope, ctx);
      if (v !== undefined) scope.result[setKeys[i]] = v;
    }
  };

  // Most rules tried fail on their conditions: those reading only the view, the query and the
  // event are tested before any scope is made, by a closure made for their number.
  if (pure) {
    if (pure.length === 0) {
      return (parent, ctx) => apply(parent.child(), ctx);
    }
    if (pure.length === 1) {
      const [{ test: t0, names: n0 }] = pure;
      return (parent, ctx) => {
        const view = parent.view;
        if (precheck !== undefined && !precheck(view)) return Outcome.None;
        const m0 = t0(view, parent.ec);
        if (!m0) return Outcome.None;
        const scope = parent.child();
        capture(m0, n0, scope);
        return apply(scope, ctx);
      };
    }
    if (pure.length === 2) {
      const [{ test: t0, names: n0 }, { test: t1, names: n1 }] = pure;
      return (parent, ctx) => {
        const view = parent.view;
        if (precheck !== undefined && !precheck(view)) return Outcome.None;
        const m0 = t0(view, parent.ec);
        if (!m0) return Outcome.None;
        const m1 = t1(view, parent.ec);
        if (!m1) return Outcome.None;
        const scope = parent.child();
        capture(m0, n0, scope);
        capture(m1, n1, scope);
        return apply(scope, ctx);
      };
    }
    return (parent, ctx) => {
      const view = parent.view;
      if (precheck !== undefined && !precheck(view)) return Outcome.None;
      // the scope is made at the first capture (a later failure drops it with the rule)
      let scope: Scope | undefined;
      for (const { test, names } of pure) {
        const m = test(view, parent.ec);
        if (!m) return Outcome.None;
        if (m !== true) captureGroups(m, names, (scope ??= parent.child()));
      }
      return apply(scope ?? parent.child(), ctx);
    };
  }
  return (parent, ctx) => {
    if (precheck !== undefined && !precheck(parent.view)) return Outcome.None;
    const scope = parent.child();
    if (when !== undefined && !when(scope)) return Outcome.None;
    return apply(scope, ctx);
  };
}

function compileRuleList(specs: RuleSpec[], where: string, hooks: HooksModule): CompiledRule {
  const rules = specs.map((r, i) => compileRule(r, `${where}[${i}]`, hooks));
  return (scope, ctx) => {
    for (const rule of rules) {
      const outcome = rule(scope, ctx);
      if (outcome !== Outcome.None) return outcome;
    }
    return Outcome.None;
  };
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
 * Throws RuleError with the path of the faulty rule; a rule error found while matching
 * (a missing lookup table, say) makes that event unrecognised rather than failing the job.
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
        const scope = view ? new Scope(view, ec, result) : undefined;
        const fields = parse({
          view, ec, vars: scope ? scope.read : () => undefined, result, helpers, tables,
        });
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
  const list = compileRuleList(file.rules, 'rules', hooks);
  return {
    ruleCount: countRules(file.rules),
    match: (ec, view) => {
      if (!view) return undefined;
      const result: Fields = {};
      const outcome = list(new Scope(view, ec, result), ctx);
      if (outcome === Outcome.Ignored) return undefined;
      for (const _ in result) return result;
      return undefined;
    },
  };
}
