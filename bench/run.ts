/**
 * `npm run bench`: end-to-end throughput and memory of the service over HTTP, beside the
 * single-threaded regex ceiling measured in the same run (README, "Memory and speed").
 *
 *   npm run bench -- [--sizes 10k,100k,1m] [--big] [--repeat 3] [--concurrent 4] [--source]
 *                    [--no-build] [--profile DIR] [--json FILE]
 *
 * Tuning settings (POOL_THREADS, BATCH_BYTES, FIRST_BATCH_BYTES, BATCHES_IN_FLIGHT, WORKER_YOUNG_MB, WORKER_HEAP_MB) are read by the
 * service from the environment, so `BATCH_BYTES=1048576 npm run bench` measures another setting.
 * The service runs with the node flags of the `start` script of package.json.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { PROJECT_ROOT } from '../src/paths.js';
import { buildDist, checkJob, cpuMs, postLog, RssSampler, startScriptEnv, startScriptFlags, startService, type Service } from './service.js';
import { targetLines, type SizeFigures } from './targets.js';
import { benchArgs, benchLog, ceiling, FORMAT, label, loadavg, log, median, parseSize, requireShared, type CeilingResult } from './common.js';

const { values: args } = benchArgs(import.meta.url, process.argv, () => parseArgs({
  options: {
    sizes: { type: 'string', default: '10k,100k,1m' },
    big: { type: 'boolean', default: false },
    repeat: { type: 'string', default: '1' },
    concurrent: { type: 'string', default: '4' },
    source: { type: 'boolean', default: false },
    'no-build': { type: 'boolean', default: false },
    profile: { type: 'string' },
    json: { type: 'string' },
  },
}));


const HEADERS = { 'Log-Format-ezproxy': FORMAT };
requireShared();

const sizes = args.sizes.split(',').map(parseSize);
if (args.big && !sizes.includes(5_000_000)) sizes.push(5_000_000);
const repeat = Math.max(1, Number(args.repeat));
const concurrent = Math.max(0, Number(args.concurrent));
const mb = (bytes: number) => bytes / 1e6;

interface JobRun { lines: number; bytes: number; wallMs: number; firstByteMs: number; events: number; peakRss: number; cpuMs: number; mainCpuMs: number }

async function measureJobs(service: Service, file: string, lines: number, jobs: number, headers: Record<string, string>): Promise<JobRun> {
  const bytes = statSync(file).size;
  const sampler = new RssSampler(service.pid);
  sampler.start();
  const cpu0 = cpuMs(service.pid);
  // the main thread's id is the process id
  const main0 = cpuMs(service.pid, service.pid);
  const t0 = performance.now();
  const results = await Promise.all(Array.from({ length: jobs }, () => postLog(service.url, file, headers)));
  const wallMs = performance.now() - t0;
  const cpu = cpuMs(service.pid) - cpu0;
  const mainCpu = cpuMs(service.pid, service.pid) - main0;
  const { peak } = sampler.stop();
  results.forEach((r, i) => checkJob(r, `job ${i + 1} on ${label(lines)} lines`));
  return {
    lines: lines * jobs,
    bytes: bytes * jobs,
    wallMs,
    firstByteMs: Math.max(...results.map((r) => r.firstByteMs)),
    // CSV: one header row, then a row per event
    events: results.reduce((n, r) => n + Math.max(0, r.rows - 1), 0),
    peakRss: peak,
    cpuMs: cpu,
    mainCpuMs: mainCpu,
  };
}

interface Row { name: string; lines: number; runs: JobRun[]; ceil?: CeilingResult[] }

/** A size's medians as the targets read them: the same figures as its printed row. */
function sizeFigures(row: Row): SizeFigures {
  return {
    lines: row.lines,
    linesPerSec: median(row.runs.map((r) => r.lines / (r.wallMs / 1000))),
    // ratio per repeat (logsift and ceiling of the same round), then the median of the ratios
    ratio: row.ceil ? median(row.runs.map((r, i) => r.wallMs / row.ceil![i].wallMs)) : undefined,
    peakRssMb: mb(Math.max(...row.runs.map((r) => r.peakRss))),
  };
}

function printRow(row: Row): void {
  const m = (f: (r: JobRun) => number) => median(row.runs.map(f));
  const wall = m((r) => r.wallMs);
  const { linesPerSec: lps, ratio, peakRssMb } = sizeFigures(row);
  const mbs = m((r) => mb(r.bytes) / (r.wallMs / 1000));
  const ceilWall = row.ceil ? median(row.ceil.map((c) => c.wallMs)) : undefined;
  log([
    row.name.padEnd(16),
    `${(wall / 1000).toFixed(2)} s`.padStart(9),
    `${Math.round(lps).toLocaleString('en')} lines/s`.padStart(17),
    `${mbs.toFixed(1)} MB/s`.padStart(11),
    `${Math.round(m((r) => r.events)).toLocaleString('en')} events`.padStart(17),
    `first ${Math.round(m((r) => r.firstByteMs))} ms`.padStart(14),
    `peak RSS ${Math.round(peakRssMb)} MB`.padStart(17),
    `CPU ${(m((r) => r.cpuMs) / wall).toFixed(2)} cores, ${(m((r) => r.cpuMs) * 1000 / row.lines).toFixed(1)} µs a line (main ${(m((r) => r.mainCpuMs) * 1000 / row.lines).toFixed(1)})`.padStart(15),
    ceilWall !== undefined ? `| ceiling ${(ceilWall / 1000).toFixed(2)} s, ${Math.round(median(row.ceil!.map((c) => c.linesPerSec))).toLocaleString('en')} lines/s in-process | ratio ${ratio!.toFixed(2)}` : '',
  ].join(' '));
}

