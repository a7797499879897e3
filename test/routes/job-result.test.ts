import t from 'tap';
import { USER, basic, testApp, withUsers } from '../helpers/accounts.js';

const LOG = '1.2.3.4 - bob [10/Apr/2012:09:38:11 +0200] "GET http://x.com/ HTTP/1.1" 200 1234\n'.repeat(3);

t.test('a job ticket: only a login with credentials earns one, and a new password ends it', async (t) => {
  const ta = await testApp(t);
  const { admin, user } = await withUsers(t, ta);
  const base = await ta.listen();
  const submitted = await fetch(`${base}/`, { method: 'POST', body: LOG, headers: { 'content-type': 'text/plain', authorization: user } });
  t.equal(submitted.status, 200);
  await submitted.text();
  const jobId = submitted.headers.get('job-id')!;

  const progress = (query: string, authorization?: string) =>
    ta.inject({ method: 'GET', url: `/api/jobs/${jobId}/progress${query}`, headers: authorization ? { authorization } : {} });
  const traces = (ticket: string) => ta.inject({ method: 'GET', url: `/${jobId}/job-traces.log?ticket=${encodeURIComponent(ticket)}` });
  const ticketOf = async (authorization: string): Promise<string> => {
    const res = await progress('', authorization);
    t.equal(res.statusCode, 200);
    t.type(res.json().ticket, 'string', 'a login with credentials gets a ticket');
    return res.json().ticket;
  };

  const first = await ticketOf(user);
  t.equal((await traces(first)).statusCode, 200, 'the ticket opens the job\'s files');
  t.notOk(ta.logs.join('').includes(first.slice(0, 24)), 'the service log does not hold the ticket');
  t.match(ta.logs.join(''), /job-traces\.log\?ticket=\[hidden\]/, 'it logs the request with the ticket hidden');
  const subject = Buffer.from(first.split('.')[1], 'base64url').toString();
  t.notMatch(subject, /@/, `the ticket names the account by its id (${subject}), not its address: links get passed on and logged`);
  const renewed = await progress(`?ticket=${encodeURIComponent(first)}`);
  t.equal(renewed.statusCode, 200, 'a ticket still reads the progress');
  t.equal(renewed.json().ticket, null, 'but gets no new ticket: a leaked one cannot be renewed');

  // A reset by an administrator: the old password stops working, and so do its tickets.
  const reset = await ta.inject({ method: 'POST', url: `/api/admin/passwords/${USER.userid}`, headers: { authorization: admin } });
  t.equal(reset.statusCode, 200);
  const refused = await traces(first);
  t.equal(refused.statusCode, 401, 'after a reset by an administrator');
  t.match(refused.body, /"invalidTicket"/);
  t.equal((await progress(`?ticket=${encodeURIComponent(first)}`)).statusCode, 401);

  // The user's own change of password.
  const generated = basic(USER.userid, reset.json().password);
  const second = await ticketOf(generated);
  t.equal((await traces(second)).statusCode, 200);
  const changed = await ta.inject({
    method: 'POST', url: '/api/admin/profile', headers: { authorization: generated },
    payload: { section: 'password', oldPassword: reset.json().password, newPassword: 'Fresh-words-88', confirm: 'Fresh-words-88' },
  });
  t.equal(changed.statusCode, 204);
  t.equal((await traces(second)).statusCode, 401, 'after the user\'s own change');

  // Deleted, then an account made again with the same address: the old tickets stay dead.
  const third = await ticketOf(basic(USER.userid, 'Fresh-words-88'));
  t.equal((await ta.inject({ method: 'DELETE', url: `/api/admin/users/${USER.userid}`, headers: { authorization: admin } })).statusCode, 204);
  t.equal((await traces(third)).statusCode, 401, 'after the account\'s deletion');
  t.equal((await ta.inject({ method: 'POST', url: '/api/admin/users', headers: { authorization: admin }, payload: USER })).statusCode, 201);
  t.equal((await traces(third)).statusCode, 401, 'nor for a new account with its address');
  t.equal((await traces(await ticketOf(admin))).statusCode, 200, 'an administrator\'s ticket opens it');
});
