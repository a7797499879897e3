import type { FastifyInstance } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ErrorBody } from '../http-errors.js';
import { PublicUser } from './admin-users.js';

/**
 * `GET /api/auth/session`: who the credentials sent belong to. The pages' login box checks a
 * password with it before keeping it (in memory) for their requests; there is no cookie.
 */
export default async function sessionRoutes(instance: FastifyInstance): Promise<void> {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  app.get('/api/auth/session', {
    onRequest: app.requireUser,
    schema: { response: { 200: Type.Object({ user: PublicUser }), '4xx': ErrorBody } },
  }, async (request, reply) => {
    reply.header('Cache-Control', 'no-store');
    return { user: request.user! };
  });
}
