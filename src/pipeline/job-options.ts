import { randomBytes } from 'node:crypto';
import iconv from 'iconv-lite';
import { StatusError } from '../status-codes.js';
import { compileFormat, isProxyFamily } from './formats/compile.js';
import { FormatError, type CompiledFormat, type ProxyFamily } from './formats/types.js';
import { compileDateFormat, DateFormatError, DEFAULT_DATE_FORMAT } from './dates.js';
import { DEFAULT_OUTPUT_FIELDS, parseOutputFields, type OutputFieldsSpec } from './output-fields.js';
import { LINE_EVENT_FIELDS, STAGE_EVENT_FIELDS } from './event-shape.js';
import { negotiateOutput } from './writers/index.js';
import type { OutputFormat } from './writers/types.js';
import { parseResponseEncoding, readResponseCharset, readResponseCompression, type ResponseEncoding } from './writers/encoding.js';
import { createCrypter } from './stages/anonymizer.js';
import { REJECT_CATEGORIES, isRejectCategory, type RejectCategory } from './stages/types.js';
import type { StatusFilter } from './stages/validity.js';
import { DEFAULT_ALERT_OPTIONS, type AlertOptions } from './job-alerts.js';
import { readDisableFilters, type ExclusionSwitches } from './stages/exclusions.js';
import { DEFAULT_MIDDLEWARES, isBuiltinMiddleware, resolveMiddlewares } from './middlewares.js';
import { readDoubleClickOptions, type DoubleClickOptions } from './double-clicks.js';
import { readChronologyTolerance } from './chronology.js';
import { charsetParameter } from './charsets.js';
import { ExtractError, parseExtract, type ExtractSpec } from './stages/cut.js';
import type { MiddlewareModule } from '../resources/middlewares.js';
import { booleanHeader, header, recordedValue, type RequestHeaders } from './job-headers.js';

export { header, utf8Header, type RequestHeaders } from './job-headers.js';

/** Geolocation fields (reference table of the Geoip header); the first three are the default columns. */
export const GEOIP_FIELDS = ['geoip-country', 'geoip-latitude', 'geoip-longitude', 'geoip-host', 'geoip-region', 'geoip-city', 'geoip-coordinates'] as const;

function readGeoip(value: string | undefined): string[] {
  const v = value?.trim().toLowerCase();
  if (v === undefined || v === '') return GEOIP_FIELDS.slice(0, 3);
  if (v === 'none') return [];
  if (v === 'all') return [...GEOIP_FIELDS];
  const fields = v.split(',').map((f) => f.trim()).filter(Boolean);
  const bad = fields.find((f) => !(GEOIP_FIELDS as readonly string[]).includes(f));
  if (bad !== undefined) throw new StatusError(4019, `${JSON.stringify(bad)} (known: none, all, ${GEOIP_FIELDS.join(', ')})`);
  return fields;
}

export const TRACE_LEVELS = ['error', 'warn', 'info', 'verbose', 'debug'] as const;
export type TraceLevel = (typeof TRACE_LEVELS)[number];

