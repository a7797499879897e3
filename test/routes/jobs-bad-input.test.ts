import t, { type Test } from 'tap';
import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import iconv from 'iconv-lite';
import { startApp, EZPROXY_DEFAULT, type TestApp } from '../helpers/app.js';
import { post, type HttpResult } from '../helpers/http.js';
import { jobReport } from '../helpers/jobs.js';
import { PROJECT_ROOT } from '../../src/paths.js';

/**
 * A corpus of hostile or broken uploads, each with the answer it must get. The inputs are made
 * here (seeded), not stored. Every job must end in one of the two documented forms: an HTTP error
 * with its code before any event, or a 200 whose trailers say how it ended; and the service must
 * answer the next request.
 */

const FORMAT = { 'Log-Format-ezproxy': EZPROXY_DEFAULT };
const LINE = '1.2.3.4 - JOHN [30/Nov/2012:00:14:18 +0100] "GET http://www.sciencedirect.com:80/science/article/pii/S0967064508000301 HTTP/1.1" 200 224846\n';
const LINES = LINE.repeat(50);

/** Deterministic bytes (a linear congruential generator): the same "binary file" every run. */
function noise(length: number, seed = 7): Buffer {
  const out = Buffer.alloc(length);
  let x = seed;
  for (let i = 0; i < length; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

/** A multipart body with the given parts, closed or not. */
function multipart(boundary: string, parts: Array<{ name: string; body: Buffer | string; type?: string }>, close = true): Buffer {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${p.name}"\r\nContent-Type: ${p.type ?? 'text/plain'}\r\n\r\n`));
    chunks.push(Buffer.isBuffer(p.body) ? p.body : Buffer.from(p.body));
    chunks.push(Buffer.from('\r\n'));
  }
  if (close) chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

/** Sends raw bytes on a socket and reads the raw answer (for what an HTTP client refuses to send). */
function raw(url: string, bytes: Buffer | string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    // Written without ending our side: a half-closed connection counts as a client gone.
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    let text = '';
    socket.on('data', (c: Buffer) => { text += c.toString('latin1'); });
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
    socket.setTimeout(20_000, () => socket.destroy(new Error('no answer')));
  });
}

/** How a job ended: its code (undefined when complete) and the number of events it wrote. */
interface Outcome {
  readonly status: number;
  readonly code?: number;
  readonly done?: boolean;
}

function outcome(res: HttpResult): Outcome {
  if (res.status !== 200) {
    const body = res.json<{ code: number }>();
    return { status: res.status, code: body.code };
  }
  const code = res.trailers['service-status'];
  return { status: 200, code: code ? Number(code) : undefined, done: res.trailers['job-done'] === 'true' };
}

/** Checks that every header value of a raw answer is visible ASCII, and that no header was injected. */
function checkRawHeaders(t: Test, answer: string, what: string): void {
  const head = answer.slice(0, answer.indexOf('\r\n\r\n'));
  t.notMatch(head, /^x-injected/im, `${what}: no injected header`);
  for (const line of head.split('\r\n').slice(1)) t.match(line, /^[!-~]+: [ -~]*$/, `${what}: header line ${line.slice(0, 60)}`);
}

interface Case {
  readonly name: string;
  readonly run: (server: TestApp) => Promise<Outcome>;
  /** the code the job must end with (undefined: complete), and the HTTP statuses allowed */
  readonly code: number | undefined;
  readonly http?: readonly number[];
}

const gz = gzipSync(Buffer.from(LINES.repeat(40)));

