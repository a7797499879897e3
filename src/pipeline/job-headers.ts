import type { IncomingMessage } from 'node:http';
import { StatusError } from '../status-codes.js';

/** Request headers: lower-cased names; a header sent more than once holds its values in order. */
export type RequestHeaders = Readonly<Record<string, string | string[] | undefined>>;

/** A header name as HTTP writes it (a token): no spaces, no separators. */
export const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;

/**
 * Job headers whose value is a comma list, so that sending one twice is sending both lists
 * (HTTP's rule): `Output-Fields: +a` and `Output-Fields: +b` are `+a, +b`. Every other job header
 * takes one value.
 */
const LIST_HEADERS: ReadonlySet<string> = new Set([
  'accept', 'response-encoding', 'content-encoding', 'output-fields', 'crypted-fields', 'geoip',
  'filter-platforms', 'reject-files', 'ezpaarse-middlewares', 'disable-filters',
  'ezpaarse-job-notifications', 'ezpaarse-filter-status',
]);

/**
 * A request's headers with a repeated one kept as its list of values: Node joins most repeats
 * with ", " (and drops some), which would make `Force-Parser: sd` sent twice read `sd, sd`.
 */
export function distinctHeaders(req: IncomingMessage): RequestHeaders {
  const all = req.headersDistinct as Record<string, string[]> | undefined;
  if (all === undefined) return req.headers;
  const out: Record<string, string | string[]> = {};
  for (const [name, values] of Object.entries(all)) out[name] = values.length === 1 ? values[0] : values;
  return out;
}

/** `force-parser` → `Force-Parser`, `ezpaarse-enrich` → `ezPAARSE-Enrich`, for messages. */
export function headerLabel(name: string): string {
  return name.toLowerCase().split('-').map((w) => (w === 'ezpaarse' ? 'ezPAARSE' : w === 'ecfield' ? 'ECField' : w.charAt(0).toUpperCase() + w.slice(1))).join('-');
}

/**
 * The value of a header. A list header sent more than once is its values joined with commas; any
 * other header sent more than once counts once when the values are the same, and is refused
 * (4032) when they differ: which one was meant cannot be told.
 */
export function header(headers: RequestHeaders, name: string): string | undefined {
  const key = name.toLowerCase();
  const v = headers[key];
  if (v === undefined) return undefined;
  if (!Array.isArray(v)) return utf8Header(v);
  if (LIST_HEADERS.has(key)) return utf8Header(v.join(', '));
  const distinct = [...new Set(v.map((s) => utf8Header(s).trim()))];
  if (distinct.length > 1) {
    throw new StatusError(4032, `${headerLabel(key)}: given ${v.length} times with different values (${distinct.map((s) => JSON.stringify(s)).join(', ')}): send it once`);
  }
  return utf8Header(v[0]);
}

/** A header's value as recorded (report, job row): a repeat that changes nothing shown once. */
export function recordedValue(value: string | readonly string[]): string {
  return Array.isArray(value) ? [...new Set(value.map(utf8Header))].join(', ') : utf8Header(value as string);
}

/**
 * Node reads a header's bytes as Latin-1; clients (curl, scripts) send UTF-8. Bytes that form
 * UTF-8 are read as such (`Output-Fields: +café`, a user agent, a salt); anything else stays as it
 * came, as do values already decoded (predefined settings, defaults).
 */
export function utf8Header(value: string): string {
  if (!/[\x80-\xff]/.test(value) || /[^\x00-\xff]/.test(value)) return value;
  const decoded = Buffer.from(value, 'latin1').toString('utf8');
  return decoded.includes('\ufffd') ? value : decoded;
}

/** The words a yes/no header (and a yes/no setting) takes, in any case. */
export const TRUE_WORDS: readonly string[] = ['true', '1', 'yes', 'on'];
export const FALSE_WORDS: readonly string[] = ['false', '0', 'no', 'off'];

/**
 * A yes/no job header: `fallback` when absent or empty (as every job header), else one of the
 * words above; any other value is refused with `code`, not read as the default.
 */
export function booleanHeader(headers: RequestHeaders, name: string, fallback: boolean, code: 4031 | 4032 = 4032): boolean {
  const raw = header(headers, name);
  const v = raw?.trim().toLowerCase();
  if (v === undefined || v === '') return fallback;
  if (TRUE_WORDS.includes(v)) return true;
  if (FALSE_WORDS.includes(v)) return false;
  throw new StatusError(code, `${headerLabel(name)}: expected true or false (also ${[...TRUE_WORDS.slice(1), ...FALSE_WORDS.slice(1)].join(', ')}), got ${JSON.stringify(raw)}`);
}
