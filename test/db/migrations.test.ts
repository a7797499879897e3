import t from 'tap';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrate, openDatabase } from '../../src/db/database.js';
import { PROJECT_ROOT } from '../../src/paths.js';
import { JobStore } from '../../src/db/jobs.js';
import { UserStore } from '../../src/db/users.js';

const MIGRATIONS = join(PROJECT_ROOT, 'src', 'db', 'migrations');

t.test('004: jobs get their account\'s id; the ids of deleted accounts are not given again', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'logsift-migrations-'));
  const before = join(dir, 'before');
  mkdirSync(before);
  for (const f of readdirSync(MIGRATIONS).filter((f) => f < '004')) copyFileSync(join(MIGRATIONS, f), join(before, f));
  const db = openDatabase(join(dir, 'logsift.sqlite'), before);
  t.teardown(() => db.close());
  const now = new Date().toISOString();
  const addUser = db.prepare(`INSERT INTO users (userid, password_hash, user_group, founder, created_at, updated_at) VALUES (?, 'h', 'user', 0, ?, ?)`);
  const addJob = db.prepare(`INSERT INTO jobs (id, state, user_id, created_at, request_headers) VALUES (?, 'done', ?, ?, '{}')`);
  addUser.run('a@example.org', now, now);
  addUser.run('b@example.org', now, now);
  const gone = addUser.run('gone@example.org', now, now).lastInsertRowid;
  addJob.run('j-a', 'a@example.org', now);
  addJob.run('j-anon', null, now);
  addJob.run('j-gone', 'gone@example.org', now);
  db.prepare('DELETE FROM users WHERE id = ?').run(gone);

  t.equal(migrate(db, MIGRATIONS)[0], '004-job-owner', 'the migrations after 003 applied, 004 first');
  const owner = (id: string) => db.prepare('SELECT owner FROM jobs WHERE id = ?').pluck().get(id);
  t.equal(owner('j-a'), db.prepare(`SELECT id FROM users WHERE userid = 'a@example.org'`).pluck().get());
  t.equal(owner('j-anon'), null, 'a job without a login stays open to the job\'s link');
  t.equal(owner('j-gone'), -1, 'a job whose account was deleted: no account\'s');
  t.equal(db.prepare('SELECT count(*) FROM users').pluck().get(), 2, 'the accounts kept');

  const users = new UserStore(db);
  const b = users.get('b@example.org')!;
  users.remove('b@example.org');
  const again = users.create('b@example.org', 'h', 'user');
  t.ok(again.id > b.id, 'a deleted account\'s id is not given again');
  t.throws(() => db.prepare(`INSERT INTO users (userid, password_hash, user_group, founder, created_at, updated_at) VALUES ('x@example.org', 'h', 'admin', 1, ?, ?)`).run(now, now) && db.prepare(`INSERT INTO users (userid, password_hash, user_group, founder, created_at, updated_at) VALUES ('y@example.org', 'h', 'admin', 1, ?, ?)`).run(now, now), /UNIQUE/, 'still one founder at most');
});

t.test('005: a job left running before it ends, when interrupted, at its start (no snapshot time known)', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'logsift-migrations-'));
  const before = join(dir, 'before');
  mkdirSync(before);
  for (const f of readdirSync(MIGRATIONS).filter((f) => f < '005')) copyFileSync(join(MIGRATIONS, f), join(before, f));
  const db = openDatabase(join(dir, 'logsift.sqlite'), before);
  t.teardown(() => db.close());
  const createdAt = '2026-11-25T15:22:25.707Z';
  db.prepare(`INSERT INTO jobs (id, state, created_at, request_headers, lines_read) VALUES ('j', 'running', ?, '{}', 40)`).run(createdAt);
  t.equal(migrate(db, MIGRATIONS)[0], '005-job-progress-at');
  t.same(new JobStore(db).markInterrupted(), [{ id: 'j', endedAt: createdAt }]);
  t.equal(db.prepare(`SELECT duration_ms FROM usage_days WHERE platform = ''`).pluck().get(), 0, 'no downtime counted');
});
