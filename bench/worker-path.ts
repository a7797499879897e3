/**
 * What one parsing worker costs per line, without HTTP nor threads: the benchmark log cut into
 * batches as the service cuts it and run through the worker's batch processing on this thread,
 * beside the regex ceiling on the same file. Prints a digest of everything produced (events,
 * rejects), so that a speed change can be checked to keep the output the same.
 *
 *   node --import=tsx bench/worker-path.ts [--lines 100k] [--repeat 5] [--batch-bytes 262144] [--dist] [--stages] [--users N]
 *
 * `--stages` also times each step of the chain and the serialiser (a clock read around each call:
 * about 0.1 µs more a call) and prints where the time of the last round went.
 *
 * `--dist` runs the production build (dist/), whose CPU profiles (`node --cpu-prof`) have true
 * line numbers.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { benchLog, ceiling, label, log, median, optionalSize, parseSize, requireShared } from './common.js';
import { batchesOf, benchJob } from './bench-job.js';

const { values: args } = parseArgs({
  options: {
    lines: { type: 'string', default: '100k' },
    repeat: { type: 'string', default: '5' },
    'batch-bytes': { type: 'string', default: String(256 * 1024) },
    dist: { type: 'boolean', default: false },
    'no-ceiling': { type: 'boolean', default: false },
    stages: { type: 'boolean', default: false },
    users: { type: 'string' },
  },
});
requireShared();

const lines = parseSize(args.lines);
const file = await benchLog(lines, optionalSize(args.users));
const { ctx: plainCtx, processBatch, unpackEvents } = await benchJob(args.dist);

/** Time (ns) and calls of each stage and of the serialiser, when timed (`--stages`). */
const stageTimes = new Map<string, { ns: number; calls: number }>();
function timed<A extends unknown[], R>(name: string, fn: (...a: A) => R): (...a: A) => R {
  const entry = { ns: 0, calls: 0 };
  stageTimes.set(name, entry);
  return (...a) => {
    const t0 = process.hrtime.bigint();
    const r = fn(...a);
    entry.ns += Number(process.hrtime.bigint() - t0);
    entry.calls++;
    return r;
  };
}
const ctx: typeof plainCtx = args.stages
  ? {
    ...plainCtx,
    stages: plainCtx.stages.map((s) => ({ name: s.name, run: timed(s.name, s.run.bind(s)) })),
    serializer: { serialize: timed('serialize', plainCtx.serializer.serialize.bind(plainCtx.serializer)) },
  }
  : plainCtx;
const bytes = readFileSync(file);
const batchBytes = Number(args['batch-bytes']);

const times: number[] = [];
const cpuTimes: number[] = [];
const ratios: number[] = [];
let digest = '';
let events = 0;
log(`worker path on ${label(lines)} lines (${file}), ${batchBytes} bytes a batch, from ${args.dist ? 'dist/' : 'src/'}`);
for (let round = 0; round < Number(args.repeat); round++) {
  const hash = createHash('sha1');
  events = 0;
  let seq = 0;
  const total = { lines: 0, rejects: {} as Record<string, number>, unknownDomains: {} as Record<string, number> };
  for (const entry of stageTimes.values()) { entry.ns = 0; entry.calls = 0; }
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  for (const batch of batchesOf(bytes, batchBytes)) {
    const r = processBatch(ctx, batch, seq++);
    events += r.events.count;
    for (const e of unpackEvents(r.events)) hash.update(e.text).update(e.denied ? '\n1' : '\n0');
    total.lines += r.lines;
    for (const [k, n] of Object.entries(r.rejects)) total.rejects[k] = (total.rejects[k] ?? 0) + n;
    for (const [k, n] of Object.entries(r.unknownDomains)) total.unknownDomains[k] = (total.unknownDomains[k] ?? 0) + n;
  }
  // totals, not per batch: the digest does not depend on the batch size
  hash.update(JSON.stringify([total.lines, Object.entries(total.rejects).sort(), Object.entries(total.unknownDomains).sort()]));
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  digest = hash.digest('hex');
  times.push(ms);
  cpuTimes.push(cpuMs);
  const ceil = args['no-ceiling'] ? undefined : await ceiling(file);
  if (ceil) ratios.push(ms / ceil.inProcessMs);
  log(`  ${(ms / 1000).toFixed(2)} s (CPU ${(cpuMs / 1000).toFixed(2)} s), ${Math.round(lines / (ms / 1000)).toLocaleString('en')} lines/s${ceil ? `; ceiling ${(ceil.inProcessMs / 1000).toFixed(2)} s in-process, ratio ${(ms / ceil.inProcessMs).toFixed(2)}` : ''}`);
}
log(`median ${Math.round(lines / (median(times) / 1000)).toLocaleString('en')} lines/s, ${(median(cpuTimes) * 1000 / lines).toFixed(2)} µs CPU a line${ratios.length ? `, ${median(ratios).toFixed(2)} x the ceiling's time` : ''}; ${events} events; peak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MB; digest ${digest}`);
if (args.stages) {
  const totalMs = times[times.length - 1];
  log(`last round by step (${totalMs.toFixed(0)} ms in all; the rest is cutting, decoding, the line-to-event step, hashing and packing):`);
  for (const [name, { ns, calls }] of stageTimes) {
    log(`  ${name.padEnd(20)} ${(ns / 1e6).toFixed(0).padStart(6)} ms ${(100 * ns / 1e6 / totalMs).toFixed(1).padStart(5)}%  ${calls.toLocaleString('en').padStart(10)} calls  ${calls ? (ns / calls / 1000).toFixed(2) : '-'} µs a call`);
  }
}
const { getHeapStatistics } = await import('node:v8');
const h = getHeapStatistics();
log(`heap used ${Math.round(h.used_heap_size / 1e6)} MB of ${Math.round(h.total_heap_size / 1e6)} MB, peak malloced ${Math.round(h.peak_malloced_memory / 1e6)} MB`);
if (global.gc) { global.gc(); log(`after a full GC: ${Math.round(getHeapStatistics().used_heap_size / 1e6)} MB`); }