async function main(): Promise<void> {
  const files = new Map<number, string>();
  // The warm-up posts the smallest log, at most 1M lines (a 20M-line run need not post it twice).
  const warmUpSize = Math.min(...sizes, 1_000_000);
  for (const n of [...new Set([...sizes, warmUpSize, ...(concurrent > 0 ? [1_000_000] : [])])]) files.set(n, await benchLog(n));
  if (!args.source && !args['no-build']) buildDist(PROJECT_ROOT);
  if (!args.source && !existsSync(join(PROJECT_ROOT, 'dist/src/server.js'))) throw new Error('dist/ is missing: run npm run build, or bench with --source');

  const varDir = mkdtempSync(join(tmpdir(), 'logsift-bench-'));
  const tuning = Object.fromEntries(['POOL_THREADS', 'BATCH_BYTES', 'FIRST_BATCH_BYTES', 'BATCHES_IN_FLIGHT', 'WORKER_YOUNG_MB', 'WORKER_HEAP_MB'].map((k) => [k, process.env[k] ?? 'default']));
  log(`logsift bench: node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), service from ${args.source ? 'src/ through tsx' : 'dist/ (production build)'}`);
  log(`settings: ${Object.entries(tuning).map(([k, v]) => `${k}=${v}`).join(' ')}, ${Object.entries(startScriptEnv(PROJECT_ROOT)).map(([k, v]) => `${k}=${v} `).join('')}node ${startScriptFlags(PROJECT_ROOT).join(' ') || '(no flags)'}; load average at start ${loadavg()}; ${repeat} run(s) each, medians shown`);
  if (args.profile) mkdirSync(args.profile, { recursive: true });

  const service = await startService({ root: PROJECT_ROOT, source: args.source, varDir, profileDir: args.profile });
  const rows: Row[] = [];
  let targets: string[] = [];
  try {
    // The workers compile the platforms as they start: a first small job waits for them.
    const t0 = performance.now();
    checkJob(await postLog(service.url, files.get(warmUpSize)!, HEADERS), 'warm-up');
    log(`service ${service.url} pid ${service.pid}: ready and warmed up in ${((performance.now() - t0) / 1000).toFixed(1)} s, idle RSS ${Math.round(mb(new RssSampler(service.pid).rss()))} MB`);

    for (const n of sizes) rows.push({ name: `${label(n)} lines`, lines: n, runs: [], ceil: [] });
    const noDedup: Row = { name: '1M, no dedup', lines: 1_000_000, runs: [] };
    const multi: Row = { name: `${concurrent} x 1M jobs`, lines: 4_000_000, runs: [] };
    for (let round = 0; round < repeat; round++) {
      for (const row of rows) {
        const file = files.get(row.lines)!;
        row.ceil!.push(await ceiling(file));
        row.runs.push(await measureJobs(service, file, row.lines, 1, HEADERS));
      }
      if (files.has(1_000_000)) {
        noDedup.runs.push(await measureJobs(service, files.get(1_000_000)!, 1_000_000, 1, { ...HEADERS, 'Double-Click-Removal': 'false' }));
      }
      if (concurrent > 0) multi.runs.push(await measureJobs(service, files.get(1_000_000)!, 1_000_000, concurrent, HEADERS));
      log(`round ${round + 1}/${repeat} done, load average ${loadavg()}`);
    }
    if (noDedup.runs.length) rows.push(noDedup);
    if (multi.runs.length) rows.push(multi);
    log('');
    for (const row of rows) printRow(row);
    const one = rows.find((r) => r.name === '1M lines');
    let concurrentRatio: number | undefined;
    if (one && multi.runs.length) {
      concurrentRatio = sizeFigures(multi).linesPerSec / sizeFigures(one).linesPerSec;
      log(`${concurrent} concurrent jobs: total throughput ${concurrentRatio.toFixed(2)} x one job alone`);
    }
    targets = targetLines({
      sizes: new Map(rows.filter((r) => r.ceil).map((r) => [r.lines, sizeFigures(r)])),
      firstByteNoDedupMs: noDedup.runs.length ? median(noDedup.runs.map((r) => r.firstByteMs)) : undefined,
      concurrentJobs: concurrent,
      concurrentRatio,
    });
    if (targets.length) {
      log('');
      log('targets (set for a 2-core machine; elsewhere the ratio to the ceiling is the figure that carries over):');
      for (const line of targets) log(`  ${line}`);
    }
    log(`load average at end ${loadavg()}`);
  } finally {
    await service.stop();
    rmSync(varDir, { recursive: true, force: true });
  }
  if (args.json) {
    writeFileSync(args.json, JSON.stringify({ date: new Date().toISOString(), node: process.version, tuning, source: args.source, load: loadavg(), rows, targets }, null, 2));
  }
  if (args.profile) log(`CPU profiles (main thread and workers) in ${args.profile}`);
}

main().catch((err: unknown) => {
  process.stderr.write(`bench: ${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
