import t from 'tap';
import { request, type IncomingMessage } from 'node:http';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { setTimeout as sleep } from 'node:timers/promises';
import { startApp, EZPROXY_DEFAULT } from '../helpers/app.js';
import { multipart, post } from '../helpers/http.js';

const LINE = '1.2.3.4 - JOHN [30/Nov/2012:00:14:18 +0100] "GET http://www.sciencedirect.com:80/science/article/pii/S0967064508000301 HTTP/1.1" 200 224846\n';

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
  t.equal(busy.headers['service-status-message'], 'Too many jobs are running, try again later: 1 job is running, the most MAX_CONCURRENT_JOBS allows');

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
