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
export class ParsingPool {
  readonly platformsVersion: string;
  private readonly piscina: Piscina<BatchTask, BatchResult>;

  constructor(opts: ParsingPoolOptions) {
    this.platformsVersion = opts.platformsVersion;
    const workerData: WorkerData & { sourceModule?: string } = {
      platformSources: opts.platformSources,
      platformsVersion: opts.platformsVersion,
      resources: opts.resources,
      sourceModule: RUNNING_FROM_SOURCE ? SOURCE_WORKER : undefined,
    };
    this.piscina = new Piscina({
      filename: RUNNING_FROM_SOURCE ? SOURCE_BOOTSTRAP : WORKER,
      minThreads: opts.threads,
      maxThreads: opts.threads,
      // Batches queue in the pool only up to what the jobs' in-flight limits allow.
      maxQueue: 'auto',
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

  /** Parses one batch; the batch's memory is transferred to the worker. */
  run(task: BatchTask, signal?: AbortSignal): Promise<BatchResult> {
    const buffer = task.data.buffer as ArrayBuffer;
    return this.piscina.run(task, { transferList: [buffer], signal });
  }

  get threads(): number {
    return this.piscina.threads.length;
  }

  async close(): Promise<void> {
    await this.piscina.destroy();
  }
}
