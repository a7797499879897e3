import t from 'tap';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { readdirSync, readFileSync } from 'node:fs';
import { RESULT_FILE } from '../../src/pipeline/job-files.js';
import { request, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startApp, EZPROXY_DEFAULT } from '../helpers/app.js';
import { post, csvRows } from '../helpers/http.js';
import { tempDir } from '../helpers/service.js';
import { basic, testApp, withUsers } from '../helpers/accounts.js';

const line = (i: number) =>
  `10.0.${(i >> 8) & 255}.${i & 255} - USER${i % 50} [30/Nov/2012:00:${String(14 + Math.floor(i / 60) % 40).padStart(2, '0')}:${String(i % 60).padStart(2, '0')} +0100] "GET http://www.sciencedirect.com:80/science/article/pii/S09670645080${String(i % 100000).padStart(5, '0')} HTTP/1.1" 200 2248\n`;
const LOG = Array.from({ length: 50 }, (_, i) => line(i)).join('');

const root = await tempDir(t);
const settingsDir = join(root, 'settings');
await mkdir(settingsDir);
await writeFile(join(settingsDir, 'test.json'), JSON.stringify({
  'json-out': { fullName: 'JSON output', country: 'FR', headers: { accept: 'application/json', 'Log-Format-apache': '%h %l %u %t "%r" %>s %b', 'Traces-Level': 'warn' } },
}));
const server = await startApp({}, {
  POOL_THREADS: '1',
  DEFERRED_HEARTBEAT_MS: '25',
  PREDEFINED_SETTINGS_DIR: settingsDir,
  DEFAULT_JOB_HEADERS: JSON.stringify({ Accept: 'text/tab-separated-values', 'Crypted-Fields': 'none' }),
});
t.teardown(() => server.close());
const url = server.url;
const put = (id: string, body: string | Buffer, headers: Record<string, string> = {}) => post(`${url}/${id}`, body, headers, { method: 'PUT' });
const get = (path: string, headers: Record<string, string> = {}) => fetch(`${url}${path}`, { headers });
/** A JSON answer's fields (tests read a few of them). */
const json = async (res: Response) => (await res.json()) as Record<string, unknown>;

t.test('the download says the charset the result was written in', async (t) => {
  const id = randomUUID();
  const res = await put(id, LOG.replace(/USER1 /g, 'JÉRÔME '), { 'Log-Format-ezproxy': '%h %l %{login}<[^ ]+> %t "%r" %s %b', Accept: 'text/csv', 'Response-Charset': 'latin1' });
  t.equal(res.trailers['job-done'], 'true');
  const download = await get(`/${id}`);
  t.equal(download.headers.get('content-type'), 'text/csv; charset=latin1', 'as POST / would announce it');
  const bytes = Buffer.from(await download.arrayBuffer());
  t.ok(bytes.includes(Buffer.from('J\xc9R\xd4ME', 'latin1')), 'latin1 bytes');
  const plain = randomUUID();
  await put(plain, LOG, { 'Log-Format-ezproxy': EZPROXY_DEFAULT, Accept: 'text/csv' });
  t.equal((await get(`/${plain}`)).headers.get('content-type'), 'text/csv; charset=utf-8');
  const slash = await get(`/${plain}/`);
  t.equal(slash.status, 200, 'GET /{jobID}/ as well (the reference\'s optional trailing slash)');
  t.match(slash.headers.get('content-disposition'), /^attachment; /);
});

