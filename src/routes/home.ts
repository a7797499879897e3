import type { FastifyInstance, FastifyReply } from 'fastify';
import fastifyStatic from '@fastify/static';

/**
 * The pages need nothing but their own files: scripts and styles from `public/`, requests to
 * the service itself. No inline script or style anywhere, so this policy holds.
 */
export const PAGE_CSP = [
  "default-src 'self'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:", "connect-src 'self'",
  "object-src 'none'", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'",
].join('; ');

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
    setHeaders: (reply, path) => {
      reply.header('X-Content-Type-Options', 'nosniff');
      if (path.endsWith('.html')) {
        reply.header('Content-Security-Policy', PAGE_CSP);
        reply.header('Referrer-Policy', 'same-origin');
      }
    },
  });

  // The pages change with the service's state (accounts, version): never cached.
  const page = (reply: FastifyReply, file: string) => reply.header('Cache-Control', 'no-store').sendFile(file, { cacheControl: false });

  app.get('/', async (_request, reply) => page(reply, app.userStore.count() === 0 ? 'setup.html' : 'index.html'));
  app.get('/process', async (_request, reply) => page(reply, 'index.html'));
  app.get('/admin', async (_request, reply) => page(reply, 'admin.html'));
}
