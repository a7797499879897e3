import t from 'tap';
import { readConfig } from '../../src/config.js';
import { ADMIN, basic, form, FORM, registerAdmin, testApp } from '../helpers/accounts.js';

const LOG = '1.2.3.4 - bob [10/Apr/2012:09:38:11 +0200] "GET http://x.com/ HTTP/1.1" 200 1234\n'.repeat(3);

async function submit(base: string, authorization?: string): Promise<{ status: number; jobId: string | null; body: string }> {
  const res = await fetch(`${base}/`, {
    method: 'POST', body: LOG,
    headers: { 'content-type': 'text/plain', ...(authorization ? { authorization } : {}) },
  });
  return { status: res.status, jobId: res.headers.get('job-id'), body: await res.text() };
}

t.test('AUTH_JOBS is read from the environment, with a safe default', async (t) => {
  t.equal(readConfig({}).auth.jobs, 'when-users-exist');
  t.equal(readConfig({ AUTH_JOBS: 'always' }).auth.jobs, 'always');
  t.throws(() => readConfig({ AUTH_JOBS: 'sometimes' }), /AUTH_JOBS must be one of always, when-users-exist, never/);
  t.match(readConfig({}).auth, { maxFailuresPerAddress: 5, maxFailuresPerAccount: 10, failureWindowMs: 900_000 });
});

t.test('default: anonymous jobs on a fresh install, a login once an account exists', async (t) => {
  const ta = await testApp(t);
  const base = await ta.listen();
  const fresh = await submit(base);
  t.equal(fresh.status, 200, 'a fresh install works from the quick start');
  t.equal(ta.app.jobStore.get(fresh.jobId!)?.user_id, null);

  const admin = await registerAdmin(t, ta);
  const anonymous = await ta.inject({ method: 'POST', url: '/', payload: LOG, headers: { 'content-type': 'text/plain' } });
  t.equal(anonymous.statusCode, 401);
  t.equal(anonymous.headers['www-authenticate'], 'Basic realm="logsift", charset="UTF-8"');
  t.equal(anonymous.headers.connection, 'close', 'the unread upload is not kept');
  t.same(anonymous.json(), { statusCode: 401, error: 'Unauthorized', message: 'authenticationRequired' });
  const wrong = await ta.inject({ method: 'POST', url: '/', payload: LOG, headers: { authorization: basic(ADMIN.userid, 'Wrong-password-1') } });
  t.equal(wrong.statusCode, 401);
  t.equal(wrong.json().message, 'invalidCredentials');

  const logged = await submit(base, admin);
  t.equal(logged.status, 200, 'works with credentials');
  t.equal(ta.app.jobStore.get(logged.jobId!)?.user_id, ADMIN.userid, 'the job records who submitted it');
  t.equal(ta.app.jobStore.get(logged.jobId!)?.state, 'done');

  const info = await ta.inject({ method: 'GET', url: '/info/codes' });
  t.equal(info.statusCode, 200, 'information routes stay public');
});

t.test('a job stays its account\'s: renamed, it keeps it; a new account with the old address does not get it', async (t) => {
  const ta = await testApp(t);
  const base = await ta.listen();
  const admin = await registerAdmin(t, ta);
  const made = (userid: string, password: string) => ta.inject({ method: 'POST', url: '/api/admin/users/', headers: { authorization: admin, ...FORM }, payload: form({ userid, password, group: 'user' }) });
  t.equal((await made('z@example.org', 'Another-pass-99')).statusCode, 201);
  const job = await submit(base, basic('z@example.org', 'Another-pass-99'));
  t.equal(job.status, 200);
  const traces = (authorization: string) => ta.inject({ method: 'GET', url: `/${job.jobId}/job-traces.log`, headers: { authorization } });
  t.equal((await traces(basic('z@example.org', 'Another-pass-99'))).statusCode, 200, 'the submitter');

  const renamed = await ta.inject({ method: 'POST', url: '/api/admin/users/z@example.org', headers: { authorization: admin, ...FORM }, payload: 'username=zed@example.org' });
  t.equal(renamed.statusCode, 200);
  t.equal((await traces(basic('zed@example.org', 'Another-pass-99'))).statusCode, 200, 'the submitter, renamed');
  t.equal((await made('z@example.org', 'Mallory-pass-99')).statusCode, 201);
  t.equal((await traces(basic('z@example.org', 'Mallory-pass-99'))).statusCode, 403, 'a new account with the old address');
  t.equal((await ta.inject({ method: 'GET', url: `/api/jobs/${job.jobId}/progress`, headers: { authorization: basic('z@example.org', 'Mallory-pass-99') } })).statusCode, 403);

  // deleted, then an account made again with its address (it would get the same id without AUTOINCREMENT)
  t.equal((await ta.inject({ method: 'DELETE', url: '/api/admin/users/zed@example.org', headers: { authorization: admin } })).statusCode, 204);
  t.equal((await made('zed@example.org', 'Another-pass-99')).statusCode, 201);
  t.equal((await traces(basic('zed@example.org', 'Another-pass-99'))).statusCode, 403, 'a deleted account\'s jobs stay out of reach');
  t.equal((await traces(admin)).statusCode, 200, 'administrators still read them');
});

t.test('AUTH_JOBS=always: a login even before any account exists', async (t) => {
  const ta = await testApp(t, { AUTH_JOBS: 'always' });
  t.ok(ta.app.jobsNeedLogin());
  const res = await ta.inject({ method: 'POST', url: '/', payload: LOG });
  t.equal(res.statusCode, 401);
});

t.test('AUTH_JOBS=never: anonymous jobs with accounts; credentials sent are still checked', async (t) => {
  const ta = await testApp(t, { AUTH_JOBS: 'never' });
  const admin = await registerAdmin(t, ta);
  t.notOk(ta.app.jobsNeedLogin());
  const base = await ta.listen();
  t.equal((await submit(base)).status, 200);
  const logged = await submit(base, admin);
  t.equal(logged.status, 200);
  t.equal(ta.app.jobStore.get(logged.jobId!)?.user_id, ADMIN.userid);
  t.equal((await submit(base, basic(ADMIN.userid, 'Wrong-password-1'))).status, 401);
});

t.test('a cross-site page cannot submit a job with cached credentials', async (t) => {
  const ta = await testApp(t);
  const admin = await registerAdmin(t, ta);
  const res = await ta.inject({ method: 'POST', url: '/', payload: LOG, headers: { authorization: admin, 'sec-fetch-site': 'cross-site' } });
  t.equal(res.statusCode, 403);
  t.equal(res.json().message, 'crossSiteRequest');
});
