import fp from 'fastify-plugin';
import type { Socket } from 'node:net';

/**
 * The shutdown closes the connections opened but not yet used. Node's server.close() closes
 * the keep-alive connections idle between two requests, not those without a first request (HTTP
 * clients and browsers open them ahead), and then waits for them: until their client let them go,
 * a minute or more, the close and the process's exit waited.
 */
export default fp(async (app) => {
  const unused = new Set<Socket>();
  app.server.on('connection', (socket: Socket) => {
    unused.add(socket);
    socket.once('close', () => unused.delete(socket));
  });
  app.server.on('request', (req) => {
    unused.delete(req.socket);
  });
  app.addHook('preClose', async () => {
    for (const socket of unused) socket.destroy();
    unused.clear();
  });
}, { name: 'closing-connections' });
