import type { UrlView } from '../url-view.js';
import type { TemplateValue, Tables } from './transforms.js';

/** Fields a platform adds to an access event (rtype, mime, unitid, doi…). */
export type Fields = Record<string, string>;

/** The event as a platform sees it: the log's fields (url, size, status, method, domain…). */
export type EventFields = Readonly<Record<string, unknown>>;

/** A regular expression: its source, or the source with flags. */
export type PatternSpec = string | { re: string; flags?: string };

/** Numeric (or, failing that, textual) comparisons on a value. */
export interface ComparisonSpec {
  eq?: string | number;
  ne?: string | number;
  gt?: number;
  gte?: number;
  lt?: number;
  lte?: number;
  in?: Array<string | number>;
}

/** `true`: must be present; `false`: must be absent. */
export type ValueTest = PatternSpec | ComparisonSpec | boolean;

/** All listed conditions must hold. Named groups of the patterns become variables. */
export interface ConditionsSpec {
  /** a pattern on that part of the URL view; `true`: the part is not empty, `false`: it is empty */
  url?: PatternSpec | boolean;
  path?: PatternSpec | boolean;
  host?: PatternSpec | boolean;
  search?: PatternSpec | boolean;
  hash?: PatternSpec | boolean;
  protocol?: PatternSpec | boolean;
  query?: Record<string, ValueTest>;
  /** query parameters named in any case (`bookid` tests `bookId`, `BOOKID`…) */
  queryi?: Record<string, ValueTest>;
  field?: Record<string, ValueTest>;
  var?: Record<string, ValueTest>;
  any?: ConditionsSpec[];
  all?: ConditionsSpec[];
  not?: ConditionsSpec;
}

/** A value map: the `from` template's value looked up in `map` (keys exact, or regexes with `regex: true`). */
export interface MapSpec {
  from: string;
  map: Record<string, string | number>;
  default?: string | number;
  regex?: boolean;
}

export type SetValue = string | number | boolean | MapSpec;

export interface RuleSpec {
  /** a label for traces and error messages */
  name?: string;
  when?: ConditionsSpec;
  /** variables computed from templates once the rule matches, before `set` and nested rules */
  let?: Record<string, string>;
  set?: Record<string, SetValue>;
  unset?: string[];
  /** a function of the platform's hooks module, called once the rule matches */
  hook?: string;
  /** nested rules, tried in order once this rule matches (first match wins) */
  rules?: RuleSpec[];
  /** go on with the following rules after this one matched (defaults, then overrides) */
  continue?: boolean;
  /** a match means: not a consultation, stop here with nothing */
  ignore?: boolean;
}

export interface RulesFileSpec {
  /** rule-format version, 1 */
  format?: number;
  /** lookup tables used by `lookup:` (in addition to the platform's `tables/*.json`) */
  tables?: Record<string, Record<string, string>>;
  rules: RuleSpec[];
}

export interface HookHelpers {
  urlView(raw: string): UrlView | undefined;
  parseQuery(query: string): Record<string, string | string[]>;
  base64(text: string): string;
  issn(text: string): string | undefined;
  isbn(text: string): string | undefined;
  decode(text: string): string | undefined;
}

export interface HookContext {
  readonly view: UrlView | undefined;
  readonly ec: EventFields;
  /** reads a rule variable (captures, `let`, `query.x`, `path`, `ec.x`…) */
  readonly vars: (name: string) => TemplateValue;
  /** the fields set so far, which the hook may read */
  readonly result: Readonly<Fields>;
  readonly helpers: HookHelpers;
  readonly tables: Tables;
}

/**
 * A rule hook returns fields to merge (a value of undefined or '' removes nothing and adds
 * nothing), or null when the rule should count as not matched.
 */
export type RuleHook = (ctx: HookContext) => Fields | Record<string, string | undefined> | null | undefined;

/** A whole-platform hook replaces the rules: it returns the fields, or null when nothing is recognised. */
export type PlatformHook = RuleHook;

/** What a platform's `hooks.ts` exports. */
export interface HooksModule {
  hooks?: Record<string, RuleHook>;
  parse?: PlatformHook;
}
