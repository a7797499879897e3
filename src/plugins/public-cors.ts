import fp from 'fastify-plugin';

/**
 * Cross-origin reading of the public, read-only routes (`/info/*`): a page of another site (a
 * library's dashboard listing the platforms) may fetch them, as the reference allows
 * (routes.md 0.4: `*` kept on the public read-only routes). No credentials are involved: these
 * routes need no login, and `*` never lets a browser send cookies or cached Basic credentials.
 */
export const CORS_READ_HEADERS: Readonly<Record<string, string>> = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': 'ezPAARSE-Version',
};

/**
 * The answer to a preflight (or a plain OPTIONS): the methods these routes take, and the request
 * headers asked for when they are a list of header names (anything else is not echoed).
 */
export function preflightHeaders(requested: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {
    ...CORS_READ_HEADERS,
    Allow: 'GET, HEAD, OPTIONS',
    'Access-Control-Allow-Methods': 'GET, HEAD, OPTIONS',
    'Access-Control-Max-Age': '86400',
  };
  if (requested !== undefined && /^\s*[!#$%&'*+.^_`|~0-9A-Za-z-]+(\s*,\s*[!#$%&'*+.^_`|~0-9A-Za-z-]+)*\s*$/.test(requested)) {
    headers['Access-Control-Allow-Headers'] = requested.trim();
  }
  return headers;
}

/** Registered next to the routes it opens (fastify-plugin: its hook and OPTIONS route take their prefix). */
export default fp(async (app) => {
  app.addHook('onRequest', async (_request, reply) => {
    reply.headers(CORS_READ_HEADERS);
  });
  app.options('/*', async (request, reply) => {
    const requested = request.headers['access-control-request-headers'];
    return reply.code(204).headers(preflightHeaders(Array.isArray(requested) ? requested.join(',') : requested)).send();
  });
}, { name: 'public-cors' });