/** Everything a job's headers ask for, checked once before any line is read. */
export interface JobOptions {
  /** the format given by a Log-Format-<proxy> header; undefined means auto-detection */
  readonly format?: CompiledFormat;
  /** Log-Format-<x> headers naming no known proxy (reported as a warning) */
  readonly ignoredFormatHeaders: readonly string[];
  /** what the job's traces warn of before it starts (a setting's middleware left out…) */
  readonly warnings: readonly string[];
  readonly dateFormat: string;
  readonly maxParseAttempts: number;
  readonly requestCharset: string;
  /** Content-Encoding of the request body */
  readonly contentEncoding?: 'gzip' | 'deflate';
  readonly output: OutputFormat;
  readonly outputFields: OutputFieldsSpec;
  /** columns added by the per-event stages, in chain order (geolocation…) */
  readonly stageFields: readonly string[];
  /** the Geoip selection ([] when off) */
  readonly geoip: readonly string[];
  readonly responseEncoding: ResponseEncoding;
  readonly cleanOnly: boolean;
  readonly crypt?: { readonly fields: readonly string[]; readonly salt: string; readonly algorithm: string };
  readonly status: StatusFilter;
  readonly forceParser?: string;
  readonly filterPlatforms?: readonly string[];
  readonly allowWildcards: boolean;
  readonly forcePublisher?: string;
  readonly rejectFiles: ReadonlySet<RejectCategory>;
  readonly tracesLevel: TraceLevel;
  readonly alerts: AlertOptions;
  /**
   * ezPAARSE-Response-Timeout: how long the connection may stand still before the job fails
   * (ms, 0: never), in place of IDLE_UPLOAD_MS; undefined: that setting's
   */
  readonly idleMs?: number;
  /** the per-event chain by name (ezPAARSE-Middlewares applied to the default) */
  readonly middlewares: readonly string[];
  /** exclusion lists applied (Disable-Filters) */
  readonly exclusions: ExclusionSwitches;
  /** knowledge-base enrichment (ezPAARSE-Enrich) */
  readonly enrich: boolean;
  /** the Extract header, when the chain has `cut` */
  readonly extract?: ExtractSpec;
  /** Double-Click-*; `enabled` is false too when the deduplicator is not in the chain */
  readonly doubleClick: DoubleClickOptions;
  /** Chronology-Tolerance (seconds); undefined: strictly ordered, as the reference */
  readonly chronologyTolerance?: number;
  /** mail notifications asked for (there is no mail server: recorded and reported, not sent) */
  readonly notifications: readonly string[];
  /** the headers the job ran with, for the report and the job row (never the secret ones) */
  readonly headers: Readonly<Record<string, string>>;
}

/** Checked even when the chain has no `cut`: a setting written for another chain still gets its mistakes shown. */
function readExtract(value: string | undefined): ExtractSpec | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  try {
    return parseExtract(value);
  } catch (err) {
    if (err instanceof ExtractError) throw new StatusError(4032, `Extract: ${err.message}`);
    throw err;
  }
}

function readFormat(headers: RequestHeaders): { format?: CompiledFormat; ignored: string[] } {
  const ignored: string[] = [];
  const given: Array<[ProxyFamily, string]> = [];
  for (const name of Object.keys(headers)) {
    if (!name.startsWith('log-format-')) continue;
    const family = name.slice('log-format-'.length);
    if (isProxyFamily(family)) given.push([family, header(headers, name) ?? '']);
    else ignored.push(name);
  }
  if (given.length === 0) return { ignored };
  // Several families given: the reference's order decides (ezproxy, apache, squid), then bibliopam.
  const order: ProxyFamily[] = ['ezproxy', 'apache', 'squid', 'bibliopam'];
  given.sort((a, b) => order.indexOf(a[0]) - order.indexOf(b[0]));
  const [family, literal] = given[0];
  try {
    return { format: compileFormat(family, literal), ignored };
  } catch (err) {
    if (err instanceof FormatError) throw new StatusError(4027, `Log-Format-${family}: ${err.message}`);
    throw err;
  }
}

function readCharset(value: string | undefined, code: 4015 | 4016, name: string): string {
  const charset = (value ?? 'utf-8').trim() || 'utf-8';
  if (!iconv.encodingExists(charset)) throw new StatusError(code, `${name}: ${JSON.stringify(charset)} (known charsets: utf-8, iso-8859-1, windows-1252…)`);
  return charset;
}

/**
 * The `charset` parameter of a body that is not multipart (`text/plain; charset=iso-8859-1`):
 * a client that says how its log is encoded has it decoded so, as `Request-Charset` would.
 */
