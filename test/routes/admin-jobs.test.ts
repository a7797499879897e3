import t from 'tap';
import { setTimeout as sleep } from 'node:timers/promises';
import { ADMIN, basic, registerAdmin, testApp } from '../helpers/accounts.js';
import { heldPost } from '../helpers/http.js';

const LINE = '1.2.3.4 - bob [10/Apr/2012:09:38:11 +0200] "GET http://x.com/ HTTP/1.1" 200 1234\n';

t.test('GET /api/admin/jobs lists the running jobs, with their progress on demand', async (t) => {
  const ta = await testApp(t);
  const admin = await registerAdmin(t, ta);
  const user = ta.app.userStore.create('user@example.org', ta.app.userStore.passwordHash(ADMIN.userid)!, 'user');
  const list = (url = '/api/admin/jobs', authorization = admin) => ta.inject({ method: 'GET', url, headers: { authorization } });

  t.equal((await ta.inject({ method: 'GET', url: '/api/admin/jobs' })).statusCode, 401);
  t.equal((await list('/api/admin/jobs', basic(user.username, ADMIN.password))).statusCode, 403);
  const bad = await list('/api/admin/jobs?details=maybe');
  t.equal(bad.statusCode, 400);
  t.equal(bad.json().message, 'invalidParameter');
  t.same((await list()).json(), []);

  // A job whose upload stays open until the test has looked at it.
  const base = await ta.listen();
  const { push, response } = heldPost(`${base}/`, { 'content-type': 'text/plain', authorization: admin });
  push(LINE.repeat(50));
  for (let i = 0; i < 200 && ta.app.runningJobs.size === 0; i++) await sleep(10);

  const ids = (await list()).json();
  t.equal(ids.length, 1);
  t.match(ids[0], /^[0-9a-f-]{36}$/);
  const detailed = await list('/api/admin/jobs?details=1');
  t.equal(detailed.statusCode, 200);
  const [job] = detailed.json();
  t.match(job, {
    id: ids[0], user: ADMIN.userid, state: 'running', startedAt: String,
    bytesRead: Number, linesRead: Number, events: Number, denied: Number, rejects: Object,
  });
  t.ok(Date.parse(job.startedAt) <= Date.now());

  push(null);
  const res = await response;
  t.equal(res.status, 200);
  await res.text();
  for (let i = 0; i < 200 && ta.app.runningJobs.size > 0; i++) await sleep(10);
  t.same((await list()).json(), [], 'an ended job leaves the list');
  t.equal(ta.app.jobStore.get(ids[0])?.lines_read, 50);
});

t.test('DELETE /api/admin/jobs/{id}: an administrator stops one job held open for ever (5006); the others go on', async (t) => {
  const ta = await testApp(t);
  const admin = await registerAdmin(t, ta);
  const user = ta.app.userStore.create('user@example.org', ta.app.userStore.passwordHash(ADMIN.userid)!, 'user');
  const base = await ta.listen();
  // the client asks for no idle limit and sends nothing more: only an administrator can end it
  const { push, response } = heldPost(`${base}/`, { 'content-type': 'text/plain', authorization: admin, 'ezPAARSE-Response-Timeout': '0', TE: 'trailers' });
  push(LINE.repeat(5));
  for (let i = 0; i < 200 && ta.app.runningJobs.size === 0; i++) await sleep(10);
  const [id] = ta.app.runningJobs.list().map((j) => j.id);
  const stop = (jobId: string, authorization = admin) => ta.inject({ method: 'DELETE', url: `/api/admin/jobs/${jobId}`, headers: { authorization } });
  t.equal((await ta.inject({ method: 'DELETE', url: `/api/admin/jobs/${id}` })).statusCode, 401);
  t.equal((await stop(id, basic(user.username, ADMIN.password))).statusCode, 403, 'not for a user');
  t.match((await stop('00000000-0000-4000-8000-000000000000')).json(), { statusCode: 404, message: 'unknownJob' });
  t.equal((await stop(id)).statusCode, 202);
  const res = await response;
  const text = await res.text();
  // no event was sent yet: the refusal comes as a status and a JSON body
  t.equal(res.status, 503);
  t.equal(res.headers.get('service-status'), '5006');
  t.match(text, /An administrator stopped the job: stopped by admin@example\.org/, 'its client is told');
  for (let i = 0; i < 200 && ta.app.runningJobs.size > 0; i++) await sleep(10);
  t.match(ta.app.jobStore.get(id), { state: 'aborted', status_code: 5006 }, 'recorded as stopped');
  t.match(ta.logs.join(''), /job stopped by an administrator/);
  push(null);
});

t.test('POST /api/admin/restart: 409 while jobs run, unless ?force=true; then the service closes and exits with 75', async (t) => {
  const exits: number[] = [];
  const ta = await testApp(t, {}, { updates: { exitProcess: (code) => exits.push(code) } });
  const admin = await registerAdmin(t, ta);
  const user = ta.app.userStore.create('user@example.org', ta.app.userStore.passwordHash(ADMIN.userid)!, 'user');
  const base = await ta.listen();
  const restart = (query = '', authorization = admin) => fetch(`${base}/api/admin/restart${query}`, { method: 'POST', headers: { authorization } });

  t.equal((await fetch(`${base}/api/admin/restart`, { method: 'POST' })).status, 401);
  t.equal((await restart('', basic(user.username, ADMIN.password))).status, 403);
  t.equal((await restart('?force=maybe')).status, 400);

  let push!: (chunk: string | null) => void;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      push = (chunk) => (chunk === null ? controller.close() : controller.enqueue(new TextEncoder().encode(chunk)));
    },
  });
  const job = fetch(`${base}/`, { method: 'POST', body, duplex: 'half', headers: { 'content-type': 'text/plain', authorization: admin } } as RequestInit);
  push(LINE.repeat(50));
  for (let i = 0; i < 200 && ta.app.runningJobs.size === 0; i++) await sleep(10);
  const [id] = ta.app.runningJobs.list().map((j) => j.id);

  const refused = await restart();
  t.equal(refused.status, 409, 'a job is running');
  t.equal(await refused.text(), '');
  t.same(exits, []);

  const forced = await restart('?force=true');
  t.equal(forced.status, 200);
  t.equal(await forced.text(), '');
  for (let i = 0; i < 500 && exits.length === 0; i++) await sleep(10);
  t.same(exits, [75], 'exits with 75 for the supervisor, once closed');
  const res = await job;
  // its answer had not begun (no event yet): the status, else the error line after the events
  t.match(await res.text(), /"code":5003|#logsift-error 5003 /, `the running job ${id} ended with 5003`);
});
