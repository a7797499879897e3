import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import type { FastifyInstance } from 'fastify';
import { readConfig, type Config } from './config.js';
import { buildApp } from './app.js';
import { listenStartError, StartError } from './start-error.js';
import { closeService } from './close-service.js';

/**
 * A start that fails: a configuration mistake (StartError) is one line saying what to fix, without
 * a stack; anything else is logged whole. Written synchronously, since the process exits next.
 */
function cannotStart(err: unknown): never {
  const log = pino(pino.destination({ dest: 1, sync: true }));
  if (err instanceof StartError) log.fatal(`cannot start: ${err.message}`);
  else log.fatal({ err }, 'cannot start');
  process.exit(1);
}

/** Starts the service; SIGTERM/SIGINT end running jobs cleanly, then close the pool and database. */
let config: Config;
let app: FastifyInstance;
// What the service writes (job files holding the log's lines, with addresses and logins; the
// database of accounts) is not for the machine's other users: group read at most.
process.umask(process.umask() | 0o027);
try {
  config = readConfig();
  app = await buildApp(config);
} catch (err) {
  cannotStart(err);
}

let closing = false;
async function shutdown(signal: string): Promise<void> {
  if (closing) return;
  closing = true;
  app.log.info({ signal, running: app.runningJobs.size }, 'shutting down');
  const force = setTimeout(() => {
    app.log.error('shutdown took too long, exiting');
    process.exit(1);
  }, 30_000); // kept referenced: the guard must be there to fire
  try {
    await closeService(app);
    process.exit(0);
  } catch (err) {
    app.log.error({ err }, 'error while shutting down');
    process.exit(1);
  }
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));

try {
  await app.listen({ host: config.host, port: config.port });
} catch (err) {
  // the workers and the VAR_DIR lock are let go first (bounded: the process exits next anyway)
  await Promise.race([app.close().catch(() => undefined), sleep(5_000)]);
  cannotStart(listenStartError(err, config.host, config.port) ?? err);
}