const CASES: Case[] = [
  { name: 'binary data (1 MB) with a format', code: 4003, http: [400], run: async (s) => outcome(await post(s.url, noise(1 << 20), FORMAT)) },
  { name: 'binary data (1 MB), format auto-detected', code: 4003, http: [400], run: async (s) => outcome(await post(s.url, noise(1 << 20, 3))) },
  { name: 'truncated gzip (Content-Encoding)', code: 4002, http: [400, 200], run: async (s) => outcome(await post(s.url, gz.subarray(0, gz.length >> 1), { ...FORMAT, 'Content-Encoding': 'gzip' })) },
  { name: 'truncated gzip (gzip content type)', code: 4002, http: [400, 200], run: async (s) => outcome(await post(s.url, gz.subarray(0, 40), { ...FORMAT, 'Content-Type': 'application/gzip' })) },
  { name: 'plain text announced as gzip', code: 4002, http: [400], run: async (s) => outcome(await post(s.url, LINES, { ...FORMAT, 'Content-Encoding': 'gzip' })) },
  { name: 'plain text announced as deflate', code: 4002, http: [400], run: async (s) => outcome(await post(s.url, LINES, { ...FORMAT, 'Content-Encoding': 'deflate' })) },
  { name: 'unknown Content-Encoding', code: 4005, http: [406], run: async (s) => outcome(await post(s.url, LINES, { ...FORMAT, 'Content-Encoding': 'br' })) },
  { name: 'gzip inside gzip (Content-Encoding)', code: 4002, http: [400], run: async (s) => outcome(await post(s.url, gzipSync(gz), { ...FORMAT, 'Content-Encoding': 'gzip' })) },
  { name: 'gzip inside gzip (multipart .gz file)', code: 4002, http: [400], run: async (s) => outcome(await post(s.url, multipart('b0und', [{ name: 'a.log.gz', body: gzipSync(gz) }]), { ...FORMAT, 'Content-Type': 'multipart/form-data; boundary=b0und' })) },
  { name: 'gzip sent as plain text', code: 4003, http: [400], run: async (s) => outcome(await post(s.url, gz, FORMAT)) },
  { name: 'gzip bomb: a thousand times (MAX_INFLATE_RATIO)', code: 4034, http: [413], run: async (s) => outcome(await post(s.url, gzipSync(Buffer.alloc(40 << 20, 0x0a)), { ...FORMAT, 'Content-Encoding': 'gzip' })) },
  { name: 'gzip bomb guard: 1 MB line inside gzip', code: 4022, http: [400], run: async (s) => outcome(await post(s.url, gzipSync(Buffer.alloc(1 << 20, 0x61)), { ...FORMAT, 'Content-Encoding': 'gzip' })) },
  ...(['utf-8', 'latin1', 'windows-1252', 'utf-16le'] as const).map((charset): Case => ({
    name: `invalid bytes in charset mode ${charset}`,
    code: undefined,
    http: [200],
    run: async (s) => {
      // Invalid UTF-8 (lone continuation bytes, an overlong form, a cut sequence) in the URL, or an
      // odd byte count and a lone surrogate in UTF-16.
      const bad = Buffer.from([0x80, 0xc0, 0xaf, 0xe2, 0x82, 0xff, 0xfe]);
      const text = charset === 'utf-16le'
        ? Buffer.concat([iconv.encode(LINES, 'utf-16le'), Buffer.from([0x00, 0xd8, 0x41]), iconv.encode(LINE, 'utf-16le')])
        : Buffer.concat([Buffer.from(LINES), Buffer.from(LINE.replace('S0967', '')).subarray(0, 80), bad, Buffer.from(LINE.slice(80))]);
      return outcome(await post(s.url, text, { ...FORMAT, 'Request-Charset': charset }));
    },
  })),
  { name: 'a line of 10 MB', code: 4022, http: [400], run: async (s) => outcome(await post(s.url, Buffer.concat([Buffer.alloc(10 << 20, 0x61), Buffer.from('\n' + LINES)]), FORMAT)) },
  { name: 'a line of 10 MB after other lines', code: 4022, http: [400, 200], run: async (s) => outcome(await post(s.url, [LINES, '', Buffer.alloc(10 << 20, 0x61)].map((c) => c), FORMAT)) },
  { name: 'a million empty lines', code: 4003, http: [400], run: async (s) => outcome(await post(s.url, '\n'.repeat(1_000_000), FORMAT)) },
  { name: 'a million empty lines (CRLF), then one line', code: undefined, http: [200], run: async (s) => outcome(await post(s.url, '\r\n'.repeat(1_000_000) + LINE, FORMAT)) },
  { name: 'NUL bytes only', code: 4003, http: [400], run: async (s) => outcome(await post(s.url, Buffer.alloc(50_000), FORMAT)) },
  { name: 'NUL bytes inside lines', code: undefined, http: [200], run: async (s) => outcome(await post(s.url, LINES + LINE.replace('JOHN', 'JO\0HN') + LINE.replace('GET', '\0\0\0'), FORMAT)) },
  { name: 'empty body', code: 4003, http: [400], run: async (s) => outcome(await post(s.url, '', FORMAT)) },
  { name: 'multipart without boundary', code: 4007, http: [400], run: async (s) => outcome(await post(s.url, LINES, { ...FORMAT, 'Content-Type': 'multipart/form-data' })) },
  { name: 'multipart cut before its end', code: 4007, http: [400, 200], run: async (s) => outcome(await post(s.url, multipart('b0und', [{ name: 'a.log', body: LINES }], false).subarray(0, 200), { ...FORMAT, 'Content-Type': 'multipart/form-data; boundary=b0und' })) },
  { name: 'multipart with a wrong boundary', code: 4007, http: [400], run: async (s) => outcome(await post(s.url, multipart('b0und', [{ name: 'a.log', body: LINES }]), { ...FORMAT, 'Content-Type': 'multipart/form-data; boundary=other' })) },
  { name: 'multipart: truncated gzip file', code: 4002, http: [400, 200], run: async (s) => outcome(await post(s.url, multipart('b0und', [{ name: 'a.log.gz', body: gz.subarray(0, 100) }]), { ...FORMAT, 'Content-Type': 'multipart/form-data; boundary=b0und' })) },
  { name: 'multipart: a binary file among logs', code: undefined, http: [200], run: async (s) => outcome(await post(s.url, multipart('b0und', [{ name: 'a.log', body: LINES }, { name: 'b.bin', body: noise(10_000) }, { name: 'c.log', body: LINES }]), { ...FORMAT, 'Content-Type': 'multipart/form-data; boundary=b0und' })) },
  { name: 'multipart: a control character in a part header', code: 4007, http: [400], run: async (s) => outcome(await post(s.url, multipart('b0und', [{ name: 'a\u0007.log', body: LINES }]), { ...FORMAT, 'Content-Type': 'multipart/form-data; boundary=b0und' })) },
  {
    name: 'multipart: a file name that walks up folders', code: undefined, http: [200],
    run: async (s) => {
      const res = await post(s.url, multipart('b0und', [{ name: '../../../../tmp/logsift-escape.log', body: LINES }]), { ...FORMAT, 'Content-Type': 'multipart/form-data; boundary=b0und' });
      // The name is only recorded in the report (its last part), never used as a path.
      const report = await jobReport(s.varDir, String(res.headers['job-id']));
      if (report.files?.['1'] !== 'logsift-escape.log') throw new Error(`the report records the file as ${String(report.files?.['1'])}`);
      if (existsSync('/tmp/logsift-escape.log')) throw new Error('a file was written outside the job folder');
      return outcome(res);
    },
  },
];

