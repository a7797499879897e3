import fp from 'fastify-plugin';
import { ParsingPool } from '../pipeline/parsing-pool.js';

declare module 'fastify' {
  interface FastifyInstance {
    pool: ParsingPool;
  }
}

/** The Piscina pool of parsing workers, loaded with the platforms. */
export default fp(async (app) => {
  const pool = new ParsingPool({
    threads: app.config.pool.threads,
    platformSources: app.platforms.sources,
    platformsVersion: app.platforms.version,
    resources: app.resources.data,
    onWorkerError: (err) => app.log.error({ err }, 'parsing worker error'),
  });
  app.decorate('pool', pool);
  app.addHook('onClose', async () => {
    await pool.close();
  });
}, { name: 'pool', dependencies: ['platforms', 'resources'] });
