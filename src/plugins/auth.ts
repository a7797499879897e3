import fp from 'fastify-plugin';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyInstance {
    /** preHandler of admin routes: 401 without valid credentials, 403 for a non-admin */
    requireAdmin: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
  }
}

/**
 * INTERIM STUB (issue 7), to be replaced by the accounts of issue 6 at merge: HTTP Basic checked
 * against a single admin named by ADMIN_USERNAME / ADMIN_PASSWORD, read once here. Without them
 * every admin route answers 401.
 */
export default fp(async (app) => {
  const user = process.env.ADMIN_USERNAME;
  const password = process.env.ADMIN_PASSWORD;
  const expected = user && password ? digest(`${user}:${password}`) : undefined;
  app.decorate('requireAdmin', async (request: FastifyRequest, reply: FastifyReply) => {
    const m = /^Basic\s+(\S+)$/i.exec(request.headers.authorization ?? '');
    const given = m ? digest(Buffer.from(m[1], 'base64').toString('utf8')) : undefined;
    if (expected && given && timingSafeEqual(expected, given)) return;
    await reply.code(401).header('WWW-Authenticate', 'Basic realm="logsift"')
      .send({ statusCode: 401, error: 'Unauthorized', message: 'unauthorized' });
  });
}, { name: 'auth' });

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
