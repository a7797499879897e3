/**
 * `npm run bench:compare`: two variants of the service measured alternately in one run, so that
 * a change is judged against the machine's noise (this kind of machine drifts by 20 to 30% within
 * an hour; what runs side by side drifts together). A variant is a checkout with settings: this
 * checkout, and another one (`--other`, a git worktree of the code before a change, say) or the same
 * one with other settings.
 *
 *   npm run bench:compare -- [--other DIR] [--env K=V,…] [--other-env K=V,…] [--rounds 3]
 *                            [--lines 1m] [--jobs 2] [--no-build]
 *
 * Each round starts each variant's service afresh, waits for it to be idle, reads its RSS, posts
 * one warm-up job of 10k lines, then `--jobs` jobs of the benchmark log one after the other
 * (default headers: double clicks on, CSV). Printed: each job, then the medians of each variant
 * and B / A. Environment settings reach the service's process, glibc's malloc settings included.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { PROJECT_ROOT } from '../src/paths.js';
import { postLog, RssSampler, startService, type PostResult } from './service.js';
import { benchLog, FORMAT, label, loadavg, log, median, parseSize, requireShared } from './common.js';

const { values: args } = parseArgs({
  options: {
    other: { type: 'string' },
    env: { type: 'string', default: '' },
    'other-env': { type: 'string', default: '' },
    rounds: { type: 'string', default: '3' },
    lines: { type: 'string', default: '1m' },
    jobs: { type: 'string', default: '2' },
    'no-build': { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});

if (args.help) {
  process.stdout.write(readFileSync(new URL(import.meta.url), 'utf8').split('*/')[0].replace(/^\/\*\*?\n?/, ''));
  process.exit(0);
}
requireShared();

interface Variant { readonly name: string; readonly root: string; readonly env: Record<string, string> }
interface Run { readonly wallMs: number; readonly cpuUsPerLine: number; readonly peakMb: number; readonly idleMb: number }

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

function build(root: string): void {
  if (!existsSync(join(root, 'node_modules'))) {
    if (existsSync(join(root, 'dist/src/server.js'))) return;
    throw new Error(`${root} has neither node_modules (to build it) nor dist/`);
  }
  log(`building ${root} (npm run build) …`);
  const r = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0) throw new Error(`npm run build failed in ${root}`);
}

/** CPU time (user + system, ms) of a process and its threads, from /proc. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

function checkJob(r: PostResult, what: string): void {
  if (r.status !== 200 || r.trailers['job-done'] !== 'true') {
    throw new Error(`${what}: HTTP ${r.status}, Job-Done ${r.trailers['job-done']}, ${r.trailers['service-status-message'] ?? ''}`);
  }
}

async function measure(v: Variant, file: string, warmup: string, lines: number, jobs: number): Promise<Run[]> {
  const varDir = mkdtempSync(join(tmpdir(), 'logsift-compare-'));
  const service = await startService({ root: v.root, source: false, varDir, env: v.env });
  try {
    // idle: the workers have compiled the platforms (a fresh service's RSS climbs for a few seconds)
    await new Promise((r) => setTimeout(r, 3000));
    const idleMb = new RssSampler(service.pid).rss() / 1e6;
    checkJob(await postLog(service.url, warmup, { 'Log-Format-ezproxy': FORMAT }), 'warm-up');
    const runs: Run[] = [];
    for (let j = 0; j < jobs; j++) {
      const sampler = new RssSampler(service.pid);
      sampler.start();
      const cpu0 = cpuMs(service.pid);
      const t0 = performance.now();
      const r = await postLog(service.url, file, { 'Log-Format-ezproxy': FORMAT });
      const wallMs = performance.now() - t0;
      const cpu = cpuMs(service.pid) - cpu0;
      const { peak } = sampler.stop();
      checkJob(r, `${v.name}, job ${j + 1}`);
      runs.push({ wallMs, cpuUsPerLine: (cpu * 1000) / lines, peakMb: peak / 1e6, idleMb });
    }
    return runs;
  } finally {
    await service.stop();
    rmSync(varDir, { recursive: true, force: true });
  }
}

function summary(runs: readonly Run[], lines: number): { lps: number; cpu: number; peak: number; idle: number } {
  return {
    lps: median(runs.map((r) => lines / (r.wallMs / 1000))),
    cpu: median(runs.map((r) => r.cpuUsPerLine)),
    peak: median(runs.map((r) => r.peakMb)),
    idle: median(runs.map((r) => r.idleMb)),
  };
}

async function main(): Promise<void> {
  const lines = parseSize(args.lines);
  const jobs = Math.max(1, Number(args.jobs));
  const rounds = Math.max(1, Number(args.rounds));
  const variants: Variant[] = [
    { name: 'A', root: PROJECT_ROOT, env: parseEnv(args.env) },
    { name: 'B', root: args.other ? resolve(args.other) : PROJECT_ROOT, env: parseEnv(args['other-env']) },
  ];
  if (variants[1].root === variants[0].root && JSON.stringify(variants[1].env) === JSON.stringify(variants[0].env)) {
    throw new Error('the two variants are the same: give --other DIR, or other settings with --env / --other-env');
  }
  const file = await benchLog(lines);
  const warmup = await benchLog(10_000);
  if (!args['no-build']) for (const root of new Set(variants.map((v) => v.root))) build(root);
  for (const v of variants) {
    if (!existsSync(join(v.root, 'dist/src/server.js'))) throw new Error(`${v.root}: dist/ is missing (npm run build)`);
    log(`${v.name}: ${describe(v)}`);
  }
  log(`${label(lines)} lines, ${jobs} job(s) per service start, ${rounds} round(s), A then B then A…; load average at start ${loadavg()}`);
  const runs = new Map<string, Run[]>(variants.map((v) => [v.name, []]));
  for (let round = 0; round < rounds; round++) {
    // the order alternates too, so that neither variant always runs first after a pause
    for (const v of round % 2 === 0 ? variants : [...variants].reverse()) {
      const got = await measure(v, file, warmup, lines, jobs);
      runs.get(v.name)!.push(...got);
      log(`round ${round + 1} ${v.name}: idle ${got[0].idleMb.toFixed(0)} MB | ${got.map((r) => `${(r.wallMs / 1000).toFixed(2)} s, ${r.cpuUsPerLine.toFixed(1)} µs CPU a line, peak ${r.peakMb.toFixed(0)} MB`).join(' | ')}`);
    }
  }
  const [a, b] = variants.map((v) => summary(runs.get(v.name)!, lines));
  log('');
  log('medians       lines/s   µs CPU a line   peak RSS   idle RSS');
  for (const [name, s] of [['A', a], ['B', b]] as const) {
    log(`${name}        ${Math.round(s.lps).toLocaleString('en').padStart(10)}   ${s.cpu.toFixed(2).padStart(13)}   ${s.peak.toFixed(0).padStart(5)} MB   ${s.idle.toFixed(0).padStart(5)} MB`);
  }
  log(`B / A    ${(b.lps / a.lps).toFixed(3).padStart(10)}   ${(b.cpu / a.cpu).toFixed(3).padStart(13)}   ${(b.peak - a.peak >= 0 ? '+' : '') + (b.peak - a.peak).toFixed(0)} MB   ${(b.idle - a.idle >= 0 ? '+' : '') + (b.idle - a.idle).toFixed(0)} MB`);
  log(`load average at end ${loadavg()}`);
}

main().catch((err: unknown) => {
  process.stderr.write(`bench:compare: ${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
