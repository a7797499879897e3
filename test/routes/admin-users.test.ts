import t from 'tap';
import { Readable } from 'node:stream';
import { ADMIN, FORM, USER, basic, form, testApp, withUsers } from '../helpers/accounts.js';

t.test('register: validations, then the first account becomes the administrator, once', async (t) => {
  const ta = await testApp(t);
  const register = (payload: unknown, headers: Record<string, string> = {}) =>
    ta.inject({ method: 'POST', url: '/api/admin/register', payload: payload as string, headers });

  const page = await ta.inject({ method: 'GET', url: '/' });
  t.equal(page.statusCode, 200);
  t.match(page.body, /action="\/api\/admin\/register"/, 'a fresh install offers the form that creates the administrator');

  const ok = { userid: 'Boss@Example.org', password: 'Correct-Horse-1', confirm: 'Correct-Horse-1' };
  const cases: Array<[string, unknown, string]> = [
    ['no body at all', undefined, 'fillAllFields'],
    ['no userid', { ...ok, userid: undefined }, 'fillAllFields'],
    ['empty password', { ...ok, password: '' }, 'fillAllFields'],
    ['no confirmation', { ...ok, confirm: undefined }, 'fillAllFields'],
    ['not a mail address', { ...ok, userid: 'boss' }, 'invalidAddress'],
    ['confirmation differs', { ...ok, confirm: 'Correct-Horse-2' }, 'passwordDoesNotMatch'],
    ['too short', { ...ok, password: 'Short-1', confirm: 'Short-1' }, 'weakPassword'],
    ['one character class', { ...ok, password: 'onlylowercaseletters', confirm: 'onlylowercaseletters' }, 'weakPassword'],
    ['an object for the address', { ...ok, userid: { $ne: null } }, 'invalidParameter'],
    ['an object for the password', { ...ok, password: { $gt: '' } }, 'invalidParameter'],
    ['an array body', [ok], 'invalidParameter'],
    ['a one-element array for the address', { ...ok, userid: [ok.userid] }, 'invalidParameter'],
  ];
  for (const [name, payload, code] of cases) {
    const res = await register(payload);
    t.equal(res.statusCode, 400, name);
    t.same(res.json(), { statusCode: 400, error: 'Bad Request', message: code, ...(code === 'invalidParameter' ? { detail: res.json().detail } : {}) }, name);
  }
  const badJson = await register('{"userid":', { 'content-type': 'application/json' });
  t.equal(badJson.statusCode, 400);
  t.equal(badJson.json().message, 'invalidBody');
  t.equal(ta.app.userStore.count(), 0, 'nothing created by the refused requests');

  // form-encoded, as the page's form posts it without its script
  const created = await register(form(ok), FORM);
  t.equal(created.statusCode, 201);
  t.match(created.json(), { id: Number, username: 'boss@example.org', group: 'admin', founder: true, createdAt: String, updatedAt: String });
  t.same(Object.keys(created.json()).sort(), ['createdAt', 'founder', 'group', 'id', 'notifiate', 'updatedAt', 'username']);

  const again = await register({ userid: 'other@example.org', password: 'Other-pass-1', confirm: 'Other-pass-1' });
  t.equal(again.statusCode, 409);
  t.same(again.json(), { statusCode: 409, error: 'Conflict', message: 'registrationClosed' });
  const missing = await register({});
  t.equal(missing.statusCode, 409, 'closed whatever the body');

  const home = await ta.inject({ method: 'GET', url: '/' });
  t.equal(home.statusCode, 200);
  t.notMatch(home.body, /api\/admin\/register/, 'the form is gone');
  t.match(home.body, /href="\/info\/codes"/);
  t.equal(home.headers['cache-control'], 'no-store');

  const login = await ta.inject({ method: 'GET', url: '/api/admin/users', headers: { authorization: basic('BOSS@example.org ', ok.password) } });
  t.equal(login.statusCode, 200, 'the login is the address, in any case');
});

