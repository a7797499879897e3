import t from 'tap';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { startApp, type TestApp } from '../helpers/app.js';
import { get, lines, postJob, rawGet } from '../helpers/jobs.js';
import { basic, testApp, withUsers } from '../helpers/accounts.js';
import jobFileRoutes from '../../src/routes/job-files.js';
import type { Config } from '../../src/config.js';

const GOOD = '10.0.0.1 - A [30/Nov/2012:00:10:00 +0100] "GET http://www.sciencedirect.com:80/science/article/pii/S0012160612004174 HTTP/1.1" 200 1';

let app: TestApp;
let id: string;
t.before(async () => {
  app = await startApp();
  const res = await postJob(app.url, `${GOOD}\nnot a log line\n`, { 'Reject-Files': 'unknown-formats' });
  id = res.id!;
  // A file next to the job folders that no route may reach.
  await writeFile(join(app.varDir, 'secret.txt'), 'top secret');
  await writeFile(join(app.varDir, 'jobs', 'secret.txt'), 'top secret');
});
t.teardown(() => app.close());

t.test('the files of a job, at the root and under /api/logs', async (t) => {
  for (const base of [app.url, `${app.url}/api/logs`]) {
    const traces = await get(`${base}/${id}/job-traces.log`);
    t.equal(traces.status, 200, `${base}: traces`);
    t.equal(traces.headers.get('content-type'), 'text/plain; charset=utf-8');
    t.equal(traces.headers.get('x-content-type-options'), 'nosniff');
    t.notOk(traces.headers.get('content-disposition'), 'a small file is inline');

    const rejects = await get(`${base}/${id}/lines-unknown-formats.log`);
    t.equal(rejects.body, 'not a log line\n');
    t.equal(rejects.headers.get('content-type'), 'text/plain; charset=utf-8');

    const report = await get(`${base}/${id}/job-report.json`);
    t.equal(report.status, 200);
    t.match(report.headers.get('content-type'), /^application\/json/);
    t.equal(report.headers.get('content-disposition'), `attachment; filename="${id.slice(0, 8)}_report.json"`);
    t.equal(JSON.parse(report.body).general['Job-ID'], id);

    const html = await get(`${base}/${id}/job-report.html`);
    t.equal(html.status, 200);

    const denied = await get(`${base}/${id}/denied-ecs.csv`);
    t.equal(denied.status, 200, 'the denied file exists, empty');
    t.equal(denied.body, '');

    t.equal((await get(`${base}/${id}/lines-unknown-domains.log`)).status, 404, 'a reject file not asked for');
    t.equal((await get(`${base}/${id}/denied-ecs.json`)).status, 404, 'a denied file of another format');
  }
});

t.test('the denied file of a jsonstream job is a JSON array (reference 5.4)', async (t) => {
  const denied = (status: number, n: number) => GOOD.replace('" 200 1', `" ${status} ${n}`);
  const res = await postJob(app.url, [GOOD, denied(403, 1), denied(401, 2)].join('\n') + '\n', { Accept: 'application/jsonstream', 'Double-Click-Removal': 'false' });
  t.equal(res.status, 200);
  t.equal(res.body.split('\n').length, 1, 'the answer: JSON lines');
  const file = await get(`${app.url}/${res.id}/denied-ecs.json`);
  t.equal(file.status, 200);
  const events = JSON.parse(file.body) as Array<Record<string, string>>;
  t.same(events.map((e) => e.status), ['403', '401']);
  t.notOk(file.body.includes('\n'), 'the compact objects of the answer');
});

t.test('the denied file says the charset it was written in (the job\'s Response-Charset)', async (t) => {
  const denied = GOOD.replace('" 200 1', '" 403 1').replace('4174 ', '4174?q=JÉRÔME ').replace('00:10:00', '00:20:00');
  for (const [charset, expected] of [[undefined, 'utf-8'], ['latin1', 'latin1']] as const) {
    const res = await postJob(app.url, `${GOOD}\n${denied}\n`, { 'Crypted-Fields': 'none', ...(charset ? { 'Response-Charset': charset } : {}) });
    const file = await fetch(`${app.url}/${res.id}/denied-ecs.csv`);
    t.equal(file.headers.get('content-type'), `text/csv; charset=${expected}`, charset ?? 'default');
    t.equal(new TextDecoder(expected).decode(await file.arrayBuffer()).includes('JÉRÔME'), true, 'read in that charset: the URL whole');
  }
});

