import t, { type Test } from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startApp, type TestApp } from '../helpers/app.js';
import { shared } from '../helpers/shared.js';
import { get, lines, postJob, report } from '../helpers/jobs.js';

/**
 * The reference's job-file checks (job-logs-test.js @01–@16, report-test.js), on the shared
 * datasets, asserting the exact lines of each file as the job-file routes serve them.
 */

const datasets = shared(t, 'datasets');
const exclusions = shared(t, 'exclusions');
if (datasets && exclusions) {
  let app: TestApp;
  t.before(async () => {
    // The reference's exclusion lists (robots, ignored domains).
    app = await startApp({}, { EXCLUSIONS_DIRS: exclusions });
  });
  t.teardown(() => app.close());

  const read = (name: string) => readFileSync(join(datasets, name), 'utf8');
  const inputLines = (name: string) => lines(read(name));
  const post = (name: string, headers: Record<string, string> = {}) => postJob(app.url, read(name), headers);
  const file = (id: string, name: string) => get(`${app.url}/${id}/${name}`);

  /** Posts a one-rejected-line log and checks the reject file holds exactly the given lines. */
  async function rejectCheck(tt: Test, log: string, category: string, expectedEvents: number, rejectedLines: string[]) {
    const res = await post(log, { 'Reject-Files': category });
    tt.equal(res.status, 200);
    const records = lines(res.body);
    tt.equal(records.length, expectedEvents === 0 ? 0 : expectedEvents + 1, `${expectedEvents} events (plus the CSV header)`);
    const f = await file(res.id!, `lines-${category}.log`);
    tt.equal(f.status, 200);
    tt.equal(f.body, rejectedLines.map((l) => `${l}\n`).join(''), `lines-${category}.log holds exactly the rejected lines`);
  }

  t.test('@01 a job answers 200 with a Job-ID', async (t) => {
    const res = await post('sd.mini.log');
    t.equal(res.status, 200);
    t.match(res.id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    t.equal(lines(res.body).length, 3, 'header + 2 events');
  });

  t.test('@02 without Reject-Files every Lines-* URL is announced and answers 404', async (t) => {
    const res = await post('sd.wrong-second-line.log');
    t.equal(res.status, 200);
    const urls = [...res.headers].filter(([name]) => name.toLowerCase().startsWith('lines-')).map(([, v]) => v);
    t.ok(urls.length >= 1, 'at least one Lines-* header');
    for (const url of urls) {
      t.ok(url.startsWith(`${app.url}/${res.id}/lines-`), `${url} is an absolute URL of the job`);
      t.equal((await get(url)).status, 404, `${url} answers 404`);
    }
  });

  t.test('@03 the Job-Traces URL answers 200', async (t) => {
    const res = await post('sd.wrong-second-line.log');
    const traces = await get(res.headers.get('job-traces')!);
    t.equal(traces.status, 200);
    t.match(traces.headers.get('content-type'), /^text\/plain/);
    t.equal(traces.headers.get('x-content-type-options'), 'nosniff');
    t.match(traces.body, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z info: New job with ID: /);
  });

  t.test('@04 unknown-formats: the second line', async (t) => {
    await rejectCheck(t, 'sd.wrong-second-line.log', 'unknown-formats', 1, [inputLines('sd.wrong-second-line.log')[1]]);
  });

  t.test('@05 ignored-domains: the google.fr line', async (t) => {
    await rejectCheck(t, 'ignored-domain.log', 'ignored-domains', 0, inputLines('ignored-domain.log'));
  });

  t.test('@06 unknown-domains: the pamplemousse.fr line', async (t) => {
    await rejectCheck(t, 'unknown-domain.log', 'unknown-domains', 0, inputLines('unknown-domain.log'));
  });

  t.test('@07 unqualified-ecs: an sd page that is no consultation', async (t) => {
    await rejectCheck(t, 'unqualified-ec.log', 'unqualified-ecs', 0, inputLines('unqualified-ec.log'));
  });

  t.test('@09 duplicate-ecs: the earlier of two clicks 6 s apart', async (t) => {
    await rejectCheck(t, 'duplicate-ecs.log', 'duplicate-ecs', 1, [inputLines('duplicate-ecs.log')[0]]);
  });

  t.test('@10 unordered-ecs: the line earlier than the one before it', async (t) => {
    await rejectCheck(t, 'unordered-ecs.log', 'unordered-ecs', 1, [inputLines('unordered-ecs.log')[1]]);
  });

  t.test('@11 Reject-Files: none still announces Lines-Unordered-ECs, which answers 404', async (t) => {
    const res = await post('unordered-ecs.log', { 'Reject-Files': 'none' });
    t.equal(res.status, 200);
    const url = res.headers.get('lines-unordered-ecs');
    t.ok(url, 'Lines-Unordered-ECs is announced');
    t.equal((await get(url!)).status, 404);
    t.equal(lines(res.body).length, 2, 'header + 1 event');
    t.equal((await report(app.url, res.id!)).rejets['nb-lines-unordered-ecs'], 1, 'counted all the same');
  });

  t.test('@12 denied events (401, 403) go to the denied file, not the response', async (t) => {
    const res = await post('sd.denied.log', { 'Reject-Files': 'none' });
    t.equal(res.status, 200);
    t.equal(res.body, '', 'empty body');
    const url = res.headers.get('denied-ecs');
    t.equal(url, `${app.url}/${res.id}/denied-ecs.csv`);
    const denied = await get(url!);
    t.equal(denied.status, 200);
    t.match(denied.headers.get('content-type'), /^text\/csv/);
    const records = lines(denied.body);
    t.equal(records.length, 3, 'header + 2 denied events');
    t.match(records[1], /;401;/);
    t.match(records[2], /;403;/);
    const r = await report(app.url, res.id!);
    t.equal(r.general['nb-denied-ecs'], 2);
    t.equal(r.general['nb-ecs'], 0);
  });

  t.test('@13 filtered-ecs: the 301 line', async (t) => {
    await rejectCheck(t, 'filtered-ecs.log', 'filtered-ecs', 1, [inputLines('filtered-ecs.log')[1]]);
  });

  t.test('@14 ezPAARSE-Filter-Redirects: false lets the 301 through', async (t) => {
    const res = await post('filtered-ecs.log', { 'ezPAARSE-Filter-Redirects': 'false' });
    t.equal(res.status, 200);
    t.equal(lines(res.body).length, 3, 'header + 2 events');
  });

  t.test('@15 robots-ecs: a Googlebot address', async (t) => {
    await rejectCheck(t, 'robot-ec.log', 'robots-ecs', 0, inputLines('robot-ec.log'));
  });

  t.test('@16 Disable-Filters: robots keeps the robot line as an event', async (t) => {
    const res = await post('robot-ec.log', { 'Reject-Files': 'robots-ecs', 'Disable-Filters': 'robots' });
    t.equal(res.status, 200);
    t.equal(lines(res.body).length, 2, 'header + 1 event');
    t.equal((await file(res.id!, 'lines-robots-ecs.log')).body, '', 'nothing rejected as robot');
  });

  t.test('sd.wrong-first-line.log: garbage first line, then an unqualified line and a 302', async (t) => {
    const res = await post('sd.wrong-first-line.log', { 'Reject-Files': 'all' });
    t.equal(res.status, 200);
    t.equal(res.body, '');
    t.notOk(res.headers.get('service-status'), 'no status header');
    const input = inputLines('sd.wrong-first-line.log');
    t.equal((await file(res.id!, 'lines-unknown-formats.log')).body, `${input[0]}\n`);
    t.equal((await file(res.id!, 'lines-unqualified-ecs.log')).body, `${input[1]}\n`);
    t.equal((await file(res.id!, 'lines-filtered-ecs.log')).body, `${input[2]}\n`);
    const r = await report(app.url, res.id!);
    t.equal(r.general['nb-lines-input'], 3);
    t.equal(r.general['input-first-line'], input[0]);
  });

  t.test('sd.wrong-first-line.log with Max-Parse-Attempts: 1 fails with 4003', async (t) => {
    const res = await post('sd.wrong-first-line.log', { 'Max-Parse-Attempts': '1' });
    t.equal(res.status, 400);
    t.equal(JSON.parse(res.body).code, 4003);
    t.ok(res.id, 'the error answer names the job');
    const r = await report(app.url, res.id!);
    t.equal(r.general.status, 4003);
  });

  t.test('report-test: the report names the job, is done and counts the lines', async (t) => {
    const res = await post('sd.mini.log');
    t.equal(res.status, 200);
    const r = await report(app.url, res.id!);
    t.equal(r.general['Job-ID'], res.id);
    t.equal(r.general['Job-Done'], true);
    t.equal(r.general['nb-lines-input'], 2);
    t.equal(r.general['nb-ecs'], 2);
  });
}
