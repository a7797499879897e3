/**
 * `npm run bench:compare`: two variants of the service measured side by side in one run, so that
 * a change is judged against the machine's drift (this kind of machine drifts by 20 to 30% within
 * an hour). A variant is a checkout with settings: this checkout, and another one (`--other`, a
 * git worktree of the code before a change, say) or the same one with other settings.
 *
 *   npm run bench:compare -- [--other DIR] [--env K=V,…] [--other-env K=V,…] [--rounds 4]
 *                            [--pairs 2] [--lines 1m] [--concurrent 1] [--no-build]
 *
 * Each round starts both services afresh (first A, then B; the other way in the next round), reads
 * their idle RSS, warms them up (a 10k-line job each, then a job of the benchmark log each, not
 * measured), then posts `--pairs` pairs of jobs of the benchmark log, one job at a time,
 * alternating (default headers: double clicks on, CSV). `--concurrent N`: each measured job is N
 * jobs of the log posted at once (what a worker's jobs share, or not, shows when they interleave).
 * Printed: each pair and its throughput ratio, the medians of each variant, and the ratio of each
 * round (the median of its pairs) and their median. A build compared with itself gave rounds from
 * 0.951 to 1.018: differences under about 5% are not resolved (bench/README.md, "Comparing two builds").
 * Environment settings reach the service's process, glibc's malloc settings included.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { PROJECT_ROOT } from '../src/paths.js';
import { buildDist, checkJob, cpuMs, postLog, RssSampler, startService, type Service } from './service.js';
import { benchArgs, benchLog, FORMAT, label, loadavg, log, median, parseSize, requireShared } from './common.js';

const { values: args } = benchArgs(import.meta.url, process.argv, () => parseArgs({
  options: {
    other: { type: 'string' },
    env: { type: 'string', default: '' },
    'other-env': { type: 'string', default: '' },
    rounds: { type: 'string', default: '4' },
    pairs: { type: 'string', default: '2' },
    lines: { type: 'string', default: '1m' },
    concurrent: { type: 'string', default: '1' },
    'no-build': { type: 'boolean', default: false },
  },
}));

requireShared();

interface Variant { readonly name: string; readonly root: string; readonly env: Record<string, string> }
interface Run { readonly wallMs: number; readonly cpuUsPerLine: number; readonly peakMb: number }

function parseEnv(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const item of text.split(',').map((s) => s.trim()).filter(Boolean)) {
    const eq = item.indexOf('=');
    if (eq <= 0) throw new Error(`--env: expected K=V, got ${JSON.stringify(item)}`);
    env[item.slice(0, eq)] = item.slice(eq + 1);
  }
  return env;
}

function describe(v: Variant): string {
  const env = Object.entries(v.env).map(([k, val]) => `${k}=${val}`).join(' ');
  return `${v.root}${env ? ` with ${env}` : ''}`;
}

/** Builds a checkout that can be built; one without node_modules must come with its dist/. */
function build(root: string): void {
  if (existsSync(join(root, 'node_modules'))) buildDist(root);
  else if (!existsSync(join(root, 'dist/src/server.js'))) throw new Error(`${root} has neither node_modules (to build it) nor dist/`);
}

interface Started { readonly variant: Variant; readonly service: Service; readonly varDir: string; readonly idleMb: number }

async function start(v: Variant): Promise<Started> {
  const varDir = mkdtempSync(join(tmpdir(), 'logsift-compare-'));
  const service = await startService({ root: v.root, source: false, varDir, env: v.env }).catch((err: unknown) => {
    rmSync(varDir, { recursive: true, force: true });
    throw err;
  });
  // idle: the workers have compiled the platforms (a fresh service's RSS climbs for a few seconds)
  await new Promise((r) => setTimeout(r, 3000));
  return { variant: v, service, varDir, idleMb: new RssSampler(service.pid).rss() / 1e6 };
}

async function warmUp(s: Started, file: string): Promise<void> {
  checkJob(await postLog(s.service.url, file, { 'Log-Format-ezproxy': FORMAT }), `${s.variant.name}, warm-up`);
}

async function stop(s: Started): Promise<void> {
  await s.service.stop();
  rmSync(s.varDir, { recursive: true, force: true });
}

/** `jobs` jobs of `file` at once; `lines`: the lines of them all. */
async function job(s: Started, file: string, lines: number, jobs: number): Promise<Run> {
  const sampler = new RssSampler(s.service.pid);
  sampler.start();
  const cpu0 = cpuMs(s.service.pid);
  const t0 = performance.now();
  const results = await Promise.all(Array.from({ length: jobs }, () => postLog(s.service.url, file, { 'Log-Format-ezproxy': FORMAT })));
  const wallMs = performance.now() - t0;
  const cpu = cpuMs(s.service.pid) - cpu0;
  const { peak } = sampler.stop();
  for (const r of results) checkJob(r, s.variant.name);
  return { wallMs, cpuUsPerLine: (cpu * 1000) / lines, peakMb: peak / 1e6 };
}

const show = (r: Run): string => `${(r.wallMs / 1000).toFixed(2)} s, ${r.cpuUsPerLine.toFixed(1)} µs CPU a line, peak ${r.peakMb.toFixed(0)} MB`;

