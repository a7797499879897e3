import { setTimeout as delay } from 'node:timers/promises';
import type { Worker } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { RUNNING_FROM_SOURCE } from '../paths.js';
import { StatusError } from '../status-codes.js';
import type { PlatformSource } from '../platforms/loader.js';
import type { ResourceData } from '../resources/index.js';
import type { BatchResult } from './job-spec.js';
import { workerResourceLimits } from './worker-limits.js';
import type { BatchTask, WorkerData } from '../../workers/parse-worker.js';

export interface ParsingPoolOptions {
  readonly threads: number;
  readonly platformSources: readonly PlatformSource[];
  readonly platformsVersion: string;
  /** exclusion lists, knowledge bases, geolocation… (their big tables are shared, not copied) */
  readonly resources: ResourceData;
  /** longest run of one batch (ms, 0 = none): past it the worker is terminated and the batch fails with 4038 */
  readonly batchTimeoutMs?: number;
  /** heap limit of each worker (MB, 0 = V8's default) */
  readonly workerHeapMb?: number;
  /** young generation of each worker (MB, 0 = V8's default) */
  readonly workerYoungMb?: number;
  readonly onWorkerError?: (err: Error) => void;
}

/** How long close() waits for terminated workers to exit. */
const EXIT_WAIT_MS = 10_000;

const WORKER = new URL('../../workers/parse-worker.js', import.meta.url).href;
const SOURCE_WORKER = new URL('../../workers/parse-worker.ts', import.meta.url).href;
const SOURCE_BOOTSTRAP = new URL('../../workers/source-bootstrap.mjs', import.meta.url).href;

/**
 * The Piscina pool of parsing workers, all loaded with one version of the platforms. A new
 * version of the platforms gets a new pool; the old one serves its running jobs, then closes.
 */
interface Queued {
  readonly task: BatchTask;
  readonly signal?: AbortSignal;
  readonly resolve: (r: BatchResult) => void;
  readonly reject: (e: unknown) => void;
}

export class ParsingPool {
  readonly platformsVersion: string;
  private readonly piscina: Piscina<BatchTask, BatchResult>;
  private readonly threadCount: number;
  /**
   * Batches waiting for a worker, oldest first. Piscina's own queue does not keep submission
   * order, which would starve a job's oldest batch while its later ones pile up unwritten; so
   * Piscina only ever gets as many batches as it has threads.
   */
  private readonly waiting: Queued[] = [];
  private running = 0;
  private readonly batchTimeoutMs: number;
  private closed = false;
  /** every worker that ran, until it has exited (see close) */
  private readonly exits = new Map<Worker, Promise<unknown>>();

  constructor(opts: ParsingPoolOptions) {
    this.platformsVersion = opts.platformsVersion;
    const workerData: WorkerData & { sourceModule?: string } = {
      platformSources: opts.platformSources,
      platformsVersion: opts.platformsVersion,
      resources: opts.resources,
      sourceModule: RUNNING_FROM_SOURCE ? SOURCE_WORKER : undefined,
    };
    this.threadCount = Math.max(1, opts.threads);
    this.batchTimeoutMs = opts.batchTimeoutMs ?? 0;
    this.piscina = new Piscina({
      filename: RUNNING_FROM_SOURCE ? SOURCE_BOOTSTRAP : WORKER,
      minThreads: opts.threads,
      maxThreads: opts.threads,
      idleTimeout: 60_000,
      // Between batches a worker's event loop runs (Piscina's default blocks it in Atomics.wait),
      // so that V8 can shrink its heap once the jobs are over: 30 s after three 100k-line jobs
      // the service's RSS was 202 to 219 MB this way, 242 MB blocked; speed within the noise.
      atomics: 'async',
      // Piscina's run and wait time histograms: nothing reads them (a clock read and a record per batch).
      recordTiming: false,
      workerData,
      // Not the parent's flags (`--import tsx` races in workers: see source-bootstrap.mjs), except
      // the profilers', so that `--cpu-prof` on the service profiles its workers too.
      execArgv: process.execArgv.filter((arg) => /^--(cpu|heap)-prof/.test(arg)),
      // A runaway allocation kills its worker (ERR_WORKER_OUT_OF_MEMORY), not the service. The
      // young generation trades memory for collections: 12 MB against 6, 1M lines, 1.13 times
      // the throughput for 8 MB more peak RSS (bench/README.md, "Memory settings").
      resourceLimits: workerResourceLimits(opts.workerHeapMb ?? 0, opts.workerYoungMb ?? 0),
    });
    // A worker that cannot start or dies fails the task it ran (the job says so); the pool
    // replaces it. Without a listener the event would end the process.
    this.piscina.on('error', (err: unknown) => {
      opts.onWorkerError?.(err as Error);
    });
    this.piscina.on('workerCreate', () => {
      // Piscina replaces a worker that errs or exits while it is not destroying, also after
      // destroy() has returned (a worker terminated earlier, untracked because it never got
      // ready, failing late): once closed, any worker that gets ready is destroyed at once, so
      // none outlives close() and keeps the process alive.
      if (this.closed) {
        void this.piscina.destroy();
        return;
      }
      for (const worker of this.piscina.threads) {
        if (this.exits.has(worker)) continue;
        // Not events.once(): it would reject on the worker's 'error', which comes before its exit.
        this.exits.set(worker, new Promise((resolve) => worker.once('exit', resolve)).finally(() => this.exits.delete(worker)));
      }
    });
  }

