import t from 'tap';
import { connect } from 'node:net';
import { once } from 'node:events';
import { randomUUID } from 'node:crypto';
import { request, type IncomingMessage } from 'node:http';
import { startApp, EZPROXY_DEFAULT } from '../helpers/app.js';
import { post } from '../helpers/http.js';

/**
 * What the connection tells a job from outside its body: a client that closes its side once its
 * upload is sent, a body cut before its declared length, an upload that stops sending.
 */

const pad = (n: number) => String(n).padStart(2, '0');
/** `n` consultations, one a second, each a double click of the one before it (held until the next comes) */
const log = (n: number) => Array.from({ length: n }, (_, i) =>
  `1.2.3.4 - U${i % 3} [30/Nov/2012:00:${pad(Math.floor(i / 60) % 60)}:${pad(i % 60)} +0100] "GET http://www.sciencedirect.com:80/science/article/pii/S09670645${String(i % 50).padStart(8, '0')} HTTP/1.1" 200 1\n`).join('');

/** Writes `bytes`, then closes our side (a half-close: we still read), and returns all that came back. */
function halfClosed(url: string, bytes: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ port: Number(port), host: hostname, allowHalfOpen: true }, () => socket.end(bytes));
    let text = '';
    socket.on('data', (c: Buffer) => { text += c.toString('latin1'); });
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
    socket.setTimeout(20_000, () => socket.destroy(new Error('no answer')));
  });
}

const head = (length: number | 'chunked', extra = '') => `POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nLog-Format-ezproxy: ${EZPROXY_DEFAULT}\r\nAccept: text/csv\r\nTE: trailers\r\n${extra}${length === 'chunked' ? 'Transfer-Encoding: chunked' : `Content-Length: ${length}`}\r\n\r\n`;
const events = (answer: string) => answer.split('\n').filter((l) => l.includes('sciencedirect')).length;

t.test('the connection and the job', async (t) => {
  const server = await startApp({}, { POOL_THREADS: '1', IDLE_UPLOAD_MS: '1500' });
  t.teardown(() => server.close());
  const body = log(300);
  const whole = await post(server.url, body, { 'Log-Format-ezproxy': EZPROXY_DEFAULT, Accept: 'text/csv' });
  const expected = events(whole.text);
  t.ok(expected > 50, `${expected} events from the whole log`);

  t.test('a client that closes its side once its upload is sent still gets the whole answer', async (t) => {
    const answer = await halfClosed(server.url, head(Buffer.byteLength(body)) + body);
    t.match(answer, /^HTTP\/1\.1 200 /);
    t.equal(events(answer), expected, 'every event');
    t.match(answer, /\r\nJob-Done: true\r\n/, 'its job done');
  });

  t.test('a body cut before its Content-Length (a client gone, or one that closed its side): the lines before the cut go through, then 4039 in-band and in the trailers', async (t) => {
    const answer = await halfClosed(server.url, head(Buffer.byteLength(body) + 5000) + body);
    t.match(answer, /^HTTP\/1\.1 200 /);
    t.equal(answer.match(/HTTP\/1\.1 /g)?.length, 1, 'no second status line inside the answer');
    t.equal(events(answer), expected, 'every event, the double clicks held at the cut included');
    t.match(answer, /#logsift-error 4039 .*before its declared length/);
    t.match(answer, /\r\nService-Status: 4039\r\n/);
    t.match(answer, /\r\nJob-Done: false\r\n/);
  });

  t.test('a chunked body without its last chunk: the same', async (t) => {
    const chunk = `${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n`;
    const answer = await halfClosed(server.url, head('chunked') + chunk);
    t.equal(events(answer), expected);
    t.match(answer, /\r\nService-Status: 4039\r\n/);
  });

  t.test('cut before any event was sent: the status, and the job recorded as aborted', async (t) => {
    const answer = await halfClosed(server.url, head(5000) + body.slice(0, 100));
    t.match(answer, /^HTTP\/1\.1 499 /);
    t.match(answer, /\r\nService-Status: 4039\r\n/);
    const id = /\r\nJob-ID: ([^\r]+)\r\n/i.exec(answer)![1];
    t.equal(server.app.jobStore.get(id)?.state, 'aborted', 'not failed: the usage counts no failed job');
  });

  t.test('an HTTP/1.0 client (curl -0): no chunks, so no trailers; the whole answer, then the connection closed', async (t) => {
    const http10 = (method: string, path: string) => head(Buffer.byteLength(body)).replace('POST / HTTP/1.1', `${method} ${path} HTTP/1.0`);
    // announcing Trailer on an answer that is not chunked made node throw: the job crashed, its client waited for ever
    const answer = await halfClosed(server.url, http10('POST', '/') + body);
    t.match(answer, /^HTTP\/1\.1 200 /);
    t.notMatch(answer, /\r\nTrailer:/i, 'no trailers announced');
    t.notMatch(answer, /\r\nTransfer-Encoding:/i);
    t.equal(events(answer), expected, 'every event');
    t.notMatch(answer, /#logsift-error/);
    const id = randomUUID();
    const deferred = await halfClosed(server.url, http10('PUT', `/${id}`) + body);
    t.match(deferred, /^HTTP\/1\.1 200 /, 'a deferred job too');
    t.notMatch(deferred, /\r\nTrailer:/i);
    t.equal(server.app.jobStore.get(id)?.state, 'done');
  });

  t.test('an upload that stops sending: what came before goes through, double clicks held included, then 4037 after IDLE_UPLOAD_MS', async (t) => {
    const req = request(server.url, { method: 'POST', headers: { 'Transfer-Encoding': 'chunked', 'Log-Format-ezproxy': EZPROXY_DEFAULT, Accept: 'text/csv', TE: 'trailers' } });
    req.on('error', () => undefined);
    req.write(body);
    const stalledAt = Date.now();
    const [res] = (await once(req, 'response')) as [IncomingMessage];
    let answer = '';
    for await (const chunk of res) answer += chunk;
    const after = Date.now() - stalledAt;
    req.destroy();
    t.equal(events(answer), expected, 'every event');
    t.equal(res.trailers['service-status'], '4037');
    t.match(answer, /#logsift-error 4037 /);
    // it used to come after twice the limit: the first check always found the answer moving
    t.ok(after < 2800, `4037 ${after} ms after the upload stopped (IDLE_UPLOAD_MS 1500)`);
  });
});

/** Sends the head only, and returns what comes back within a short wait (the body is never sent). */
function headOnly(url: string, head: string, waitMs = 400): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(head));
    let text = '';
    socket.on('data', (c: Buffer) => { text += c.toString('latin1'); });
    socket.on('error', reject);
    setTimeout(() => { socket.destroy(); resolve(text); }, waitMs);
  });
}