t.test('PUT /{jobID}: events go to the result file, the response gets a heartbeat', async (t) => {
  const id = randomUUID();
  const res = await put(id, LOG, { 'Log-Format-ezproxy': EZPROXY_DEFAULT, Accept: 'text/csv' });
  t.equal(res.status, 200);
  t.equal(res.headers['job-id'], id);
  t.equal(res.headers['job-report'], `${url}/${id}/job-report.json`);
  t.match(res.headers['content-type'], /^text\/plain/);
  t.match(res.text, /^\.*$/, 'only heartbeat dots in the body');
  t.equal(res.trailers['job-done'], 'true');

  const files = await readdir(join(server.varDir, 'jobs', id));
  const result = files.find((f) => f.endsWith('.job-ecs.csv'));
  t.match(result, /^\d{4}-\d{2}-\d{2}_\d{2}h\d{2}\.job-ecs\.csv$/, 'named after the start time');

  const download = await get(`/${id}`);
  t.equal(download.status, 200);
  t.match(download.headers.get('content-type'), /^text\/csv/);
  t.equal(download.headers.get('content-disposition'), `attachment; filename="${id.slice(0, 8)}_${result}"; filename*=UTF-8''${id.slice(0, 8)}_${result}`);
  const rows = csvRows(await download.text());
  t.equal(rows[0][0], 'datetime', 'the CSV header');
  t.equal(rows.length - 1, 50, 'every event');
  const streamed = await post(url, LOG, { 'Log-Format-ezproxy': EZPROXY_DEFAULT, Accept: 'text/csv', 'Crypted-Fields': 'none' });
  t.equal(csvRows(streamed.text).length, rows.length, 'as many as POST / streams back');

  const named = await get(`/${id}?filename=${encodeURIComponent('résultat final')}`);
  t.equal(named.headers.get('content-disposition'), `attachment; filename="r_sultat final.csv"; filename*=UTF-8''r%C3%A9sultat%20final.csv`);
  // a name, not a path: only its last part, without controls; nothing usable left: the default name
  for (const [wanted, disposition] of [
    ['../../etc/passwd', `attachment; filename="passwd.csv"; filename*=UTF-8''passwd.csv`],
    ['..\\..\\boot.ini', `attachment; filename="boot.ini.csv"; filename*=UTF-8''boot.ini.csv`],
    ['\u202egnp.\u001b[0m', `attachment; filename="_gnp._[0m.csv"; filename*=UTF-8''%EF%BF%BDgnp.%EF%BF%BD%5B0m.csv`],
    ['../..', `attachment; filename="${id.slice(0, 8)}_${result}"; filename*=UTF-8''${id.slice(0, 8)}_${result}`],
    ['reports/', `attachment; filename="${id.slice(0, 8)}_${result}"; filename*=UTF-8''${id.slice(0, 8)}_${result}`],
  ]) {
    t.equal((await get(`/${id}?filename=${encodeURIComponent(wanted)}`)).headers.get('content-disposition'), disposition, JSON.stringify(wanted));
  }

  const progress = await (await get(`/api/jobs/${id}/progress`)).json();
  t.match(progress, { id, state: 'done', running: false, linesRead: 50, events: 50, result: true, status: null });
});

t.test('a cut download of the result resumes (curl -C -): Range, If-Range, ETag', async (t) => {
  const id = randomUUID();
  await put(id, LOG, { 'Log-Format-ezproxy': EZPROXY_DEFAULT, Accept: 'text/csv' });
  const whole = await get(`/${id}`);
  const text = await whole.text();
  const etag = whole.headers.get('etag')!;
  t.equal(whole.headers.get('accept-ranges'), 'bytes');
  const rest = await get(`/${id}`, { Range: 'bytes=500-', 'If-Range': etag });
  t.equal(rest.status, 206);
  t.equal(rest.headers.get('content-range'), `bytes 500-${Buffer.byteLength(text) - 1}/${Buffer.byteLength(text)}`);
  t.equal(rest.headers.get('content-type'), 'text/csv; charset=utf-8');
  t.match(rest.headers.get('content-disposition'), /^attachment; /);
  t.equal(text.slice(0, 500) + (await rest.text()), text, 'the two parts make the whole result');
  t.equal((await get(`/${id}`, { 'If-None-Match': etag })).status, 304);
});

t.test('the result file is whole when the job row says done: a download at that moment gets all of it', async (t) => {
  const store = server.app.jobStore;
  const seen: string[] = [];
  const end = store.end.bind(store);
  store.end = (id, state, ...rest) => {
    if (state === 'done') {
      const dir = join(server.varDir, 'jobs', id);
      const name = readdirSync(dir).find((n) => RESULT_FILE.test(n));
      seen.push(name ? readFileSync(join(dir, name), 'utf8') : '(no file)');
    }
    return end(id, state, ...rest);
  };
  t.teardown(() => { store.end = end; });
  const id = randomUUID();
  const res = await put(id, LOG, { 'Log-Format-ezproxy': EZPROXY_DEFAULT, Accept: 'application/json' });
  t.equal(res.trailers['job-done'], 'true');
  t.equal(seen.length, 1);
  const events = JSON.parse(seen[0]) as unknown[];
  t.equal(events.length, 50, 'the file read then is the whole JSON array');
  t.equal(seen[0], await (await get(`/${id}`)).text(), 'the same as downloaded later');
});

