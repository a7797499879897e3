/**
 * How far below a worker's path a plain one would be: in one process, on the same batches, in
 * turn (the machine's speed drifts too much between processes), each round runs
 *
 *   ceiling   the shared ceiling's work (cut, decode, the EZproxy regex, the host sliced by hand);
 *   plain     a worker's work for the default job written as plainly as it can be, in locals:
 *             no event object, no stages, no report; the date cached by minute, the host, the
 *             static-file and status filters, the robots' and ignored domains' sets, the domain
 *             router, then for a consultation the double-click key, geolocation and crypting
 *             caches, the SHA-1 log_id and the CSV row written as UTF-8. The platforms' answers
 *             come from a table filled by the first round (one Map lookup a URL);
 *   +rules    the same, the platforms' rules run (the URL view and each candidate's `match`);
 *   worker    the worker's own batch processing (`processBatch`, as `worker-path.ts` runs it),
 *
 * and prints each one's CPU a line and its ratio to the ceiling. `plain` and `+rules` do less than
 * the worker (no double-click window, no report's counts, a fixed country): floors, not rivals;
 * they give more events (no double clicks removed, robots not checked by ranges).
 * `--match-times` also times each `match` call of `+rules`, answers and misses apart (a clock read
 * around each call).
 *
 *   node --import=tsx bench/floor.ts [--lines 300k] [--rounds 5] [--match-times]
 *
 * Reads `dist/` (npm run build) and the benchmark log (../shared).
 */
import { createHmac, hash as oneShot } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { benchLog, FORMAT, label, log, median, parseSize, requireShared } from './common.js';
import { batchesOf, benchJob, importBuilt } from './bench-job.js';

const { values: args } = parseArgs({
  options: {
    lines: { type: 'string', default: '300k' },
    rounds: { type: 'string', default: '5' },
    'match-times': { type: 'boolean', default: false },
  },
});
requireShared();
const lines = parseSize(args.lines);
const file = await benchLog(lines);
const bytes = readFileSync(file);
const { platforms, spec, ctx, processBatch } = await benchJob(true);
const { urlView } = await importBuilt<typeof import('../src/platforms/url-view.js')>('platforms/url-view', true);
const { compileFormat } = await importBuilt<typeof import('../src/pipeline/formats/compile.js')>('pipeline/formats/compile', true);
type Platform = typeof platforms.platforms extends ReadonlyMap<string, infer P> ? P : never;

/** Batches as the service makes them (256 KB of whole lines, each its own buffer). */
const batches = (): Generator<Uint8Array> => batchesOf(bytes, 256 * 1024);

function eachLine(batch: Uint8Array, fn: (line: string) => void): void {
  const buf = Buffer.from(batch.buffer, batch.byteOffset, batch.byteLength);
  for (let start = 0; start < buf.length;) {
    let end = buf.indexOf(10, start);
    if (end < 0) end = buf.length;
    fn(buf.toString('utf8', start, end));
    start = end + 1;
  }
}

function hostOf(url: string): string {
  let i = url.indexOf('://');
  i = i < 0 ? 0 : i + 3;
  let j = i;
  for (; j < url.length; j++) {
    const c = url.charCodeAt(j);
    if (c === 47 || c === 58 || c === 63 || c === 35) break;
  }
  return url.slice(i, j).toLowerCase();
}

/** CPU milliseconds of fn. */
function cpuOf(fn: () => void): number {
  const c0 = process.cpuUsage();
  fn();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000;
}

// The ceiling's own regex and work (../shared/bench/ceiling.js regex).
const CEILING_RE = /^([\w.:-]+(?:, ?[\w.:-]+)*) ([\w-]+) ([\w@.%,=-]+) \[([^\]]+)\] "[A-Z]+ ([^ ]+) [^ ]+" (\d+) (\d+)$/;
function ceilingRound(): void {
  const hosts = new Map<string, number>();
  for (const batch of batches()) {
    eachLine(batch, (line) => {
      const m = CEILING_RE.exec(line);
      if (!m) return;
      const h = hostOf(m[5]);
      hosts.set(h, (hosts.get(h) ?? 0) + 1);
    });
  }
}