function summary(runs: readonly Run[], idleMb: readonly number[], lines: number): { lps: number; cpu: number; peak: number; idle: number } {
  return {
    lps: median(runs.map((r) => lines / (r.wallMs / 1000))),
    cpu: median(runs.map((r) => r.cpuUsPerLine)),
    peak: median(runs.map((r) => r.peakMb)),
    idle: median(idleMb),
  };
}

async function main(): Promise<void> {
  const concurrent = Math.max(1, Number(args.concurrent));
  const logLines = parseSize(args.lines);
  const lines = logLines * concurrent;
  const pairs = Math.max(1, Number(args.pairs));
  const rounds = Math.max(1, Number(args.rounds));
  const variants: Variant[] = [
    { name: 'A', root: PROJECT_ROOT, env: parseEnv(args.env) },
    { name: 'B', root: args.other ? resolve(args.other) : PROJECT_ROOT, env: parseEnv(args['other-env']) },
  ];
  if (variants[1].root === variants[0].root && JSON.stringify(variants[1].env) === JSON.stringify(variants[0].env)) {
    throw new Error('the two variants are the same: give --other DIR, or other settings with --env / --other-env');
  }
  const file = await benchLog(logLines);
  const warmup = await benchLog(10_000);
  if (!args['no-build']) for (const root of new Set(variants.map((v) => v.root))) build(root);
  for (const v of variants) {
    if (!existsSync(join(v.root, 'dist/src/server.js'))) throw new Error(`${v.root}: dist/ is missing (npm run build)`);
    log(`${v.name}: ${describe(v)}`);
  }
  log(`${label(logLines)} lines${concurrent > 1 ? `, ${concurrent} jobs at once` : ''}; ${rounds} round(s) of ${pairs} pair(s) of jobs, alternating; load average at start ${loadavg()}`);
  const runs = new Map<string, Run[]>(variants.map((v) => [v.name, []]));
  const idle = new Map<string, number[]>(variants.map((v) => [v.name, []]));
  const roundRatios: number[] = [];
  const cpuRatios: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const ratios: number[] = [];
    // Both services run side by side (the one not measured is idle), so that each pair of jobs
    // is measured within seconds: what the machine's drift does to one, it does to the other.
    const started: Started[] = [];
    try {
      // Each job of a service follows one job of the other, warm-ups included, so that both have
      // the same history: a service left idle longer (while the other started and warmed up) ran
      // its jobs about 10% slower, and peaked lower, as if V8 had shrunk its heaps meanwhile (a
      // build against itself measured 1.116, 0.924, 1.114, 0.919 by round, the one started second
      // ahead each time).
      for (const v of round % 2 === 0 ? variants : [...variants].reverse()) started.push(await start(v));
      // The first jobs of a fresh service are slower (V8 still optimising): not measured.
      for (const f of [warmup, file]) for (const s of started) await warmUp(s, f);
      for (const s of started) idle.get(s.variant.name)!.push(s.idleMb);
      log(`round ${round + 1}: idle RSS ${started.map((s) => `${s.variant.name} ${s.idleMb.toFixed(0)} MB`).join(', ')}`);
      for (let p = 0; p < pairs; p++) {
        const got = new Map<string, Run>();
        for (const s of started) got.set(s.variant.name, await job(s, file, lines, concurrent));
        const a = got.get('A')!;
        const b = got.get('B')!;
        runs.get('A')!.push(a);
        runs.get('B')!.push(b);
        ratios.push(a.wallMs / b.wallMs);
        cpuRatios.push(b.cpuUsPerLine / a.cpuUsPerLine);
        log(`  pair ${p + 1}: A ${show(a)} | B ${show(b)} | B/A throughput ${(a.wallMs / b.wallMs).toFixed(3)}`);
      }
    } finally {
      await Promise.all(started.map(stop));
    }
    roundRatios.push(median(ratios));
  }
  const [a, b] = variants.map((v) => summary(runs.get(v.name)!, idle.get(v.name)!, lines));
  log('');
  log('medians       lines/s   µs CPU a line   peak RSS   idle RSS');
  for (const [name, s] of [['A', a], ['B', b]] as const) {
    log(`${name}        ${Math.round(s.lps).toLocaleString('en').padStart(10)}   ${s.cpu.toFixed(2).padStart(13)}   ${s.peak.toFixed(0).padStart(5)} MB   ${s.idle.toFixed(0).padStart(5)} MB`);
  }
  log(`B / A throughput by round: ${roundRatios.map((r) => r.toFixed(3)).join(', ')}`);
  log(`B / A: throughput ${median(roundRatios).toFixed(3)} (median of the rounds), CPU a line ${median(cpuRatios).toFixed(3)} (median of the pairs); peak RSS ${(b.peak - a.peak >= 0 ? '+' : '') + (b.peak - a.peak).toFixed(0)} MB, idle RSS ${(b.idle - a.idle >= 0 ? '+' : '') + (b.idle - a.idle).toFixed(0)} MB`);
  log(`load average at end ${loadavg()}`);
}

main().catch((err: unknown) => {
  process.stderr.write(`bench:compare: ${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
