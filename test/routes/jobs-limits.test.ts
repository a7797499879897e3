import t from 'tap';
import { request, type IncomingMessage } from 'node:http';
import { once } from 'node:events';
import { connect } from 'node:net';
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { setTimeout as sleep } from 'node:timers/promises';
import { startApp, EZPROXY_DEFAULT } from '../helpers/app.js';
import { multipart, post } from '../helpers/http.js';

const LINE = '1.2.3.4 - JOHN [30/Nov/2012:00:14:18 +0100] "GET http://www.sciencedirect.com:80/science/article/pii/S0967064508000301 HTTP/1.1" 200 224846\n';

t.test('jobs at once per client (MAX_JOBS_PER_CLIENT): a client cannot take the service for itself', async (t) => {
  const server = await startApp({ limits: { maxJobsPerClient: 2, idleUploadMs: 0 } }, { POOL_THREADS: '1' });
  t.teardown(() => server.close());
  t.equal(server.config.limits.maxJobsPerClient, 2);
  // two uploads held open by one client (address 127.0.0.1, no login)
  const holds = await Promise.all([0, 1].map(async () => {
    const held = request(server.url, { method: 'POST', headers: { 'Transfer-Encoding': 'chunked', 'Log-Format-ezproxy': EZPROXY_DEFAULT, 'Double-Click-Removal': 'false' } });
    held.on('error', () => undefined);
    held.write(LINE);
    const [res] = (await once(held, 'response')) as [IncomingMessage];
    res.resume();
    return { held, res };
  }));
  const third = await post(server.url, LINE, { 'Log-Format-ezproxy': EZPROXY_DEFAULT });
  t.equal(third.status, 503, 'a third job of the same client');
  t.equal(third.headers['retry-after'], '30');
  t.match(third.json<{ code: number; message: string }>(), { code: 5004, message: /MAX_JOBS_PER_CLIENT allows 2 at once from an address without a login/ });
  // one ends: room again
  holds[0].held.end();
  await once(holds[0].res, 'end');
  const again = await post(server.url, LINE, { 'Log-Format-ezproxy': EZPROXY_DEFAULT });
  t.equal(again.status, 200, 'once one of them ended');
  holds[1].held.end();
  await once(holds[1].res, 'end');
  t.equal(server.config.limits.maxJobsPerClient, 2);
  // the default
  const { readConfig } = await import('../../src/config.js');
  t.equal(readConfig({}).limits.maxJobsPerClient, 16);
});

