import type { ProxyFamily } from './formats/types.js';
import { CSV_FAMILY } from './formats/csv-rows.js';
import type { JobOptions } from './job-options.js';
import type { OutputKind } from './writers/types.js';
import type { RejectCategory } from './stages/types.js';
import type { StatusFilter } from './stages/validity.js';
import type { DoubleClickOptions } from './double-clicks.js';
import type { PackedEvents } from './packed-events.js';

/** How a job's lines read: a log format, or the rows of a CSV file of events (formats/csv-events). */
export type JobFormat =
  | { readonly family: ProxyFamily; readonly literal: string }
  | { readonly family: typeof CSV_FAMILY; readonly columns: readonly string[] };

/**
 * What a parsing worker needs to know about a job: plain, structured-clonable data sent with
 * each batch and compiled once per worker (regexes, date parser, serialiser, chain).
 */
export interface JobSpec extends Pick<JobOptions, 'middlewares' | 'exclusions' | 'enrich' | 'extract'> {
  readonly id: string;
  readonly format: JobFormat;
  readonly dateFormat: string;
  readonly defaultZone: string;
  /** charset of the batch bytes (`utf-8` once the main thread has transcoded a non-ASCII-compatible input) */
  readonly charset: string;
  readonly output: { readonly kind: OutputKind; readonly columns: readonly string[] };
  readonly cleanOnly: boolean;
  readonly crypt?: { readonly fields: readonly string[]; readonly salt: string; readonly algorithm: string };
  readonly status: StatusFilter;
  readonly platforms: {
    readonly force?: string;
    readonly only?: readonly string[];
    readonly wildcards: boolean;
    readonly publisher?: string;
  };
  /** categories whose original lines come back with the batch (the reject files asked for) */
  readonly keepLines: readonly RejectCategory[];
  /** events carry their original line (needed when duplicate, unordered or pkb-miss lines are written) */
  readonly keepRaw: boolean;
  /** provenance fields added to every event (ezpaarse_version, platforms_version…) */
  readonly provenance: Readonly<Record<string, string>>;
  /** geolocation (Geoip other than none) */
  readonly geolocate: boolean;
  /** double-click settings, when the deduplicator is on (its keys are computed in the workers) */
  readonly doubleClick?: DoubleClickOptions;
  /** the job's request headers (lower-cased names), read by the extra middlewares */
  readonly headers: Readonly<Record<string, string>>;
}

/** One event as a worker hands it back: its final text and what the main thread's stages need. */
export interface EventRecord {
  /** Unix seconds */
  readonly ts: number;
  /** the serialised event, without separators: UTF-8 bytes once back on the main thread */
  readonly text: string | Uint8Array;
  readonly denied: boolean;
  readonly platform?: string;
  readonly rtype?: string;
  readonly mime?: string;
  /** the original line, when the spec asks for it */
  readonly raw?: string;
  /** every field, when the spec asks for it */
  readonly json?: string;
  /** double clicks: the key compared on the main thread (platform, window class, user, unitid, rtype) */
  readonly dupKey?: string;
  /** double clicks: the window of the event's class, seconds */
  readonly dupWindow?: number;
  /** on-campus-counter: the client is on campus (undefined when the step did not run or saw no host) */
  readonly campus?: boolean;
  /** the enhancer found no title for it: counted as pkb-miss once the double clicks are out */
  readonly pkbMiss?: boolean;
}

/** What a worker returns for one batch of lines. */
export interface BatchResult {
  readonly seq: number;
  /** non-empty lines read */
  readonly lines: number;
  /** transferred with the result, not cloned (see packed-events) */
  readonly events: PackedEvents;
  /** rejected lines by category (counted whether or not their lines are kept) */
  readonly rejects: Partial<Record<RejectCategory, number>>;
  readonly rejectedLines: Partial<Record<RejectCategory, string[]>>;
  /** lines rejected as unknown-domains, by domain (for the report's alerts) */
  readonly unknownDomains: Record<string, number>;
  /** a few messages of unexpected errors, for the traces */
  readonly errors: string[];
}

/** The spec of a job whose format is known: what its options mean to the workers. */
export function jobSpec(
  id: string,
  format: JobFormat,
  o: JobOptions,
  env: { defaultZone: string; charset: string; columns: readonly string[]; versions: Readonly<Record<string, string>> },
): JobSpec {
  return {
    id,
    format: format.family === CSV_FAMILY ? { family: format.family, columns: format.columns } : { family: format.family, literal: format.literal },
    dateFormat: o.dateFormat,
    defaultZone: env.defaultZone,
    charset: env.charset,
    output: { kind: o.output.kind, columns: env.columns },
    cleanOnly: o.cleanOnly,
    crypt: o.crypt,
    status: o.status,
    platforms: { force: o.forceParser, only: o.filterPlatforms, wildcards: o.allowWildcards, publisher: o.forcePublisher },
    keepLines: [...o.rejectFiles],
    keepRaw: o.rejectFiles.has('duplicate-ecs') || o.rejectFiles.has('unordered-ecs') || o.rejectFiles.has('pkb-miss-ecs'),
    provenance: { ...env.versions, middlewares: o.middlewares.join(', ') },
    middlewares: o.middlewares,
    exclusions: o.exclusions,
    enrich: o.enrich,
    extract: o.extract,
    geolocate: o.geoip.length > 0,
    doubleClick: o.doubleClick.enabled ? o.doubleClick : undefined,
    headers: o.headers,
  };
}
