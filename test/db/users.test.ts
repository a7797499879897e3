import t, { type Test } from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../src/db/database.js';
import { UserStore, UserStoreError } from '../../src/db/users.js';

function store(t: Test) {
  const dir = mkdtempSync(join(tmpdir(), 'logsift-users-'));
  const db = openDatabase(join(dir, 'logsift.sqlite'));
  t.teardown(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { db, users: new UserStore(db) };
}

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    if (err instanceof UserStoreError) return err.code;
    throw err;
  }
  return undefined;
}

t.test('the first administrator is created once, and is protected', async (t) => {
  const { users } = store(t);
  t.equal(users.count(), 0);
  const admin = users.createFirstAdmin('a@example.org', 'hash-a');
  t.match(admin, { username: 'a@example.org', group: 'admin', founder: true });
  t.equal(code(() => users.createFirstAdmin('b@example.org', 'hash-b')), 'registrationClosed');
  t.equal(users.count(), 1);
  t.equal(code(() => users.remove('a@example.org')), 'protectedAccount');
  t.equal(code(() => users.update('a@example.org', { group: 'user' })), 'protectedAccount');
  // renaming keeps the founder flag and the hash
  const renamed = users.update('a@example.org', { username: 'boss@example.org' });
  t.match(renamed, { username: 'boss@example.org', founder: true, id: admin.id });
  t.equal(users.passwordHash('boss@example.org'), 'hash-a');
  t.equal(users.get('a@example.org'), undefined);
});

t.test('the database itself refuses a second founder', async (t) => {
  const { db, users } = store(t);
  users.createFirstAdmin('a@example.org', 'h');
  t.throws(() => db.prepare(`INSERT INTO users (userid, password_hash, user_group, founder, created_at, updated_at)
    VALUES ('b@example.org', 'h', 'admin', 1, 'x', 'x')`).run(), { code: 'SQLITE_CONSTRAINT_UNIQUE' });
});

t.test('the public record carries no secret', async (t) => {
  const { users } = store(t);
  users.create('u@example.org', '$argon2id$secret', 'user');
  const [user] = users.list();
  t.same(Object.keys(user).sort(), ['createdAt', 'founder', 'group', 'id', 'notifiate', 'updatedAt', 'username']);
  t.notMatch(JSON.stringify(users.list()), /argon2|secret/);
});

t.test('unique addresses, unknown users', async (t) => {
  const { users } = store(t);
  users.create('u@example.org', 'h', 'user');
  users.create('v@example.org', 'h', 'user');
  t.equal(code(() => users.create('u@example.org', 'h', 'admin')), 'userAlreadyExists');
  t.equal(code(() => users.update('u@example.org', { username: 'v@example.org' })), 'userAlreadyExists');
  t.equal(code(() => users.update('x@example.org', { group: 'admin' })), 'userNotFound');
  t.equal(code(() => users.remove('x@example.org')), 'userNotFound');
  t.equal(code(() => users.setPasswordHash('x@example.org', 'h')), 'userNotFound');
  t.same(users.list().map((u) => u.username), ['u@example.org', 'v@example.org'], 'sorted by address');
});

t.test('the last administrator can be neither removed nor demoted', async (t) => {
  const { users } = store(t);
  users.create('a@example.org', 'h', 'admin');
  users.create('b@example.org', 'h', 'admin');
  users.create('u@example.org', 'h', 'user');
  t.match(users.update('a@example.org', { group: 'user' }), { group: 'user' });
  t.equal(code(() => users.update('b@example.org', { group: 'user' })), 'lastAdmin');
  t.equal(code(() => users.remove('b@example.org')), 'lastAdmin');
  users.remove('u@example.org');
  users.remove('a@example.org');
  t.equal(users.count(), 1);
  t.match(users.get('b@example.org'), { group: 'admin' });
});
