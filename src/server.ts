import { readConfig } from './config.js';
import { buildApp } from './app.js';

/** Starts the service; SIGTERM/SIGINT end running jobs cleanly, then close the pool and database. */
const config = readConfig();
const app = await buildApp(config);

let closing = false;
async function shutdown(signal: string): Promise<void> {
  if (closing) return;
  closing = true;
  app.log.info({ signal, running: app.runningJobs.size }, 'shutting down');
  const force = setTimeout(() => {
    app.log.error('shutdown took too long, exiting');
    process.exit(1);
  }, 30_000);
  force.unref();
  // Running jobs end at once (5003); an answer its client does not take would hold the close.
  const cut = setTimeout(() => app.server.closeAllConnections(), 5_000);
  cut.unref();
  try {
    await app.close();
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
  app.log.error({ err }, 'cannot start');
  process.exit(1);
}
