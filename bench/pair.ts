/**
 * A worker's cost per line in this checkout against another one (`--other DIR`: a `git worktree`
 * of the code before a change), measured at the same time: each round runs `bench/worker-path.ts`
 * of both checkouts at once, each process held to one core (taskset), the cores swapped from one
 * round to the next. On these machines the speed drifts by 20% and more between runs a few
 * seconds apart, and both cores drift together: two runs side by side see the same machine, which
 * sequential runs do not (a comparison of a build with itself: pair ratios within ±5%, where
 * alternated runs spread by ±20%). Only the worker's path: a change to the main thread or to the
 * service's memory needs `npm run bench:compare`.
 *
 *   node --import=tsx bench/pair.ts --other DIR [--lines 300k] [--rounds 8] [--repeat 2] [--users N]
 *
 * `--users N`: the log of N distinct users (worker-path.ts's own option), where the geolocation
 * and the crypting miss their caches.
 * Each checkout's run gets the V8 flags of its own start script (workerPathFlags), as its
 * service's workers do. Both checkouts must be built (`npm run build`); their runs must give the
 * same digest.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { availableParallelism } from 'node:os';
import { PROJECT_ROOT } from '../src/paths.js';
import { log, median } from './common.js';
import { workerPathFlags } from './service.js';

const { values: args } = parseArgs({
  options: {
    other: { type: 'string' },
    lines: { type: 'string', default: '300k' },
    rounds: { type: 'string', default: '8' },
    repeat: { type: 'string', default: '2' },
    users: { type: 'string' },
  },
});
if (!args.other) {
  process.stderr.write('usage: node --import=tsx bench/pair.ts --other DIR [--lines 300k] [--rounds 8] [--repeat 2] [--users N]\n');
  process.exit(2);
}
const dirs = [PROJECT_ROOT, resolve(args.other)] as const;
for (const dir of dirs) {
  if (!existsSync(join(dir, 'dist/src/server.js'))) throw new Error(`${dir}: not built (npm run build there)`);
}

/** taskset when the machine has it and two cores; otherwise both runs share the cores. */
const pin = availableParallelism() >= 2 && await new Promise<boolean>((done) => {
  spawn('taskset', ['-c', '0', 'true']).on('error', () => done(false)).on('exit', (code) => done(code === 0));
});
if (!pin) log('taskset or a second core is missing: the two runs are not held to a core each');

interface Run { readonly cpuPerLine: number; readonly digest: string }

function run(dir: string, core: number): Promise<Run> {
  const node = [process.execPath, ...workerPathFlags(dir), '--import=tsx', 'bench/worker-path.ts', '--dist', '--no-ceiling', '--lines', args.lines!, '--repeat', args.repeat!, ...(args.users ? ['--users', args.users] : [])];
  const [cmd, ...rest] = pin ? ['taskset', '-c', String(core), ...node] : node;
  return new Promise((done, fail) => {
    const child = spawn(cmd!, rest, { cwd: dir, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => { out += chunk.toString(); });
    child.on('error', fail);
    child.on('exit', (code) => {
      const m = /([0-9.]+) µs CPU a line.*digest ([0-9a-f]+)/.exec(out);
      if (code !== 0 || !m) fail(new Error(`${dir}: worker-path failed (exit ${code}):\n${out}`));
      else done({ cpuPerLine: Number(m[1]), digest: m[2]! });
    });
  });
}

const ratios: number[] = [];
const cpu: [number[], number[]] = [[], []];
const digests = new Set<string>();
const rounds = Number(args.rounds);
log(`this checkout (A) against ${dirs[1]} (B), ${args.lines} lines${args.users ? ` of ${args.users} users` : ''}, ${rounds} rounds of two runs side by side`);
for (let round = 0; round < rounds; round++) {
  const coreA = round % 2;
  const [a, b] = await Promise.all([run(dirs[0], coreA), run(dirs[1], 1 - coreA)]);
  cpu[0].push(a.cpuPerLine);
  cpu[1].push(b.cpuPerLine);
  digests.add(a.digest).add(b.digest);
  const ratio = a.cpuPerLine / b.cpuPerLine;
  ratios.push(ratio);
  log(`round ${round + 1}: A ${a.cpuPerLine.toFixed(2)} µs a line (core ${coreA}), B ${b.cpuPerLine.toFixed(2)} (core ${1 - coreA}), A/B ${ratio.toFixed(3)}`);
}
const sorted = ratios.slice().sort((x, y) => x - y);
log(`median CPU a line: A ${median(cpu[0]).toFixed(2)} µs, B ${median(cpu[1]).toFixed(2)} µs; A/B median ${median(ratios).toFixed(3)} (rounds ${sorted[0]!.toFixed(3)} to ${sorted[sorted.length - 1]!.toFixed(3)}, ${ratios.filter((r) => r < 1).length} of ${rounds} below 1)`);
if (digests.size > 1) {
  log(`the two checkouts' outputs differ: digests ${[...digests].join(', ')}`);
  process.exitCode = 1;
} else {
  log(`same output: digest ${[...digests][0]}`);
}
