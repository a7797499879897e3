import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import type { Config, TrustProxy } from './config.js';
import { APP_VERSION } from './version.js';
import { allowedMethods } from './allowed-methods.js';
import { isJobId } from './pipeline/job-files.js';
import { errorBody, databaseFailure, refuseNonFiniteNumbers, schemaErrorFormatter } from './http-errors.js';
import { PROJECT_ROOT } from './paths.js';
import { readBuildInfo, type BuildInfo } from './build-info.js';
import databasePlugin from './plugins/database.js';
import platformsPlugin from './plugins/platforms.js';
import jobsPlugin from './plugins/jobs.js';
import retentionPlugin from './plugins/retention.js';
import authPlugin from './plugins/auth.js';
import updatesPlugin, { type UpdatesPluginOptions } from './plugins/updates.js';
import adminUpdateRoutes from './routes/admin-updates.js';
import jobRoutes, { sendStatusError } from './routes/jobs.js';
import jobFileRoutes, { jobFileAccess, reportContext } from './routes/job-files.js';
import infoRoutes from './routes/info.js';
import adminUserRoutes from './routes/admin-users.js';
import adminJobRoutes from './routes/admin-jobs.js';
import homeRoutes from './routes/home.js';
import settingsPlugin from './plugins/settings.js';
import formatTesterPlugin from './plugins/format-tester.js';
import infoDataRoutes from './routes/info-data.js';
import customSettingsRoutes from './routes/custom-settings.js';
import healthRoutes from './routes/health.js';
import castorRoutes from './routes/castor.js';
import formatRoutes from './routes/format.js';
import jobResultRoutes from './routes/job-result.js';
import jobHistoryRoutes from './routes/job-history.js';
import sessionRoutes from './routes/session.js';
import securityHeaders from './plugins/security-headers.js';
import closingConnections from './plugins/closing-connections.js';
import hostNames from './plugins/host-names.js';
import { clientErrorHandler } from './client-errors.js';
import { requestForLog } from './request-log.js';
import requestBodies from './plugins/request-bodies.js';
import publicCors from './plugins/public-cors.js';

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    appVersion: string;
    /** the service's source revision (job reports) */
    buildInfo: BuildInfo;
    /**
     * base of the absolute URLs in headers and reports: PUBLIC_BASE_URL; else, behind a trusted
     * proxy (TRUST_PROXY), the request's forwarded host and protocol; else the listening address.
     * A client's Host or X-Forwarded-* headers are never used otherwise.
     */
    baseUrl(request?: FastifyRequest): string;
    /** every route registered (method and URL pattern): what the security checks walk through */
    routeList: ReadonlyArray<{ readonly method: string; readonly url: string }>;
  }
}

export interface BuildOptions {
  /** tests: the install/build/exit steps of the app update replaced by recorders */
  readonly updates?: UpdatesPluginOptions;
}

