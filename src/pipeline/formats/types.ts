/** The proxy families whose log formats logsift can compile (`Log-Format-<family>` headers). */
export type ProxyFamily = 'ezproxy' | 'apache' | 'squid' | 'bibliopam';

/** A log format turned into one anchored regular expression plus the property of each group. */
export interface CompiledFormat {
  readonly family: ProxyFamily;
  /** the format string as given (for bibliopam `standard`, the standard format it stands for) */
  readonly literal: string;
  /** anchored ^…$, no g/y flag (so exec keeps no state between lines) */
  readonly regex: RegExp;
  /** regex as /…/ text for the report */
  readonly source: string;
  /** property of each capture group, in group order; null = a group inside a custom regex (skipped) */
  readonly groups: readonly (string | null)[];
  /** distinct property names in format order (become output columns) */
  readonly fieldNames: readonly string[];
  /** what was read leniently in the format (said in the job's traces) */
  readonly notes?: readonly string[];
}

/**
 * A format string that cannot be used; the message says which token and where (as a 1-based
 * character number), and how to fix it. `token` is the offending token as written, `position`
 * its 0-based index in the format.
 */
export class FormatError extends Error {
  constructor(
    message: string,
    readonly token?: string,
    readonly position?: number,
  ) {
    super(message);
    this.name = 'FormatError';
  }
}

/** One entry of a family's dictionary. */
export interface Directive {
  /** property the captured value is stored under */
  readonly property: string;
  /** regex text holding exactly one capturing group (the value) */
  readonly pattern: string;
  /** a value the pattern accepts, for sample lines (the whole text the pattern matches) */
  readonly sample: string;
}

/** A piece of a tokenized format string. */
export type FormatToken =
  | { readonly kind: 'text'; readonly text: string }
  | {
      readonly kind: 'directive';
      /** the directive as written, e.g. `%>s`, `%03>Hs` */
      readonly token: string;
      readonly position: number;
      readonly directive: Directive;
      /** squid members accept leading spaces (padded columns such as `%6tr`) */
      readonly padded: boolean;
    }
  | {
      readonly kind: 'custom';
      readonly token: string;
      readonly position: number;
      /** property name; null for `%<re>` (text to skip) */
      readonly name: string | null;
      /** the regex between < and >; undefined for `%{name}` (default pattern) */
      readonly regex: string | undefined;
    };

/** How one family reads the `%…` token starting at `position` (a `%` not followed by another `%`). */
export interface Dialect {
  readonly family: ProxyFamily;
  /** human name used in error messages */
  readonly label: string;
  /** reads one token; `end` is the index just after it; throws FormatError when nothing valid starts there */
  readToken(literal: string, position: number): { token: FormatToken; end: number };
}
