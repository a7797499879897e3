/**
 * Everything a job produces, reduced to digests: the answer's body, the denied file, the reject
 * files, and the report's counts. Used to show that the speed settings (threads, batch size,
 * batches in flight) and the speed work leave the output byte for byte the same.
 *
 * Written against `startApp` alone, so that the same procedure can run on an older checkout
 * (`node --import=tsx test/helpers/output-digest.ts ROOT LOG` records its expectation).
 */
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { startApp as StartApp } from './app.js';
import { post } from './http.js';

export interface RunSettings {
  readonly threads: number;
  readonly batchBytes: number;
  readonly inFlight: number;
  /** a smaller first batch (0: the first batch is like the others) */
  readonly firstBatchBytes?: number;
}

/** Request headers that make the output the same from one run (and one day) to the next. */
export const DETERMINISTIC_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Log-Format-ezproxy': '%h %l %u %t "%r" %s %b',
  'Crypting-Salt': 'output-digest',
  // dates of the day the service started, versions that change with releases (the platforms'
  // one also with the folder their hooks are compiled into)
  'Output-Fields': '-ezpaarse_date,-platforms_date,-middlewares_date,-ezpaarse_version,-middlewares_version,-platforms_version,-middlewares',
  'Reject-Files': 'all',
  // the default, which the test helper's post() turns off
  'Double-Click-Removal': 'true',
});

export interface OutputDigest {
  readonly status: number;
  readonly jobDone: string | undefined;
  /** sha1 of the answer's body */
  readonly body: string;
  readonly bodyBytes: number;
  /** sha1 of each file of the job folder that holds output (denied events, rejected lines) */
  readonly files: Record<string, string>;
  /** the report's counts (no durations nor dates; stats and first event as digests) */
  readonly counts: Record<string, unknown>;
}

const sha1 = (data: Buffer | string) => createHash('sha1').update(data).digest('hex');

/**
 * Fields whose values change from one day, or one var/ folder or part's commit, to the next; and
 * `geoip-host`, crypted with `host` since 0402e3a, and `middlewares`, the chain's names, which
 * have `cut` since the Extract header (the expectation recorded before the speed work had the
 * clear address and the chain without cut: it was recorded again on that code, with these
 * fields blanked).
 */
const VOLATILE = ['ezpaarse_date', 'platforms_date', 'platforms_version', 'middlewares_version', 'middlewares_date', 'geoip-host', 'middlewares'];
const VOLATILE_JSON = new RegExp(`"(${VOLATILE.join('|')})":"[^"]*"`, 'g');

/** JSON output keeps every field (Output-Fields is for CSV): their values are blanked there. */
function stable(bytes: Buffer): string {
  return bytes.toString('utf8').replace(VOLATILE_JSON, '"$1":""');
}

/**
 * A jsonstream job's denied file was JSON lines until it became a JSON array of the same compact
 * objects (reference 5.4): both are digested as the lines, so that the expectation recorded
 * before still says whether the events are the same.
 */
function deniedJsonAsLines(name: string, text: string): string {
  if (name !== 'denied-ecs.json' || !text.startsWith('[{"')) return text;
  return (JSON.parse(text) as unknown[]).map((e) => JSON.stringify(e)).join('\n');
}

/**
 * A digest of what in a platforms folder can change the events: the expectation holds for these
 * platforms only. Documentation (`*.md`) and the platforms' examples (each platform's `test/`)
 * are left out, so that editing them does not turn the comparison into a skip.
 */
export async function folderDigest(dir: string): Promise<string> {
  const hash = createHash('sha1');
  const walk = async (d: string): Promise<void> => {
    for (const entry of (await readdir(d, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) {
        // a platform's examples, not a platform that would be named test
        if (entry.name !== 'test' || d === dir) await walk(path);
      } else if (entry.isFile() && !entry.name.endsWith('.md')) {
        hash.update(relative(dir, path)).update('\0').update(await readFile(path)).update('\0');
      }
    }
  };
  await walk(dir);
  return hash.digest('hex');
}

/** Runs one job on a service started with the given settings and digests what it produced. */
export async function digestJob(
  startApp: typeof StartApp,
  log: Buffer,
  settings: RunSettings,
  headers: Record<string, string> = {},
): Promise<OutputDigest> {
  const service = await startApp(
    { pool: { threads: settings.threads, batchBytes: settings.batchBytes, firstBatchBytes: settings.firstBatchBytes ?? 0, inFlightPerJob: settings.inFlight, flushAfterMs: 0, batchTimeoutMs: 60_000, workerHeapMb: 1024, workerYoungMb: 4 } },
    { POOL_THREADS: String(settings.threads) },
  );
  try {
    // sent in 64 kB chunks, as a socket delivers an upload
    const chunks = Array.from({ length: Math.ceil(log.length / 65536) }, (_, i) => log.subarray(i * 65536, (i + 1) * 65536));
    const res = await post(service.url + '/', chunks, { ...DETERMINISTIC_HEADERS, ...headers });
    const id = String(res.headers['job-id']);
    const dir = join(service.varDir, 'jobs', id);
    const files: Record<string, string> = {};
    for (const name of (await readdir(dir)).sort()) {
      if (/^(denied-ecs|lines-)/.test(name)) files[name] = sha1(deniedJsonAsLines(name, stable(await readFile(join(dir, name)))));
    }
    const report = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as Record<string, Record<string, unknown>>;
    const general = report.general;
    const counts = {
      lines: general['nb-lines-input'],
      events: general['nb-ecs'],
      denied: general['nb-denied-ecs'],
      rejets: Object.fromEntries(Object.entries(report.rejets).filter(([k]) => !k.startsWith('url-'))),
      // ~600 platform counters: their digest keeps the expectation short
      stats: sha1(JSON.stringify(report.stats)),
      firstEvent: sha1(JSON.stringify(report.first_event, (k, v: unknown) => (VOLATILE.includes(k) ? '' : v))),
    };
    return {
      status: res.status,
      jobDone: res.trailers['job-done'],
      body: sha1(stable(res.bytes)),
      // of the body as digested (its volatile fields blanked)
      bodyBytes: Buffer.byteLength(stable(res.bytes)),
      files,
      counts,
    };
  } finally {
    await service.close();
  }
}

// Records the expectation on a checkout (an older commit, to compare the speed work with it).
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [root, logFile] = process.argv.slice(2);
  const { startApp } = (await import(pathToFileURL(join(root, 'test/helpers/app.ts')).href)) as { startApp: typeof StartApp };
  const log = await readFile(logFile);
  const settings = { threads: 1, batchBytes: 256 * 1024, inFlight: 4 };
  const csv = await digestJob(startApp, log, settings);
  const jsonstream = await digestJob(startApp, log, settings, { Accept: 'application/jsonstream' });
  const platforms = await folderDigest(join(root, 'repos/platforms'));
  process.stdout.write(JSON.stringify({ log: { bytes: log.length, sha1: sha1(log) }, platforms, csv, jsonstream }, null, 2) + '\n');
}
