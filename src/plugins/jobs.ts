import fp from 'fastify-plugin';
import { StatusError } from '../status-codes.js';
import type { Job } from '../pipeline/job-runner.js';

/** The jobs running in this process. */
export class RunningJobs {
  private readonly jobs = new Map<string, { job: Job; done: Promise<unknown> }>();

  add(job: Job, done: Promise<unknown>): void {
    this.jobs.set(job.id, { job, done });
    void done.finally(() => this.jobs.delete(job.id));
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
  // preClose runs before every onClose hook: jobs end while the pool and the database are open.
  app.addHook('preClose', async () => {
    await running.abortAll(new StatusError(5003, 'send the job again once it is back up'));
  });
}, { name: 'jobs', dependencies: ['platforms', 'database'] });
