import t from 'tap';
import { connect } from 'node:net';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { startApp } from '../helpers/app.js';

t.test('a connection opened and never used does not hold the close', async (t) => {
  const server = await startApp();
  const { port } = new URL(server.url);
  const idle = connect(Number(port), '127.0.0.1');
  await once(idle, 'connect');
  const gone = once(idle, 'close');
  // and a keep-alive connection between two requests (Node's own close handles that one)
  const res = await fetch(`${server.url}/health`);
  t.ok(res.ok);
  await res.arrayBuffer();

  const closed = server.close().then(() => 'closed');
  t.equal(await Promise.race([closed, sleep(15_000, 'still open', { ref: false })]), 'closed', 'the close ends at once, not when the client lets go');
  await gone;
  t.pass('the unused connection was closed by the service');
});

t.test('a connection used for a request stays until its answer is sent', async (t) => {
  const server = await startApp();
  t.teardown(() => server.close());
  const { port } = new URL(server.url);
  const socket = connect(Number(port), '127.0.0.1');
  await once(socket, 'connect');
  socket.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  const [data] = (await once(socket, 'data')) as [Buffer];
  t.match(data.toString(), /^HTTP\/1\.1 20\d /);
  socket.destroy();
});