  /** Parses one batch (in submission order); the batch's memory is transferred to the worker. */
  run(task: BatchTask, signal?: AbortSignal): Promise<BatchResult> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      if (this.closed) return reject(new StatusError(5003, 'the parsing workers are closed'));
      // An aborted job's batches leave the queue at once instead of waiting their turn.
      const onAbort = () => {
        const i = this.waiting.indexOf(entry);
        if (i >= 0) {
          this.waiting.splice(i, 1);
          reject(signal!.reason);
        }
      };
      // The listener goes when the batch is done: a job's signal lives as long as the job, and a
      // listener left on it would keep every batch's result alive to the end.
      const settle = <T>(fn: (value: T) => void) => (value: T) => {
        signal?.removeEventListener('abort', onAbort);
        fn(value);
      };
      const entry: Queued = { task, signal, resolve: settle(resolve), reject: settle(reject) };
      this.waiting.push(entry);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.pump();
    });
  }

  /** Batches submitted and not yet finished (waiting or running). */
  get pending(): number {
    return this.waiting.length + this.running;
  }

  private pump(): void {
    while (!this.closed && this.running < this.threadCount && this.waiting.length > 0) {
      const next = this.waiting.shift()!;
      if (next.signal?.aborted) {
        next.reject(next.signal.reason);
        continue;
      }
      this.running++;
      const buffer = next.task.data.buffer as ArrayBuffer;
      // Aborting the signal of a running task makes Piscina terminate its worker and start
      // another: the way out of a batch stuck in a regular expression.
      const limit = new AbortController();
      const forward = () => limit.abort(next.signal!.reason);
      next.signal?.addEventListener('abort', forward, { once: true });
      const timer = this.batchTimeoutMs > 0
        ? setTimeout(() => limit.abort(new StatusError(4038, `more than ${this.batchTimeoutMs / 1000} s in a parsing worker (BATCH_TIMEOUT_MS): the log format's custom expressions, the Extract header's or a platform's may backtrack catastrophically on these lines`)), this.batchTimeoutMs)
        : undefined;
      this.piscina
        .run(next.task, { transferList: [buffer], signal: limit.signal })
        .then(next.resolve, (err: unknown) => next.reject(limit.signal.aborted ? limit.signal.reason : workerFailure(err)))
        .finally(() => {
          clearTimeout(timer);
          next.signal?.removeEventListener('abort', forward);
          this.running--;
          this.pump();
        });
    }
  }

  get threads(): number {
    return this.piscina.threads.length;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const entry of this.waiting.splice(0)) entry.reject(new StatusError(5003, 'the parsing workers are closed'));
    // A worker that Piscina terminated earlier (a timed-out or aborted batch) may report its exit
    // only after destroy() has returned, and Piscina then starts new workers on the destroyed
    // pool: they would hold the resources for good and keep the process alive. So destroy again
    // until every worker that ran has exited (a worker stuck in native code for good is given up
    // after EXIT_WAIT_MS rather than holding up a shutdown).
    const giveUp = delay(EXIT_WAIT_MS, undefined, { ref: false });
    do {
      await this.piscina.destroy();
      if (await Promise.race([Promise.allSettled([...this.exits.values()]), giveUp.then(() => 'late')]) === 'late') break;
    } while (this.piscina.threads.length > 0);
  }
}

/** A batch that failed in its worker: the worker threw, exited or ran out of memory (the pool replaces it). */
function workerFailure(err: unknown): StatusError {
  const e = err as NodeJS.ErrnoException | undefined;
  const why = e?.code === 'ERR_WORKER_OUT_OF_MEMORY' ? 'it ran out of memory (WORKER_HEAP_MB)'
    : /^worker exited/.test(e?.message ?? '') ? `it ended (${e!.message}), e.g. a platform hook called process.exit()`
    : `it threw: ${e?.message ?? String(err)}`;
  return new StatusError(5002, `while parsing a batch of this job's lines, ${why}`);
}
