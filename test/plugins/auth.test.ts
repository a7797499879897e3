import t from 'tap';
import type { FastifyRequest } from 'fastify';
import { isCrossSite, mayAccessJob } from '../../src/plugins/auth.js';
import type { User } from '../../src/db/users.js';
import { ADMIN, FORM, USER, basic, form, testApp, withUsers } from '../helpers/accounts.js';

const user = (id: number, username: string, group: 'user' | 'admin'): User =>
  ({ id, username, group, founder: false, notifiate: false, createdAt: '', updatedAt: '' });

t.test('who may read a job: by the account\'s id, not its address', async (t) => {
  t.ok(mayAccessJob(user(1, 'a@example.org', 'admin'), 2), 'administrators');
  t.ok(mayAccessJob(user(2, 'b@example.org', 'user'), 2), 'the submitter');
  t.ok(mayAccessJob(user(2, 'renamed@example.org', 'user'), 2), 'the submitter, renamed');
  t.notOk(mayAccessJob(user(3, 'b@example.org', 'user'), 2), 'another account with the submitter\'s old address');
  t.notOk(mayAccessJob(user(3, 'c@example.org', 'user'), -1), 'a job whose account is gone');
  t.notOk(mayAccessJob(null, 2), 'anonymous, for a job with an owner');
  t.ok(mayAccessJob(null, null), 'anonymous job');
  t.ok(mayAccessJob(user(3, 'c@example.org', 'user'), undefined));
});

t.test('cross-site requests', async (t) => {
  const req = (method: string, headers: Record<string, string>) => ({ method, headers }) as unknown as FastifyRequest;
  const base = 'https://logs.example.org';
  t.notOk(isCrossSite(req('POST', {}), base), 'a script');
  t.notOk(isCrossSite(req('GET', { 'sec-fetch-site': 'cross-site' }), base), 'reading');
  t.ok(isCrossSite(req('DELETE', { 'sec-fetch-site': 'cross-site' }), base));
  t.notOk(isCrossSite(req('POST', { 'sec-fetch-site': 'same-origin', origin: 'https://evil.example' }), base), 'Sec-Fetch-Site decides');
  t.notOk(isCrossSite(req('POST', { 'sec-fetch-site': 'none' }), base), 'typed in the address bar');
  t.notOk(isCrossSite(req('POST', { origin: 'http://127.0.0.1:8080', host: '127.0.0.1:8080' }), base), 'same host');
  t.notOk(isCrossSite(req('POST', { origin: 'https://logs.example.org', host: 'backend:59599' }), base), 'behind a proxy, the public URL');
  t.ok(isCrossSite(req('PUT', { origin: 'https://evil.example', host: 'logs.example.org' }), base));
  t.ok(isCrossSite(req('POST', { origin: 'null', host: 'logs.example.org' }), base));
});

t.test('Basic authentication on the admin routes', async (t) => {
  const ta = await testApp(t);
  const { admin, user } = await withUsers(t, ta);
  const list = (authorization?: string) => ta.inject({ method: 'GET', url: '/api/admin/users', headers: authorization ? { authorization } : {} });

  const none = await list();
  t.equal(none.statusCode, 401);
  t.equal(none.headers['www-authenticate'], 'Basic realm="logsift", charset="UTF-8"');
  t.same(none.json(), { statusCode: 401, error: 'Unauthorized', message: 'authenticationRequired' });

  for (const [name, authorization] of [
    ['wrong password', basic(ADMIN.userid, 'Wrong-password-1')],
    ['unknown user', basic('nobody@example.org', ADMIN.password)],
    ['malformed header', 'Basic %%%'],
    ['another scheme', 'Bearer abc'],
  ] as const) {
    const res = await list(authorization);
    t.equal(res.statusCode, 401, name);
    t.ok(res.headers['www-authenticate'], `${name}: challenge`);
  }
  const wrong = await list(basic(ADMIN.userid, 'Wrong-password-1'));
  t.equal(wrong.json().message, 'invalidCredentials');

  const asUser = await list(user);
  t.equal(asUser.statusCode, 403, 'a user is not an administrator');
  t.same(asUser.json(), { statusCode: 403, error: 'Forbidden', message: 'forbidden' });
  t.equal(asUser.headers['www-authenticate'], undefined);

  const ok = await list(admin);
  t.equal(ok.statusCode, 200);
  t.equal(ok.headers['ezpaarse-logged-user'], ADMIN.userid);
  t.same(ok.json().map((u: { username: string }) => u.username), [ADMIN.userid, USER.userid]);

  for (const [method, url] of [['POST', '/api/admin/users'], ['POST', '/api/admin/users/jane@example.org'],
    ['DELETE', '/api/admin/users/jane@example.org'], ['POST', '/api/admin/passwords/jane@example.org'], ['GET', '/api/admin/jobs']] as const) {
    t.equal((await ta.inject({ method, url })).statusCode, 401, `${method} ${url} anonymous`);
    t.equal((await ta.inject({ method, url, headers: { authorization: user } })).statusCode, 403, `${method} ${url} as a user`);
  }
  const unknown = await ta.inject({ method: 'GET', url: '/api/admin/nothing', headers: { authorization: admin } });
  t.equal(unknown.statusCode, 404);
  t.equal(unknown.headers['content-type'], 'application/json; charset=utf-8');
});

