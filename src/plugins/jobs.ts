import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { isStatusError, StatusError } from '../status-codes.js';
import { readJobOptions } from '../pipeline/job-options.js';
import { StartError } from '../start-error.js';
import { mergeJobHeaders } from '../settings/predefined.js';
import type { Job } from '../pipeline/job-runner.js';

/** The jobs running in this process. */
export class RunningJobs {
  private readonly jobs = new Map<string, { job: Job; done: Promise<unknown> }>();

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

  /** Stops every running job cleanly and waits until their files and rows are closed. */
  async abortAll(reason: StatusError): Promise<void> {
    const entries = [...this.jobs.values()];
    for (const e of entries) e.job.abort(reason);
    await Promise.allSettled(entries.map((e) => e.done));
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    runningJobs: RunningJobs;
  }
}

export default fp(async (app) => {
  const running = new RunningJobs();
  app.decorate('runningJobs', running);
  checkDefaultJobHeaders(app);
  // preClose runs before every onClose hook: jobs end while the pool and the database are open.
  app.addHook('preClose', async () => {
    await running.abortAll(new StatusError(5003, 'send the job again once it is back up'));
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
