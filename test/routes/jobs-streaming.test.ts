import t, { type Test } from 'tap';
import { request, type IncomingMessage, type ClientRequest } from 'node:http';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { connect } from 'node:net';
import { randomUUID } from 'node:crypto';
import { constants as zlib, gunzipSync, gzipSync } from 'node:zlib';
import { startApp, EZPROXY_DEFAULT } from '../helpers/app.js';
import { multipart } from '../helpers/http.js';

const line = (i: number, second = 0) =>
  `10.0.${(i >> 8) & 255}.${i & 255} - USER${i % 50} [30/Nov/2012:00:${String(14 + Math.floor(second / 60) % 40).padStart(2, '0')}:${String(second % 60).padStart(2, '0')} +0100] "GET http://www.sciencedirect.com:80/science/article/pii/S09670645080${String(i % 100000).padStart(5, '0')} HTTP/1.1" 200 2248\n`;

const server = await startApp({}, { POOL_THREADS: '1' });
t.teardown(() => server.close());
// One job first, so that the timings below measure streaming, not the worker's cold start
// (loading and compiling every platform takes seconds on a busy machine).
await (await fetch(server.url, { method: 'POST', body: line(0), headers: { 'Log-Format-ezproxy': EZPROXY_DEFAULT } })).text();

/** Opens an upload that the test writes into; `response` resolves at the first response byte. */
function openUpload(headers: Record<string, string>): { req: ClientRequest; response: Promise<IncomingMessage> } {
  const req = request(server.url, { method: 'POST', headers: { TE: 'trailers', 'Transfer-Encoding': 'chunked', ...headers } });
  const response = once(req, 'response').then(([res]) => res as IncomingMessage);
  req.on('error', () => undefined);
  return { req, response };
}

async function readUntil(res: IncomingMessage, pred: (text: string) => boolean, ms = 5000): Promise<string> {
  let text = '';
  const deadline = Date.now() + ms;
  for await (const chunk of res.iterator({ destroyOnReturn: false })) {
    text += chunk.toString();
    if (pred(text) || Date.now() > deadline) break;
  }
  return text;
}

/**
 * The head goes out before the job knows how it ends, so `Trailer` names every trailer it may
 * send; each trailer actually sent must be among them (clients may drop unannounced ones).
 */
function checkTrailerHeader(t: Test, res: IncomingMessage): void {
  t.equal(res.headers.trailer, 'Job-Done, Service-Status, Service-Status-Message', 'the Trailer header');
  const announced = (res.headers.trailer ?? '').split(',').map((n) => n.trim().toLowerCase());
  const sent = Object.keys(res.trailers);
  t.ok(sent.length > 0, 'some trailers were sent');
  for (const name of sent) t.ok(announced.includes(name), `trailer ${name} is announced`);
}

t.test('the first event reaches the client while the upload is still open', async (t) => {
  const { req, response } = openUpload({ 'Log-Format-ezproxy': EZPROXY_DEFAULT, 'Double-Click-Removal': 'false' });
  const started = Date.now();
  req.write(line(1));
  const res = await response;
  t.equal(res.statusCode, 200);
  const chunks: string[] = [];
  res.on('data', (c: Buffer) => chunks.push(c.toString()));
  while (chunks.join('').split('\n').length < 3 && Date.now() - started < 5000) await sleep(20);
  const text = chunks.join('');
  t.equal(text.split('\n').length, 3, 'header and one event received');
  t.ok(Date.now() - started < 2000, `within ${Date.now() - started} ms, before the upload ended`);
  t.notOk(req.writableEnded, 'the request is still open');
  req.end(line(2));
  await once(res, 'end');
  t.equal(chunks.join('').split('\n').filter(Boolean).length, 3, 'and the second event after it');
  t.equal(res.trailers['job-done'], 'true');
  checkTrailerHeader(t, res);
});

t.test('a client that goes away aborts the job and frees the workers', async (t) => {
  const { req, response } = openUpload({ 'Log-Format-ezproxy': EZPROXY_DEFAULT, 'Double-Click-Removal': 'false' });
  for (let i = 0; i < 2000; i++) req.write(line(i, i));
  const res = await response;
  const id = res.headers['job-id'] as string;
  await readUntil(res, (text) => text.length > 1000);
  req.destroy();
  res.destroy();
  for (let i = 0; i < 100 && server.app.jobStore.get(id)?.state === 'running'; i++) await sleep(50);
  const row = server.app.jobStore.get(id);
  t.equal(row?.state, 'aborted');
  t.equal(row?.status_code, 4039);
  t.match(row?.status_message, /^The client closed the connection: (before the service had read the whole upload|the upload broke off)$/, 'the message says when (here: mid-upload), once');
  t.equal(server.app.runningJobs.size, 0, 'no job left running');
  const after = await fetch(server.url, { method: 'POST', body: line(7), headers: { 'Log-Format-ezproxy': EZPROXY_DEFAULT, 'Double-Click-Removal': 'false' } });
  t.equal(after.status, 200, 'the next job runs');
  t.equal((await after.text()).split('\n').filter(Boolean).length, 2);
});

