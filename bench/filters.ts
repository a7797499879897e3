/**
 * Throughput of the filters: the same log posted over HTTP to the service, with the exclusion
 * lists on (the full lists of shared/exclusions loaded) and off (`Disable-Filters: all`), and with
 * the whole default chain against a bare one. Prints lines/s and the process's peak RSS (the
 * service runs in this process: main thread and workers).
 *
 *   node /work/shared/bench/make-log.js --csv-dir ../shared/platforms --lines 1000000 --seed 42 > var/bench.log
 *   node --import=tsx bench/filters.ts [--log var/bench.log] [--runs 2] [--threads 2] [--lines 1000000]
 *                                      [--scenarios all|lists]
 *
 * Also `npm run bench:filters`. The log is generated first when it is missing.
 */
import { spawnSync } from 'node:child_process';
import { createReadStream, existsSync, openSync, closeSync, statSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { benchArgs } from './common.js';
import { buildApp } from '../src/app.js';
import { readConfig } from '../src/config.js';
import { PROJECT_ROOT, SHARED_DIR } from '../src/paths.js';

const { values } = benchArgs(import.meta.url, process.argv, () => parseArgs({
  options: {
    log: { type: 'string', default: join(PROJECT_ROOT, 'var', 'bench.log') },
    runs: { type: 'string', default: '2' },
    threads: { type: 'string', default: '2' },
    lines: { type: 'string', default: '1000000' },
    /** `lists`: only the exclusion lists on/off; `all`: also the whole chain against a bare one */
    scenarios: { type: 'string', default: 'all' },
  },
}));

const logFile = values.log!;
if (!existsSync(logFile)) {
  console.error(`generating ${logFile}…`);
  const out = openSync(logFile, 'w');
  const r = spawnSync(process.execPath, [join(SHARED_DIR, 'bench', 'make-log.js'), '--csv-dir', join(SHARED_DIR, 'platforms'), '--lines', values.lines!, '--seed', '42'], { stdio: ['ignore', out, 'inherit'] });
  closeSync(out);
  if (r.status !== 0) throw new Error('make-log failed');
}

let peakRss = 0;
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage.rss());
}, 100);

const varDir = await mkdtemp(join(tmpdir(), 'logsift-bench-'));
const config = readConfig({
  GEOIP_CACHE_DIR: readConfig({}).geoipCacheDir,
  ...process.env,
  VAR_DIR: varDir,
  PORT: '0',
  HOST: '127.0.0.1',
  POOL_THREADS: values.threads,
  EXCLUSIONS_DIRS: join(SHARED_DIR, 'exclusions'),
  PKB_DIRS: join(SHARED_DIR, 'pkb'),
});
const app = await buildApp(config, false);
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
const port = typeof address === 'object' && address ? address.port : 0;
const idleRss = process.memoryUsage.rss();

/**
 * Posts the log, reads the answer; returns the wall time, the CPU time of the process (main
 * thread and workers: it does not count the time other programs take on a busy machine) and the
 * job's own count of lines.
 */
function run(headers: Record<string, string>): Promise<{ seconds: number; cpu: number; lines: number; events: number; bytesOut: number }> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const cpuStart = process.cpuUsage();
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/', headers: { 'Content-Length': String(statSync(logFile).size), ...headers } }, (res) => {
      let bytesOut = 0;
      res.on('data', (c: Buffer) => (bytesOut += c.length));
      res.on('end', async () => {
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        const used = process.cpuUsage(cpuStart);
        const cpu = (used.user + used.system) / 1e6;
        const id = res.headers['job-id'] as string;
        const report = JSON.parse(await readFile(join(varDir, 'jobs', id, 'report.json'), 'utf8')) as { general: Record<string, number> };
        resolve({ seconds, cpu, lines: report.general['nb-lines-input'], events: report.general['nb-ecs'], bytesOut });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    createReadStream(logFile).pipe(req);
  });
}

const ALL_SCENARIOS: Array<[string, Record<string, string>]> = [
  ['exclusion lists off (Disable-Filters: all)', { 'Disable-Filters': 'all' }],
  ['exclusion lists on (full shared lists)', {}],
  ['bare chain (filter, parser, qualifier; no dedup/pkb/geoip/campus/crypt)', { 'ezPAARSE-Middlewares': '(only) filter, parser, qualifier', 'Disable-Filters': 'all' }],
  ['whole default chain, all filters on', {}],
];
const SCENARIOS = values.scenarios === 'lists' ? ALL_SCENARIOS.slice(0, 2) : ALL_SCENARIOS;

const runs = Number(values.runs);
console.log(`log ${logFile} (${(statSync(logFile).size / 1e6).toFixed(0)} MB), ${values.threads} worker threads, ${runs} rounds (scenarios interleaved, best kept)`);
const best = new Map<string, Awaited<ReturnType<typeof run>>>();
const bestCpu = new Map<string, number>();
// Interleaved rounds: a machine whose load changes during the benchmark affects every scenario alike.
for (let i = 0; i < runs; i++) {
  for (const [name, headers] of SCENARIOS) {
    const r = await run(headers);
    console.log(`  round ${i + 1}, ${name}: ${Math.round(r.lines / r.seconds)} lines/s, ${Math.round(r.lines / r.cpu)} lines per CPU second, peak RSS so far ${(peakRss / 2 ** 20).toFixed(0)} MB`);
    const b = best.get(name);
    if (!b || r.seconds < b.seconds) best.set(name, r);
    bestCpu.set(name, Math.min(bestCpu.get(name) ?? Infinity, r.cpu));
  }
}
for (const [name] of SCENARIOS) {
  const b = best.get(name)!;
  const cpu = bestCpu.get(name)!;
  console.log(`${name}: ${Math.round(b.lines / b.seconds)} lines/s wall, ${Math.round(b.lines / cpu)} lines per CPU second (${b.lines} lines, ${b.events} events, best ${b.seconds.toFixed(1)} s wall, ${cpu.toFixed(1)} s CPU)`);
}
clearInterval(sampler);
console.log(`RSS: ${(idleRss / 2 ** 20).toFixed(0)} MB idle after start, ${(peakRss / 2 ** 20).toFixed(0)} MB peak`);
await app.close();
await rm(varDir, { recursive: true, force: true });