t.test('register: concurrent registrations on an empty database, one wins', async (t) => {
  const ta = await testApp(t);
  const results = await Promise.all(Array.from({ length: 6 }, (_, i) => ta.inject({
    method: 'POST', url: '/api/admin/register',
    payload: { userid: `admin${i}@example.org`, password: 'Correct-Horse-1', confirm: 'Correct-Horse-1' },
  })));
  const codes = results.map((r) => r.statusCode).sort();
  t.same(codes, [201, 409, 409, 409, 409, 409]);
  const users = ta.app.userStore.list();
  t.equal(users.length, 1);
  t.match(users[0], { group: 'admin', founder: true });
});
t.test('administrators manage users', async (t) => {
  const ta = await testApp(t);
  const { admin, user } = await withUsers(t, ta);
  const as = (authorization: string) => ({ authorization });
  const create = (payload: unknown, url = '/api/admin/users') =>
    ta.inject({ method: 'POST', url, headers: as(admin), payload: payload as string });

  t.test('create', async (t) => {
    const made = await create(form({ userid: 'Bob@Example.org', password: 'Bob-password-12', group: 'admin' }), '/api/admin/users/');
    t.equal(made.statusCode, 415, 'a form body needs its content type');
    t.equal(made.json().message, 'unsupportedMediaType');
    const formMade = await ta.inject({ method: 'POST', url: '/api/admin/users/', headers: { ...as(admin), ...FORM },
      payload: form({ userid: 'Bob@Example.org', password: 'Bob-password-12', group: 'admin' }) });
    t.equal(formMade.statusCode, 201, 'form-encoded, trailing slash');
    t.match(formMade.json(), { username: 'bob@example.org', group: 'admin', founder: false });
    const json = await create({ username: 'carol@example.org', password: 'Violet-sky-1234' });
    t.equal(json.statusCode, 201, '`username` works as well as `userid`');
    t.equal(json.json().group, 'user', 'group defaults to user');

    for (const [name, payload, status, code] of [
      ['exists', { userid: 'BOB@example.org', password: 'Bob-password-12' }, 409, 'userAlreadyExists'],
      ['no password', { userid: 'dan@example.org' }, 400, 'fillAllFields'],
      ['no address', { password: 'Dan-password-12' }, 400, 'fillAllFields'],
      ['bad address', { userid: 'dan@', password: 'Dan-password-12' }, 400, 'invalidAddress'],
      ['bad group', { userid: 'dan@example.org', password: 'Dan-password-12', group: 'root' }, 400, 'invalidGroup'],
      ['weak password', { userid: 'dan@example.org', password: 'dan@example.org1' }, 400, 'weakPassword'],
      ['object group', { userid: 'dan@example.org', password: 'Dan-password-12', group: { $ne: 'user' } }, 400, 'invalidParameter'],
      ['one-element array group', { userid: 'dan@example.org', password: 'Dan-password-12', group: ['admin'] }, 400, 'invalidParameter'],
    ] as const) {
      const res = await create(payload);
      t.equal(res.statusCode, status, name);
      t.equal(res.json().message, code, name);
    }
    t.equal(ta.app.userStore.get('dan@example.org'), undefined);
  });

  t.test('update', async (t) => {
    const update = (name: string, payload: unknown, authorization = admin) =>
      ta.inject({ method: 'POST', url: `/api/admin/users/${encodeURIComponent(name)}`, headers: as(authorization), payload: payload as string });

    const promoted = await ta.inject({ method: 'POST', url: '/api/admin/users/carol@example.org', headers: { ...as(admin), ...FORM }, payload: 'group=admin' });
    t.equal(promoted.statusCode, 200, 'form-encoded');
    t.match(promoted.json(), { username: 'carol@example.org', group: 'admin' });

    const renamed = await update('Carol@Example.org', { username: 'Caroline@Example.org' });
    t.equal(renamed.statusCode, 200);
    t.match(renamed.json(), { username: 'caroline@example.org', group: 'admin' });
    t.equal((await update('carol@example.org', { group: 'user' })).statusCode, 404, 'the old address is gone');
    const login = await ta.inject({ method: 'GET', url: '/api/admin/users', headers: as(basic('caroline@example.org', 'Violet-sky-1234')) });
    t.equal(login.statusCode, 200, 'the password survives a change of address');

    for (const [name, target, payload, status, code] of [
      ['unknown', 'zed@example.org', { group: 'user' }, 404, 'userNotFound'],
      ['not an address in the path', 'zed', { group: 'user' }, 404, 'userNotFound'],
      ['nothing to change', 'bob@example.org', {}, 400, 'fillAllFields'],
      ['bad address', 'bob@example.org', { userid: 'bob' }, 400, 'invalidAddress'],
      ['bad group', 'bob@example.org', { group: 'superuser' }, 400, 'invalidGroup'],
      ['address taken', 'bob@example.org', { userid: 'jane@example.org' }, 409, 'userAlreadyExists'],
      ['array group', 'bob@example.org', { group: ['user', 'admin'] }, 400, 'invalidParameter'],
      ['own group', ADMIN.userid, { group: 'user' }, 400, 'cannotChangeYourOwnGroup'],
    ] as const) {
      const res = await update(target, payload);
      t.equal(res.statusCode, status, name);
      t.equal(res.json().message, code, name);
    }
    const founder = await update(ADMIN.userid, { group: 'user' }, basic('caroline@example.org', 'Violet-sky-1234'));
    t.equal(founder.statusCode, 403, 'the registered administrator cannot be demoted');
    t.equal(founder.json().message, 'protectedAccount');
    const founderRenamed = await update(ADMIN.userid, { username: 'taken-over@example.org' }, basic('caroline@example.org', 'Violet-sky-1234'));
    t.equal(founderRenamed.statusCode, 403, 'nor renamed by another administrator (its login taken over)');
    t.equal(founderRenamed.json().message, 'protectedAccount');
    const ownAddress = await update(ADMIN.userid, { group: 'admin', username: ADMIN.userid });
    t.equal(ownAddress.statusCode, 200, 'unchanged values are no change');
  });

  t.test('delete', async (t) => {
    const del = (name: string, authorization = admin) =>
      ta.inject({ method: 'DELETE', url: `/api/admin/users/${encodeURIComponent(name)}`, headers: as(authorization) });
    const unknown = await del('zed@example.org');
    t.equal(unknown.statusCode, 404);
    t.equal(unknown.json().message, 'userNotFound');
    const self = await del(ADMIN.userid);
    t.equal(self.statusCode, 403);
    t.equal(self.json().message, 'cannotDeleteYourself');
    const founder = await del(ADMIN.userid, basic('caroline@example.org', 'Violet-sky-1234'));
    t.equal(founder.statusCode, 403, 'the registered administrator cannot be deleted');
    t.equal(founder.json().message, 'protectedAccount');
    const gone = await del('bob@example.org');
    t.equal(gone.statusCode, 204);
    t.equal(gone.body, '');
    t.equal((await del('bob@example.org')).statusCode, 404);
    t.equal((await ta.inject({ method: 'GET', url: '/api/admin/users', headers: as(basic('bob@example.org', 'Bob-password-12')) })).statusCode, 401,
      'a deleted user cannot log in');
  });

  t.test('a user keeps no rights once demoted', async (t) => {
    const caroline = basic('caroline@example.org', 'Violet-sky-1234');
    t.equal((await ta.inject({ method: 'POST', url: '/api/admin/users/caroline@example.org', headers: as(admin), payload: { group: 'user' } })).statusCode, 200);
    t.equal((await ta.inject({ method: 'GET', url: '/api/admin/users', headers: as(caroline) })).statusCode, 403);
    t.equal((await ta.inject({ method: 'GET', url: '/api/admin/users', headers: as(user) })).statusCode, 403);
  });
});

