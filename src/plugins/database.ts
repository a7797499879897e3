import fp from 'fastify-plugin';
import { join } from 'node:path';
import { openDatabase, type Db } from '../db/database.js';
import { JobStore } from '../db/jobs.js';
import { markReportInterrupted } from '../pipeline/job-report.js';
import { REPORT_FILE } from '../pipeline/job-files.js';

declare module 'fastify' {
  interface FastifyInstance {
    db: Db;
    jobStore: JobStore;
  }
}

/** The service's SQLite file (`var/logsift.sqlite`): jobs, users, reports. */
export default fp(async (app) => {
  const db = openDatabase(join(app.config.varDir, 'logsift.sqlite'));
  const jobStore = new JobStore(db);
  const interrupted = jobStore.markInterrupted();
  if (interrupted.length > 0) {
    app.log.warn({ interrupted: interrupted.length }, 'jobs left running by the previous process marked interrupted');
    // Their report files still say "running": they say how the job ended too.
    await Promise.all(interrupted.map((id) => markReportInterrupted(join(app.config.varDir, 'jobs', id, REPORT_FILE))));
  }
  app.decorate('db', db);
  app.decorate('jobStore', jobStore);
  app.addHook('onClose', async () => {
    db.close();
  });
}, { name: 'database', dependencies: [] });