t.test('Expect: 100-continue: a job\'s upload is asked for once its headers are accepted', async (t) => {
  const server = await startApp({}, { POOL_THREADS: '1', MAX_UPLOAD_BYTES: '100000' });
  t.teardown(() => server.close());
  const expect = 'Expect: 100-continue\r\n';
  t.match(await headOnly(server.url, head(5000, expect)), /^HTTP\/1\.1 100 Continue\r\n\r\n$/, 'accepted: continue, then nothing until the body comes');
  const bad = await headOnly(server.url, head(5000, expect).replace(EZPROXY_DEFAULT, '%Q %h'));
  t.match(bad, /^HTTP\/1\.1 400 /, 'a bad format: refused at once, the upload never asked for');
  t.match(bad, /\r\nService-Status: 4027\r\n/);
  const big = await headOnly(server.url, head(47_000_000, expect));
  t.match(big, /^HTTP\/1\.1 413 /, 'a body announced over MAX_UPLOAD_BYTES: refused before it is sent');
  t.match(big, /\r\nService-Status: 4034\r\n/);
  t.match(big, /announces 47000000 bytes, more than 100000 \(MAX_UPLOAD_BYTES\)/);
  const other = await headOnly(server.url, `POST /api/admin/register HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n${expect}\r\n`);
  t.match(other, /^HTTP\/1\.1 100 Continue\r\n/, 'other routes are told to continue at once');
  const notAJob = await headOnly(server.url, `PUT /not-a-job HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n${expect}\r\n`);
  t.match(notAJob, /^HTTP\/1\.1 100 Continue\r\n/, 'a PUT that names no job id too');

  // the whole exchange, as curl does it
  const body = log(20);
  const answer = await halfClosed(server.url, head(Buffer.byteLength(body), expect) + body);
  t.match(answer, /^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 /);
  t.match(answer, /\r\nJob-Done: true\r\n/);
});
