import t from 'tap';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { closeSync, openSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { startApp, type TestApp, EZPROXY_DEFAULT } from '../helpers/app.js';
import { get, jobFile, openJob, postJob, report } from '../helpers/jobs.js';

const LINE = (i: number) => `1.2.3.${i % 250} - U${i} [30/Nov/2012:00:14:${String(i % 60).padStart(2, '0')} +0100] "GET http://www.sciencedirect.com:80/science/article/pii/S09670645080${String(i).padStart(5, '0')} HTTP/1.1" 200 2248\n`;
const FORMAT = { 'Log-Format-ezproxy': EZPROXY_DEFAULT, 'Double-Click-Removal': 'false' };

let app: TestApp;
t.before(async () => {
  // reports written every 100 ms: a running job's row moves while the test looks
  app = await startApp({}, { JOB_REPORT_INTERVAL_MS: '100' });
});
t.teardown(() => app.close());

t.test('a jobs folder that cannot be made: 503 5005 naming the file in the way, the service goes on', async (t) => {
  const jobs = join(app.varDir, 'jobs');
  await rm(jobs, { recursive: true, force: true });
  await writeFile(jobs, '');
  const refused = await postJob(app.url, LINE(1), FORMAT);
  t.equal(refused.status, 503);
  t.equal(refused.headers.get('service-status'), '5005');
  const said = `The service cannot write its storage: the file ${jobs} stands where a folder is expected (ENOTDIR): move it away`;
  t.equal(refused.headers.get('service-status-message'), said);
  t.match(JSON.parse(refused.body), { code: 5005, message: said }, 'the body says the same as the header');
  const deferred = await fetch(`${app.url}/${crypto.randomUUID()}`, { method: 'PUT', body: LINE(1), headers: FORMAT });
  t.equal(deferred.status, 503, 'a deferred job too');
  // (mkdir says EEXIST there)
  t.match(deferred.headers.get('service-status-message'), `The service cannot write its storage: the file ${jobs} stands where a folder is expected`);
  await rm(jobs);
  const ok = await postJob(app.url, LINE(2), FORMAT);
  t.equal(ok.status, 200, 'jobs run again once it is fixed');
});

t.test('report.json that cannot be written at the end: the job ends well, no temp file, the report routes serve the database copy', async (t) => {
  const { push, response } = openJob(app.url, LINE(1), FORMAT);
  const res = await response;
  const id = res.headers.get('job-id')!;
  const dir = join(app.varDir, 'jobs', id);
  // the final write's rename fails: report.json is a folder with a file in it
  // (retried: the job rewrites the file every 100 ms; once the folder is there, it stays)
  for (let made = false; !made;) {
    await rm(join(dir, 'report.json'), { force: true });
    made = await mkdir(join(dir, 'report.json', 'in-the-way'), { recursive: true }).then(() => true, () => false);
  }
  push(LINE(2));
  const answer = res.text();
  let running = app.app.jobStore.get(id)!;
  for (let i = 0; i < 100 && running.lines_read < 2; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    running = app.app.jobStore.get(id)!;
  }
  t.equal(running.state, 'running');
  t.equal(running.lines_read, 2, 'progress saved in the row while the file cannot be written');
  push(null);
  const body = await answer;
  t.notMatch(body, /#logsift-error/, 'the job is done');
  t.same((await readdir(dir)).filter((f) => f.endsWith('.tmp')), [], 'no temp file left');
  const row = app.app.jobStore.get(id)!;
  t.equal(row.state, 'done');
  t.equal(row.lines_read, 2);
  const served = await report(app.url, id);
  t.equal(served.general['Job-Done'], true, 'job-report.json: the final report, from the row');
  t.equal(served.general['nb-lines-input'], 2);
  const html = await get(`${app.url}/${id}/job-report.html`);
  t.equal(html.status, 200, 'job-report.html too');
  const traces = await jobFile(app.varDir, id, 'job-traces.log');
  t.match(traces, /warn: report\.json could not be written: .*the report routes serve the copy in the database/, 'said in the traces, once');
  t.equal(traces!.match(/report\.json could not be written/g)!.length, 1);
});

t.test('report.json behind the row (interim) or cut short: the routes serve the row\'s final report', async (t) => {
  const done = await postJob(app.url, LINE(1) + LINE(2) + LINE(3), FORMAT);
  t.equal(done.status, 200);
  const file = join(app.varDir, 'jobs', done.id, 'report.json');
  const final = JSON.parse(await readFile(file, 'utf8')) as { general: Record<string, unknown> };
  // an interim report left by a disk full at the end
  await writeFile(file, JSON.stringify({ ...final, general: { ...final.general, 'Job-Done': false, 'nb-lines-input': 1 } }));
  t.match(await report(app.url, done.id), { general: { 'Job-Done': true, 'nb-lines-input': 3 } }, 'interim file: the row\'s report');
  // cut short: JSON.parse failed (500 `Unexpected end of JSON input`)
  await writeFile(file, JSON.stringify(final).slice(0, 50));
  t.match(await report(app.url, done.id), { general: { 'Job-Done': true, 'nb-lines-input': 3 } }, 'truncated file: the row\'s report');
  const html = await get(`${app.url}/${done.id}/job-report.html`);
  t.equal(html.status, 200, 'and the HTML report renders it');
  // neither readable: the HTML route says so
  app.app.db.prepare('UPDATE jobs SET report = NULL WHERE id = ?').run(done.id);
  const none = await get(`${app.url}/${done.id}/job-report.html`);
  t.equal(none.status, 500);
  t.match(JSON.parse(none.body), { message: 'reportUnreadable' });
});

t.test('the database damaged under a running service: a job gets 503 5005 saying what to fix, not a bare 500', async (t) => {
  const own = await startApp({}, {});
  t.teardown(() => own.close());
  t.equal((await postJob(own.url, LINE(1), FORMAT)).status, 200);
  const file = join(own.varDir, 'logsift.sqlite');
  // everything in the main file, then its pages after the first overwritten
  const other = new Database(file);
  other.pragma('wal_checkpoint(TRUNCATE)');
  other.close();
  const fd = openSync(file, 'r+');
  writeSync(fd, randomBytes(30 * 4096), 0, 30 * 4096, 4096);
  closeSync(fd);
  const refused = await postJob(own.url, LINE(2), FORMAT);
  t.equal(refused.status, 503);
  t.equal(refused.headers.get('service-status'), '5005');
  t.match(refused.headers.get('service-status-message'), new RegExp(`^The service cannot write its storage: the database ${file.replace(/[.]/g, '\\.')} is damaged \\(SQLITE_`));
  t.match(refused.headers.get('service-status-message'), /restore the file from a backup, or move it aside/);
  t.equal((await fetch(`${own.url}/api/health`)).status, 204, 'the service goes on');
});

t.test('a row that cannot be closed for another cause than a lock is closed once the cause is gone (not left running)', async (t) => {
  const own = await startApp({}, { JOB_REPORT_INTERVAL_MS: '100000' });
  t.teardown(() => own.close());
  const db = own.app.db;
  const { push, response } = openJob(own.url, LINE(1), FORMAT);
  const res = await response;
  const id = res.headers.get('job-id')!;
  // the service's database taken as read-only (SQLITE_READONLY: a remount, a permission changed)
  db.pragma('query_only = 1');
  for (let i = 2; i < 50; i++) push(LINE(i));
  push(null);
  t.match(await res.text(), /#logsift-error 5005 The service cannot write its storage: the database .* cannot be written \(SQLITE_READONLY\): give the service write access to it and its folder\n$/);
  t.equal(own.app.jobStore.get(id)?.state, 'running', 'the row could not be closed');
  await new Promise((r) => setTimeout(r, 2500)); // past the first tries to close it
  t.equal(own.app.jobStore.get(id)?.state, 'running');
  db.pragma('query_only = 0');
  for (let waited = 0; waited < 10_000 && own.app.jobStore.get(id)?.state === 'running'; waited += 100) await new Promise((r) => setTimeout(r, 100));
  t.match(own.app.jobStore.get(id), { state: 'failed', status_code: 5005 }, 'closed as the job ended, once it can be written');
});

t.test('a deferred job whose folder is deleted while it runs fails with 5005, not done with its events lost', async (t) => {
  const id = crypto.randomUUID();
  let push!: (text: string | null) => void;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      push = (text) => (text === null ? controller.close() : controller.enqueue(new TextEncoder().encode(text)));
    },
  });
  push(LINE(1));
  const response = fetch(`${app.url}/${id}`, { method: 'PUT', body, headers: FORMAT, duplex: 'half' } as RequestInit);
  const dir = join(app.varDir, 'jobs', id);
  for (let i = 0; i < 100 && !(await readdir(dir).catch(() => [])).some((f) => f.endsWith('.csv')); i++) await new Promise((r) => setTimeout(r, 50));
  await rm(dir, { recursive: true, force: true });
  for (let i = 2; i < 50; i++) push(LINE(i));
  push(null);
  const res = await response;
  await res.text();
  const row = app.app.jobStore.get(id);
  t.match(row, { state: 'failed', status_code: 5005 });
  t.match(row?.status_message, /the result file .* was removed while the job ran \(its folder deleted\?\): its events are lost, run the job again/);
  t.equal((await get(`${app.url}/${id}`)).status, 404, 'no result to download');
});