t.test('the last administrator: two administrators demoting or deleting each other at once', async (t) => {
  const ta = await testApp(t);
  // Administrators without a founder (as a later bootstrap from the command line would create).
  const { hashPassword } = await import('../../src/auth/passwords.js');
  const hash = await hashPassword('Shared-password-1');
  ta.app.userStore.create('a@example.org', hash, 'admin');
  ta.app.userStore.create('b@example.org', hash, 'admin');
  const as = (by: string) => ({ authorization: basic(by, 'Shared-password-1') });
  const admins = () => ta.app.userStore.list().filter((u) => u.group === 'admin');
  // Whichever request comes second is refused: by the last-admin rule when both passed the login
  // first, or as a non-administrator when it logged in after the first one's change.
  const refused = (r: { statusCode: number; json(): { message: string } }) =>
    [401, 403].includes(r.statusCode) && ['lastAdmin', 'forbidden', 'invalidCredentials'].includes(r.json().message);

  const both = await Promise.all([
    ta.inject({ method: 'POST', url: '/api/admin/users/b@example.org', headers: as('a@example.org'), payload: { group: 'user' } }),
    ta.inject({ method: 'POST', url: '/api/admin/users/a@example.org', headers: as('b@example.org'), payload: { group: 'user' } }),
  ]);
  t.equal(both.filter((r) => r.statusCode === 200).length, 1, 'one demotion');
  t.ok(both.some(refused), 'the other is refused');
  t.equal(admins().length, 1, 'an administrator remains');

  const [survivor] = admins();
  const other = survivor.username === 'a@example.org' ? 'b@example.org' : 'a@example.org';
  ta.app.userStore.update(other, { group: 'admin' });
  const deletes = await Promise.all([
    ta.inject({ method: 'DELETE', url: `/api/admin/users/${other}`, headers: as(survivor.username) }),
    ta.inject({ method: 'DELETE', url: `/api/admin/users/${survivor.username}`, headers: as(other) }),
  ]);
  t.equal(deletes.filter((r) => r.statusCode === 204).length, 1, 'one deletion');
  t.ok(deletes.some(refused), 'the other is refused');
  t.equal(ta.app.userStore.count(), 1);
  t.equal(admins().length, 1);

  // Through the route, with the rule alone deciding: the only administrator demoting itself
  // is refused first as a change of one's own group.
  const [last] = admins();
  const self = await ta.inject({ method: 'POST', url: `/api/admin/users/${last.username}`, headers: as(last.username), payload: { group: 'user' } });
  t.equal(self.json().message, 'cannotChangeYourOwnGroup');
});

