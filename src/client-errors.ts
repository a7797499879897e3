import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/**
 * Emitted on a request whose body the connection ended before its declared length (the bytes
 * Content-Length announced, or a chunked body's last chunk): its job handles it as a broken
 * upload (the lines before the cut still go through, then the error, in-band and in the trailers).
 */
export const BODY_CUT_SHORT = Symbol('body cut short');

/**
 * Node's HTTP parser errors on a connection (a body cut short, the garbled start of a next
 * request). Fastify's own handler writes a 400 on the socket whatever it is doing, in the middle
 * of a streamed answer if one is under way: that answer's client got a corrupt body instead of
 * its job's error line and trailers. An answer under way is left to finish (its job told of a cut
 * body), and the connection closes after it.
 */
export function clientErrorHandler(this: FastifyInstance, err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const res = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (res && !res.writableEnded) {
    res.shouldKeepAlive = false;
    const req: IncomingMessage = res.req;
    // its job answers; a body read to its end means the error is the next request's
    if (req.complete || req.emit(BODY_CUT_SHORT)) return;
    if (res.headersSent) {
      socket.destroy(err);
      return;
    }
  }
  this.log.debug({ err }, 'client error');
  const status = err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : err.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
  const body = JSON.stringify({ statusCode: status, error: STATUS_CODES[status], message: err.code === 'HPE_HEADER_OVERFLOW' ? 'the request\'s headers are too large' : 'the request could not be read as HTTP' });
  if (socket.writable) socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  socket.destroy(err);
}
