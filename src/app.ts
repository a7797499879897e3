import Fastify, { type FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import { APP_VERSION } from './version.js';
import databasePlugin from './plugins/database.js';
import platformsPlugin from './plugins/platforms.js';
import jobsPlugin from './plugins/jobs.js';
import authPlugin from './plugins/auth.js';
import updatesPlugin, { type UpdatesPluginOptions } from './plugins/updates.js';
import adminUpdateRoutes from './routes/admin-updates.js';
import jobRoutes from './routes/jobs.js';
import infoRoutes from './routes/info.js';

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    appVersion: string;
  }
}

export interface BuildOptions {
  /** tests: the install/build/exit steps of the app update replaced by recorders */
  readonly updates?: UpdatesPluginOptions;
}

/** Builds the service (not listening): plugins for shared services, then the route families. */
export async function buildApp(config: Config, logger: boolean | object = { level: config.logLevel }, options: BuildOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger,
    trustProxy: config.trustProxy,
    // Uploads of many gigabytes take as long as they take: no whole-request timeout.
    requestTimeout: 0,
    bodyLimit: 1024 * 1024,
  });
  app.decorate('config', config);
  app.decorate('appVersion', APP_VERSION);
  await app.register(databasePlugin);
  await app.register(platformsPlugin);
  await app.register(jobsPlugin);
  await app.register(authPlugin);
  await app.register(updatesPlugin, options.updates ?? {});
  app.addHook('onSend', async (_request, reply) => {
    reply.header('ezPAARSE-Version', APP_VERSION);
  });
  await app.register(infoRoutes, { prefix: '/info' });
  await app.register(infoRoutes, { prefix: '/api/info' });
  await app.register(adminUpdateRoutes);
  await app.register(jobRoutes);
  return app;
}
