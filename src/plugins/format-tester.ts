import fp from 'fastify-plugin';
import { Piscina } from 'piscina';
import { RUNNING_FROM_SOURCE } from '../paths.js';
import type { FormatTask, FormatTaskResult } from '../../workers/format-worker.js';
import type { FormatTestInput, FormatTestResult } from '../pipeline/formats/tester.js';
import type { DiscoverInput, DiscoverResult } from '../pipeline/formats/discover.js';
import { workerResourceLimits } from '../pipeline/worker-limits.js';

const WORKER = new URL('../../workers/format-worker.js', import.meta.url).href;
const SOURCE_WORKER = new URL('../../workers/format-worker.ts', import.meta.url).href;
const SOURCE_BOOTSTRAP = new URL('../../workers/source-bootstrap.mjs', import.meta.url).href;

/** Time a task may take beyond its budget (thread start, compilation) before its thread is stopped. */
const GRACE_MS = 5000;

export class FormatTesterBusy extends Error {}

/** One thread for the format tester, apart from the parsing pool: a costly paste never slows jobs. */
export class FormatTester {
  private readonly piscina: Piscina<FormatTask, FormatTaskResult<FormatTestResult | DiscoverResult>>;

  constructor(private readonly budgetMs: number) {
    this.piscina = new Piscina({
      filename: RUNNING_FROM_SOURCE ? SOURCE_BOOTSTRAP : WORKER,
      workerData: { sourceModule: RUNNING_FROM_SOURCE ? SOURCE_WORKER : undefined },
      minThreads: 0,
      maxThreads: 1,
      maxQueue: 8,
      idleTimeout: 60_000,
      recordTiming: false,
      execArgv: [],
      // Pasted lines need little; without limits of its own the thread would get the main
      // thread's heap flags or, once they are cleared, V8's defaults (gigabytes).
      resourceLimits: workerResourceLimits(256, 6),
    });
    this.piscina.on('error', () => undefined);
  }

  run(input: FormatTestInput): Promise<FormatTaskResult<FormatTestResult>> {
    return this.task({ input, budgetMs: this.budgetMs }) as Promise<FormatTaskResult<FormatTestResult>>;
  }

  /** The predefined settings' formats tried on the lines, under the same budget as one test. */
  discover(input: DiscoverInput): Promise<FormatTaskResult<DiscoverResult>> {
    return this.task({ kind: 'discover', input, budgetMs: this.budgetMs }) as Promise<FormatTaskResult<DiscoverResult>>;
  }

  private async task(task: FormatTask): Promise<FormatTaskResult<FormatTestResult | DiscoverResult>> {
    if (this.piscina.queueSize >= 8) throw new FormatTesterBusy('the format tester is busy');
    try {
      return await this.piscina.run(task, { signal: AbortSignal.timeout(this.budgetMs + GRACE_MS) });
    } catch (err) {
      // Aborted: the thread was stopped, whatever it was doing.
      if ((err as Error).name === 'AbortError') return { ok: false, code: 'tooCostly', message: 'the format took too long to run on the pasted lines' };
      throw err;
    }
  }

  close(): Promise<void> {
    return this.piscina.destroy();
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    formatTester: FormatTester;
  }
}

export default fp(async (app) => {
  const tester = new FormatTester(app.config.formatTestBudgetMs);
  app.decorate('formatTester', tester);
  app.addHook('onClose', () => tester.close());
}, { name: 'format-tester' });
