import fp from 'fastify-plugin';
import { loadResources, type LoadedResources } from '../resources/index.js';
import { isBuiltinMiddleware } from '../pipeline/middlewares.js';

declare module 'fastify' {
  interface FastifyInstance {
    resources: LoadedResources;
  }
}

/**
 * Exclusion lists, knowledge bases, geolocation database, campus networks and extra middlewares,
 * loaded once for the whole service (the workers share them).
 */
export default fp(async (app) => {
  const started = Date.now();
  const resources = await loadResources(app.config);
  for (const p of resources.problems) app.log.error(`${p.what} not loaded: ${p.message}`);
  const { exclusions, pkb, geoip, middlewares } = resources.data;
  app.log.info({
    exclusionFiles: exclusions.files.length,
    ignoredDomains: exclusions.domains.length,
    pkbPlatforms: pkb.platforms.length,
    pkbTitles: pkb.titles,
    geoip: geoip.file ?? 'off',
    geoipBytes: geoip.buffer?.byteLength ?? 0,
    middlewares: middlewares.map((m) => m.name),
    ms: Date.now() - started,
  }, 'resources loaded');
  const unknown = app.config.middlewares?.filter((m) => !isBuiltinMiddleware(m) && !resources.middlewareModules.has(m));
  if (unknown?.length) throw new Error(`MIDDLEWARES names unknown middlewares: ${unknown.join(', ')}`);
  app.decorate('resources', resources);
}, { name: 'resources', dependencies: ['platforms'] });