t.test('repeated failures are refused for a while', async (t) => {
  const ta = await testApp(t);
  const { admin } = await withUsers(t, ta);
  const attempt = (authorization: string, remoteAddress = '203.0.113.5') =>
    ta.inject({ method: 'GET', url: '/api/admin/users', headers: { authorization }, remoteAddress });

  for (let i = 0; i < 5; i++) t.equal((await attempt(basic(`guess${i}@example.org`, `Guess-number-${i}`))).statusCode, 401, `failure ${i + 1}`);
  const refused = await attempt(admin);
  t.equal(refused.statusCode, 429, 'even the right password is refused from that address');
  t.same(refused.json(), { statusCode: 429, error: 'Too Many Requests', message: 'tooManyFailures' });
  const retry = Number(refused.headers['retry-after']);
  t.ok(retry > 0 && retry <= 900, `Retry-After ${retry} s`);
  t.equal((await attempt(admin, '198.51.100.7')).statusCode, 200, 'another address still logs in');

  // Guessing one account's password from many addresses: the account is refused too.
  for (let i = 0; i < 10; i++) t.equal((await attempt(basic(USER.userid, `Guess-number-${i}`), `192.0.2.${i}`)).statusCode, 401);
  const victim = await attempt(basic(USER.userid, USER.password), '192.0.2.200');
  t.equal(victim.statusCode, 429, 'the account is refused from anywhere');
  t.ok(Number(victim.headers['retry-after']) > 0);
  t.match(ta.logs.join(''), /login refused: too many failed attempts/);

  // A new password set by the administrator lifts the account's refusal.
  const reset = await ta.inject({ method: 'POST', url: `/api/admin/passwords/${USER.userid}`, headers: { authorization: admin }, remoteAddress: '198.51.100.7' });
  t.equal((await attempt(basic(USER.userid, reset.json().password), '192.0.2.201')).statusCode, 403, 'logged in (and not an administrator)');
});

t.test('a client sending its credentials with every request pays one password check, not one a request', async (t) => {
  const ta = await testApp(t);
  const { admin } = await withUsers(t, ta);
  const cpu = async (n: number) => {
    const before = process.cpuUsage();
    for (let i = 0; i < n; i++) t.equal((await ta.inject({ method: 'GET', url: '/api/admin/users', headers: { authorization: admin } })).statusCode, 200);
    const used = process.cpuUsage(before);
    return (used.user + used.system) / 1000;
  };
  const wrong = await ta.inject({ method: 'GET', url: '/api/admin/users', headers: { authorization: basic(ADMIN.userid, 'Not-the-words-1') }, remoteAddress: '192.0.2.1' });
  t.equal(wrong.statusCode, 401, 'a wrong password is still checked');
  const before = process.cpuUsage();
  await ta.inject({ method: 'GET', url: '/api/admin/users', headers: { authorization: basic(ADMIN.userid, 'Not-the-words-2') }, remoteAddress: '192.0.2.1' });
  const one = process.cpuUsage(before);
  const oneCheck = (one.user + one.system) / 1000;
  const twenty = await cpu(20);
  t.ok(twenty < 5 * oneCheck, `20 requests with the right password: ${Math.round(twenty)} ms of CPU, one argon2 check ${Math.round(oneCheck)} ms`);
});

t.test('guesses sent all at once are capped as guesses in a row are', async (t) => {
  const ta = await testApp(t);
  const { admin } = await withUsers(t, ta);
  const answers = await Promise.all(Array.from({ length: 30 }, (_, i) =>
    ta.inject({ method: 'GET', url: '/api/admin/users', headers: { authorization: basic(ADMIN.userid, `Guess-number-${i}`) }, remoteAddress: '203.0.113.77' })));
  const codes = answers.map((a) => a.statusCode);
  t.equal(codes.filter((c) => c === 401).length, 5, 'five password checks, the address\'s limit');
  t.equal(codes.filter((c) => c === 429).length, 25, 'the others refused before any check');
  t.equal((await ta.inject({ method: 'GET', url: '/api/admin/users', headers: { authorization: admin }, remoteAddress: '203.0.113.77' })).statusCode, 429);
});

t.test('others\' failures on an account do not lock out an address that logged in on it', async (t) => {
  const ta = await testApp(t);
  const { admin } = await withUsers(t, ta);
  const attempt = (authorization: string, remoteAddress: string) =>
    ta.inject({ method: 'GET', url: '/api/admin/users', headers: { authorization }, remoteAddress });
  t.equal((await attempt(admin, '198.51.100.1')).statusCode, 200, 'the administrator, from the usual address');
  for (let i = 0; i < 10; i++) t.equal((await attempt(basic(ADMIN.userid, `Guess-number-${i}`), `192.0.2.${i}`)).statusCode, 401);
  t.equal((await attempt(admin, '192.0.2.99')).statusCode, 429, 'the account is locked for a new address');
  t.equal((await attempt(admin, '198.51.100.1')).statusCode, 200, 'not for the usual one');
});

