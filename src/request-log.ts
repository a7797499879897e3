import type { FastifyRequest } from 'fastify';

/**
 * The request as the service log writes it: Fastify's usual fields, with the value of a
 * `ticket` query parameter hidden. A ticket opens its job's files for hours (routes
 * job-result.ts, job-files.ts): whoever reads the log must not be able to use it.
 */
export function requestForLog(request: FastifyRequest): Record<string, unknown> {
  return {
    method: request.method,
    url: withoutSecrets(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

export function withoutSecrets(url: string): string {
  return url.replace(/([?&]ticket=)[^&#]*/gi, '$1[hidden]');
}
