import t from 'tap';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { BUSY_TIMEOUT_MS, openDatabase, writeWhenFree } from '../../src/db/database.js';

/** The service's database and a second connection, as another process would hold it. */
async function lockedPair(t: { teardown(fn: () => unknown): void }) {
  const dir = await mkdtemp(join(tmpdir(), 'logsift-db-'));
  const file = join(dir, 'logsift.sqlite');
  const db = openDatabase(file);
  db.exec('CREATE TABLE IF NOT EXISTS t (n INTEGER)');
  const other = new Database(file);
  t.teardown(async () => {
    other.close();
    db.close();
    await rm(dir, { recursive: true, force: true });
  });
  return { db, other };
}

t.test('a write waits for another connection\'s lock without holding the event loop, then goes through', async (t) => {
  const { db, other } = await lockedPair(t);
  other.exec('BEGIN EXCLUSIVE');
  let ticks = 0;
  const ticker = setInterval(() => ticks++, 10);
  const release = setTimeout(() => other.exec('COMMIT'), 300);
  const started = Date.now();
  await writeWhenFree(db, () => db.prepare('INSERT INTO t VALUES (1)').run());
  clearInterval(ticker);
  clearTimeout(release);
  t.ok(Date.now() - started >= 250, 'it waited for the lock');
  t.ok(ticks >= 5, `the event loop ran meanwhile (${ticks} ticks of 10 ms)`);
  t.equal(db.prepare('SELECT count(*) FROM t').pluck().get(), 1);
  t.equal(db.pragma('busy_timeout', { simple: true }), BUSY_TIMEOUT_MS, 'the connection\'s own timeout is back');
});

t.test('past its wait, the last SQLITE_BUSY is thrown; a wait of 0 is one try', async (t) => {
  const { db, other } = await lockedPair(t);
  other.exec('BEGIN EXCLUSIVE');
  await t.rejects(writeWhenFree(db, () => db.prepare('INSERT INTO t VALUES (1)').run(), 200), { code: 'SQLITE_BUSY' });
  const started = Date.now();
  await t.rejects(writeWhenFree(db, () => db.prepare('INSERT INTO t VALUES (1)').run(), 0), { code: 'SQLITE_BUSY' });
  t.ok(Date.now() - started < 1000, 'one try, no wait');
  t.equal(db.pragma('busy_timeout', { simple: true }), BUSY_TIMEOUT_MS);
  other.exec('ROLLBACK');
  t.equal(db.prepare('SELECT count(*) FROM t').pluck().get(), 0);
});

t.test('other errors are thrown at once', async (t) => {
  const { db } = await lockedPair(t);
  let tries = 0;
  await t.rejects(writeWhenFree(db, () => { tries++; return db.prepare('INSERT INTO missing VALUES (1)').run(); }), /no such table/);
  t.equal(tries, 1);
});
