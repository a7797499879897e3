import type { FastifyInstance } from 'fastify';

/** An answer its client does not take would hold the close: connections are cut after this long. */
const CUT_AFTER_MS = 5_000;

/**
 * Closes the service for a shutdown or a restart: running jobs end at once (5003), and the
 * connections still open after CUT_AFTER_MS are cut. Throws what the close throws.
 */
export async function closeService(app: FastifyInstance): Promise<void> {
  // Not unref'd: it also keeps the event loop alive while the close waits for a connection. A
  // paused upload does not, and node then left the close half done (workers, database and lock
  // never closed) and exited as if all were well.
  const cut = setTimeout(() => app.server.closeAllConnections(), CUT_AFTER_MS);
  try {
    await app.close();
  } finally {
    clearTimeout(cut);
  }
}
