import fp from 'fastify-plugin';
import { StatusError } from '../status-codes.js';
import { isJobUpload, sendStatusError } from '../routes/jobs.js';

/**
 * A time limit on the bodies of requests other than jobs' uploads. The server has no
 * whole-request timeout (an upload of gigabytes takes as long as it takes, watched by
 * IDLE_UPLOAD_MS instead), so a client declaring a body and never finishing it held its
 * connection and the part it sent for ever: a thousand of them, a gigabyte, without a login
 * (POST /api/admin/register). Such a body gets REQUEST_BODY_MS to come whole, then 408 (4037)
 * and the connection closed.
 */
export default fp(async (app) => {
  const limitMs = app.config.limits.requestBodyMs;
  app.addHook('onRequest', async (request, reply) => {
    const req = request.raw;
    if (isJobUpload(req) || !hasBody(req.headers)) return;
    const timer = setTimeout(() => {
      if (req.complete) return;
      request.log.info({ limitMs }, 'request body not received in time: connection closed');
      reply.hijack();
      const res = reply.raw;
      // an answer already begun cannot become a 408: the connection is only closed
      if (res.headersSent) {
        req.socket.destroy();
        return;
      }
      res.shouldKeepAlive = false;
      res.once('finish', () => req.socket.destroy());
      sendStatusError(res, new StatusError(4037, `the request's body did not all arrive within ${Math.round(limitMs / 1000)} s`));
    }, limitMs);
    timer.unref();
    const clear = () => clearTimeout(timer);
    req.once('end', clear);
    req.once('close', clear);
    reply.raw.once('finish', clear);
  });
}, { name: 'request-bodies' });

function hasBody(headers: Record<string, string | string[] | undefined>): boolean {
  const length = headers['content-length'];
  return (length !== undefined && length !== '0') || headers['transfer-encoding'] !== undefined;
}