t.test('a login on one\'s own account does not clear the address\'s guesses at others', async (t) => {
  const ta = await testApp(t);
  const { user } = await withUsers(t, ta);
  const attempt = (authorization: string) =>
    ta.inject({ method: 'GET', url: '/api/admin/users', headers: { authorization }, remoteAddress: '203.0.113.9' });
  for (let i = 0; i < 4; i++) {
    t.equal((await attempt(basic(ADMIN.userid, `Guess-number-${i}`))).statusCode, 401, `guess ${i + 1}`);
    t.equal((await attempt(user)).statusCode, 403, 'logged in on the own account between guesses');
  }
  t.equal((await attempt(basic(ADMIN.userid, 'Guess-number-4'))).statusCode, 401, 'guess 5');
  const refused = await attempt(basic(ADMIN.userid, 'Guess-number-5'));
  t.equal(refused.statusCode, 429, 'the 6th guess is refused: the logins did not clear the others');
  t.ok(Number(refused.headers['retry-after']) > 0);
});

t.test('behind a proxy (TRUST_PROXY), the address counted is the one the nearest proxy appended', async (t) => {
  for (const [setting, proxy, hops] of [['true', '127.0.0.1', 1], ['2', '127.0.0.1', 2], ['10.0.0.5, 10.1.0.0/16', '10.0.0.5', 2]] as const) {
    const ta = await testApp(t, { TRUST_PROXY: setting });
    const { admin } = await withUsers(t, ta);
    // what the client wrote, then what each proxy appended: the client's address, then the nearer proxies'
    const chain = (client: string, written: string) => [written, client, ...(hops === 2 ? ['10.1.2.3'] : [])].join(', ');
    const attempt = (authorization: string, client: string, written: string, remoteAddress: string = proxy) =>
      ta.inject({ method: 'GET', url: '/api/admin/users', headers: { authorization, 'x-forwarded-for': chain(client, written) }, remoteAddress });

    // a new made-up address each time: the one the proxy saw is counted all the same
    for (let i = 0; i < 5; i++) t.equal((await attempt(basic(`guess${i}@example.org`, `Guess-number-${i}`), '203.0.113.5', `198.18.0.${i}`)).statusCode, 401, `${setting}: failure ${i + 1}`);
    const refused = await attempt(admin, '203.0.113.5', '198.18.0.99');
    t.equal(refused.statusCode, 429, `${setting}: the client is refused whatever it writes`);
    t.match(ta.logs.join(''), /"ip":"203\.0\.113\.5".*login refused/, `${setting}: the address logged`);
    t.equal((await attempt(admin, '198.51.100.7', '203.0.113.5')).statusCode, 200, `${setting}: another client writing the refused address still logs in`);
    if (proxy === '10.0.0.5') {
      // a peer that is not one of the proxies: its X-Forwarded-For is not read, its own address is counted
      t.equal((await attempt(admin, '203.0.113.5', '203.0.113.5', '192.0.2.50')).statusCode, 200, 'X-Forwarded-For from a peer not listed is ignored');
    }
  }
});

t.test('a browser page of another site cannot act with cached credentials', async (t) => {
  const ta = await testApp(t);
  const { admin } = await withUsers(t, ta);
  const post = (headers: Record<string, string>) => ta.inject({
    method: 'POST', url: '/api/admin/users', headers: { authorization: admin, ...FORM, ...headers },
    payload: form({ userid: 'mallory@example.org', password: 'Xylophone-77', group: 'admin' }),
  });
  const crossSite: Array<Record<string, string>> = [{ 'sec-fetch-site': 'cross-site' }, { 'sec-fetch-site': 'same-site' }, { origin: 'https://evil.example' }, { origin: 'null' }];
  for (const headers of crossSite) {
    const res = await post(headers);
    t.equal(res.statusCode, 403, JSON.stringify(headers));
    t.equal(res.json().message, 'crossSiteRequest');
  }
  const reg = await ta.inject({ method: 'POST', url: '/api/admin/register', headers: { origin: 'https://evil.example' }, payload: {} });
  t.equal(reg.statusCode, 403, 'registration too');
  t.equal(ta.app.userStore.get('mallory@example.org'), undefined);
  const list = await ta.inject({ method: 'GET', url: '/api/admin/users', headers: { authorization: admin, 'sec-fetch-site': 'cross-site' } });
  t.equal(list.statusCode, 200, 'reading is not acting (and the browser does not show the answer to the other site)');
  t.equal((await post({ 'sec-fetch-site': 'same-origin', origin: 'http://localhost:80' })).statusCode, 201, 'the service\'s own pages');
});