// the job's own format regex, its groups read by position
const format = compileFormat('ezproxy', FORMAT);
const group = (name: string): number => format.groups.indexOf(name) + 1;
const [HOST, LOGIN, DATETIME, URL, STATUS] = ['host', 'login', 'datetime', 'url', 'status'].map(group);
const STATIC = new Set(['otf', 'css', 'gif', 'jpg', 'jpeg', 'png', 'js', 'woff', 'woff2', 'ttf', 'eot', 'map']);
const MONTHS: Record<string, string> = { Jan: '01', Feb: '02', Mar: '03', Apr: '04', May: '05', Jun: '06', Jul: '07', Aug: '08', Sep: '09', Oct: '10', Nov: '11', Dec: '12' };
const SPECIAL = /[";\r\n]/;
const PROVENANCE = ';bench;2024-01-01;;;bench;2024-01-01;' + spec.middlewares.join(',');
// a set lookup each stands for the exclusion lists (the worker's also check address ranges)
const robots = new Set<string>();
const ignoredDomains = new Set<string>();

function cell(v: unknown): string {
  if (v === undefined) return '';
  const t = String(v).trim();
  return SPECIAL.test(t) ? '"' + t.replaceAll('"', '""') + '"' : t;
}

type Fields = Record<string, string> | undefined;
interface Answer { readonly platform: Platform; readonly fields: Fields }
const answers = new Map<string, Answer | undefined>();
const matchTimes = { answers: 0, answerNs: 0, misses: 0, missNs: 0 };

/** The platforms' answer for a URL of a routed host: their rules run, or (answered) read from the table. */
function runRules(raw: string, host: string, candidates: readonly Platform[]): Answer | undefined {
  const view = urlView(raw);
  for (const p of candidates) {
    const t0 = args['match-times'] ? process.hrtime.bigint() : 0n;
    const fields = p.match({ url: raw, domain: host }, view) as Fields;
    if (args['match-times']) {
      const ns = Number(process.hrtime.bigint() - t0);
      if (fields) { matchTimes.answers++; matchTimes.answerNs += ns; } else { matchTimes.misses++; matchTimes.missNs += ns; }
    }
    if (fields) return { platform: p, fields };
  }
  return undefined;
}

/** The plain path; returns its count of events. */
function plainRound(rules: boolean): number {
  const minutes = new Map<string, readonly [string, string, number]>();
  const crypted = new Map<string, string>();
  const countries = new Map<string, string>();
  const clicks = new Map<string, number>();
  const out = Buffer.allocUnsafe(1024 * 1024);
  let events = 0;
  for (const batch of batches()) {
    let at = 0;
    eachLine(batch, (line) => {
      const m = format.regex.exec(line);
      if (m === null) return;
      const raw = m[URL];
      const d = m[DATETIME];
      const minuteKey = d.slice(0, 17) + d.slice(20);
      let minute = minutes.get(minuteKey);
      if (minute === undefined) {
        const iso = `${d.slice(7, 11)}-${MONTHS[d.slice(3, 6)]}-${d.slice(0, 2)}T${d.slice(12, 17)}`;
        minute = [iso, iso.slice(0, 10), Date.parse(`${iso}:00${d.slice(21, 24)}:${d.slice(24, 26)}`)];
        minutes.set(minuteKey, minute);
      }
      const seconds = d.slice(18, 20);
      const ts = minute[2] / 1000 + Number(seconds);
      const host = hostOf(raw);
      let queryAt = raw.indexOf('?');
      if (queryAt < 0) queryAt = raw.length;
      const dot = raw.lastIndexOf('.', queryAt - 1);
      if (dot > raw.lastIndexOf('/', queryAt - 1) && STATIC.has(raw.slice(dot + 1, queryAt).toLowerCase())) return;
      const status = m[STATUS];
      if (status !== '200' && status !== '304' && status !== '401' && status !== '403' && status !== '301' && status !== '302') return;
      const client = m[HOST];
      if (robots.has(client) || ignoredDomains.has(host)) return;
      const candidates = platforms.router.lookup(host, false);
      if (candidates.length === 0) return;
      let answer: Answer | undefined;
      if (rules) {
        answer = runRules(raw, host, candidates);
        if (!answers.has(raw)) answers.set(raw, answer);
      } else {
        answer = answers.get(raw);
      }
      if (answer === undefined) return;
      const { platform: p, fields } = answer;
      const login = m[LOGIN];
      clicks.set(login + '|' + (fields!.unitid ?? raw) + '|' + (fields!.mime ?? ''), ts);
      if (clicks.size > 5000) clicks.clear();
      let country = countries.get(client);
      if (country === undefined) countries.set(client, country = 'FR');
      let cryptedLogin = crypted.get(login);
      if (cryptedLogin === undefined) crypted.set(login, cryptedLogin = createHmac('sha1', 'bench').update(login).digest('hex'));
      // crypted as the default job crypts it, though not among the default columns
      if (!crypted.has(client)) crypted.set(client, createHmac('sha1', 'bench').update(client).digest('hex'));
      const logId = oneShot('sha1', line, 'hex');
      const row = minute[0] + ':' + seconds + ';' + minute[1] + ';' + cryptedLogin + ';' + p.name + ';' + cell(p.manifest.longname)
        + ';' + cell(p.manifest.publisher_name) + ';' + cell(fields!.rtype) + ';' + cell(fields!.mime) + ';' + cell(fields!.print_identifier)
        + ';' + cell(fields!.online_identifier) + ';' + cell(fields!.title_id) + ';' + cell(fields!.doi) + ';' + cell(fields!.publication_title)
        + ';' + cell(fields!.publication_date) + ';' + cell(fields!.unitid) + ';' + host + ';' + country + ';' + logId + PROVENANCE + '\n';
      if (at + row.length * 3 > out.length) at = 0;
      at += out.write(row, at);
      events++;
    });
  }
  return events;
}

function workerRound(): number {
  let seq = 0;
  let events = 0;
  for (const batch of batches()) events += processBatch(ctx, batch, seq++).events.count;
  return events;
}

const perLine = (ms: number): string => (ms * 1000 / lines).toFixed(2);
log(`floors of a worker's path on ${label(lines)} lines (${file}), in one process, in turn`);
const events = { plain: 0, worker: 0 };
const warm = cpuOf(() => { events.plain = plainRound(true); });
log(`  warm-up (+rules, fills the platforms' answers): ${perLine(warm)} µs a line, ${events.plain} events`);
const micros = { ceiling: [] as number[], plain: [] as number[], rules: [] as number[], worker: [] as number[] };
for (let round = 1; round <= Number(args.rounds); round++) {
  Object.assign(matchTimes, { answers: 0, answerNs: 0, misses: 0, missNs: 0 });
  const c = cpuOf(ceilingRound);
  const p = cpuOf(() => { events.plain = plainRound(false); });
  const r = cpuOf(() => plainRound(true));
  const w = cpuOf(() => { events.worker = workerRound(); });
  for (const [k, ms] of [['ceiling', c], ['plain', p], ['rules', r], ['worker', w]] as const) micros[k].push(ms * 1000 / lines);
  log(`  round ${round}: ceiling ${perLine(c)} µs a line; plain ${perLine(p)} (${(p / c).toFixed(2)} x); +rules ${perLine(r)} (${(r / c).toFixed(2)} x); worker ${perLine(w)} (${(w / c).toFixed(2)} x)`);
  if (args['match-times']) {
    log(`    match: ${matchTimes.answers} answers, ${(matchTimes.answerNs / matchTimes.answers / 1000).toFixed(2)} µs each; ${matchTimes.misses} misses, ${(matchTimes.missNs / matchTimes.misses / 1000).toFixed(2)} µs each`);
  }
}
/** The median of a path's per-round ratios to that round's ceiling. */
const ratio = (k: 'plain' | 'rules' | 'worker'): string => median(micros[k].map((us, i) => us / micros.ceiling[i])).toFixed(2);
log(`medians, µs of CPU a line: ceiling ${median(micros.ceiling).toFixed(2)}, plain ${median(micros.plain).toFixed(2)} (${ratio('plain')} x the ceiling), +rules ${median(micros.rules).toFixed(2)} (${ratio('rules')} x), worker ${median(micros.worker).toFixed(2)} (${ratio('worker')} x); events: plain ${events.plain}, worker ${events.worker}`);
