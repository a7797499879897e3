/**
 * The log-format tester behind `PUT /api/format/logparser`: a format (given, or found among the
 * auto-detected ones) tried on pasted lines, with the event the first line gives and, when it
 * does not match, how far the format goes before it breaks. Every regex run goes through a
 * `Matcher` that bounds its time: a format's custom regexes are the user's own.
 */
import { autoFormats } from './auto-detect.js';
import { compileFormat, tokenizeFormat } from './compile.js';
import { assemble, escapeLiteral } from './grammar.js';
import { checkLine, type FormatExec } from './line-check.js';
import { FormatError, type CompiledFormat, type FormatToken, type ProxyFamily } from './types.js';
import { makeEventTimer, DEFAULT_DATE_FORMAT, DateFormatError } from '../dates.js';
import { normaliseUrl } from '../url-normalise.js';

/** Runs `new RegExp(source).exec(line)` within the request's time budget; throws BudgetExceeded past it. */
export type Matcher = (source: string, line: string) => Array<string | null> | null;

export class BudgetExceeded extends Error {
  constructor() {
    super('the format took too long to run on the pasted lines');
    this.name = 'BudgetExceeded';
  }
}

/** The input's bounds: what a person pastes to try a format. */
export const TESTER_LIMITS = Object.freeze({ textBytes: 64 * 1024, lines: 20, lineChars: 8192, dateFormatChars: 200 });

export interface FormatTestInput {
  readonly logLines: string;
  readonly format?: string;
  readonly proxy?: ProxyFamily;
  readonly dateFormat?: string;
  readonly defaultZone: string;
}

export interface FormatTestResult {
  /** no format given: the formats logsift knows were tried */
  autoDetect: boolean;
  proxy: ProxyFamily | null;
  format: string | null;
  /** the format as a regular expression (`/…/`) */
  regexp: string | null;
  /** the format matches the whole first line */
  strictMatch: boolean;
  /**
   * the first line counts as matching as a job counts it: the format matches it and its date
   * reads with the date format (a job whose lines' dates do not read fails with 4003)
   */
  recognised: boolean;
  /** when it does not: the longest beginning of the format that matches the beginning of the line */
  formatBreak: string | null;
  regexpBreak: string | null;
  /** where that beginning ends, in the format and in the line (character positions) */
  breakAt: { format: number; line: number } | null;
  /** what the first line's event lacks for a job to use it */
  missing: Array<'date' | 'url' | 'domain'>;
  /** the event of the first line: its fields, date fields and normalised url and domain */
  ec: Record<string, string | number> | null;
  /** the first lines tried, and how many of them the format matches */
  lines: { tested: number; matching: number };
}

export class TesterInputError extends Error {
  constructor(readonly code: string, message: string, readonly position?: number) {
    super(message);
    this.name = 'TesterInputError';
  }
}

/** The non-empty lines to try, within the limits (a line over the limit is refused, not cut). */
export function pastedLines(text: string): string[] {
  if (Buffer.byteLength(text) > TESTER_LIMITS.textBytes) {
    throw new TesterInputError('tooMuchText', `paste at most ${TESTER_LIMITS.textBytes / 1024} KiB of lines`);
  }
  const lines = text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l)).filter((l) => l.trim() !== '').slice(0, TESTER_LIMITS.lines);
  const long = lines.findIndex((l) => l.length > TESTER_LIMITS.lineChars);
  if (long >= 0) throw new TesterInputError('lineTooLong', `line ${long + 1} is longer than ${TESTER_LIMITS.lineChars} characters`);
  return lines;
}

/** Where each token starts in the (expanded) format string. */
function tokenStarts(tokens: readonly FormatToken[]): number[] {
  const starts: number[] = [];
  let end = 0;
  for (const t of tokens) {
    if (t.kind === 'text') {
      starts.push(end);
    } else {
      starts.push(t.position);
      end = t.position + t.token.length;
    }
  }
  return starts;
}

/** The regex of the first `count` tokens, anchored at the start only. */
function prefixPattern(format: CompiledFormat, tokens: readonly FormatToken[], count: number): string {
  const part = tokens.slice(0, count);
  if (part.every((t) => t.kind === 'text')) {
    return '^' + part.map((t) => escapeLiteral((t as { text: string }).text)).join('');
  }
  const source = assemble(format.family, format.family, format.literal, part).regex.source;
  return source.endsWith('$') ? source.slice(0, -1) : source;
}

/**
 * The longest beginning of the format that matches the beginning of the line (a beginning that
 * matches means every shorter one does: a binary search over the tokens).
 */
function findBreak(format: CompiledFormat, line: string, match: Matcher): Pick<FormatTestResult, 'formatBreak' | 'regexpBreak' | 'breakAt'> {
  const tokens = tokenizeFormat(format.family, format.literal);
  const starts = tokenStarts(tokens);
  let lo = 0;
  // All the tokens may match the start of a line that goes on after them.
  let hi = tokens.length;
  let best = { pattern: '^', reached: 0 };
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    const pattern = prefixPattern(format, tokens, mid);
    const m = match(pattern, line);
    if (m) {
      lo = mid;
      best = { pattern, reached: (m[0] ?? '').length };
    } else {
      hi = mid - 1;
    }
  }
  const end = lo < tokens.length ? starts[lo] : format.literal.length;
  return {
    formatBreak: format.literal.slice(0, end),
    regexpBreak: `/${best.pattern}/`,
    breakAt: { format: end, line: best.reached },
  };
}

