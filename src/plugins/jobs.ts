import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { isStatusError, StatusError } from '../status-codes.js';
import { readJobOptions } from '../pipeline/job-options.js';
import { StartError } from '../start-error.js';
import { mergeJobHeaders } from '../settings/predefined.js';
import type { Job } from '../pipeline/job-runner.js';
import { GateBudget } from '../pipeline/gate-budget.js';

/** How long the shutdown lets a job finish the lines it holds before aborting it (a batch takes well under a second). */
export const STOP_GRACE_MS = 2000;

/** The jobs running in this process. */
export class RunningJobs {
  private readonly jobs = new Map<string, { job: Job; done: Promise<unknown> }>();
  /** jobs accepted per client (an account, or an address without a login), from their check to their end */
  private readonly perClient = new Map<string, number>();

  /** Jobs `client` has accepted and not ended. */
  countFor(client: string): number {
    return this.perClient.get(client) ?? 0;
  }

  /**
   * Counts a job of `client` from the moment it is accepted (before its folder and its run, so
   * that requests sent together meet the limit too); the function returned ends it, once.
   */
  claim(client: string): () => void {
    this.perClient.set(client, this.countFor(client) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const n = this.countFor(client) - 1;
      if (n > 0) this.perClient.set(client, n);
      else this.perClient.delete(client);
    };
  }

  add(job: Job, done: Promise<unknown>): void {
    this.jobs.set(job.id, { job, done });
    // then(f, f), not finally: a finally's promise rejects with `done`, and nothing would catch it
    // (an unhandled rejection ends the process, and every other job with it)
    const remove = () => void this.jobs.delete(job.id);
    done.then(remove, remove);
  }

  get size(): number {
    return this.jobs.size;
  }

  list(): Job[] {
    return [...this.jobs.values()].map((e) => e.job);
  }

  get(id: string): Job | undefined {
    return this.jobs.get(id)?.job;
  }

  /**
   * Stops every running job cleanly and waits until their files and rows are closed. Each job's
   * input breaks off first, as an upload that stops does: the complete lines it holds and its
   * batches in the workers still give their events before the error line (aborted at once, a
   * job with FLUSH_AFTER_MS=0 dropped every line received since its last full batch). A job not
   * ended `graceMs` later (its client not reading, a slow batch) is aborted.
   */
  async stopAll(reason: StatusError, graceMs: number): Promise<void> {
    const entries = [...this.jobs.values()];
    for (const e of entries) e.job.breakInput(reason);
    const ended = Promise.allSettled(entries.map((e) => e.done));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([ended, new Promise<void>((resolve) => { timer = setTimeout(resolve, graceMs); })]);
    clearTimeout(timer);
    for (const e of entries) if (e.job.state === 'running') e.job.abort(reason);
    await ended;
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    runningJobs: RunningJobs;
    /** the main thread's time for the jobs' first-line checks, shared (pipeline/gate-budget.ts) */
    gateBudget: GateBudget;
  }
}

export default fp(async (app) => {
  const running = new RunningJobs();
  app.decorate('runningJobs', running);
  app.decorate('gateBudget', new GateBudget());
  checkDefaultJobHeaders(app);
  // preClose runs before every onClose hook: jobs end while the pool and the database are open.
  app.addHook('preClose', async () => {
    await running.stopAll(new StatusError(5003, 'send the job again once it is back up'), STOP_GRACE_MS);
  });
}, { name: 'jobs', dependencies: ['platforms', 'database'] });

/**
 * DEFAULT_JOB_HEADERS are read as a job's headers: one that no job could run with is a
 * configuration mistake, said once at start rather than by every job, naming a header its
 * client never sent.
 */
function checkDefaultJobHeaders(app: FastifyInstance): void {
  const headers = app.config.defaultJobHeaders;
  if (Object.keys(headers).length === 0) return;
  try {
    readJobOptions(mergeJobHeaders({}, undefined, headers), {
      platforms: app.platforms.names,
      middlewares: app.platforms.resources.middlewareModules,
      defaultMiddlewares: app.config.middlewares,
    });
  } catch (err) {
    if (isStatusError(err)) throw new StartError(`DEFAULT_JOB_HEADERS: ${err.message} (status ${err.code} of /info/codes)`);
    throw err;
  }
}