t.test('bad inputs: each gets its expected answer, the service keeps serving', async (t) => {
  const server = await startApp({}, { GEOIP_DB: 'none' });
  t.teardown(() => server.close());
  let tried = 0;
  for (const c of CASES) {
    const o = await c.run(server);
    tried++;
    t.ok((c.http ?? [200]).includes(o.status), `${c.name}: HTTP ${o.status}`);
    t.equal(o.code, c.code, `${c.name}: ${c.code ?? 'complete'} (got ${o.code})`);
    if (c.code === undefined) t.equal(o.done, true, `${c.name}: Job-Done`);
  }
  const after = await post(server.url, LINES, FORMAT);
  t.equal(after.trailers['job-done'], 'true', 'a sound job after the corpus');
  t.comment(`bad inputs tried: ${tried} uploads`);
});

/** A raw request with the given header lines (bytes as given: latin1, control characters…). */
function rawRequest(url: string, headerLines: string[], body = LINES, path = '/'): Promise<string> {
  const head = [`POST ${path} HTTP/1.1`, `Host: ${new URL(url).host}`, 'Connection: close', 'Double-Click-Removal: false', `Content-Length: ${Buffer.byteLength(body)}`, ...headerLines].join('\r\n');
  return raw(url, Buffer.concat([Buffer.from(head + '\r\n\r\n', 'latin1'), Buffer.from(body)]));
}

