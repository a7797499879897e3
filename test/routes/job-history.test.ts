import t from 'tap';
import { ADMIN, basic, registerAdmin, testApp } from '../helpers/accounts.js';
import { historyStatus } from '../../src/routes/job-history.js';

const LINE = '1.2.3.4 - bob [10/Apr/2012:09:38:11 +0200] "GET http://x.com/ HTTP/1.1" 200 1234\n';

t.test('the reference\'s history statuses', async (t) => {
  t.same(['running', 'done', 'failed', 'aborted', 'interrupted'].map((s) => historyStatus(s as never)), ['started', 'completed', 'error', 'abort', 'abort']);
});

t.test('GET /api/jobs (administrators) and GET /api/jobs/{userId} (that account): job histories, newest first, a page at a time', async (t) => {
  const ta = await testApp(t);
  const admin = await registerAdmin(t, ta);
  const hash = ta.app.userStore.passwordHash(ADMIN.userid)!;
  const alice = ta.app.userStore.create('alice@example.org', hash, 'user');
  ta.app.userStore.create('bob@example.org', hash, 'user');
  const asAlice = basic('Alice@Example.org', ADMIN.password);
  const asBob = basic('bob@example.org', ADMIN.password);
  const get = (url: string, authorization?: string) => ta.inject({ method: 'GET', url, headers: authorization ? { authorization } : {} });
  const post = async (authorization: string, lines = 3) => {
    const res = await ta.inject({ method: 'POST', url: '/', headers: { 'content-type': 'text/plain', authorization }, payload: LINE.repeat(lines) });
    t.equal(res.statusCode, 200);
    return String(res.headers['job-id']);
  };
  const a1 = await post(asAlice, 2);
  const b1 = await post(asBob);
  const a2 = await post(asAlice, 5);
  const c1 = await post(admin);

  t.equal((await get('/api/jobs')).statusCode, 401);
  t.equal((await get('/api/jobs', asAlice)).statusCode, 403, 'every job: administrators only');
  const all = await get('/api/jobs', admin);
  t.equal(all.statusCode, 200);
  t.equal(all.headers['cache-control'], 'no-store');
  t.same(all.json().map((j: { jobId: string }) => j.jobId), [c1, a2, b1, a1], 'newest first');
  t.same(all.json().map((j: { userId: string }) => j.userId), [ADMIN.userid, 'alice@example.org', 'bob@example.org', 'alice@example.org']);
  t.match(all.json()[1], {
    jobId: a2, userId: 'alice@example.org', status: 'completed', state: 'done', createdAt: String, endedAt: String,
    linesRead: 5, events: Number, denied: Number, statusCode: null, statusMessage: null, ticket: String,
  });
  t.equal(all.headers.link, undefined, 'the whole history fits in a page: no next one');

  // one's own history, under one's login in any case; not another's
  const own = await get('/api/jobs/ALICE%40example.org', asAlice);
  t.equal(own.statusCode, 200);
  t.same(own.json().map((j: { jobId: string }) => j.jobId), [a2, a1]);
  t.equal((await get('/api/jobs/bob%40example.org', asAlice)).statusCode, 403);
  t.equal((await get('/api/jobs/nobody%40example.org', asAlice)).statusCode, 403, 'whether an account exists is not said to a user');
  t.equal((await get('/api/jobs/nobody%40example.org', admin)).json().message, 'userNotFound');
  t.same((await get('/api/jobs/bob%40example.org', admin)).json().map((j: { jobId: string }) => j.jobId), [b1], 'administrators read anyone\'s');

  // the ticket opens the job's files in a link, for its owner
  const ticket = own.json()[0].ticket;
  t.equal((await get(`/${a2}/job-report.json?ticket=${encodeURIComponent(ticket)}`)).statusCode, 200);
  t.equal((await get(`/${a1}/job-report.json?ticket=${encodeURIComponent(ticket)}`)).statusCode, 401, 'for its own job only');

  // pages: limit, then before the last job shown, as the Link header says
  const first = await get('/api/jobs?limit=2', admin);
  t.same(first.json().map((j: { jobId: string }) => j.jobId), [c1, a2]);
  t.equal(first.headers.link, `</api/jobs?limit=2&before=${a2}>; rel="next"`);
  const next = await get(`/api/jobs?limit=2&before=${a2}`, admin);
  t.same(next.json().map((j: { jobId: string }) => j.jobId), [b1, a1]);
  t.same((await get(`/api/jobs?limit=2&before=${a1}`, admin)).json(), []);
  const ownPage = await get('/api/jobs/alice%40example.org?limit=1', asAlice);
  t.equal(ownPage.headers.link, `</api/jobs/alice%40example.org?limit=1&before=${a2}>; rel="next"`);

  // jobs started in the same millisecond are neither skipped nor repeated across pages
  ta.app.db.prepare('UPDATE jobs SET created_at = ?').run('2026-11-28T06:00:00.000Z');
  const seen: string[] = [];
  let url = '/api/jobs?limit=1';
  for (let i = 0; i < 10 && url; i++) {
    const res = await get(url, admin);
    seen.push(...res.json().map((j: { jobId: string }) => j.jobId));
    url = /^<([^>]+)>/.exec(String(res.headers.link ?? ''))?.[1] ?? '';
  }
  t.same([...seen].sort(), [a1, a2, b1, c1].sort());
  t.equal(new Set(seen).size, 4);

  const bad = await get('/api/jobs?limit=0', admin);
  t.equal(bad.statusCode, 400);
  t.equal(bad.json().message, 'invalidParameter');
  t.equal((await get('/api/jobs?limit=1001', admin)).statusCode, 400);
  const gone = await get('/api/jobs?before=00000000-0000-4000-8000-000000000000', admin);
  t.equal(gone.statusCode, 400);
  t.match(gone.json().detail, /before: no job/);

  // a renamed account keeps its history under its new login; a deleted one's jobs keep the login they were sent with
  ta.app.userStore.update('alice@example.org', { username: 'alice.smith@example.org' });
  const renamed = await get('/api/jobs/alice.smith%40example.org', admin);
  t.same(renamed.json().map((j: { userId: string }) => j.userId), ['alice.smith@example.org', 'alice.smith@example.org']);
  ta.app.userStore.remove('bob@example.org');
  t.equal((await get('/api/jobs', admin)).json().find((j: { jobId: string }) => j.jobId === b1).userId, 'bob@example.org');
  t.equal(ta.app.userStore.get('alice.smith@example.org')!.id, alice.id);
});

t.test('the history queries read the indexes, not the whole table', async (t) => {
  const ta = await testApp(t);
  const plan = (sql: string) => (ta.app.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as Array<{ detail: string }>).map((r) => r.detail).join('; ');
  const owner = plan(`SELECT id FROM jobs WHERE owner = 1 AND (created_at, id) < ('x', 'y') ORDER BY created_at DESC, id DESC LIMIT 10`);
  t.match(owner, /jobs_owner_created_at/);
  t.notMatch(owner, /TEMP B-TREE/);
  const all = plan('SELECT id FROM jobs ORDER BY created_at DESC, id DESC LIMIT 10');
  t.match(all, /jobs_created_at_id/);
  t.notMatch(all, /TEMP B-TREE/);
});
