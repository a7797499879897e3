/** What the benchmarks share: the cached benchmark logs, the regex ceiling, small helpers. */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PROJECT_ROOT, SHARED_DIR } from '../src/paths.js';

const MAKE_LOG = join(SHARED_DIR, 'bench/make-log.js');
const CEILING = join(SHARED_DIR, 'bench/ceiling.js');
const PLATFORMS = join(SHARED_DIR, 'platforms');
const SEED = 42;
const BENCH_DIR = join(PROJECT_ROOT, 'var/bench');

/** The format of the generated logs. */
export const FORMAT = '%h %l %u %t "%r" %s %b';

/** Stops with a plain message when ../shared (generator, ceiling, platforms' test URLs) is not there. */
export function requireShared(): void {
  for (const path of [MAKE_LOG, CEILING, PLATFORMS]) {
    if (!existsSync(path)) {
      process.stderr.write(`bench: ${path} is missing. The benchmark needs the shared material beside the checkout (../shared/bench and ../shared/platforms); nothing was measured.\n`);
      process.exit(2);
    }
  }
}

/** A script's opening comment, without its comment marks: what its `--help` prints. */
export function helpText(script: string): string {
  const source = readFileSync(fileURLToPath(script), 'utf8');
  const comment = /\/\*\*([\s\S]*?)\*\//.exec(source)?.[1] ?? '';
  return `${comment.split('\n').map((line) => line.replace(/^\s*\* ?/, '')).join('\n').trim()}\n`;
}

/**
 * A benchmark script's options (`parse`: its parseArgs call). `--help` prints the script's opening
 * comment and exits; an option it does not know, or one without its value, stops it with one line
 * saying so (exit code 2) rather than a stack trace.
 */
export function benchArgs<T>(script: string, argv: readonly string[], parse: () => T): T {
  if (argv.includes('--help')) {
    process.stdout.write(helpText(script));
    process.exit(0);
  }
  try {
    return parse();
  } catch (err) {
    if (!String((err as NodeJS.ErrnoException).code).startsWith('ERR_PARSE_ARGS')) throw err;
    process.stderr.write(`${(err as Error).message}; --help lists the options\n`);
    process.exit(2);
  }
}

export function parseSize(text: string): number {
  const m = /^(\d+(?:\.\d+)?)([km]?)$/i.exec(text.trim());
  if (!m) throw new Error(`bad size ${text} (e.g. 10k, 1m, 250000)`);
  return Math.round(Number(m[1]) * (m[2].toLowerCase() === 'k' ? 1e3 : m[2].toLowerCase() === 'm' ? 1e6 : 1));
}

/** An optional size option: undefined when not given. */
export const optionalSize = (text: string | undefined): number | undefined => (text === undefined ? undefined : parseSize(text));

export const label = (n: number): string => (n >= 1e6 ? `${n / 1e6}M` : n >= 1e3 ? `${n / 1e3}k` : String(n));

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

export const loadavg = (): string => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

export const log = (text: string): void => {
  process.stdout.write(text + '\n');
};

/** The shared generator's command line for a log of n lines; its defaults (5 days, 400 users) for what is not given. */
export function generatorCommand(lines: number, more: { readonly days?: number; readonly users?: number } = {}): string[] {
  const extra = Object.entries(more).filter(([, v]) => v !== undefined).flatMap(([k, v]) => [`--${k}`, String(v)]);
  return [process.execPath, MAKE_LOG, '--csv-dir', PLATFORMS, '--lines', String(lines), '--seed', String(SEED), ...extra];
}

/**
 * The benchmark log of n lines, generated once into var/bench/ by the shared generator; `users`:
 * that many distinct users instead of the generator's 400.
 */
export async function benchLog(lines: number, users?: number): Promise<string> {
  mkdirSync(BENCH_DIR, { recursive: true });
  const file = join(BENCH_DIR, `ezproxy-${lines}-seed${SEED}${users === undefined ? '' : `-users${users}`}.log`);
  if (existsSync(file)) return file;
  log(`generating ${file} (once) with ../shared/bench/make-log.js …`);
  const tmp = `${file}.${process.pid}.tmp`;
  // Straight to a file: the tool writes asynchronously to its stdout and fails (EAGAIN) on a
  // pipe that fills faster than this process reads it.
  const out = openSync(tmp, 'w');
  const [node, ...rest] = generatorCommand(lines, { users });
  const child = spawn(node!, rest, { stdio: ['ignore', out, 'inherit'] });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  closeSync(out);
  if (code !== 0) throw new Error(`make-log.js failed (${code})`);
  renameSync(tmp, file);
  return file;
}

export interface CeilingResult {
  /** the process, start to exit */
  readonly wallMs: number;
  /** what ceiling.js measures itself (reading, splitting, matching) */
  readonly inProcessMs: number;
  readonly linesPerSec: number;
}

/** The single-thread split + EZproxy regex ceiling (`ceiling.js regex`) on a file. */
export async function ceiling(file: string): Promise<CeilingResult> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [CEILING, 'regex', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d: Buffer) => { err += d; });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const wallMs = performance.now() - t0;
  const m = /in-process=([\d.]+)s (\d+) lines\/s/.exec(err);
  if (code !== 0 || !m) throw new Error(`ceiling.js failed: ${err}`);
  return { wallMs, inProcessMs: Number(m[1]) * 1000, linesPerSec: Number(m[2]) };
}