t.test('4023: an id that exists, also when two requests race for it', async (t) => {
  const id = randomUUID();
  const [a, b] = await Promise.all([put(id, LOG, { 'Log-Format-ezproxy': EZPROXY_DEFAULT }), put(id, LOG, { 'Log-Format-ezproxy': EZPROXY_DEFAULT })]);
  t.same([a.status, b.status].sort(), [200, 409], 'one of them wins');
  const again = await put(id, LOG);
  t.equal(again.status, 409);
  t.equal(again.headers['service-status'], '4023');
  t.match(again.json(), { code: 4023, statusCode: 409 });
  const posted = await post(url, LOG, { 'Log-Format-ezproxy': EZPROXY_DEFAULT });
  t.equal((await put(posted.headers['job-id'] as string, LOG)).status, 409, 'the id of a POST job is taken too');
});

t.test('ids: lower-case UUIDs only; results only for deferred jobs', async (t) => {
  const upper = await put(randomUUID().toUpperCase(), LOG);
  t.equal(upper.status, 404);
  t.equal((await put('not-an-id', LOG)).status, 404);
  t.equal((await get(`/${randomUUID()}`)).status, 404);
  const posted = await post(url, LOG, { 'Log-Format-ezproxy': EZPROXY_DEFAULT });
  const res = await get(`/${posted.headers['job-id']}`);
  t.equal(res.status, 404);
  t.equal((await json(res)).message, 'resultNotFound');
  t.equal((await get('/favicon.ico')).status, 404, 'other paths are plain 404s');
});

t.test('an error found before the first heartbeat keeps its HTTP status, and the id stays free', async (t) => {
  // The default heartbeat (20 s): nothing is sent before the job fails.
  const slow = await startApp({}, { POOL_THREADS: '1' });
  t.teardown(() => slow.close());
  const put = (id: string, body: string, headers: Record<string, string> = {}) => post(`${slow.url}/${id}`, body, headers, { method: 'PUT' });
  const id = randomUUID();
  const bad = await put(id, LOG, { Accept: 'image/png' });
  t.equal(bad.status, 406);
  t.equal(bad.headers['service-status'], '4006');
  const unknown = await put(id, 'nothing like a log line\n'.repeat(20));
  t.equal(unknown.status, 400, 'the id could be used again: nothing was created');
  t.equal(unknown.headers['service-status'], '4003');
  const result = (await readdir(join(slow.varDir, 'jobs', id))).find((f) => f.includes('.job-ecs.'));
  t.ok(result, 'the result file exists, with the error marker');
});

t.test('while it runs: live progress; the result is refused until the end', async (t) => {
  const id = randomUUID();
  // Double clicks off: every event is out at once, none waits for its window.
  const req = request(`${url}/${id}`, { method: 'PUT', headers: { TE: 'trailers', 'Transfer-Encoding': 'chunked', 'Log-Format-ezproxy': EZPROXY_DEFAULT, 'Double-Click-Removal': 'false' } });
  req.on('error', () => undefined);
  const response = once(req, 'response').then(([res]) => res as IncomingMessage);
  for (let i = 0; i < 30; i++) req.write(line(i));
  let progress: { running: boolean; linesRead: number; events: number; state: string } | undefined;
  for (let i = 0; i < 100; i++) {
    const res = await get(`/api/jobs/${id}/progress`);
    if (res.status === 200) {
      progress = (await res.json()) as typeof progress;
      if (progress!.linesRead >= 30) break;
    }
    await sleep(30);
  }
  t.match(progress, { running: true, state: 'running', linesRead: 30, events: 30 });
  const early = await get(`/${id}`);
  t.equal(early.status, 409);
  t.equal((await json(early)).message, 'jobRunning');
  const res = await response;
  t.equal(res.statusCode, 200, 'the heartbeat sent the head');
  req.end(line(31));
  let body = '';
  for await (const chunk of res) body += chunk;
  t.match(body, /^\.+$/);
  t.equal(res.trailers['job-done'], 'true');
  t.match(await (await get(`/api/jobs/${id}/progress`)).json(), { running: false, state: 'done', linesRead: 31 });
  t.equal((await get(`/api/jobs/${randomUUID()}/progress`)).status, 404);
});

