import t from 'tap';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../src/db/database.js';
import { JobStore, type JobProgress } from '../../src/db/jobs.js';
import { UsageStore } from '../../src/db/usage.js';

const PROGRESS: JobProgress = { bytesRead: 4000, linesRead: 40, events: 30, denied: 0, rejects: { 'duplicate-ecs': 10 }, report: { general: { 'nb-ecs': 30 } } };

t.test('a job left running by a killed process ends at its last snapshot, not at the next start', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'logsift-jobs-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'logsift.sqlite');
  // The process that ran the jobs: one saved its progress 4 s after its start, then died;
  // the other died before its first save. Both were started a day before the restart.
  const started = new Date(Date.now() - 86_400_000);
  const snapshot = new Date(started.getTime() + 4_000);
  const before = openDatabase(file);
  const jobs = new JobStore(before);
  jobs.create({ id: 'saved', createdAt: started.toISOString(), headers: {} });
  jobs.create({ id: 'unsaved', createdAt: started.toISOString(), headers: {} });
  jobs.saveProgress('saved', { ...PROGRESS, events: 10 }, new Date(started.getTime() + 1_000));
  jobs.saveProgress('saved', PROGRESS, snapshot);
  before.close();

  const db = openDatabase(file);
  t.teardown(() => db.close());
  const store = new JobStore(db);
  t.same(store.markInterrupted().sort((a, b) => a.id.localeCompare(b.id)), [
    { id: 'saved', endedAt: snapshot.toISOString() },
    { id: 'unsaved', endedAt: started.toISOString() },
  ], 'each gets the time its counts are from');
  const row = store.get('saved')!;
  t.match(row, { state: 'interrupted', status_code: 5003, ended_at: snapshot.toISOString(), events: 30, lines_read: 40 });
  t.equal(store.get('unsaved')?.ended_at, started.toISOString(), 'a job that never saved anything lasted no time');
  t.same(store.markInterrupted(), [], 'marked once');

  const usage = new UsageStore(db).summary(started.toISOString().slice(0, 10), 10);
  t.equal(usage.totals.jobs, 2);
  t.equal(usage.totals.durationMs, 4_000, 'the downtime until the restart is not job time');
  t.equal(usage.days[0]?.durationMs, 4_000);
});

t.test('a job that ends normally keeps the time it ended at', async (t) => {
  const db = openDatabase(':memory:');
  t.teardown(() => db.close());
  const store = new JobStore(db);
  const createdAt = new Date(Date.now() - 10_000).toISOString();
  store.create({ id: 'j', createdAt, headers: {} });
  store.saveProgress('j', PROGRESS, new Date(Date.now() - 5_000));
  store.end('j', 'done', PROGRESS);
  const row = store.get('j')!;
  t.ok(row.ended_at! > row.progress_at!, 'its end, not its last snapshot');
  t.same(store.markInterrupted(), []);
});
