import fp from 'fastify-plugin';
import { join } from 'node:path';
import { openDatabase, type Db } from '../db/database.js';
import { JobStore } from '../db/jobs.js';

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
  if (interrupted > 0) app.log.warn({ interrupted }, 'jobs left running by the previous process marked interrupted');
  app.decorate('db', db);
  app.decorate('jobStore', jobStore);
  app.addHook('onClose', async () => {
    db.close();
  });
}, { name: 'database', dependencies: [] });