t.test('unknown jobs and files answer 404 JSON', async (t) => {
  const other = '00000000-0000-4000-8000-000000000000';
  for (const path of [`/${other}/job-report.json`, `/${other}/job-report.html`, `/${other}/job-traces.log`, `/${id.toUpperCase()}/job-traces.log`, `/not-a-job/job-traces.log`]) {
    const res = await get(`${app.url}${path}`);
    t.equal(res.status, 404, path);
    t.match(res.headers.get('content-type'), /^application\/json/);
  }
});

t.test('path traversal never leaves the job folder', async (t) => {
  const attempts = [
    `/${id}/../secret.txt`,
    `/${id}/..%2Fsecret.txt`,
    `/${id}/..%2F..%2Fsecret.txt`,
    `/${id}/%2e%2e%2fsecret.txt`,
    `/${id}/%2e%2e/secret.txt`,
    `/${id}/%2E%2E%2F%2E%2E%2Fsecret.txt`,
    `/${id}/..%5Csecret.txt`,
    `/${id}/..\\..\\secret.txt`,
    `/${id}/%2Fetc%2Fpasswd`,
    `/${id}//etc/passwd`,
    `/${id}/%2e%2e`,
    `/${id}/..`,
    `/${id}/.`,
    `/${id}/report.json`,
    `/${id}/job-traces.log%00.png`,
    `/${id}/job-traces.log%00`,
    `/${id}/lines-unknown-formats.log%2F..%2F..%2Fsecret.txt`,
    `/..%2F${id}/job-traces.log`,
    `/%2e%2e/jobs/secret.txt`,
    `/jobs/secret.txt`,
    `/${id}%2F..%2Fsecret.txt/job-traces.log`,
    `/${id}/job-traces.log/`,
    '/etc/passwd',
    `/api/logs/${id}/..%2F..%2Fsecret.txt`,
    `/api/logs/..%2F..%2Fsecret.txt/job-traces.log`,
  ];
  for (const path of attempts) {
    const res = await rawGet(app.url, path);
    t.equal(res.status, 404, path);
    t.notMatch(res.body, /top secret|root:/, `${path}: nothing leaks`);
  }
});

t.test('a large file is sent as an attachment', async (t) => {
  const garbage = Array.from({ length: 6000 }, (_, i) => `garbage line ${i} ${'x'.repeat(90)}`).join('\n');
  const res = await postJob(app.url, `${GOOD}\n${garbage}\n`, { 'Reject-Files': 'unknown-formats' });
  t.equal(res.status, 200);
  const file = await get(`${app.url}/${res.id}/lines-unknown-formats.log`);
  t.equal(file.status, 200);
  t.equal(file.headers.get('content-disposition'), `attachment; filename="${res.id!.slice(0, 8)}_lines-unknown-formats.log"`);
  t.equal(lines(file.body).length, 6000);
  t.equal(lines(file.body)[5999], `garbage line 5999 ${'x'.repeat(90)}`, 'in input order, to the last line');
});

t.test('the access slot: a preHandler decides who reads a job\'s files', async (t) => {
  const varDir = await mkdtemp(join(tmpdir(), 'logsift-access-'));
  t.teardown(() => rm(varDir, { recursive: true, force: true }));
  const jobId = '11111111-2222-4333-8444-555555555555';
  await mkdir(join(varDir, 'jobs', jobId), { recursive: true });
  await writeFile(join(varDir, 'jobs', jobId, 'job-traces.log'), 'trace\n');
  await writeFile(join(varDir, 'jobs', jobId, 'report.json'), '{"general":{}}');
  const seen: string[] = [];
  const server = Fastify();
  server.decorate('config', { varDir } as Config);
  await server.register(jobFileRoutes, {
    access: async (request, reply) => {
      const { jobId: asked } = request.params as { jobId: string };
      seen.push(asked);
      if (request.headers['x-owner'] !== 'yes') return reply.code(403).send({ statusCode: 403, error: 'Forbidden', message: 'notYourJob' });
    },
  });
  t.teardown(() => server.close());
  for (const file of ['job-traces.log', 'job-report.json', 'job-report.html']) {
    t.equal((await server.inject({ url: `/${jobId}/${file}` })).statusCode, 403, `${file}: refused`);
    t.equal((await server.inject({ url: `/${jobId}/${file}`, headers: { 'x-owner': 'yes' } })).statusCode, 200, `${file}: allowed`);
  }
  t.equal((await server.inject({ url: `/${jobId}/..%2Freport.json` })).statusCode, 404, 'names are checked before access');
  t.equal((await server.inject({ url: '/not-a-job/job-traces.log' })).statusCode, 404);
  t.ok(seen.every((s) => s === jobId), 'the access check only ever sees valid job ids');
});

