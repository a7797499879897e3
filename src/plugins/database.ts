import fp from 'fastify-plugin';
import { makeDirs } from '../make-dirs.js';
import { join } from 'node:path';
import { openDatabase, type Db } from '../db/database.js';
import { JobStore, recordedHeaders } from '../db/jobs.js';
import { LockFile } from '../lock-file.js';
import { endInterruptedJob } from '../pipeline/interrupted-job.js';
import { StartError } from '../start-error.js';
import { storageDetail } from '../storage-errors.js';

declare module 'fastify' {
  interface FastifyInstance {
    db: Db;
    jobStore: JobStore;
  }
}

/** The lock of a VAR_DIR, beside its database. */
export const VAR_LOCK_FILE = 'logsift.lock';

function reason(err: unknown): string {
  return (err as NodeJS.ErrnoException).code ?? (err as Error).message ?? String(err);
}

/**
 * Makes VAR_DIR and takes its lock: a second service on the same folder would mark the first's
 * running jobs interrupted while they run. A lock left by a process that no longer runs is taken over.
 */
export async function lockVarDir(varDir: string): Promise<LockFile> {
  try {
    makeDirs(varDir);
  } catch (err) {
    throw new StartError(`VAR_DIR: cannot create the folder ${varDir} (${reason(err)}): set VAR_DIR to a folder the service can write`);
  }
  const lock = new LockFile(join(varDir, VAR_LOCK_FILE));
  let holder: number | undefined;
  try {
    holder = await lock.take();
  } catch (err) {
    throw new StartError(`VAR_DIR: cannot write the lock file ${lock.path} (${reason(err)}): give the service write access to ${varDir} or set VAR_DIR to another folder`);
  }
  if (holder !== undefined) {
    throw new StartError(`VAR_DIR ${varDir} is used by another logsift process (pid ${holder}): stop that service, or give this one its own VAR_DIR (if no logsift runs as pid ${holder}, remove ${lock.path})`);
  }
  return lock;
}

/**
 * The database failing at start, as what to fix: damaged (restore it or move it aside), locked
 * by another process, its disk full, not writable; `otherwise` for another failure.
 */
function databaseStartError(err: unknown, file: string, otherwise: string): StartError {
  // (a file that cannot be opened at all: `otherwise` says so, and what to do)
  const code = (err as { code?: unknown }).code;
  const detail = typeof code === 'string' && code.startsWith('SQLITE_CANTOPEN') ? undefined : storageDetail(err, { database: file });
  return new StartError(`VAR_DIR: ${detail ?? otherwise}`);
}

/** The service's SQLite file (`var/logsift.sqlite`): jobs, users, reports. */
export default fp(async (app) => {
  const lock = await lockVarDir(app.config.varDir);
  const file = join(app.config.varDir, 'logsift.sqlite');
  let db: Db;
  try {
    db = openDatabase(file);
  } catch (err) {
    await lock.release();
    throw databaseStartError(err, file, `cannot open the database ${file} (${(err as Error).message}): give the service write access to ${app.config.varDir} or set VAR_DIR to another folder`);
  }
  let jobStore: JobStore;
  let interrupted: ReturnType<JobStore['markInterrupted']>;
  try {
    jobStore = new JobStore(db);
    interrupted = jobStore.markInterrupted();
  } catch (err) {
    db.close();
    await lock.release();
    throw databaseStartError(err, file, `cannot update the database ${file} (${(err as Error).message})`);
  }
  if (interrupted.length > 0) {
    app.log.warn({ interrupted: interrupted.length }, 'jobs left running by the previous process marked interrupted');
    // Their report, result and traces files still look as if the job ran on: they say how it ended too.
    await Promise.all(interrupted.map(({ id, endedAt }) => endInterruptedJob(join(app.config.varDir, 'jobs', id), recordedHeaders(jobStore.get(id)), endedAt)));
  }
  app.decorate('db', db);
  app.decorate('jobStore', jobStore);
  app.addHook('onClose', async () => {
    db.close();
    await lock.release();
  });
}, { name: 'database', dependencies: [] });
