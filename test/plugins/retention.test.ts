import t from 'tap';
import { existsSync } from 'node:fs';
import { mkdir, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { startApp } from '../helpers/app.js';
import { openJob, postJob } from '../helpers/jobs.js';

const GOOD = (minute: number) => `10.0.0.1 - A [30/Nov/2012:00:${String(minute).padStart(2, '0')}:00 +0100] "GET http://www.sciencedirect.com:80/science/article/pii/S0012160612004174 HTTP/1.1" 200 1\n`;
const DAY = 24 * 3600 * 1000;

t.test('old jobs lose their folder and row; recent and running jobs stay', async (t) => {
  const app = await startApp({}, { JOB_RETENTION_DAYS: '7', JOB_SWEEP_INTERVAL_MS: '0', BATCH_BYTES: '64' });
  t.teardown(() => app.close());
  const dirOf = (id: string) => join(app.varDir, 'jobs', id);

  const done = (await postJob(app.url, GOOD(1))).id!;
  t.ok(existsSync(dirOf(done)));

  // A job still running: its upload is left open during the sweeps.
  const { push, response } = openJob(app.url, GOOD(2), { 'Double-Click-Removal': 'false' });
  const res = await response;
  const running = res.headers.get('job-id')!;

  // A folder without a row (a lost database), last changed 10 days ago, and an unrelated name.
  const orphan = 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee';
  await mkdir(dirOf(orphan), { recursive: true });
  await writeFile(join(dirOf(orphan), 'report.json'), '{}');
  const old = new Date(Date.now() - 10 * DAY);
  await utimes(dirOf(orphan), old, old);
  await mkdir(join(app.varDir, 'jobs', 'keep-me'), { recursive: true });
  await utimes(join(app.varDir, 'jobs', 'keep-me'), old, old);

  t.same((await app.app.retention.sweep(new Date(Date.now() + 1 * DAY))).removed, [orphan], 'after a day only the old orphan folder goes');
  t.ok(existsSync(dirOf(done)));

  const later = new Date(Date.now() + 8 * DAY);
  t.same((await app.app.retention.sweep(later)).removed, [done], 'after 8 days the finished job goes');
  t.notOk(existsSync(dirOf(done)), 'its folder is gone');
  t.notOk(app.app.jobStore.get(done), 'its row is gone');
  t.equal((await fetch(`${app.url}/${done}/job-report.json`)).status, 404, 'its files answer 404');

  t.ok(existsSync(dirOf(running)), 'the running job is untouched');
  t.equal(app.app.jobStore.get(running)?.state, 'running');
  t.ok(existsSync(join(app.varDir, 'jobs', 'keep-me')), 'a folder that is no job is left alone');

  push(null);
  await res.text();
  t.equal(app.app.jobStore.get(running)?.state, 'done');
  t.same((await app.app.retention.sweep(new Date(Date.now() + 8 * DAY))).removed, [running], 'once ended, it ages like the others');
});

t.test('a job that cannot be removed is left for the next sweep; the others go on', async (t) => {
  const app = await startApp({}, { JOB_RETENTION_DAYS: '7', JOB_SWEEP_INTERVAL_MS: '0' });
  t.teardown(() => app.close());
  const dirOf = (id: string) => join(app.varDir, 'jobs', id);
  const done = (await postJob(app.url, GOOD(1))).id!;
  const orphan = 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee';
  await mkdir(dirOf(orphan), { recursive: true });
  const old = new Date(Date.now() - 10 * DAY);
  await utimes(dirOf(orphan), old, old);

  // another process holds the database's write lock: the row cannot be deleted
  const other = new Database(join(app.varDir, 'logsift.sqlite'));
  other.exec('BEGIN IMMEDIATE');
  const first = await app.app.retention.sweep(new Date(Date.now() + 8 * DAY));
  t.same(first.removed, [orphan], 'the orphan folder goes');
  t.same(first.failed.map((f) => f.id), [done]);
  t.match(first.failed[0].message, /is locked by another process \(SQLITE_BUSY\): end that process's transaction/, 'what to fix');
  t.ok(app.app.jobStore.get(done), 'its row stays');
  other.exec('ROLLBACK');
  other.close();
  t.same(await app.app.retention.sweep(new Date(Date.now() + 8 * DAY)), { removed: [done], failed: [] }, 'the next sweep takes it');
  t.notOk(app.app.jobStore.get(done));
});

t.test('retentionDays 0 keeps everything', async (t) => {
  const app = await startApp({}, { JOB_RETENTION_DAYS: '0' });
  t.teardown(() => app.close());
  const id = (await postJob(app.url, GOOD(1))).id!;
  t.same(await app.app.retention.sweep(new Date(Date.now() + 365 * DAY)), { removed: [], failed: [] });
  t.ok(existsSync(join(app.varDir, 'jobs', id)));
});

t.test('the periodic sweep runs on its own', async (t) => {
  // A retention of a few milliseconds (JOB_RETENTION_DAYS takes whole days: set past the
  // environment), a sweep every 50 ms: a finished job disappears by itself.
  const app = await startApp({ jobs: { retentionDays: 100 / DAY, sweepIntervalMs: 50, reportIntervalMs: 4000 } });
  t.teardown(() => app.close());
  const id = (await postJob(app.url, GOOD(1))).id!;
  for (let i = 0; i < 100 && app.app.jobStore.get(id); i++) await new Promise((r) => setTimeout(r, 50));
  t.notOk(app.app.jobStore.get(id), 'the row went');
  t.notOk(existsSync(join(app.varDir, 'jobs', id)), 'the folder went');
});
