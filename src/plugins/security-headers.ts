import fp from 'fastify-plugin';
import helmet from '@fastify/helmet';

/**
 * Security headers on every answer the service sends through Fastify (pages, files of
 * `public/`, JSON): a Content-Security-Policy that lets pages load only the service's own
 * scripts, styles and images (no inline script, no framing, forms posting only here), nosniff,
 * no referrer. HSTS is left to the TLS-terminating proxy: the service itself speaks plain HTTP.
 * Job answers are written directly (streamed) and set their own `X-Content-Type-Options`.
 */
export const CONTENT_SECURITY_POLICY = {
  'default-src': ["'none'"],
  'script-src': ["'self'"],
  'style-src': ["'self'"],
  'img-src': ["'self'", 'data:'],
  'font-src': ["'self'"],
  'connect-src': ["'self'"],
  'form-action': ["'self'"],
  'frame-ancestors': ["'none'"],
  'base-uri': ["'none'"],
  'object-src': ["'none'"],
};

export default fp(async (app) => {
  await app.register(helmet, {
    contentSecurityPolicy: { useDefaults: false, directives: CONTENT_SECURITY_POLICY },
    hsts: false,
    referrerPolicy: { policy: 'no-referrer' },
    crossOriginResourcePolicy: { policy: 'same-origin' },
  });
}, { name: 'security-headers' });