t.test('limits users can set: concurrent jobs (503 + Retry-After), upload size (4034), idle uploads (4037)', async (t) => {
  const server = await startApp({ limits: { maxConcurrentJobs: 1, maxUploadBytes: 10_000, idleUploadMs: 3000, maxLineBytes: 100_000 } }, { POOL_THREADS: '1' });
  t.teardown(() => server.close());

  const held = request(server.url, { method: 'POST', headers: { 'Transfer-Encoding': 'chunked', 'Log-Format-ezproxy': EZPROXY_DEFAULT, 'Double-Click-Removal': 'false' } });
  held.on('error', () => undefined);
  held.write(LINE);
  const [heldRes] = (await once(held, 'response')) as [IncomingMessage];
  heldRes.resume();
  const busy = await post(server.url, LINE, { 'Log-Format-ezproxy': EZPROXY_DEFAULT });
  t.equal(busy.status, 503, 'a second job while one runs');
  t.equal(busy.headers['retry-after'], '30');
  t.equal(busy.json<{ code: number }>().code, 5004);
  t.equal(busy.headers['service-status-message'], 'Too many jobs are running, try again later: MAX_CONCURRENT_JOBS allows 1');

  // The held upload sends nothing more: it fails after the idle time.
  await once(heldRes, 'end');
  t.equal(heldRes.trailers['service-status'], '4037', 'an upload that stops sending fails');
  held.destroy();
  await sleep(100);

  const big = await post(server.url, LINE.repeat(200), { 'Log-Format-ezproxy': EZPROXY_DEFAULT });
  t.ok([200, 413].includes(big.status));
  const text = big.status === 200 ? big.text : '';
  t.ok(big.status === 413 ? big.json<{ code: number }>().code === 4034 : /#logsift-error 4034 /.test(text), 'an upload over the limit fails with 4034');

  // The limit counts the bytes received, before decompression (README, Limits).
  const over = (r: Awaited<ReturnType<typeof post>>) => (r.status === 413 ? r.json<{ code: number }>().code === 4034 : /#logsift-error 4034 /.test(r.text));
  const small = gzipSync(LINE.repeat(200));
  t.ok(small.length < 10_000, `a gzip body of ${small.length} bytes, ${LINE.length * 200} once inflated`);
  const inflated = await post(server.url, small, { 'Log-Format-ezproxy': EZPROXY_DEFAULT, 'Content-Encoding': 'gzip' });
  t.equal(inflated.status, 200, 'a compressed upload under the limit goes through, whatever its inflated size');
  t.equal(inflated.trailers['job-done'], 'true');
  // lines whose URLs do not compress: over the limit as sent
  const noisy = gzipSync(Array.from({ length: 400 }, () => LINE.replace('S0967064508000301', randomBytes(32).toString('hex'))).join(''));
  t.ok(noisy.length > 10_000, `a gzip body of ${noisy.length} bytes`);
  t.ok(over(await post(server.url, noisy, { 'Log-Format-ezproxy': EZPROXY_DEFAULT, 'Content-Encoding': 'gzip' })), 'a compressed upload over the limit as sent: 4034');
  const postFile = (name: string, data: Buffer) => {
    const form = multipart([{ name, type: 'application/octet-stream', data }]);
    return post(server.url, form.body, { 'Log-Format-ezproxy': EZPROXY_DEFAULT, 'Content-Type': form.type });
  };
  const smallPart = await postFile('a.log.gz', small);
  t.equal(smallPart.status, 200, 'a multipart upload under the limit, its file inflated over it');
  t.equal(smallPart.trailers['job-done'], 'true');
  t.ok(over(await postFile('a.log.gz', noisy)), 'a multipart upload over the limit: 4034');
  t.ok(over(await postFile('a.log', Buffer.from(LINE.repeat(200)))), 'and uncompressed');
});

t.test('a decompression bomb: its job ends at once with 4034 saying what to do (MAX_INFLATE_RATIO), after the events of the lines before it', async (t) => {
  const server = await startApp({ limits: { maxInflateRatio: 100 } }, { POOL_THREADS: '1' });
  t.teardown(() => server.close());
  // 200 MB of newlines in 200 kB (the testers' 3 GB in 3 MB: the job read empty lines for minutes,
  // its client waiting with nothing, then 4003)
  const bomb = gzipSync(Buffer.alloc(200 << 20, 0x0a));
  const started = Date.now();
  const res = await post(server.url, bomb, { 'Log-Format-ezproxy': EZPROXY_DEFAULT, 'Content-Encoding': 'gzip' });
  const seconds = (Date.now() - started) / 1000;
  t.equal(res.status, 413);
  t.equal(res.headers['service-status'], '4034');
  t.match(res.headers['service-status-message'], /^Upload too large: the request body, read as gzip, expands more than 100 times \(\d+ bytes from \d+; MAX_INFLATE_RATIO\): .*decompression bomb/);
  t.ok(seconds < 30, `answered in ${seconds.toFixed(1)} s`);
  const job = server.app.jobStore.get(String(res.headers['job-id']));
  t.equal(job?.status_code, 4034, 'the job ended with it');

  // lines before it: their events, then the error
  const lines = Buffer.concat([Buffer.from(LINE.repeat(20)), Buffer.alloc(40 << 20, 0x0a)]);
  const after = await post(server.url, gzipSync(lines), { 'Log-Format-ezproxy': EZPROXY_DEFAULT, 'Content-Encoding': 'gzip' });
  t.equal(after.status, 200);
  t.equal(after.trailers['service-status'], '4034');
  t.equal(after.text.split('\n').filter((l) => l.includes('sciencedirect')).length, 20, 'the events of the lines before');
  t.match(after.text, /#logsift-error 4034 Upload too large: the request body, read as gzip, expands more than 100 times/);
});

t.test('the idle limit: a client reading slowly goes through; one that stops reading ends its job with 4040', async (t) => {
  const server = await startApp({ limits: { maxConcurrentJobs: 0, maxUploadBytes: 0, idleUploadMs: 200, maxLineBytes: 100_000 } }, { POOL_THREADS: '1' });
  t.teardown(() => server.close());
  const pad = (n: number) => String(n).padStart(2, '0');
  const log = (lines: number) => Buffer.from(Array.from({ length: lines }, (_, i) => LINE
    .replace('00:14:18', `${pad(Math.floor(i / 3600))}:${pad(Math.floor(i / 60) % 60)}:${pad(i % 60)}`)
    .replace('JOHN', `U${i}`)
    .replace('S0967064508000301', `S09670645${String(i).padStart(8, '0')}`)).join(''));
  const head = (body: Buffer) => `POST / HTTP/1.1\r\nHost: x\r\nLog-Format-ezproxy: ${EZPROXY_DEFAULT}\r\nDouble-Click-Removal: false\r\nTE: trailers\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`;
  const { port } = new URL(server.url);

  // A client with a small receive buffer (Python's sockets can ask for one, node's cannot) that
  // reads 8 KB every 20 ms: the service's writes then wait far longer than the idle limit.
  const dir = await mkdtemp(join(tmpdir(), 'logsift-slow-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const body = log(12_000);
  await writeFile(join(dir, 'request'), Buffer.concat([Buffer.from(head(body)), body]));
  const reader = [
    'import socket, sys, threading, time',
    's = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096); s.connect(("127.0.0.1", int(sys.argv[1])))',
    'data = open(sys.argv[2], "rb").read()',
    'threading.Thread(target=lambda: s.sendall(data), daemon=True).start()',
    'out = bytearray()',
    'while True:',
    '    d = s.recv(8192)',
    '    if not d: break',
    '    out += d; time.sleep(0.02)',
    'sys.stdout.buffer.write(out)',
  ].join('\n');
  const python = spawn('python3', ['-c', reader, port, join(dir, 'request')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const chunks: Buffer[] = [];
  python.stdout.on('data', (c: Buffer) => chunks.push(c));
  await once(python, 'close');
  const answer = Buffer.concat(chunks).toString('latin1');
  t.ok(answer.length > 5_000_000, `an answer of ${answer.length} bytes`);
  t.notMatch(answer, /#logsift-error/, 'a client reading slowly is not an idle upload');
  t.match(answer, /Job-Done: true/, 'its job done');
  t.equal(answer.split('\n').filter((l) => l.includes('sciencedirect')).length, 12_000);

  // A client that sends its upload and reads nothing: once the system's buffers are full, the
  // job waits for it, and ends.
  const silent = connect(Number(port), '127.0.0.1');
  silent.on('error', () => undefined);
  silent.pause();
  const big = log(60_000);
  silent.write(head(big));
  silent.write(big);
  let id: string | undefined;
  for (let i = 0; i < 3000 && id === undefined; i++) {
    await sleep(10);
    id = server.app.runningJobs.list()[0]?.id;
  }
  t.ok(id, 'the job started');
  let row = id ? server.app.jobStore.get(id) : undefined;
  // its row is written once its folder is made
  for (let i = 0; i < 600 && id && (row === undefined || row.state === 'running'); i++) {
    await sleep(50);
    row = server.app.jobStore.get(id);
  }
  t.equal(row?.state, 'aborted', 'a client that reads nothing ends its job');
  t.equal(row?.status_code, 4040);
  t.ok((row?.lines_read ?? 0) < 60_000, 'before its end');
  silent.destroy();
});

t.test('ezPAARSE-Response-Timeout: a job\'s own idle limit, in milliseconds, in place of IDLE_UPLOAD_MS', async (t) => {
  const server = await startApp({ limits: { idleUploadMs: 60_000, maxLineBytes: 100_000 } }, { POOL_THREADS: '1' });
  t.teardown(() => server.close());
  const hold = async (timeout: string) => {
    const started = Date.now();
    const req = request(server.url, { method: 'POST', headers: { 'Transfer-Encoding': 'chunked', 'Log-Format-ezproxy': EZPROXY_DEFAULT, 'Double-Click-Removal': 'false', 'ezPAARSE-Response-Timeout': timeout } });
    req.on('error', () => undefined);
    req.write(LINE);
    const [res] = (await once(req, 'response')) as [IncomingMessage];
    res.resume();
    await once(res, 'end');
    req.destroy();
    return { status: res.trailers['service-status'], ms: Date.now() - started };
  };
  const held = await hold('1500');
  t.equal(held.status, '4037', 'the upload that stops sending fails after the job\'s own limit');
  t.ok(held.ms >= 1500 && held.ms < 30_000, `after ${held.ms} ms, not IDLE_UPLOAD_MS's 60 s`);
  for (const bad of ['soon', '-1', '86400001']) {
    const res = await post(server.url, LINE, { 'Log-Format-ezproxy': EZPROXY_DEFAULT, 'ezPAARSE-Response-Timeout': bad });
    t.equal(res.status, 400, bad);
    t.match(res.headers['service-status-message'], /ezPAARSE-Response-Timeout: /, bad);
  }
  const none = await post(server.url, LINE, { 'Log-Format-ezproxy': EZPROXY_DEFAULT, 'ezPAARSE-Response-Timeout': '0' });
  t.equal(none.status, 200, '0: no limit');
});
