import t from 'tap';
import { startApp, EZPROXY_DEFAULT } from '../helpers/app.js';
import { post } from '../helpers/http.js';
import { get } from '../helpers/jobs.js';
import { UNORDERED_RUN } from '../../src/pipeline/job-runner.js';

// Dates of posted lines in a server whose zone has summer time: an offset or a zone name written
// in the line wins over DEFAULT_TIME_ZONE, and a Date-Format that does not fit fails the job.

const server = await startApp({}, { POOL_THREADS: '1', DEFAULT_TIME_ZONE: 'Europe/Paris' });
t.teardown(() => server.close());
const url = server.url;

const line = (date: string) => `1.2.3.4 - JOHN [${date}] "GET http://www.sciencedirect.com:80/science/article/pii/S0967064508000301 HTTP/1.1" 200 224846\n`;
const json = { 'Log-Format-ezproxy': EZPROXY_DEFAULT, Accept: 'application/json' };
type Event = { datetime: string; timestamp: number };

t.test('an offset after a fraction of a second, or GMT, is the date\'s own (it came out two hours off)', async (t) => {
  for (const [date, datetime] of [
    ['01/Jul/2024:10:00:03.5 +0000', '2024-07-01T10:00:03+00:00'],
    ['01/Jul/2024:10:00:03 GMT', '2024-07-01T10:00:03+00:00'],
    ['01/Jul/2024:10:00:03 utc', '2024-07-01T10:00:03+00:00'],
    ['01/Jul/2024:10:00:03', '2024-07-01T10:00:03+02:00'],
  ]) {
    const res = await post(url, line(date), json);
    t.equal(res.status, 200, date);
    const [event] = res.json<Event[]>();
    t.equal(event?.datetime, datetime, date);
    if (datetime.endsWith('+00:00')) t.equal(event?.timestamp, 1719828003, date);
  }
  const minutes = await post(url, line('27/Oct/2024:02:30:00 +0100'), { ...json, 'Date-Format': 'DD/MMM/YYYY:HH:mm Z' });
  t.equal(minutes.json<Event[]>()[0]?.datetime, '2024-10-27T02:30:00+01:00', 'seconds the Date-Format lacks, then the offset');
});

t.test('a Date-Format that reads garbage fails the job with 4003', async (t) => {
  const lines = '2024-10-27 02:30:00 1.2.3.4 http://www.sciencedirect.com/science/article/pii/S0967064508000301\n'.repeat(12);
  const res = await post(url, lines, { 'Log-Format-ezproxy': '%{datetime}<[0-9-]+ [0-9:]+> %h %U', 'Date-Format': 'X', Accept: 'application/json' });
  t.equal(res.status, 400, 'not 1970-01-01 for every event');
  t.equal(res.json<{ code: number }>().code, 4003);
  const year = await post(url, line('27/Oct/20245:10:00:00 +0100').repeat(12), json);
  t.equal(year.json<{ code: number }>().code, 4003, 'a five-digit year');
});

t.test('CSV: a zone name, and ISO dates without seconds or without a time', async (t) => {
  const csv = (date: string) => `host;datetime;url\n1.2.3.4;${date};http://www.sciencedirect.com/science/article/pii/S0967064508000301\n`;
  for (const [date, datetime] of [
    ['2024-10-27T02:30:00 UTC', '2024-10-27T02:30:00+00:00'],
    ['2024-10-27T03:30', '2024-10-27T03:30:00+01:00'],
    ['2024-10-27', '2024-10-27T00:00:00+02:00'],
  ]) {
    const res = await post(url, csv(date), { 'Content-Type': 'text/csv', Accept: 'application/json' });
    t.equal(res.status, 200, date);
    t.equal(res.json<Event[]>()[0]?.datetime, datetime, date);
  }
});

t.test('one line dated ahead of the others: the run of unordered-ecs it causes is explained in the traces', async (t) => {
  const at = (i: number) => `26/Nov/2024:10:${String(Math.floor(i / 60)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')} +0100`;
  const before = Array.from({ length: 5 }, (_, i) => line(at(i))).join('');
  const after = Array.from({ length: UNORDERED_RUN + 20 }, (_, i) => line(at(100 + i * 20))).join('');
  // the chronology check runs with the double-click one (the helper turns that off by default)
  const headers = { ...json, 'Double-Click-Removal': 'true' };
  const res = await post(url, before + line('26/Nov/2042:10:00:00 +0100') + after, headers);
  t.equal(res.status, 200);
  const traces = await get(String(res.headers['job-traces']));
  t.match(traces.body, /unordered-ecs 120/);
  t.match(traces.body, /100 lines in a row were rejected as out of order \(unordered-ecs\).*a line dated 2042-11-26T09:00:00Z moved the job's time ahead/);
  t.equal(traces.body.split('lines in a row were rejected').length, 2, 'said once');
  const ok = await post(url, before + after, headers);
  const quiet = await get(String(ok.headers['job-traces']));
  t.notMatch(quiet.body, /unordered-ecs/, 'a log in order: none rejected, nothing said');
});