t.test('header injection: values echoed into headers or the report stay inert', async (t) => {
  const server = await startApp({}, { GEOIP_DB: 'none' });
  t.teardown(() => server.close());
  let tried = 0;
  const cases: Array<[string, string[], RegExp]> = [
    ['latin1 bytes in a format header', ['Log-Format-ezproxy: %h %\xe9\xff %t'], /^HTTP\/1\.1 400 /],
    ['a bare CR in a format header', ['Log-Format-ezproxy: %h\rX-Injected: 1'], /^HTTP\/1\.1 400 /],
    ['a folded header line', ['Log-Format-ezproxy: %h', ' X-Injected: 1'], /^HTTP\/1\.1 (400|200) /],
    ['an encoded CRLF in a format header', ['Log-Format-ezproxy: %h %{x}<a%0d%0aX-Injected: 1>'], /^HTTP\/1\.1 400 /],
    ['control and latin1 bytes in Reject-Files', ['Log-Format-ezproxy: %h %l %u %t "%r" %s %b', 'Reject-Files: bogus\x01\x7f\xe9\xffX-Injected'], /^HTTP\/1\.1 400 /],
    ['control bytes in a double-click window', ['Log-Format-ezproxy: %h %l %u %t "%r" %s %b', 'Double-Click-HTML: 1\x0b0'], /^HTTP\/1\.1 400 /],
    ['a DEL byte in a user agent', ['Log-Format-ezproxy: %h %l %u %t "%r" %s %b', 'User-Agent: a\x7fb'], /^HTTP\/1\.1 400 /],
    ['a long value in an error message', ['Log-Format-ezproxy: %Q' + 'x'.repeat(6000)], /^HTTP\/1\.1 400 /],
  ];
  for (const [what, lines, status] of cases) {
    const answer = await rawRequest(server.url, lines);
    tried++;
    t.match(answer, status, `${what}: ${answer.slice(0, 30)}`);
    checkRawHeaders(t, answer, what);
  }
  // A user agent is written into the report: it stays a JSON string there.
  const agent = 'Mozilla"}, "injected": {"x": "\xe9\\';
  const answer = await rawRequest(server.url, ['Log-Format-ezproxy: %h %l %u %t "%r" %s %b', `User-Agent: ${agent}`, 'TE: trailers']);
  tried++;
  checkRawHeaders(t, answer, 'user agent');
  const id = /^job-id: (\S+)/im.exec(answer)?.[1] ?? '';
  const report = await jobReport(server.varDir, id);
  t.equal(report.general?.['client-user-agent'], Buffer.from(agent, 'latin1').toString('latin1'), 'the user agent is a string of the report');
  t.notOk('injected' in report, 'no key injected into the report');
  t.comment(`header injection attempts: ${tried}`);
});