function bodyCharset(headers: RequestHeaders): string | undefined {
  const type = header(headers, 'content-type');
  if (type === undefined || /^\s*multipart\//i.test(type)) return undefined;
  return charsetParameter(type);
}

function readContentEncoding(value: string | undefined): 'gzip' | 'deflate' | undefined {
  const v = value?.trim().toLowerCase();
  if (!v || v === 'identity') return undefined;
  if (v === 'gzip' || v === 'x-gzip') return 'gzip';
  if (v === 'deflate') return 'deflate';
  throw new StatusError(4005, `Content-Encoding ${JSON.stringify(value)}: only gzip and deflate request bodies are accepted`);
}

function readStatusFilter(headers: RequestHeaders): StatusFilter {
  const raw = header(headers, 'ezpaarse-filter-status')?.trim();
  const redirects = booleanHeader(headers, 'ezpaarse-filter-redirects', true);
  if (!raw || raw.toLowerCase() === 'true') return { mode: 'default', redirects };
  if (raw.toLowerCase() === 'false') return { mode: 'off' };
  const codes = raw.split(',').map((c) => c.trim()).filter(Boolean);
  const bad = codes.find((c) => !/^[1-5][0-9][0-9]$/.test(c));
  if (bad !== undefined || codes.length === 0) {
    throw new StatusError(4032, `ezPAARSE-Filter-Status: expected true, false or a list of HTTP codes, got ${JSON.stringify(raw)}`);
  }
  return { mode: 'list', codes: new Set(codes) };
}

function readRejectFiles(value: string | undefined): Set<RejectCategory> {
  const v = value?.trim().toLowerCase();
  if (!v || v === 'none') return new Set();
  if (v === 'all') return new Set(REJECT_CATEGORIES);
  const set = new Set<RejectCategory>();
  for (const item of v.split(',').map((s) => s.trim()).filter(Boolean)) {
    const name = item;
    if (name === 'all' || name === 'none') {
      throw new StatusError(4029, `${name} stands alone; list categories without it (${REJECT_CATEGORIES.join(', ')})`);
    }
    if (!isRejectCategory(name)) {
      throw new StatusError(4029, `${JSON.stringify(item)} (known: all, none, ${REJECT_CATEGORIES.join(', ')})`);
    }
    set.add(name);
  }
  return set;
}

function readTraceLevel(value: string | undefined): TraceLevel {
  const v = value?.trim().toLowerCase();
  if (!v) return 'info';
  if (v === 'silly') return 'debug';
  if (!(TRACE_LEVELS as readonly string[]).includes(v)) {
    throw new StatusError(4030, `${JSON.stringify(value)} (known: ${TRACE_LEVELS.join(', ')}, and silly as debug)`);
  }
  return v as TraceLevel;
}

function readCount(value: string | undefined, name: string, fallback: number): number {
  const v = value?.trim();
  if (!v) return fallback;
  if (!/^[0-9]+$/.test(v)) throw new StatusError(4032, `${name}: expected a whole number, got ${JSON.stringify(value)}`);
  return Number(v);
}

/** The reference's socket timeout of a job, as logsift's idle limit: whole milliseconds, at most a day. */
function readIdleMs(value: string | undefined): number | undefined {
  if (!value?.trim()) return undefined;
  const ms = readCount(value, 'ezPAARSE-Response-Timeout', 0);
  if (ms > MAX_IDLE_MS) throw new StatusError(4032, `ezPAARSE-Response-Timeout: at most ${MAX_IDLE_MS} ms (a day), or 0 for no limit; got ${value.trim()}`);
  return ms;
}

const MAX_IDLE_MS = 86_400_000;

/**
 * Headers never recorded in a report, a trace or the database: credentials, and the salt (with
 * it, anyone reading the report could reverse the hashes by trying values).
 */
export const SECRET_HEADERS: ReadonlySet<string> = new Set(['authorization', 'proxy-authorization', 'cookie', 'crypting-salt']);

/** The request headers as the report and the job row keep them: the secret ones left out. */
export function recordedHeaders(headers: RequestHeaders): Record<string, string> {
  const seen: Record<string, string> = {};
  for (const name of Object.keys(headers)) {
    if (SECRET_HEADERS.has(name)) continue;
    const v = headers[name];
    if (v !== undefined) seen[name] = recordedValue(v);
  }
  return seen;
}

/** `mail<a@b.org>, mail<c@d.org>`: the addresses; another action is 4021. */
function readNotifications(value: string | undefined): string[] {
  const items = value?.split(',').map((s) => s.trim()).filter(Boolean) ?? [];
  return items.map((item) => {
    const m = /^mail<([^<>\s]+@[^<>\s]+)>$/i.exec(item);
    if (!m) throw new StatusError(4021, `ezPAARSE-Job-Notifications: ${JSON.stringify(item)} (only mail<address> is known)`);
    return m[1];
  });
}

/**
 * Unmatched lines are looked at one by one on the main thread and each gets a trace line: past
 * this many, a log that is not one has had every chance.
 */
export const MAX_PARSE_ATTEMPTS = 100_000;

function readMaxParseAttempts(value: string | undefined): number {
  const v = value?.trim();
  if (!v) return 10;
  const n = /^\d+$/.test(v) ? Number(v) : NaN;
  if (!(n >= 1 && n <= MAX_PARSE_ATTEMPTS)) {
    throw new StatusError(4032, `Max-Parse-Attempts: expected a whole number from 1 to ${MAX_PARSE_ATTEMPTS}, got ${JSON.stringify(value)}`);
  }
  return n;
}

function list(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const items = value.split(',').map((s) => s.trim()).filter(Boolean);
  return items.length ? items : undefined;
}

export interface OptionsContext {
  /** platform codes known to the service (Force-Parser and Filter-Platforms are checked against them) */
  readonly platforms: ReadonlySet<string>;
  /** the extra middlewares of repos/middlewares */
  readonly middlewares?: ReadonlyMap<string, MiddlewareModule>;
  /** the default chain (MIDDLEWARES setting) */
  readonly defaultMiddlewares?: readonly string[];
  /**
   * Header names (lower case) whose values a predefined setting gave, not the request: a
   * middleware or platform such a value names that this service lacks is left out with a
   * warning (`JobOptions.warnings`) instead of refusing the job. The community's settings name
   * the reference's network middlewares (crossref, ezunpaywall…): refused, a librarian who picked
   * one of them could not run a job at all.
   */
  readonly fromSetting?: ReadonlySet<string>;
}

/**
 * The chain of the job and the output columns its steps add, in chain order (reference 5.2):
 * the geolocation selection, the extra middlewares' fields. An extra middleware's factory is run
 * once here so that a bad setting of its own refuses the job (4032) before any line is read.
 */
function readChain(
  headers: RequestHeaders,
  ctx: OptionsContext,
  geoip: readonly string[],
  extract: ExtractSpec | undefined,
  seen: Readonly<Record<string, string>>,
  formatFields: readonly string[],
  warnings: string[],
): { middlewares: string[]; stageFields: string[] } {
  const extra = ctx.middlewares ?? new Map<string, MiddlewareModule>();
  const skip = ctx.fromSetting?.has('ezpaarse-middlewares')
    ? (name: string) => warnings.push(`ezPAARSE-Middlewares of the predefined setting: ${JSON.stringify(name)} is not a middleware of this service (see /info/middlewares): left out`)
    : undefined;
  const middlewares = resolveMiddlewares(header(headers, 'ezpaarse-middlewares'), ctx.defaultMiddlewares ?? DEFAULT_MIDDLEWARES, (n) => isBuiltinMiddleware(n) || extra.has(n), skip);
  const stageFields: string[] = [];
  for (const name of middlewares) {
    if (name === 'geolocalizer') stageFields.push(...geoip);
    if (name === 'cut' && extract) stageFields.push(...extract.fields);
    const mod = extra.get(name);
    if (!mod) continue;
    stageFields.push(...(mod.fields ?? []));
    try {
      mod.default({ headers: seen, formatFields });
    } catch (err) {
      throw new StatusError(4032, `middleware ${name}: ${(err as Error).message}`);
    }
  }
  return { middlewares, stageFields };
}

/** Clean-Only as recorded: a job recorded before the value was checked read anything else as false. */
function recordedCleanOnly(headers: RequestHeaders): boolean {
  try {
    return booleanHeader(headers, 'clean-only', false);
  } catch {
    return false;
  }
}

/**
 * The result's format and encoding as a job's headers ask for them: also read back from a job row's
 * recorded headers, to end the result file of a job cut off by a crash as the job would have.
 */
export function readOutputSettings(headers: RequestHeaders): { output: OutputFormat; responseEncoding: ResponseEncoding } {
  return {
    output: negotiateOutput(header(headers, 'accept'), recordedCleanOnly(headers)),
    responseEncoding: parseResponseEncoding(header(headers, 'response-charset'), header(headers, 'response-encoding')),
  };
}

/** The fields an event may have under these names: the reference's vocabulary and the pipeline's. */
const KNOWN_FIELDS: ReadonlySet<string> = new Set([
  ...DEFAULT_OUTPUT_FIELDS, ...LINE_EVENT_FIELDS, ...STAGE_EVENT_FIELDS, ...GEOIP_FIELDS,
  'host', 'login', 'status', 'size', 'user-agent', 'referer', 'session', 'cookie', 'ua', 'title', 'isbn', 'issn', 'eissn',
]);
const KNOWN_LOWER: ReadonlyMap<string, string> = new Map([...KNOWN_FIELDS].map((f) => [f.toLowerCase(), f]));

/**
 * A crypted field named with other capitals than the event's (`Host`) would leave the event's
 * field clear without a word: field names are compared as they are (reference 5.5). Refused,
 * naming the field meant, unless the log format defines that very name.
 */
function checkCryptedNames(fields: readonly string[], formatFields: readonly string[]): void {
  for (const name of fields) {
    if (KNOWN_FIELDS.has(name) || formatFields.includes(name)) continue;
    const meant = KNOWN_LOWER.get(name.toLowerCase()) ?? formatFields.find((f) => f.toLowerCase() === name.toLowerCase());
    if (meant !== undefined) {
      throw new StatusError(4032, `Crypted-Fields: "${name}" is not a field, and its values would stay clear: field names are written as the events have them; did you mean "${meant}"?`);
    }
  }
}

/** The reference's enrichments from services on the network, which logsift does not have. */
const NETWORK_ENRICHMENTS: ReadonlyArray<readonly [header: string, name: string, what: string]> = [
  ['crossref-enrich', 'Crossref-Enrich', 'Crossref'], ['istex-enrich', 'Istex-Enrich', 'ISTEX'],
  ['sudoc-enrich', 'Sudoc-Enrich', 'Sudoc'], ['hal-enrich', 'HAL-Enrich', 'HAL'],
];

/**
 * Headers of the reference that ask for what logsift does not do: said in the traces, so that a
 * script author does not take an ignored header for one obeyed.
 */
function unsupportedHeaderWarnings(headers: RequestHeaders): string[] {
  const out: string[] = [];
  for (const [name, shown, what] of NETWORK_ENRICHMENTS) {
    const value = header(headers, name)?.trim();
    if (value && !/^(?:false|no|0|off)$/i.test(value)) {
      out.push(`${shown}: ${JSON.stringify(value)} asks for the ${what} enrichment, which this service does not have (it would query a service on the network): ignored`);
    }
  }
  if (header(headers, 'relative-domain') !== undefined) {
    out.push('Relative-Domain: not read (ezPAARSE dropped it in 2015): to parse URLs without a domain, name their platform with Force-Parser');
  }
  return out;
}

/**
 * Reads and checks a job's headers. Throws StatusError (with a message saying what to fix)
 * for the first bad header: nothing has been read or written yet at that point.
 */
export function readJobOptions(headers: RequestHeaders, ctx: OptionsContext): JobOptions {
  // In the reference's order (pipeline.md 1.4), so that of several bad headers the same one is
  // named: notifications, charsets, exclusions, log format, Output-Fields, then the writer.
  const notifications = readNotifications(header(headers, 'ezpaarse-job-notifications'));
  const givenCharset = header(headers, 'request-charset');
  const requestCharset = givenCharset !== undefined
    ? readCharset(givenCharset, 4015, 'Request-Charset')
    : readCharset(bodyCharset(headers), 4015, 'the charset of Content-Type');
  const responseCharset = readResponseCharset(header(headers, 'response-charset'));
  const exclusions = readDisableFilters(header(headers, 'disable-filters'));
  const { format, ignored } = readFormat(headers);
  const dateFormat = header(headers, 'date-format')?.trim() || DEFAULT_DATE_FORMAT;
  try {
    compileDateFormat(dateFormat);
  } catch (err) {
    if (err instanceof DateFormatError) throw new StatusError(4028, `Date-Format: ${err.message}`);
    throw err;
  }
  const outputFields = parseOutputFields(header(headers, 'output-fields'));
  const cleanOnly = booleanHeader(headers, 'clean-only', false);
  const output = negotiateOutput(header(headers, 'accept'), cleanOnly);
  const responseEncoding: ResponseEncoding = { charset: responseCharset, ...readResponseCompression(header(headers, 'response-encoding')) };
  const geoip = readGeoip(header(headers, 'geoip'));
  // The salt is drawn here, once per job, so that every worker hashes with the same key.
  const salt = header(headers, 'crypting-salt') || randomBytes(40).toString('base64');
  const algorithm = header(headers, 'crypting-algorithm')?.trim() || 'sha1';
  const crypter = createCrypter({ fields: header(headers, 'crypted-fields'), salt, algorithm });
  if (crypter) checkCryptedNames(crypter.fields, format?.fieldNames ?? []);
  const warnings: string[] = [];
  warnings.push(...unsupportedHeaderWarnings(headers));
  const leftOut = (name: string, code: string) => warnings.push(`${name} of the predefined setting: ${JSON.stringify(code)} is not a platform of this service (see /info/platforms): left out`);
  let forceParser = header(headers, 'force-parser')?.trim() || undefined;
  if (forceParser && !ctx.platforms.has(forceParser)) {
    if (!ctx.fromSetting?.has('force-parser')) throw new StatusError(4033, `Force-Parser: ${JSON.stringify(forceParser)} (see /info/platforms)`);
    leftOut('Force-Parser', forceParser);
    forceParser = undefined;
  }
  let filterPlatforms = list(header(headers, 'filter-platforms'));
  const unknownFilter = filterPlatforms?.filter((p) => !ctx.platforms.has(p)) ?? [];
  if (unknownFilter.length > 0) {
    if (!ctx.fromSetting?.has('filter-platforms')) throw new StatusError(4033, `Filter-Platforms: ${JSON.stringify(unknownFilter[0])} (see /info/platforms)`);
    for (const p of unknownFilter) leftOut('Filter-Platforms', p);
    // none left: the filter keeps none (the setting asked for those platforms only), not all
    filterPlatforms = filterPlatforms!.filter((p) => ctx.platforms.has(p));
  }
  const seen = recordedHeaders(headers);
  const extract = readExtract(header(headers, 'extract'));
  const chain = readChain(headers, ctx, geoip, extract, seen, format?.fieldNames ?? [], warnings);
  const doubleClick = readDoubleClickOptions(headers);
  return {
    format,
    ignoredFormatHeaders: ignored,
    warnings,
    dateFormat,
    maxParseAttempts: readMaxParseAttempts(header(headers, 'max-parse-attempts')),
    requestCharset,
    contentEncoding: readContentEncoding(header(headers, 'content-encoding')),
    output,
    outputFields,
    stageFields: chain.stageFields,
    geoip,
    responseEncoding,
    cleanOnly,
    crypt: crypter ? { fields: crypter.fields, salt, algorithm } : undefined,
    status: readStatusFilter(headers),
    forceParser,
    filterPlatforms,
    allowWildcards: booleanHeader(headers, 'allow-domain-wildcards', false),
    forcePublisher: header(headers, 'force-ecfield-publisher')?.trim() || undefined,
    rejectFiles: readRejectFiles(header(headers, 'reject-files')),
    tracesLevel: readTraceLevel(header(headers, 'traces-level')),
    alerts: {
      activationThreshold: readCount(header(headers, 'alerts-activation-threshold'), 'Alerts-Activation-Threshold', DEFAULT_ALERT_OPTIONS.activationThreshold),
      unknownDomainsRate: readCount(header(headers, 'alerts-unknown-domains-rate'), 'Alerts-Unknown-Domains-Rate', DEFAULT_ALERT_OPTIONS.unknownDomainsRate),
    },
    notifications,
    idleMs: readIdleMs(header(headers, 'ezpaarse-response-timeout')),
    headers: seen,
    middlewares: chain.middlewares,
    exclusions,
    enrich: booleanHeader(headers, 'ezpaarse-enrich', true),
    extract: chain.middlewares.includes('cut') ? extract : undefined,
    // Clean-Only writes lines, not events: no double clicks, no chronology (reference 3.5)
    doubleClick: { ...doubleClick, enabled: doubleClick.enabled && !cleanOnly && chain.middlewares.includes('deduplicator') },
    chronologyTolerance: cleanOnly ? undefined : readChronologyTolerance(header(headers, 'chronology-tolerance')),
  };
}