t.test('with accounts: a job\'s files are for its submitter and the administrators', async (t) => {
  const ta = await testApp(t);
  const base = await ta.listen();
  const { admin, user } = await withUsers(t, ta);
  const other = { userid: 'joe@example.org', password: 'Other-secret-9' };
  t.equal((await ta.inject({ method: 'POST', url: '/api/admin/users', headers: { authorization: admin }, payload: other })).statusCode, 201);
  const res = await postJob(base, `${GOOD}\n`, { Authorization: user, 'Reject-Files': 'all' });
  t.equal(res.status, 200);
  const cases: Array<[string, Record<string, string>, number]> = [
    ['anonymous', {}, 401],
    ['another user', { Authorization: basic(other.userid, other.password) }, 403],
    ['its submitter', { Authorization: user }, 200],
    ['an administrator', { Authorization: admin }, 200],
  ];
  for (const file of ['job-report.json', 'job-report.html', 'job-traces.log', 'lines-unknown-domains.log', 'denied-ecs.csv']) {
    for (const [who, headers, status] of cases) {
      t.equal((await get(`${base}/${res.id}/${file}`, headers)).status, status, `${file}, ${who}: ${status}`);
      t.equal((await get(`${base}/api/logs/${res.id}/${file}`, headers)).status, status, `/api/logs/…/${file}, ${who}: ${status}`);
    }
  }
  t.equal((await get(`${base}/${res.id}/..%2Freport.json`, { Authorization: admin })).status, 404);
});

t.test('downloads resume and revalidate: Range, If-Range, ETag, Last-Modified (curl -C -, wget -c)', async (t) => {
  const garbage = Array.from({ length: 6000 }, (_, i) => `garbage line ${i} ${'x'.repeat(90)}`).join('\n');
  const posted = await postJob(app.url, `${GOOD}\n${garbage}\n`, { 'Reject-Files': 'unknown-formats' });
  const url = `${app.url}/${posted.id}/lines-unknown-formats.log`;
  const whole = await get(url);
  t.equal(whole.headers.get('accept-ranges'), 'bytes');
  const etag = whole.headers.get('etag')!;
  t.match(etag, /^"[0-9a-f]+-[0-9a-f]+"$/);
  t.ok(whole.headers.get('last-modified'));
  const size = Buffer.byteLength(whole.body);

  const rest = await get(url, { Range: 'bytes=1000-' });
  t.equal(rest.status, 206, 'the rest of a cut download');
  t.equal(rest.headers.get('content-range'), `bytes 1000-${size - 1}/${size}`);
  t.equal(Number(rest.headers.get('content-length')), size - 1000);
  t.equal(whole.body.slice(0, 1000) + rest.body, whole.body, 'glued together: the whole file');
  t.equal(rest.headers.get('content-disposition'), `attachment; filename="${posted.id!.slice(0, 8)}_lines-unknown-formats.log"`, 'still an attachment');

  const done = await get(url, { Range: `bytes=${size}-` });
  t.equal(done.status, 416, 'resuming a complete download');
  t.equal(done.headers.get('content-range'), `bytes */${size}`);
  t.match(JSON.parse(done.body), { message: 'rangeNotSatisfiable' });

  t.equal((await get(url, { 'If-Range': '"another"', Range: 'bytes=1000-' })).status, 200, 'a part of another version is not resumed');
  t.equal((await get(url, { 'If-None-Match': etag })).status, 304);
  t.equal((await get(url, { 'If-Modified-Since': whole.headers.get('last-modified')! })).status, 304);
  t.equal((await get(url, { 'If-Match': '"another"' })).status, 412);
  const head = await fetch(url, { method: 'HEAD', headers: { Range: 'bytes=0-9' } });
  t.equal(head.status, 200, 'HEAD: the headers of the whole file');
  t.equal(Number(head.headers.get('content-length')), size);
  t.equal(head.headers.get('etag'), etag);
});
