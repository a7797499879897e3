import Fastify, { type FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import { APP_VERSION } from './version.js';
import databasePlugin from './plugins/database.js';
import platformsPlugin from './plugins/platforms.js';
import poolPlugin from './plugins/pool.js';
import resourcesPlugin from './plugins/resources.js';
import jobsPlugin from './plugins/jobs.js';
import jobRoutes from './routes/jobs.js';
import infoRoutes from './routes/info.js';

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    appVersion: string;
    /** provenance fields added to every event */
    versions: Readonly<Record<string, string>>;
    /** base of the absolute URLs in headers and reports */
    baseUrl(): string;
  }
}

/** PUBLIC_BASE_URL, or the address the service listens on. */
function listeningUrl(app: FastifyInstance): string {
  if (app.config.publicBaseUrl) return app.config.publicBaseUrl;
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : app.config.port;
  const host = ['0.0.0.0', '::', ''].includes(app.config.host) ? 'localhost' : app.config.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** Builds the service (not listening): plugins for shared services, then the route families. */
export async function buildApp(config: Config, logger: boolean | object = { level: config.logLevel }): Promise<FastifyInstance> {
  const app = Fastify({
    logger,
    trustProxy: config.trustProxy,
    // Uploads of many gigabytes take as long as they take: no whole-request timeout.
    requestTimeout: 0,
    bodyLimit: 1024 * 1024,
  });
  app.decorate('config', config);
  app.decorate('appVersion', APP_VERSION);
  app.decorate('baseUrl', function baseUrl(this: FastifyInstance) {
    return listeningUrl(this);
  });
  await app.register(databasePlugin);
  await app.register(platformsPlugin);
  await app.register(resourcesPlugin);
  await app.register(poolPlugin);
  await app.register(jobsPlugin);
  app.decorate('versions', {
    ezpaarse_version: APP_VERSION,
    ezpaarse_date: new Date().toISOString().slice(0, 10),
    platforms_version: app.platforms.version,
    platforms_date: app.platforms.date,
    middlewares_version: '',
    middlewares_date: '',
  });
  app.addHook('onSend', async (_request, reply) => {
    reply.header('ezPAARSE-Version', APP_VERSION);
  });
  await app.register(infoRoutes, { prefix: '/info' });
  await app.register(infoRoutes, { prefix: '/api/info' });
  await app.register(jobRoutes);
  return app;
}
