import { Piscina } from 'piscina';
import { RUNNING_FROM_SOURCE } from '../paths.js';
import type { PlatformSource } from '../platforms/loader.js';
import type { ResourceData } from '../resources/index.js';
import type { BatchResult } from './job-spec.js';
import type { BatchTask, WorkerData } from '../../workers/parse-worker.js';

export interface ParsingPoolOptions {
  readonly threads: number;
  readonly platformSources: readonly PlatformSource[];
  readonly platformsVersion: string;
  /** exclusion lists, knowledge bases, geolocation… (their big tables are shared, not copied) */
  readonly resources: ResourceData;
  readonly onWorkerError?: (err: Error) => void;
}

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

  constructor(opts: ParsingPoolOptions) {
    this.platformsVersion = opts.platformsVersion;
    const workerData: WorkerData & { sourceModule?: string } = {
      platformSources: opts.platformSources,
      platformsVersion: opts.platformsVersion,
      resources: opts.resources,
      sourceModule: RUNNING_FROM_SOURCE ? SOURCE_WORKER : undefined,
    };
    this.threadCount = Math.max(1, opts.threads);
    this.piscina = new Piscina({
      filename: RUNNING_FROM_SOURCE ? SOURCE_BOOTSTRAP : WORKER,
      minThreads: opts.threads,
      maxThreads: opts.threads,
      idleTimeout: 60_000,
      workerData,
      execArgv: [],
    });
    // A worker that cannot start or dies fails the task it ran (the job says so); the pool
    // replaces it. Without a listener the event would end the process.
    this.piscina.on('error', (err: unknown) => {
      opts.onWorkerError?.(err as Error);
    });
  }

  /** Parses one batch (in submission order); the batch's memory is transferred to the worker. */
  run(task: BatchTask, signal?: AbortSignal): Promise<BatchResult> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const entry: Queued = { task, signal, resolve, reject };
      this.waiting.push(entry);
      // An aborted job's batches leave the queue at once instead of waiting their turn.
      signal?.addEventListener('abort', () => {
        const i = this.waiting.indexOf(entry);
        if (i >= 0) {
          this.waiting.splice(i, 1);
          reject(signal.reason);
        }
      }, { once: true });
      this.pump();
    });
  }

  /** Batches submitted and not yet finished (waiting or running). */
  get pending(): number {
    return this.waiting.length + this.running;
  }

  private pump(): void {
    while (this.running < this.threadCount && this.waiting.length > 0) {
      const next = this.waiting.shift()!;
      if (next.signal?.aborted) {
        next.reject(next.signal.reason);
        continue;
      }
      this.running++;
      const buffer = next.task.data.buffer as ArrayBuffer;
      this.piscina
        .run(next.task, { transferList: [buffer], signal: next.signal })
        .then(next.resolve, next.reject)
        .finally(() => {
          this.running--;
          this.pump();
        });
    }
  }

  get threads(): number {
    return this.piscina.threads.length;
  }

  async close(): Promise<void> {
    await this.piscina.destroy();
  }
}
