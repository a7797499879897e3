import type { FastifyInstance } from 'fastify';
import fastifyStatic from '@fastify/static';

/**
 * The files of `public/` and `GET /`: while no account exists, the page that creates the
 * administrator; afterwards the service's home page.
 */
export default async function homeRoutes(app: FastifyInstance): Promise<void> {
  // One route per file found at start (no catch-all): unknown paths keep the JSON 404.
  await app.register(fastifyStatic, { root: app.config.publicDir, wildcard: false, index: false });

  app.get('/', async (_request, reply) =>
    reply
      .header('Cache-Control', 'no-store') // the page changes once the administrator exists
      .header('X-Content-Type-Options', 'nosniff')
      .sendFile(app.userStore.count() === 0 ? 'setup.html' : 'index.html', { cacheControl: false }));
}
