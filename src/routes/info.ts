import type { FastifyInstance } from 'fastify';
import { Type } from '@fastify/type-provider-typebox';
import { STATUS_CODES } from '../status-codes.js';
import { describePlatforms, PlatformInfoSchema } from '../platforms/platform-info.js';

/** The information routes, under /info and (for 3.x clients) /api/info. */
export default async function infoRoutes(app: FastifyInstance): Promise<void> {
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

  // The whole manifests as stored (what 3.x clients read), plus domain and rule counts.
  app.get('/platforms', {
    schema: {
      querystring: Type.Object({ status: Type.Optional(Type.String()) }),
      response: { 200: Type.Array(PlatformInfoSchema) },
    },
  }, async (request) => describePlatforms(app.platforms.sources, (request.query as { status?: string }).status));

  app.get('/platforms/count', { schema: { response: { 200: Type.String() } } }, async (_request, reply) =>
    reply.type('text/plain; charset=utf-8').send(String(app.platforms.sources.length)));
}
