import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type } from '@fastify/type-provider-typebox';

const Unavailable = Type.Object({
  status: Type.Literal('unavailable'),
  checks: Type.Object({ database: Type.String() }),
});

/**
 * `GET /api/health` and `GET /health`: 204 when the database answers a query, 503 with what
 * failed otherwise (for load balancers and supervisors; no login, nothing else said).
 */
export default async function healthRoutes(app: FastifyInstance): Promise<void> {
  const check = async (_request: unknown, reply: FastifyReply) => {
    reply.header('Cache-Control', 'no-store');
    try {
      app.db.prepare('SELECT 1').pluck().get();
    } catch (err) {
      return reply.code(503).send({ status: 'unavailable' as const, checks: { database: (err as Error).message } });
    }
    return reply.code(204).send();
  };
  for (const path of ['/api/health', '/health']) {
    app.get(path, { schema: { response: { 503: Unavailable } } }, check);
  }
}
