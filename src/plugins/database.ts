import fp from 'fastify-plugin';
import { join } from 'node:path';
import { openDatabase, type Db } from '../db/database.js';
import { JobStore, type JobRow } from '../db/jobs.js';
import { endInterruptedJob } from '../pipeline/interrupted-job.js';

declare module 'fastify' {
  interface FastifyInstance {
    db: Db;
    jobStore: JobStore;
  }
}

/** The headers a job row recorded (its output settings among them); none when unreadable. */
function recordedHeaders(row: JobRow | undefined): Record<string, string> {
  try {
    const headers: unknown = JSON.parse(row?.request_headers ?? '{}');
    return headers !== null && typeof headers === 'object' ? (headers as Record<string, string>) : {};
  } catch {
    return {};
  }
}

/** The service's SQLite file (`var/logsift.sqlite`): jobs, users, reports. */
export default fp(async (app) => {
  const db = openDatabase(join(app.config.varDir, 'logsift.sqlite'));
  const jobStore = new JobStore(db);
  const interrupted = jobStore.markInterrupted();
  if (interrupted.length > 0) {
    app.log.warn({ interrupted: interrupted.length }, 'jobs left running by the previous process marked interrupted');
    // Their report, result and traces files still look as if the job ran on: they say how it ended too.
    await Promise.all(interrupted.map((id) => endInterruptedJob(join(app.config.varDir, 'jobs', id), recordedHeaders(jobStore.get(id)))));
  }
  app.decorate('db', db);
  app.decorate('jobStore', jobStore);
  app.addHook('onClose', async () => {
    db.close();
  });
}, { name: 'database', dependencies: [] });