function compileGiven(proxy: ProxyFamily, literal: string): CompiledFormat {
  try {
    return compileFormat(proxy, literal);
  } catch (err) {
    if (err instanceof FormatError) throw new TesterInputError('invalidFormat', err.message, err.position);
    throw err;
  }
}

/** Tries a format (or the auto-detected ones) on pasted lines. */
export function testFormat(input: FormatTestInput, match: Matcher): FormatTestResult {
  const lines = pastedLines(input.logLines);
  const dateFormat = input.dateFormat?.trim() || DEFAULT_DATE_FORMAT;
  if (dateFormat.length > TESTER_LIMITS.dateFormatChars) throw new TesterInputError('invalidDateFormat', 'the date format is too long');
  let timer: ReturnType<typeof makeEventTimer>;
  try {
    timer = makeEventTimer(dateFormat, input.defaultZone);
  } catch (err) {
    if (err instanceof DateFormatError) throw new TesterInputError('invalidDateFormat', err.message);
    throw err;
  }
  const first = lines[0] ?? '';
  const given = input.format !== undefined && input.format.trim() !== '';
  // The job's own check (format, then the date with the date format), each regex under the budget.
  const exec: FormatExec = (format, line) => match(format.regex.source, line);
  const formats = given
    ? [compileGiven(input.proxy ?? 'ezproxy', input.format!)]
    // the families' own formats, in the order a job tries them
    : autoFormats().filter((f) => input.proxy === undefined || f.family === input.proxy);
  const check = checkLine(first, formats, timer, exec);
  const format = check.format ?? (given ? formats[0] : undefined);
  const result: FormatTestResult = {
    autoDetect: !given,
    proxy: format?.family ?? null,
    format: format?.literal ?? null,
    regexp: format?.source ?? null,
    strictMatch: check.fields !== undefined,
    recognised: check.time !== undefined,
    formatBreak: null,
    regexpBreak: null,
    breakAt: null,
    missing: ['date', 'url', 'domain'],
    ec: null,
    lines: { tested: lines.length, matching: 0 },
  };
  if (!format) return result;
  if (check.fields) {
    const fields = check.fields;
    const ec: Record<string, string | number> = { ...fields };
    const missing: FormatTestResult['missing'] = [];
    if (check.time) {
      ec.datetime = check.time.datetime;
      ec.date = check.time.date;
      ec.timestamp = check.time.timestamp;
    } else missing.push('date');
    if (typeof fields.url === 'string') {
      const { url, domain } = normaliseUrl(fields.url);
      ec.url = url;
      if (domain !== undefined) ec.domain = domain;
      else missing.push('domain');
    } else missing.push('url', 'domain');
    result.ec = ec;
    result.missing = missing;
  } else if (given) {
    Object.assign(result, findBreak(format, first, match));
  }
  // Counted as a job counts them: a line whose date does not read is an unknown format.
  result.lines.matching = (check.time ? 1 : 0) + lines.slice(1).filter((l) => checkLine(l, [format], timer, exec).time !== undefined).length;
  return result;
}

/** At most `n` characters of a text, `…` when cut. */
function excerpt(text: string, n = 40): string {
  return text.length > n ? `${text.slice(0, n)}…` : text;
}

/**
 * What a job's 4003 says of a given format its first line does not match: how far the format
 * goes on the line and where it breaks (the tester's break), and, when it breaks at a bare
 * `%{name}` (letters, digits and `-` only: EZproxy's own `%{User-Agent}i` copied as it is), that
 * it needs a pattern of its own. Undefined when the format matches the line.
 */
export function formatBreakHint(format: CompiledFormat, line: string, match: Matcher): string | undefined {
  if (match(format.regex.source, line)) return undefined;
  const { formatBreak, breakAt } = findBreak(format, line, match);
  if (!breakAt) return undefined;
  const there = JSON.stringify(excerpt(line.slice(breakAt.line)));
  if (breakAt.format >= format.literal.length) return `the whole format matches the start of the line, which goes on after it with ${there}`;
  // the field that ends where the format breaks (it read too little), or the next one
  const tokens = tokenizeFormat(format.family, format.literal);
  const next = tokens.find((n) => n.kind !== 'text' && n.position >= breakAt.format);
  const bareAt = tokens.find((t) => t.kind === 'custom' && t.name !== null && t.regex === undefined
    && (t.position + t.token.length === breakAt.format || t === next));
  const bare = bareAt?.kind === 'custom'
    ? `; ${bareAt.token} reads letters, digits and - only: give it a pattern, such as ${bareAt.token}<[^"]*> for a quoted field`
    : '';
  return `it matches as far as ${JSON.stringify(formatBreak)}, then ${JSON.stringify(excerpt(format.literal.slice(breakAt.format)))} does not match ${there}${bare}`;
}
