/**
 * The benchmark's side of the service: start it as its own process (the production build, or the
 * TypeScript sources through tsx), sample its memory from /proc, POST a log to it like curl does
 * (the file streamed, the answer counted and dropped), and stop it.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createReadStream, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { log } from './common.js';

export interface ServiceOptions {
  readonly root: string;
  /** run src/ through tsx instead of dist/ */
  readonly source: boolean;
  readonly varDir: string;
  /** extra environment (tuning settings) */
  readonly env?: Record<string, string>;
  /** --cpu-prof into this folder (main thread and workers) */
  readonly profileDir?: string;
  /** node flags of the service (default: those of the `start` script of package.json) */
  readonly nodeFlags?: readonly string[];
}

/**
 * The node flags the `start` script of package.json gives the service (V8 heap settings): the
 * benchmark runs the service with them, so that it measures what production runs.
 */
export function startScriptFlags(root: string): string[] {
  const start = startScriptWords(root);
  return start.slice(start.indexOf('node') + 1).filter((arg) => arg.startsWith('--'));
}

/**
 * The start script's flags that apply to a parsing worker: V8's flags are the whole process's,
 * but the heap sizes are the main thread's (the pool gives its workers heap limits of their own),
 * so they are left out. For runs of a worker's code on one thread (bench/pair.ts).
 */
export function workerPathFlags(root: string): string[] {
  return startScriptFlags(root).filter((arg) => !/^--max-(semi|old)-space-size(=|$)/.test(arg));
}

/**
 * The environment the `start` script sets before `node` (glibc's `MALLOC_ARENA_MAX`), as
 * defaults: `NAME=${NAME:-value}` gives way to the variable when the shell has it, as it does
 * in the script.
 */
export function startScriptEnv(root: string, env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const start = startScriptWords(root);
  const out: Record<string, string> = {};
  for (const word of start.slice(0, Math.max(0, start.indexOf('node')))) {
    const m = /^([A-Z_][A-Z0-9_]*)=(?:\$\{\1:-([^}]*)\}|([^$]*))$/.exec(word);
    if (!m) throw new Error(`bench: cannot read ${JSON.stringify(word)} in the start script`);
    out[m[1]] = m[2] !== undefined ? env[m[1]] || m[2] : m[3];
  }
  return out;
}

function startScriptWords(root: string): string[] {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
  return (pkg.scripts?.start ?? '').trim().split(/\s+/);
}