t.test('the last administrator: the route answers 403 lastAdmin, step by step', async (t) => {
  const ta = await testApp(t);
  // No registered (founder) administrator: its own rule (protectedAccount) cannot be what refuses.
  const { hashPassword } = await import('../../src/auth/passwords.js');
  const hash = await hashPassword('Shared-password-1');
  const as = (by: string) => ({ authorization: basic(by, 'Shared-password-1') });
  const admins = () => ta.app.userStore.list().filter((u) => u.group === 'admin').map((u) => u.username);

  /**
   * A's request on B, held once A's login passed (its body is read only after the login check),
   * while B demotes A through the route; then A's body is sent. A was an administrator when it
   * logged in; when its change runs, B is the only administrator left.
   */
  const heldRequest = async (method: 'POST' | 'DELETE', payload: object) => {
    let reading!: () => void;
    const bodyWanted = new Promise<void>((resolve) => { reading = resolve; });
    const body = new Readable({ read: () => reading() });
    const answer = ta.inject({
      method, url: '/api/admin/users/b@example.org', payload: body,
      headers: { ...as('a@example.org'), 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
    });
    await bodyWanted;
    const demoted = await ta.inject({ method: 'POST', url: '/api/admin/users/a@example.org', headers: as('b@example.org'), payload: { group: 'user' } });
    t.equal(demoted.statusCode, 200, 'B demotes A');
    t.same(admins(), ['b@example.org'], 'B is the last administrator');
    body.push(JSON.stringify(payload));
    body.push(null);
    return answer;
  };

  for (const [method, payload, what] of [['POST', { group: 'user' }, 'demoting'], ['DELETE', {}, 'deleting']] as const) {
    ta.app.db.prepare('DELETE FROM users').run();
    ta.app.userStore.create('a@example.org', hash, 'admin');
    ta.app.userStore.create('b@example.org', hash, 'admin');
    const res = await heldRequest(method, payload);
    t.equal(res.statusCode, 403, `${what} the last administrator`);
    t.same(res.json(), { statusCode: 403, error: 'Forbidden', message: 'lastAdmin' }, `${what}: the last-admin rule answers`);
    t.match(ta.app.userStore.get('b@example.org'), { group: 'admin', founder: false }, `${what}: B is untouched`);
    t.same(admins(), ['b@example.org']);
  }

  // Once A is an administrator again there are two: the same change goes through.
  ta.app.userStore.update('a@example.org', { group: 'admin' });
  const ok = await ta.inject({ method: 'POST', url: '/api/admin/users/b@example.org', headers: as('a@example.org'), payload: { group: 'user' } });
  t.equal(ok.statusCode, 200, 'with another administrator left, demoting B works');
  t.same(admins(), ['a@example.org']);
});

t.test('passwords: reset by an administrator, changed by their owner', async (t) => {
  const ta = await testApp(t);
  const { admin, user } = await withUsers(t, ta);

  const unknown = await ta.inject({ method: 'POST', url: '/api/admin/passwords/zed@example.org', headers: { authorization: admin } });
  t.equal(unknown.statusCode, 404);
  t.equal(unknown.json().message, 'userNotFound');
  t.equal((await ta.inject({ method: 'POST', url: `/api/admin/passwords/${ADMIN.userid}`, headers: { authorization: user } })).statusCode, 403);
  // another administrator may not reset the founder's password (it would hold the founder's login)
  const other = await ta.inject({ method: 'POST', url: '/api/admin/users', headers: { authorization: admin }, payload: { userid: 'second@example.org', password: 'Granite-lake-5521', group: 'admin' } });
  t.equal(other.statusCode, 201, other.body);
  const takeover = await ta.inject({ method: 'POST', url: `/api/admin/passwords/${ADMIN.userid}`, headers: { authorization: basic('second@example.org', 'Granite-lake-5521') } });
  t.equal(takeover.statusCode, 403);
  t.equal(takeover.json().message, 'protectedAccount');
  t.equal((await ta.inject({ method: 'POST', url: '/api/admin/passwords/second@example.org', headers: { authorization: admin } })).statusCode, 200, 'the founder resets the others\'');

  const reset = await ta.inject({ method: 'POST', url: `/api/admin/passwords/${USER.userid}`, headers: { authorization: admin } });
  t.equal(reset.statusCode, 200);
  t.equal(reset.headers['cache-control'], 'no-store');
  const { username, password } = reset.json();
  t.equal(username, USER.userid);
  t.match(password, /^[A-Za-z0-9_-]{24}$/);
  const profile = (authorization: string, payload: unknown, headers: Record<string, string> = {}) =>
    ta.inject({ method: 'POST', url: '/api/admin/profile', headers: { authorization, ...headers }, payload: payload as string });
  t.equal((await profile(user, { section: 'password' })).statusCode, 401, 'the old password no longer works');
  const mine = basic(USER.userid, password);

  const next = 'Fresh-words-88';
  for (const [name, payload, code] of [
    ['no section', { oldPassword: password, newPassword: next, confirm: next }, 'badSection'],
    ['other section', { section: 'mail' }, 'badSection'],
    ['notifications without notifiate', { section: 'notifications' }, 'fillAllFields'],
    ['missing field', { section: 'password', oldPassword: password, newPassword: next }, 'fillAllFields'],
    ['confirmation differs', { section: 'password', oldPassword: password, newPassword: next, confirm: `${next}x` }, 'passwordDoesNotMatch'],
    ['weak', { section: 'password', oldPassword: password, newPassword: 'short', confirm: 'short' }, 'weakPassword'],
    ['wrong old password', { section: 'password', oldPassword: 'Not-the-password-1', newPassword: next, confirm: next }, 'wrongPassword'],
    ['object', { section: 'password', oldPassword: { $ne: '' }, newPassword: next, confirm: next }, 'invalidParameter'],
  ] as const) {
    const res = await profile(mine, payload);
    t.equal(res.statusCode, 400, name);
    t.equal(res.json().message, code, name);
  }
  const changed = await profile(mine, form({ section: 'password', oldPassword: password, newPassword: next, confirm: next }), FORM);
  t.equal(changed.statusCode, 204, 'form-encoded');
  t.equal((await profile(mine, { section: 'password' })).statusCode, 401, 'the generated password is gone');
  t.equal((await profile(basic(USER.userid, next), { section: 'x' })).statusCode, 400, 'the new one works');
  t.equal((await profile('', { section: 'password' })).statusCode, 401, 'the profile needs a login');

  // "mail me when my jobs end", as the reference reads it: a boolean, or anything but "false"
  const me = basic(USER.userid, next);
  const notifiate = () => ta.app.userStore.get(USER.userid)!.notifiate;
  t.equal(notifiate(), false, 'off for a new account');
  for (const [value, expected, headers] of [
    [true, true, {}], [false, false, {}], ['on', true, FORM], ['false', false, FORM], ['yes', true, {}],
  ] as const) {
    const payload = Object.keys(headers).length ? form({ section: 'notifications', notifiate: String(value) }) : { section: 'notifications', notifiate: value };
    t.equal((await profile(me, payload, headers)).statusCode, 204, `notifiate ${JSON.stringify(value)}`);
    t.equal(notifiate(), expected, `notifiate ${JSON.stringify(value)} → ${expected}`);
  }
  const listed = (await ta.inject({ method: 'GET', url: '/api/admin/users', headers: { authorization: admin } })).json() as Array<{ username: string; notifiate: boolean }>;
  t.equal(listed.find((u) => u.username === USER.userid)?.notifiate, true, 'in the public record');
});
t.test('wrong old passwords reach the limit, though each request logs in first', async (t) => {
  const ta = await testApp(t);
  const { user } = await withUsers(t, ta);
  const next = 'Fresh-words-88';
  const change = (oldPassword: string, authorization = user, remoteAddress = '203.0.113.20') => ta.inject({
    method: 'POST', url: '/api/admin/profile', headers: { authorization }, remoteAddress,
    payload: { section: 'password', oldPassword, newPassword: next, confirm: next },
  });
  for (let i = 0; i < 5; i++) {
    const res = await change(`Wrong-guess-${i}`);
    t.equal(res.statusCode, 400, `wrong old password ${i + 1}`);
    t.equal(res.json().message, 'wrongPassword');
  }
  const refused = await change(USER.password);
  t.equal(refused.statusCode, 429, 'the 6th attempt is refused, even with the right old password');
  t.same(refused.json(), { statusCode: 429, error: 'Too Many Requests', message: 'tooManyFailures' });
  const retry = Number(refused.headers['retry-after']);
  t.ok(retry > 0 && retry <= 900, `Retry-After ${retry} s`);

  // From another address (the account's own count is not at its limit): a right old password
  // changes it and clears the wrong ones.
  const other = '198.51.100.30';
  for (let i = 0; i < 4; i++) t.equal((await change(`Other-guess-${i}`, user, other)).statusCode, 400);
  t.equal((await change(USER.password, user, other)).statusCode, 204);
  const mine = basic(USER.userid, next);
  for (let i = 0; i < 4; i++) t.equal((await change(`Later-guess-${i}`, mine, other)).statusCode, 400, `counted again from zero ${i + 1}`);
});

t.test('no password, hash or generated secret leaves the server', async (t) => {
  const ta = await testApp(t);
  const { admin, user } = await withUsers(t, ta);
  const hashes = new Set<string>();
  const collect = () => {
    for (const h of ta.app.db.prepare('SELECT password_hash FROM users').pluck().all() as string[]) hashes.add(h);
  };
  collect();
  await ta.inject({ method: 'POST', url: '/api/admin/users', headers: { authorization: admin }, payload: { userid: 'bob@example.org', password: 'Bob-password-12', group: 'admin' } });
  collect();
  await ta.inject({ method: 'POST', url: '/api/admin/users/bob@example.org', headers: { authorization: admin }, payload: { group: 'user', username: 'robert@example.org' } });
  await ta.inject({ method: 'GET', url: '/api/admin/users', headers: { authorization: admin } });
  await ta.inject({ method: 'GET', url: '/api/admin/users', headers: { authorization: basic(ADMIN.userid, 'Wrong-password-1') } });
  await ta.inject({ method: 'GET', url: '/api/admin/users', headers: { authorization: user } });
  const reset = await ta.inject({ method: 'POST', url: '/api/admin/passwords/robert@example.org', headers: { authorization: admin } });
  const generated = reset.json().password as string;
  collect();
  await ta.inject({ method: 'POST', url: '/api/admin/profile', headers: { authorization: user }, payload: { section: 'password', oldPassword: USER.password, newPassword: 'Fresh-words-88', confirm: 'Fresh-words-88' } });
  collect();
  await ta.inject({ method: 'POST', url: '/api/admin/profile', headers: { authorization: basic(USER.userid, 'Fresh-words-88') }, payload: { section: 'password', oldPassword: 'Wrong-password-1', newPassword: 'Fresher-words-99', confirm: 'Fresher-words-99' } });
  await ta.inject({ method: 'GET', url: '/api/admin/users', headers: { authorization: admin } });
  await ta.inject({ method: 'DELETE', url: '/api/admin/users/robert@example.org', headers: { authorization: admin } });
  await ta.inject({ method: 'GET', url: '/api/admin/jobs?details=1', headers: { authorization: admin } });

  t.equal(hashes.size, 5, 'every hash the scenario stored');
  const secrets = [...hashes, ADMIN.password, USER.password, 'Bob-password-12', 'Fresh-words-88', 'Fresher-words-99', 'Wrong-password-1'];
  const bodies = ta.bodies.join('\n');
  const logs = ta.logs.join('');
  t.ok(ta.bodies.length >= 12 && logs.length > 1000);
  for (const secret of secrets) {
    t.notOk(bodies.includes(secret), `no response holds ${secret.slice(0, 12)}…`);
    t.notOk(logs.includes(secret), `no log holds ${secret.slice(0, 12)}…`);
  }
  t.notMatch(bodies, /argon2|password_hash|passwordHash/);
  t.notMatch(logs, /argon2|password_hash|passwordHash/);
  t.equal(ta.bodies.filter((b) => b.includes(generated)).length, 1, 'the generated password appears once, in the reset answer');
  t.notOk(logs.includes(generated));
});