t.test('ezPAARSE-Predefined-Settings: request > setting > configured defaults', async (t) => {
  const apacheLog = LOG;
  const withSetting = await post(url, apacheLog, { 'ezPAARSE-Predefined-Settings': 'json-out' });
  t.equal(withSetting.status, 200);
  t.match(withSetting.headers['content-type'], /^application\/json/, 'the setting beats the defaults (TSV)');
  const events = withSetting.json<Array<Record<string, string>>>();
  t.equal(events[0].host, '10.0.0.0', 'a default the setting does not give still applies (Crypted-Fields: none)');
  const id = withSetting.headers['job-id'] as string;
  const row = server.app.jobStore.get(id)!;
  const general = JSON.parse(row.report!).general;
  t.equal(general['predefined-settings'], 'json-out', 'the report names the setting');
  t.equal(general['input-format-proxy'], 'apache', 'the setting’s format');

  const requestWins = await post(url, apacheLog, { 'ezPAARSE-Predefined-Settings': 'json-out', Accept: 'text/csv', 'Log-Format-ezproxy': EZPROXY_DEFAULT });
  t.match(requestWins.headers['content-type'], /^text\/csv/, 'the request’s own header wins');
  const general2 = JSON.parse(server.app.jobStore.get(requestWins.headers['job-id'] as string)!.report!).general;
  t.equal(general2['input-format-proxy'], 'ezproxy', 'a format in the request replaces the setting’s, whatever its family');

  const defaults = await post(url, apacheLog, {});
  t.match(defaults.headers['content-type'], /^text\/tab-separated-values/, 'the configured default');

  const unknown = await post(url, apacheLog, { 'ezPAARSE-Predefined-Settings': 'no-such-setting' });
  t.equal(unknown.status, 400);
  t.equal(unknown.headers['service-status'], '4026');
  t.match(unknown.json(), { code: 4026, statusCode: 400 });

  const deferred = randomUUID();
  t.equal((await put(deferred, apacheLog, { 'ezPAARSE-Predefined-Settings': 'logsift-ezproxy-standard' })).status, 200);
  t.equal((await json(await get(`/api/jobs/${deferred}/progress`))).predefinedSettings, 'logsift-ezproxy-standard');
});

t.test('with accounts: the job’s files are its submitter’s and the administrators’', async (t) => {
  const ta = await testApp(t);
  const { admin, user } = await withUsers(t, ta);
  const base = await ta.listen();
  const id = randomUUID();
  const anonymous = await post(`${base}/${id}`, LOG, {}, { method: 'PUT' });
  t.equal(anonymous.status, 401);
  const mine = await post(`${base}/${id}`, LOG, { authorization: user, 'Log-Format-ezproxy': EZPROXY_DEFAULT }, { method: 'PUT' });
  t.equal(mine.status, 200);
  t.equal(ta.app.jobStore.get(id)?.user_id, 'jane@example.org');
  t.equal((await fetch(`${base}/${id}`, { headers: { authorization: user } })).status, 200);
  t.equal((await fetch(`${base}/api/jobs/${id}/progress`, { headers: { authorization: admin } })).status, 200, 'an administrator');
  await ta.inject({ method: 'POST', url: '/api/admin/users', headers: { authorization: admin }, payload: { userid: 'other@example.org', password: 'Plain-Words-4471' } });
  const other = basic('other@example.org', 'Plain-Words-4471');
  t.equal((await fetch(`${base}/${id}`, { headers: { authorization: other } })).status, 403, 'another user');
  t.equal((await fetch(`${base}/api/jobs/${id}/progress`, { headers: { authorization: other } })).status, 403);
  const noChallenge = await fetch(`${base}/${id}`, { headers: { 'X-Requested-With': 'XMLHttpRequest' } });
  t.equal(noChallenge.status, 401);
  t.equal(noChallenge.headers.get('www-authenticate'), null, 'a page’s script gets no browser login dialog');
});