t.test('names in paths: no way out of their folder or table', async (t) => {
  const server = await startApp({}, { GEOIP_DB: 'none', AUTH_JOBS: 'never' });
  t.teardown(() => server.close());
  const admin = { authorization: `Basic ${Buffer.from('admin@example.org:Correct-Horse-1').toString('base64')}` };
  const reg = await fetch(`${server.url}/api/admin/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ userid: 'admin@example.org', password: 'Correct-Horse-1', confirm: 'Correct-Horse-1' }) });
  t.equal(reg.status, 201);
  let tried = 0;
  // The answers' `message` where it is pinned (the route's own refusal, not a generic 404).
  const attempts: Array<[string, string, readonly number[], string?]> = [
    ['POST', '/api/admin/users/..%2F..%2Fetc%2Fpasswd', [400, 404]],
    ['DELETE', '/api/admin/users/%2e%2e', [404]],
    ['DELETE', '/api/admin/users/..%2fadmin@example.org', [404]],
    ['POST', '/api/admin/passwords/..%2F..%2Fadmin@example.org', [404]],
    ['POST', '/api/admin/passwords/%00admin@example.org', [404]],
    ['GET', '/api/admin/..%2F..%2Fpackage.json/status', [404]],
    ['GET', '/api/admin/%2e%2e/status', [404]],
    ['PUT', '/api/admin/..%2Fplatforms/status', [404]],
    ['GET', '/api/admin/platforms%00/status', [404]],
    ['GET', '/info/codes/..%2F..%2Fpackage.json', [404]],
    ['GET', '/..%2F..%2Fvar%2Flogsift.sqlite', [404]],
    ['GET', '/%2e%2e/%2e%2e/etc/passwd', [404, 400]],
    ['GET', '/../package.json', [404, 400]],
    ['GET', '/..%2fpackage.json', [404]],
    ['GET', '/%2e%2e/package.json', [404]],
    ['GET', '/public/../../package.json', [404]],
    ['GET', '/logsift.css/..%2f..%2fpackage.json', [404]],
    ['GET', '/..\\..\\package.json', [404, 400]],
    ['GET', '/var/logsift.sqlite', [404]],
  ];
  // A real job, and the names of its files tried with ways out of its folder.
  const job = await post(server.url, LINES, { ...FORMAT, 'Reject-Files': 'all' });
  const id = String(job.headers['job-id']);
  t.equal(job.status, 200);
  t.equal((await fetch(`${server.url}/${id}/job-traces.log`)).status, 200, 'a job file');
  for (const prefix of ['', '/api/logs']) {
    attempts.push(
      ['GET', `${prefix}/${id}/..%2F..%2F..%2Fpackage.json`, [404]],
      ['GET', `${prefix}/${id}/..%2Freport.json`, [404]],
      ['GET', `${prefix}/${id}/report.json`, [404]],
      ['GET', `${prefix}/${id}/lines-..%2F..%2Fx.log`, [404]],
      ['GET', `${prefix}/${id}/%2e%2e`, [404]],
      ['GET', `${prefix}/${id}/job-traces.log%00.txt`, [404]],
      ['GET', `${prefix}/${id}%2F..%2F..%2Flogsift.sqlite/job-traces.log`, [404]],
      ['GET', `${prefix}/..%2F..%2Fetc/passwd`, [404]],
      ['GET', `${prefix}/%2e%2e/job-report.json`, [404]],
      ['GET', `${prefix}/${id.toUpperCase()}/job-report.json`, [404, 200]],
      ['GET', `${prefix}/${id.slice(0, -1)}${id.endsWith('0') ? '1' : '0'}/job-report.json`, [404]],
      ['GET', `${prefix}/.%2E/.%2E/job-report.html`, [404]],
    );
  }
  // A deferred job's id names its folder: only a lower-case UUID is one (the route answers so).
  const notAnId = 'a job id is a lower-case UUID';
  attempts.push(
    ['PUT', '/..%2F..%2Ftmp%2Flogsift-escape', [404], notAnId],
    ['PUT', '/%2e%2e', [404], notAnId],
    ['PUT', '/..', [404], notAnId],
    ['PUT', '/%2e%2e%2F%2e%2e%2Fvar', [404], notAnId],
    ['PUT', `/${id}%2F..%2F..%2Flogsift.sqlite`, [404], notAnId],
    ['PUT', `/..%2F${id}`, [404], notAnId],
    ['PUT', `/${id.toUpperCase()}`, [404], notAnId],
    ['PUT', `/${id}%00`, [404], notAnId],
    ['PUT', '/..\\..\\tmp\\logsift-escape', [404], notAnId],
  );
  // The progress of a job: the id is checked before any lookup.
  attempts.push(
    ['GET', '/api/jobs/..%2F..%2Fetc%2Fpasswd/progress', [404], 'jobNotFound'],
    ['GET', '/api/jobs/%2e%2e/progress', [404], 'jobNotFound'],
    ['GET', '/api/jobs/../progress', [404], 'jobNotFound'],
    ['GET', `/api/jobs/${id}%2F..%2F..%2Flogsift.sqlite/progress`, [404], 'jobNotFound'],
    ['GET', `/api/jobs/..%2F${id}/progress`, [404], 'jobNotFound'],
    ['GET', `/api/jobs/${id.toUpperCase()}/progress`, [404], 'jobNotFound'],
    ['GET', `/api/jobs/${id}%00/progress`, [404], 'jobNotFound'],
  );
  for (const [method, path, statuses, message] of attempts) {
    // Sent on a socket as written: URL parsers (fetch, http.request with a URL) resolve `..` and `%2e%2e` first.
    const answer = await raw(server.url, `${method} ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: ${admin.authorization}\r\nContent-Length: 0\r\n\r\n`);
    const status = Number(answer.slice(9, 12));
    const body = answer.slice(answer.indexOf('\r\n\r\n') + 4);
    tried++;
    t.ok(statuses.includes(status), `${method} ${path}: ${status}`);
    t.notMatch(body, /root:|"dependencies"|SQLite format/, `${method} ${path}: nothing from outside`);
    if (message !== undefined) t.same(JSON.parse(body), { statusCode: 404, error: 'Not Found', message }, `${method} ${path}: ${message}`);
  }
  t.equal((await fetch(`${server.url}/api/jobs/${id}/progress`, { headers: admin })).status, 200, 'the real job\'s progress');
  t.notOk(existsSync('/tmp/logsift-escape'), 'no job folder made outside var/jobs');
  t.same(readdirSync(join(server.varDir, 'jobs')), [id], 'no other job folder');
  t.equal(server.app.userStore.count(), 1, 'the administrator is still there');
  // No answer tells where the service's files are (reference §7.16: /info leaked file paths).
  for (const path of ['/info/platforms', '/info/codes', `/${id}/job-report.json`, `/${id}/job-traces.log`]) {
    const text = await (await fetch(server.url + path, { headers: admin })).text();
    t.notOk(text.includes(PROJECT_ROOT) || text.includes(server.varDir), `${path}: no server path`);
  }
  t.comment(`path traversal attempts: ${tried}`);
});