t.test('a client that sends its whole upload and closes at once leaves no job running', async (t) => {
  // Node drops what it received but the job had not read yet when the connection closes: such a
  // job must end (aborted), whatever reads its body (a pipe to gunzip or to the multipart parser
  // waited for ever, and its job stayed running).
  const body = Buffer.from(Array.from({ length: 300 }, (_, i) => line(i, i)).join(''));
  const form = (name: string, data: Buffer) => multipart([{ name, type: 'application/octet-stream', data }]);
  const plain = form('a.log', body);
  const gz = form('a.log.gz', gzipSync(body));
  const cases: Array<[string, 'POST' | 'PUT', Record<string, string>, Buffer]> = [
    ['raw', 'POST', {}, body],
    ['gzip', 'POST', { 'Content-Encoding': 'gzip' }, gzipSync(body)],
    ['multipart', 'POST', { 'Content-Type': plain.type }, plain.body],
    ['multipart, a .gz file', 'POST', { 'Content-Type': gz.type }, gz.body],
    ['deferred, gzip', 'PUT', { 'Content-Encoding': 'gzip' }, gzipSync(body)],
    ['deferred, multipart', 'PUT', { 'Content-Type': plain.type }, plain.body],
  ];
  for (const [name, method, headers, data] of cases) {
    const id = randomUUID();
    const head = [`${method} /${method === 'PUT' ? id : ''} HTTP/1.1`, 'Host: x', `Log-Format-ezproxy: ${EZPROXY_DEFAULT}`,
      ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), `Content-Length: ${data.length}`, '', ''].join('\r\n');
    const socket = connect(Number(new URL(server.url).port), '127.0.0.1');
    socket.on('error', () => undefined);
    await once(socket, 'connect');
    socket.end(Buffer.concat([Buffer.from(head), data]));
    socket.destroy();
    for (let i = 0; i < 40 && server.app.runningJobs.size === 0; i++) await sleep(25); // the job may not have started yet
    for (let i = 0; i < 200 && server.app.runningJobs.size > 0; i++) await sleep(50);
    t.equal(server.app.runningJobs.size, 0, `${name}: no job left running`);
    if (method === 'PUT') {
      const row = server.app.jobStore.get(id);
      t.ok(row && ['aborted', 'done'].includes(row.state), `${name}: the job ended (${row?.state} ${row?.status_code ?? ''})`);
      if (row?.state === 'aborted') t.equal(row.status_code, 4039, `${name}: as a client that went away`);
    }
  }
  const after = await fetch(server.url, { method: 'POST', body: line(7), headers: { 'Log-Format-ezproxy': EZPROXY_DEFAULT, 'Double-Click-Removal': 'false' } });
  t.equal(after.status, 200, 'the next job runs');
});

