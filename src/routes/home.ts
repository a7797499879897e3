import type { FastifyInstance, FastifyReply } from 'fastify';
import fastifyStatic from '@fastify/static';

/**
 * The files of `public/` and the pages: `GET /` (while no account exists, the page that creates
 * the administrator; afterwards the submission page), `/process` (the submission page, always)
 * and `/admin` (the administration page).
 */
export default async function homeRoutes(app: FastifyInstance): Promise<void> {
  // One route per file found at start (no catch-all): unknown paths keep the JSON 404.
  await app.register(fastifyStatic, {
    root: app.config.publicDir,
    wildcard: false,
    index: false,
    // The security headers (a Content-Security-Policy allowing only the service's own files,
    // nosniff, no referrer) come from the security-headers plugin, on pages as on everything else.
  });

  // The pages change with the service's state (accounts, version): never cached.
  const page = (reply: FastifyReply, file: string) => reply.header('Cache-Control', 'no-store').sendFile(file, { cacheControl: false });

  app.get('/', async (_request, reply) => page(reply, app.userStore.count() === 0 ? 'setup.html' : 'index.html'));
  app.get('/process', async (_request, reply) => page(reply, 'index.html'));
  app.get('/admin', async (_request, reply) => page(reply, 'admin.html'));
}