function listeningUrl(app: FastifyInstance, request?: FastifyRequest): string {
  if (app.config.publicBaseUrl) return app.config.publicBaseUrl;
  // With trustProxy, Fastify reads host and protocol from X-Forwarded-Host/-Proto, whatever they say.
  if (request && app.config.trustProxy !== false && /^[a-zA-Z0-9.\-:[\]]+$/.test(request.host)) {
    const forwarded = String(request.protocol).toLowerCase();
    // anything else (javascript:) is not a URL to announce; the service itself speaks plain HTTP
    const protocol = forwarded === 'http' || forwarded === 'https' ? forwarded : 'http';
    return `${protocol}://${request.host}`;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : app.config.port;
  const host = ['0.0.0.0', '::', ''].includes(app.config.host) ? 'localhost' : app.config.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/**
 * Fastify's trustProxy for TRUST_PROXY. A number of proxies becomes a trust function: Fastify 5
 * takes a bare hop count for "trust nothing" (it cannot check the peer's address): with a count,
 * whoever connects is taken for the nearest proxy, so the service must be reachable only through it.
 */
function fastifyTrustProxy(trust: TrustProxy): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (trust === false) return false;
  if (typeof trust === 'number') return (_address, hop) => hop < trust;
  return [...trust];
}

/** Builds the service (not listening): plugins for shared services, then the route families. */
export async function buildApp(config: Config, logger: boolean | object = { level: config.logLevel }, options: BuildOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: typeof logger === 'object' ? { ...logger, serializers: { req: requestForLog } } : logger,
    trustProxy: fastifyTrustProxy(config.trustProxy),
    // Uploads of many gigabytes take as long as they take: no whole-request timeout.
    requestTimeout: 0,
    // The bodies read whole are logins and accounts' changes (the format tester sets its own)
    bodyLimit: 64 * 1024,
    // Fastify's default ('array') also takes ["x"] for "x": a field is a string or is refused.
    ajv: { customOptions: { coerceTypes: true } },
    // Schema failures name the values a field accepts (Ajv lists "must be equal to constant").
    schemaErrorFormatter,
    // Loading the platforms and resources takes seconds, more on a first start (the slim copy of
    // the geolocation file is made then): Fastify's 10 s per plugin would refuse a slow machine.
    pluginTimeout: 120_000,
    clientErrorHandler,
  });
  // A client that closes its side once its upload is sent (`nc -N`, some proxies) still reads the
  // answer: node's default took that for a disconnection and aborted the job.
  (app.server as typeof app.server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
  app.decorate('config', config);
  // The routes without a handler of their own (jobs, their files): the database failing under a
  // request is a 5005 saying what to fix, as a job's answer; anything else gets Fastify's answer.
  app.setErrorHandler((err, request, reply) => {
    const failure = databaseFailure(err, request);
    if (!failure) throw err;
    request.log.error({ code: (err as { code?: string }).code }, `request failed: ${failure.message}`);
    reply.hijack();
    sendStatusError(reply.raw, failure, { 'ezPAARSE-Version': APP_VERSION });
  });
  // Before any route is added, so that every route has it.
  app.addHook('preHandler', refuseNonFiniteNumbers);
  const routeList: Array<{ method: string; url: string }> = [];
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) routeList.push({ method, url: route.url });
  });
  app.decorate('routeList', routeList);
  // A known path asked with another method: 405 and the methods it takes, not "not found".
  app.setNotFoundHandler(async (request, reply) => {
    const path = request.url.split('?')[0];
    const allow = allowedMethods(routeList, path, { jobId: isJobId });
    if (allow.length > 0 && !allow.includes(request.method)) {
      return reply.code(405).header('Allow', allow.join(', '))
        .send(errorBody(405, 'methodNotAllowed', `${path} takes ${allow.join(', ')}, not ${request.method}`));
    }
    return reply.code(404).send({ message: `Route ${request.method}:${request.url} not found`, error: 'Not Found', statusCode: 404 });
  });
  app.decorate('appVersion', APP_VERSION);
  app.decorate('baseUrl', function baseUrl(this: FastifyInstance, request?: FastifyRequest) {
    return listeningUrl(this, request);
  });
  app.decorate('buildInfo', await readBuildInfo(PROJECT_ROOT));
  await app.register(securityHeaders);
  await app.register(closingConnections);
  await app.register(requestBodies);
  await app.register(hostNames);
  await app.register(databasePlugin);
  await app.register(platformsPlugin);
  await app.register(jobsPlugin);
  await app.register(retentionPlugin);
  await app.register(authPlugin);
  await app.register(updatesPlugin, options.updates ?? {});
  await app.register(settingsPlugin);
  await app.register(formatTesterPlugin);
  app.addHook('onSend', async (_request, reply) => {
    reply.header('ezPAARSE-Version', APP_VERSION);
  });
  // The public read-only routes, readable from pages of other sites (public-cors.ts); the
  // custom settings' writes among them need an administrator and refuse other sites (auth.ts).
  for (const prefix of ['/info', '/api/info']) {
    await app.register(async (info) => {
      await info.register(publicCors);
      await info.register(infoRoutes);
      await info.register(infoDataRoutes);
      await info.register(customSettingsRoutes);
    }, { prefix });
  }
  await app.register(healthRoutes);
  await app.register(castorRoutes);
  await app.register(formatRoutes);
  await app.register(sessionRoutes);
  await app.register(adminUserRoutes, { prefix: '/api/admin' });
  await app.register(adminJobRoutes, { prefix: '/api/admin' });
  await app.register(homeRoutes);
  await app.register(adminUpdateRoutes);
  await app.register(jobRoutes);
  await app.register(jobResultRoutes);
  await app.register(jobHistoryRoutes);
  await app.register(jobFileRoutes, { access: jobFileAccess(app), report: reportContext(app) });
  await app.register(jobFileRoutes, { prefix: '/api/logs', access: jobFileAccess(app), report: reportContext(app) });
  return app;
}
