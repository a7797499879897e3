import fp from 'fastify-plugin';
import { isIP } from 'node:net';
import { errorBody } from '../http-errors.js';
import type { Config } from '../config.js';

/**
 * The names a request's `Host` may give, or undefined for any. A page of another site can make
 * its own name resolve to 127.0.0.1 (DNS rebinding) and then talk to a service on the loopback
 * interface as if it were its own site: the browser sends it with that name as `Host`, and treats
 * the answers as same-origin. So a service that listens on the loopback interface, or that knows
 * the name clients use (`PUBLIC_BASE_URL`), answers only requests naming it. IP addresses and
 * names without a dot (a container's name, a machine of the local network) cannot be rebound by
 * another site and are always taken. A service on every interface without `PUBLIC_BASE_URL`
 * cannot know its names: it takes any.
 */
export function allowedHostNames(config: Pick<Config, 'host' | 'publicBaseUrl'>): ReadonlySet<string> | undefined {
  const loopback = config.host === 'localhost' || config.host === '::1' || config.host.startsWith('127.');
  if (!loopback && !config.publicBaseUrl) return undefined;
  const names = new Set(['localhost']);
  if (config.publicBaseUrl) names.add(new URL(config.publicBaseUrl).hostname.toLowerCase());
  if (isIP(config.host) === 0 && !['0.0.0.0', '::', ''].includes(config.host)) names.add(config.host.toLowerCase());
  return names;
}

/** Whether a `Host` header names the service (see allowedHostNames). */
export function hostAllowed(hostHeader: string | undefined, names: ReadonlySet<string> | undefined): boolean {
  if (names === undefined || hostHeader === undefined) return true;
  let name = hostHeader.trim().toLowerCase();
  if (name.startsWith('[')) return isIP(name.slice(1, name.indexOf(']'))) === 6;
  const colon = name.lastIndexOf(':');
  if (colon >= 0) name = name.slice(0, colon);
  if (name.endsWith('.')) name = name.slice(0, -1);
  return isIP(name) !== 0 || !name.includes('.') || names.has(name) || name.endsWith('.localhost');
}

export default fp(async (app) => {
  const names = allowedHostNames(app.config);
  if (!names) return;
  const known = [...names].join(', ');
  app.addHook('onRequest', async (request, reply) => {
    if (hostAllowed(request.headers.host, names)) return;
    return reply.code(421).header('Connection', 'close').send(errorBody(421, 'misdirectedRequest',
      `this service answers requests for ${known} or an IP address, not ${JSON.stringify(request.headers.host)}: if clients reach it by that name, set PUBLIC_BASE_URL to the address they use`));
  });
}, { name: 'host-names' });