export interface Service {
  readonly pid: number;
  readonly url: string;
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts the service on a free port and resolves once it listens. */
export async function startService(opts: ServiceOptions): Promise<Service> {
  const entry = opts.source ? ['--import=tsx', join(opts.root, 'src/server.ts')] : [join(opts.root, 'dist/src/server.js')];
  const prof = opts.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${opts.profileDir}`] : [];
  const flags = opts.nodeFlags ?? startScriptFlags(opts.root);
  const child = spawn(process.execPath, [...flags, ...prof, ...entry], {
    cwd: opts.root,
    env: {
      // the slim geolocation copy and what reading the platforms makes: once, not in every run's var/
      GEOIP_CACHE_DIR: join(opts.root, 'var', 'cache', 'geoip'),
      PLATFORMS_CACHE_DIR: join(opts.root, 'var', 'cache', 'platforms'),
      ...process.env,
      ...startScriptEnv(opts.root),
      ...opts.env,
      PORT: '0',
      HOST: '127.0.0.1',
      VAR_DIR: opts.varDir,
      AUTH_JOBS: 'never',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const errors: string[] = [];
  createInterface({ input: child.stderr! }).on('line', (l) => { if (errors.length < 50) errors.push(l); });
  const url = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      const m = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(line);
      if (m) resolve(m[1]);
      else if (/"level":(50|60)/.test(line) && errors.length < 50) errors.push(line);
    });
    child.once('exit', (code) => reject(new Error(`the service exited (${code}) before listening:\n${errors.join('\n')}`)));
  });
  return {
    pid: child.pid!,
    url,
    child,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Peak memory of a process over a measurement: VmHWM reset at start (when allowed), VmRSS sampled. */
export class RssSampler {
  private timer: NodeJS.Timeout | undefined;
  private maxRss = 0;
  private canReset = true;

  constructor(private readonly pid: number, private readonly everyMs = 20) {}

  private read(): { rss: number; hwm: number } {
    const text = readFileSync(`/proc/${this.pid}/status`, 'utf8');
    const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0);
    return { rss: kb('VmRSS') * 1024, hwm: kb('VmHWM') * 1024 };
  }

  /** Current RSS in bytes. */
  rss(): number {
    return this.read().rss;
  }

  start(): void {
    // `5` in clear_refs resets the peak RSS to the current RSS (Linux 4.0+, own processes only).
    try {
      writeFileSync(`/proc/${this.pid}/clear_refs`, '5');
    } catch {
      this.canReset = false;
    }
    this.maxRss = this.read().rss;
    this.timer = setInterval(() => {
      try {
        this.maxRss = Math.max(this.maxRss, this.read().rss);
      } catch {
        // the process is gone
      }
    }, this.everyMs);
    this.timer.unref();
  }

  /** Peak RSS in bytes since start(). */
  stop(): { peak: number; hwmReset: boolean } {
    clearInterval(this.timer);
    let peak = this.maxRss;
    try {
      const { rss, hwm } = this.read();
      peak = Math.max(peak, rss, this.canReset ? hwm : 0);
    } catch {
      // the process is gone
    }
    return { peak, hwmReset: this.canReset };
  }
}

export interface PostResult {
  readonly status: number;
  /** ms from the request's start to the end of the answer */
  readonly wallMs: number;
  /** ms from the request's start to the first byte of the body (the first event) */
  readonly firstByteMs: number;
  readonly bodyBytes: number;
  /** newline-terminated rows of the body (CSV: the header row plus one row per event) */
  readonly rows: number;
  readonly trailers: Record<string, string | undefined>;
  readonly jobId?: string;
}

/**
 * POSTs a file as the body, streamed from disk (what `curl -T file -X POST` does), and reads the
 * answer as it comes, counting its bytes and rows without keeping them. `onSent`: told the size of
 * each chunk of the file as it is read (a file or a named pipe).
 */
export function postLog(url: string, file: string, headers: Record<string, string>, onSent?: (bytes: number) => void): Promise<PostResult> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    let firstByteMs = -1;
    let bodyBytes = 0;
    let rows = 0;
    const req = request(url + '/', {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain', 'Transfer-Encoding': 'chunked', TE: 'trailers', ...headers },
      agent: false,
    }, (res) => {
      res.on('data', (chunk: Buffer) => {
        if (firstByteMs < 0) firstByteMs = performance.now() - t0;
        bodyBytes += chunk.length;
        for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) rows++;
      });
      res.on('end', () => resolve({
        status: res.statusCode ?? 0,
        wallMs: performance.now() - t0,
        firstByteMs,
        bodyBytes,
        rows,
        trailers: res.trailers,
        jobId: res.headers['job-id'] as string | undefined,
      }));
      res.on('error', reject);
    });
    req.on('error', reject);
    const body = createReadStream(file, { highWaterMark: 1 << 20 }).on('error', reject);
    if (onSent) body.on('data', (chunk) => onSent(chunk.length));
    body.pipe(req);
  });
}

/** CPU time (user + system, ms) of a process and all its threads, or of one thread, from /proc. */
export function cpuMs(pid: number, tid?: number): number {
  const path = tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`;
  const fields = readFileSync(path, 'utf8').split(') ')[1].split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1000) / 100;
}

/** Throws unless the job answered 200 and ended with `Job-Done: true`. */
export function checkJob(r: PostResult, what: string): void {
  if (r.status !== 200 || r.trailers['job-done'] !== 'true') {
    throw new Error(`${what}: HTTP ${r.status}, Job-Done ${r.trailers['job-done']}, ${r.trailers['service-status'] ?? ''} ${r.trailers['service-status-message'] ?? ''}`);
  }
}

/** `npm run build` in a checkout (the service is measured from its production build). */
export function buildDist(root: string): void {
  log(`building ${root}/dist (npm run build) …`);
  const r = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0) throw new Error(`npm run build failed in ${root}`);
}
