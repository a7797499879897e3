import type { FastifyInstance } from 'fastify';
import { Type } from '@fastify/type-provider-typebox';
import { STATUS_CODES } from '../status-codes.js';

/** The information routes, under /info and (for 3.x clients) /api/info. */
export default async function infoRoutes(app: FastifyInstance): Promise<void> {
  const codes: Record<string, string> = {};
  for (const [code, info] of Object.entries(STATUS_CODES)) codes[code] = info.message;

  app.get('/codes', {
    schema: { response: { 200: Type.Record(Type.String(), Type.String()) } },
  }, async () => codes);

  app.get('/codes/:code', {
    schema: { params: Type.Object({ code: Type.String() }) },
  }, async (request, reply) => {
    const { code } = request.params as { code: string };
    const message = /^[0-9]+$/.test(code) ? codes[code] : undefined;
    if (message === undefined) return reply.code(404).send({ message: 'unknown_code' });
    // The reference answers the message as a JSON string.
    return reply.type('application/json; charset=utf-8').send(JSON.stringify(message));
  });

  app.get('/version', async (_request, reply) => reply.type('text/plain; charset=utf-8').send(app.appVersion));

  app.get('/platforms', async () =>
    app.platforms.sources.map((s) => ({
      ...s.manifest,
      domains: s.manifest.domains,
      'domains-count': s.manifest.domains.length + (s.manifest['kb-domains']?.length ?? 0),
      kind: s.kind,
      'rule-count': countRules(s.rules?.rules),
    })),
  );
}

function countRules(rules: unknown): number {
  if (!Array.isArray(rules)) return 0;
  return rules.reduce((n: number, r: { rules?: unknown }) => n + 1 + countRules(r?.rules), 0);
}
