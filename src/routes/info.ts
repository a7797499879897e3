import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { Type } from '@fastify/type-provider-typebox';
import { STATUS_CODES } from '../status-codes.js';
import { describePlatforms, PlatformInfoSchema } from '../platforms/platform-info.js';
import type { PlatformSource } from '../platforms/loader.js';
import type { DomainRouter } from '../platforms/router.js';
import { routingOrder, type PlatformManifest } from '../platforms/manifest.js';
import { routerOver } from '../platforms/platform-set.js';
import { DEFAULT_MIDDLEWARES, BUILTIN_MIDDLEWARES } from '../pipeline/middlewares.js';
import type { PartName } from '../updates/parts.js';
import { hideServerErrors } from '../http-errors.js';

/**
 * `git diff --name-only` paths grouped by their top folder (`{ folder: [paths] }`), as the
 * reference's `changed` routes answer: top-level files, dot folders and the parser template are left out.
 */
export function changedByFolder(files: readonly string[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const file of files) {
    const slash = file.indexOf('/');
    if (slash < 0) continue;
    const folder = file.slice(0, slash);
    if (folder.startsWith('.') || folder === 'js-parser-skeleton') continue;
    (out[folder] ??= []).push(file.slice(slash + 1));
  }
  return out;
}

const ChangedSchema = Type.Record(Type.String(), Type.Array(Type.String()));
const MiddlewareHeadersSchema = Type.Array(Type.Object({
  name: Type.String(),
  headers: Type.Array(Type.Object({ name: Type.String(), description: Type.Optional(Type.String()) })),
}));

const DomainPlatform = Type.Object({
  platform: Type.String(),
  platformName: Type.String(),
  publisherName: Type.Optional(Type.String()),
  manifest: Type.Record(Type.String(), Type.Unknown()),
});

/** A platform as the router sees it, with the source it was read from. */
type RoutedSource = ReturnType<typeof routingOrder> & { readonly manifest: PlatformManifest; readonly source: PlatformSource };

/** The information routes, under /info and (for 3.x clients) /api/info. */
export default async function infoRoutes(app: FastifyInstance): Promise<void> {
  app.setErrorHandler(hideServerErrors);
  const codes: Record<string, string> = {};
  for (const [code, info] of Object.entries(STATUS_CODES)) codes[code] = info.message;

  app.get('/codes', {
    schema: { response: { 200: Type.Record(Type.String(), Type.String()) } },
  }, async () => codes);

  app.get('/codes/:code', {
    schema: {
      params: Type.Object({ code: Type.String() }),
      response: { 200: Type.String(), 404: Type.Object({ message: Type.Literal('unknown_code') }) },
    },
  }, async (request, reply) => {
    const { code } = request.params as { code: string };
    const message = /^[0-9]+$/.test(code) ? codes[code] : undefined;
    if (message === undefined) return reply.code(404).send({ message: 'unknown_code' });
    // The reference answers the message as a JSON string (sent as text here: not serialized twice).
    return reply.type('application/json; charset=utf-8').send(JSON.stringify(message));
  });

  app.get('/version', { schema: { response: { 200: Type.String() } } }, async (_request, reply) => reply.type('text/plain; charset=utf-8').send(app.appVersion));

  // The whole manifests as stored (what 3.x clients read), plus domain and rule counts and the
  // knowledge-base packages.
  app.get('/platforms', {
    schema: {
      querystring: Type.Object({ status: Type.Optional(Type.String()) }),
      response: { 200: Type.Array(PlatformInfoSchema) },
    },
  }, async (request) => describePlatforms(app.platforms.sources, (request.query as { status?: string }).status, app.platforms.resources.data.pkb.packages));

  // what the reference gives: a text UUID (v4 here)
  app.get('/uuid', { schema: { response: { 200: Type.String() } } }, async (_request, reply) => reply.type('text/plain; charset=utf-8').send(randomUUID()));

  // The reference's allow-list only: nothing else of the configuration is public.
  app.get('/config', {
    schema: { response: { 200: Type.Object({ EZPAARSE_IGNORED_DOMAINS: Type.Array(Type.String()) }) } },
  }, async () => ({ EZPAARSE_IGNORED_DOMAINS: [...app.platforms.resources.data.exclusions.domains] }));

  // The platforms a job would try for a host, best first (exact host names, as jobs do by
  // default); [] when none. Never a server path. The router is made at the first question, and
  // again after a platforms update.
  let routed: { sources: readonly PlatformSource[]; router: DomainRouter<RoutedSource> } | undefined;
  app.get('/domains/:domain', {
    schema: { params: Type.Object({ domain: Type.String({ maxLength: 255 }) }), response: { 200: Type.Array(DomainPlatform) } },
  }, async (request) => {
    const domain = (request.params as { domain: string }).domain.toLowerCase();
    if (!/^[a-z0-9.-]+$/.test(domain)) return [];
    const sources = app.platforms.sources;
    if (routed?.sources !== sources) {
      routed = { sources, router: routerOver(sources.map((source) => ({ ...routingOrder(source.manifest), manifest: source.manifest, source }))) };
    }
    return routed.router.lookup(domain).map(({ source }) => ({
      platform: source.manifest.name,
      platformName: source.manifest.longname,
      publisherName: source.manifest.publisher_name,
      manifest: source.manifest as unknown as Record<string, unknown>,
    }));
  });

  // `config`: the chain jobs run by default; `enabled`: the same (no other list is kept);
  // `available`: the extra steps loaded from the middlewares folder that the chain leaves out.
  app.get('/middlewares', {
    schema: { response: { 200: Type.Object({ config: Type.Array(Type.String()), enabled: Type.Array(Type.String()), available: Type.Array(Type.String()) }) } },
  }, async () => {
    const config = [...(app.config.middlewares ?? DEFAULT_MIDDLEWARES)];
    const known = [...BUILTIN_MIDDLEWARES as readonly string[], ...app.platforms.resources.middlewareModules.keys()];
    return { config, enabled: config, available: known.filter((name) => !config.includes(name)) };
  });

  // What an update of the part would change: its files that differ from the last fetched origin
  // branch, by folder (a platform, a middleware). Nothing is fetched here (the status route does).
  for (const part of ['platforms', 'middlewares'] as const satisfies readonly PartName[]) {
    app.get(`/${part}/changed`, { schema: { response: { 200: ChangedSchema } } }, async (_request, reply) => {
      reply.header('Cache-Control', 'no-store');
      return changedByFolder(await app.updates.filesBehindOrigin(part));
    });
  }

  // The job headers each extra step reads, as it declares them (`headers` of its module).
  app.get('/middlewares/headers', { schema: { response: { 200: MiddlewareHeadersSchema } } }, async () =>
    [...app.platforms.resources.middlewareModules].map(([name, mod]) => ({ name, headers: (mod.headers ?? []).map((h) => ({ ...h })) })));

  app.get('/platforms/count', { schema: { response: { 200: Type.String() } } }, async (_request, reply) =>
    reply.type('text/plain; charset=utf-8').send(String(app.platforms.sources.length)));
}
