import t from 'tap';
import { connect, type Socket } from 'node:net';
import { once } from 'node:events';
import { startApp, EZPROXY_DEFAULT } from '../helpers/app.js';

// Real sockets: the limit is on bytes that do not come, which inject() cannot hold back.
const server = await startApp({ limits: { requestBodyMs: 400 } }, { POOL_THREADS: '1' });
t.teardown(() => server.close());
const port = Number(new URL(server.url).port);

/** Sends `head` and the first `sent` bytes of a body of `declared` bytes, then nothing; what comes back, and when the socket closed. */
async function holdBody(head: string, declared: number, sent: string): Promise<{ answer: string; closedAfterMs: number }> {
  const socket: Socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  const started = Date.now();
  socket.write(`${head}Content-Length: ${declared}\r\n\r\n${sent}`);
  let answer = '';
  socket.on('data', (d) => { answer += d.toString(); });
  const closed = once(socket, 'close');
  const guard = setTimeout(() => socket.destroy(), 5000);
  await closed;
  clearTimeout(guard);
  return { answer, closedAfterMs: Date.now() - started };
}

t.test('a body that never ends, on a route without a login: 408 (4037) and the connection closed', async (t) => {
  const { answer, closedAfterMs } = await holdBody('POST /api/admin/register HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n', 1000, '{"userid":"a');
  t.match(answer, /^HTTP\/1\.1 408 /, 'answered 408');
  t.match(answer, /Service-Status: 4037/);
  t.match(answer, /did not all arrive within/);
  t.ok(closedAfterMs < 3000, `closed after ${closedAfterMs} ms (limit 400 ms), not held`);
  // the service goes on
  const health = await fetch(`${server.url}/info/version`);
  t.equal(health.status, 200);
});

t.test('a job\'s upload is not held to it: a slow log is read to its end', async (t) => {
  const line = `1.2.3.4 - - [01/Jan/2024:10:00:00 +0000] "GET http://www.sciencedirect.com/science/article/pii/S0304397521004382 HTTP/1.1" 200 100\n`;
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  socket.write(`POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nLog-Format-ezproxy: ${EZPROXY_DEFAULT}\r\nDouble-Click-Removal: false\r\nContent-Length: ${line.length * 2}\r\nConnection: close\r\n\r\n${line}`);
  await new Promise((r) => setTimeout(r, 900));
  socket.write(line);
  let answer = '';
  socket.on('data', (d) => { answer += d.toString(); });
  await once(socket, 'close');
  t.match(answer, /^HTTP\/1\.1 200 /, 'the job answered 200 after 900 ms of upload');
  t.notMatch(answer, /4037/);
});

t.test('a body of more than 64 KiB on a JSON route: 413', async (t) => {
  const res = await fetch(`${server.url}/api/admin/register`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ userid: 'x'.repeat(70_000) }) });
  t.equal(res.status, 413);
});