t.test('an error after the first event: an in-band marker and the status in the trailers', async (t) => {
  const { req, response } = openUpload({ 'Log-Format-ezproxy': EZPROXY_DEFAULT, 'Double-Click-Removal': 'false' });
  req.write(line(1));
  const res = await response;
  const first = await readUntil(res, (text) => text.split('\n').length >= 3);
  t.equal(first.split('\n').length, 3, 'an event was sent');
  req.write('y'.repeat(150_000));
  let rest = '';
  for await (const chunk of res) rest += chunk.toString();
  t.match(rest, /#logsift-error 4022 /, 'the body ends with the error marker');
  t.equal(res.trailers['job-done'], 'false');
  t.equal(res.trailers['service-status'], '4022');
  t.match(res.trailers['service-status-message'], /No line breaks detected/);
  checkTrailerHeader(t, res);
  req.destroy();
  const row = server.app.jobStore.get(res.headers['job-id'] as string);
  t.equal(row?.state, 'failed');
  const denied = await (await fetch(`${server.url}/${res.headers['job-id']}/denied-ecs.csv`)).text();
  t.match(denied, /#logsift-error 4022 [^\n]*\n$/, 'the denied events\' file ends with the same line: no client takes it for complete');
});

t.test('the input breaks off: the lines before still give their events, then the marker, and the report counts them', async (t) => {
  // 2,000 lines a second apart: no double click, none out of order
  const good = Buffer.from(Array.from({ length: 2000 }, (_, i) => line(i, i)).join(''));
  // 2,300 lines in order (seconds do not wrap before 2,400)
  const zipped = gzipSync(Buffer.from(Array.from({ length: 2300 }, (_, i) => line(i, i)).join('')));
  // a first file whole, the second cut in its middle (line 2,150: lines 2,000 to 2,149 are whole)
  const second = Buffer.from(Array.from({ length: 300 }, (_, i) => line(2000 + i, 2000 + i)).join(''));
  const form = multipart([{ name: 'a.log', type: 'text/plain', data: good }, { name: 'b.log', type: 'text/plain', data: second }]);
  const cutAt = form.body.indexOf(second) + second.indexOf(line(2150, 2150)) + 20;
  for (const [name, body, headers, code] of [
    ['a line over the limit', Buffer.concat([good, Buffer.alloc(150_000, 0x79)]), {}, 4022],
    ['gzip cut short', zipped.subarray(0, Math.floor(zipped.length * 0.6)), { 'Content-Encoding': 'gzip' }, 4002],
    ['a multipart body cut short', form.body.subarray(0, cutAt), { 'Content-Type': form.type }, 4007],
  ] as const) {
    const res = await fetch(server.url, { method: 'POST', body, headers: { 'Log-Format-ezproxy': EZPROXY_DEFAULT, 'Crypted-Fields': 'none', ...headers } });
    const rows = (await res.text()).trimEnd().split('\n');
    t.match(rows.pop(), new RegExp(`^#logsift-error ${code} `), `${name}: the body ends with the error marker`);
    const id = res.headers.get('job-id')!;
    t.equal(server.app.jobStore.get(id)?.state, 'failed', name);
    const report = JSON.parse(await (await fetch(`${server.url}/${id}/job-report.json`)).text()) as { general: Record<string, number>; rejets: Record<string, number> };
    const read = report.general['nb-lines-input'];
    // the gzip case: every whole line its first part decompresses to (zlib can tell them)
    const expected = code === 4022 ? 2000 : code === 4007 ? 2150 : gunzipSync(body, { finishFlush: zlib.Z_SYNC_FLUSH }).toString().split('\n').length - 1;
    t.equal(read, expected, `${name}: ${read} lines read and counted`);
    // every line read is an event or a reject: none was dropped with the batches in flight
    const rejected = Object.entries(report.rejets).filter(([k]) => k.startsWith('nb-lines-')).reduce((n, [, v]) => n + v, 0);
    t.equal(report.general['nb-ecs'] + report.general['nb-denied-ecs'] + rejected, read, `${name}: events and rejects add up to the lines read`);
    t.equal(rows.length - 1, report.general['nb-ecs'], `${name}: the events counted were all written`);
    t.equal(report.general['nb-ecs'], read, `${name}: ${read} events, one a line before the break`);
  }
});

t.test('a small multipart upload cut short (parsed by busboy in one go) still gives the events of its lines', async (t) => {
  const first = Buffer.from(Array.from({ length: 5 }, (_, i) => line(i, i)).join(''));
  const second = Buffer.from(Array.from({ length: 20 }, (_, i) => line(5 + i, 5 + i)).join(''));
  for (const [name, files, lines] of [
    ['one file, no closing boundary', [second], 20],
    ['two files, the second without its end', [first, second], 25],
  ] as const) {
    const form = multipart(files.map((data, i) => ({ name: `${i}.log`, type: 'text/plain', data })));
    const body = form.body.subarray(0, form.body.lastIndexOf(second) + second.length);
    const res = await fetch(server.url, { method: 'POST', body, headers: { 'Log-Format-ezproxy': EZPROXY_DEFAULT, 'Crypted-Fields': 'none', 'Content-Type': form.type } });
    t.equal(res.status, 200, name);
    const rows = (await res.text()).trimEnd().split('\n');
    t.match(rows.pop(), /^#logsift-error 4007 /, `${name}: the body ends with the error marker`);
    t.equal(rows.length - 1, lines, `${name}: an event a line`);
    const report = JSON.parse(await (await fetch(`${server.url}/${res.headers.get('job-id')}/job-report.json`)).text()) as { general: Record<string, number> };
    t.equal(report.general['nb-lines-input'], lines, `${name}: the report counts them`);
  }
});

t.test('a client that reads slowly slows the reading of its upload (back-pressure)', async (t) => {
  const { req, response } = openUpload({ 'Log-Format-ezproxy': EZPROXY_DEFAULT, 'Double-Click-Removal': 'false', 'Crypted-Fields': 'none' });
  let written = 0;
  let writing = true;
  const writer = (async () => {
    for (let i = 0; writing && i < 2_000_000; i++) {
      const l = line(i, Math.floor(i / 10));
      written += l.length;
      if (!req.write(l)) await Promise.race([once(req, 'drain'), once(req, 'close')]);
    }
  })();
  const res = await response;
  res.pause();
  // Socket buffers on both sides fill first (a few MB on loopback), then reading must stop.
  await sleep(3000);
  const job = server.app.runningJobs.list()[0];
  const readWhilePaused = job.bytesRead;
  await sleep(2000);
  t.ok(job.bytesRead - readWhilePaused < 512 * 1024, `reading stalled while the client did not read (${job.bytesRead - readWhilePaused} bytes in 2 s)`);
  t.ok(written - job.bytesRead < 64 * 1024 * 1024, 'the rest waits in socket buffers, not in the service');
  writing = false;
  res.resume();
  req.destroy();
  await writer.catch(() => undefined);
});
