/**
 * MAX_HELD_EVENTS over HTTP: logs whose events share one timestamp (a day-precision Date-Format
 * gives a whole day's lines one time) go through with the double-click check and the re-ordering
 * of Chronology-Tolerance holding at most that many events; every event comes out, in order, and
 * the job says why some left early.
 */
import t from 'tap';
import { startApp, EZPROXY_DEFAULT, type TestApp } from '../helpers/app.js';
import { jobFile, jobReport, postJob } from '../helpers/jobs.js';

const LINE = '1.2.3.4 - JOHN [30/Nov/2012:00:14:18 +0100] "GET http://www.sciencedirect.com:80/science/article/pii/S0967064508000301 HTTP/1.1" 200 224846\n';
const pii = (i: number) => `S09670645${String(i).padStart(8, '0')}`;
/** `n` lines of one time; user and article repeat every `cycle` lines (a double click, without a bound) */
const oneTime = (n: number, cycle: number) => Array.from({ length: n }, (_, i) => LINE.replace('JOHN', `U${i % cycle}`).replace('S0967064508000301', pii(i % cycle))).join('');
const HEADERS = { 'Log-Format-ezproxy': EZPROXY_DEFAULT, 'Crypted-Fields': 'none' };

/** The `url` column of a CSV result, one per event. */
function urls(body: string): string[] {
  const [head, ...rows] = body.split('\n').filter((l) => l !== '' && !l.startsWith('#'));
  const at = head.split(';').indexOf('url');
  return rows.map((r) => r.split(';')[at]);
}

let app: TestApp;
t.before(async () => {
  app = await startApp({}, { MAX_HELD_EVENTS: '1000' });
});
t.teardown(() => app.close());

t.test('50,000 lines of one time: past 1,000 held the double-click check lets the oldest go, every event comes out in order, the job says why', async (t) => {
  const res = await postJob(app.url, oneTime(50_000, 20_000), HEADERS);
  t.equal(res.status, 200);
  const out = urls(res.body);
  t.equal(out.length, 50_000, 'every line an event: a click 20,000 lines later is past the bound, not a double click');
  t.ok(out.every((u, i) => u.endsWith(pii(i % 20_000))), 'in input order');
  const report = await jobReport(app.varDir, res.id);
  t.equal(report.general['Job-Done'], true);
  t.equal(report.general['nb-ecs'], 50_000);
  t.equal(report.rejets['nb-lines-duplicate-ecs'], 0);
  const alerts = Object.values(report.alerts).filter((v) => typeof v === 'string' && v.includes('MAX_HELD_EVENTS')) as string[];
  t.equal(alerts.length, 1, 'one alert in the report');
  t.match(alerts[0], /^The double-click check reached MAX_HELD_EVENTS \(1000 events .*\) and released 4\d{4} events early, .*some double clicks may be missed/);
  t.match(alerts[0], /many lines share one timestamp \(a Date-Format without the time of day/);
  const traces = (await jobFile(app.varDir, res.id, 'job-traces.log')) ?? '';
  const warnings = traces.split('\n').filter((l) => l.includes('MAX_HELD_EVENTS'));
  t.equal(warnings.length, 1, 'said once in the traces');
  t.match(warnings[0], / warn: The double-click check reached MAX_HELD_EVENTS \(1000 events .*\): from here on it releases its oldest early/);
});

t.test('the same lines within the bound: double clicks found, nothing said', async (t) => {
  const res = await postJob(app.url, oneTime(5000, 500), HEADERS);
  t.equal(urls(res.body).length, 500, 'each user\'s last click');
  const report = await jobReport(app.varDir, res.id);
  t.equal(report.rejets['nb-lines-duplicate-ecs'], 4500);
  t.notOk(Object.values(report.alerts).some((v) => String(v).includes('MAX_HELD_EVENTS')));
  t.notMatch((await jobFile(app.varDir, res.id, 'job-traces.log')) ?? '', /MAX_HELD_EVENTS/);
});

t.test('Chronology-Tolerance without double clicks: past 1,000 held the re-ordering lets the earliest go', async (t) => {
  const res = await postJob(app.url, oneTime(5000, 5000), { ...HEADERS, 'Double-Click-Removal': 'false', 'Chronology-Tolerance': '60' });
  const out = urls(res.body);
  t.equal(out.length, 5000);
  t.ok(out.every((u, i) => u.endsWith(pii(i))), 'in input order');
  const report = await jobReport(app.varDir, res.id);
  t.equal(report.rejets['nb-lines-unordered-ecs'], 0);
  t.match(String(report.alerts['alert-1']), /^The chronology check reached MAX_HELD_EVENTS \(1000 events .*\) and let 4000 events go before the tolerance had passed/);
  t.match((await jobFile(app.varDir, res.id, 'job-traces.log')) ?? '', /warn: The chronology check reached MAX_HELD_EVENTS/);
});

t.test('Chronology-Tolerance with double clicks: half of MAX_HELD_EVENTS each', async (t) => {
  const res = await postJob(app.url, oneTime(5000, 5000), { ...HEADERS, 'Chronology-Tolerance': '60' });
  const out = urls(res.body);
  t.equal(out.length, 5000);
  t.ok(out.every((u, i) => u.endsWith(pii(i))), 'in input order');
  const report = await jobReport(app.varDir, res.id);
  t.match(String(report.alerts['alert-1']), /^The chronology check reached its half of MAX_HELD_EVENTS \(500 events .*\) and let 4500 events go/);
  t.match(String(report.alerts['alert-2']), /^The double-click check reached its half of MAX_HELD_EVENTS \(500 events .*\) and released 4500 events early/);
});
