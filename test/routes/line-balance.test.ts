import t, { type Test } from 'tap';
import { createHash } from 'node:crypto';
import { cp, mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { startApp, type TestApp } from '../helpers/app.js';
import { shared } from '../helpers/shared.js';
import { get, lines, openJob, postJob, report } from '../helpers/jobs.js';
import { PROJECT_ROOT, SHARED_DIR } from '../../src/paths.js';
import { REJECT_CATEGORIES } from '../../src/pipeline/stages/types.js';
import { accountedLines, REJECT_COUNTERS } from '../../src/pipeline/job-report.js';

/**
 * The books balance: every input line ends in exactly one place (an event, the denied file, or
 * one reject category), and the report's counters say so. Each line of the log below names where
 * it must end. The reference's host list is empty: the test adds one of its own for ignored-hosts.
 */

type Place = 'event' | 'denied' | (typeof REJECT_CATEGORIES)[number];

const sdPdf = (pii: string) => `http://pdn.sciencedirect.com:80/science?_ob=MiamiImageURL&_pii=${pii}&pid=1-s2.0-${pii}-main.pdf`;
const sdArticle = (pii: string) => `http://www.sciencedirect.com:80/science/article/pii/${pii}`;
const sdJournal = 'http://www.sciencedirect.com:80/science/journal/00121606';

function line(host: string, login: string, time: string, url: string, status = 200): string {
  return `${host} - ${login} [30/Nov/2012:${time} +0100] "GET ${url} HTTP/1.1" ${status} 4444`;
}

/** [line, where it ends] */
const LOG: Array<[string, Place]> = [
  [line('10.0.0.1', 'ALICE', '00:01:00', sdPdf('S0012160612004174')), 'event'],
  [line('10.0.0.2', 'BOB', '00:02:00', sdJournal), 'event'],
  ['This line does not look like any kind of log', 'unknown-formats'],
  [line('10.0.0.3', 'CAROL', '00:03:00', sdArticle('S0012160612000001')).replace('30/Nov/2012', '31/Foo/2012'), 'unknown-formats'],
  [line('10.0.0.4', 'DAVE', '00:04:00', 'https://www.pamplemousse.fr/be-fruit.html'), 'unknown-domains'],
  [line('10.0.0.5', 'ERIN', '00:05:00', 'http://www.sciencedirect.com:80/nothing-interesting.html'), 'unqualified-ecs'],
  [line('10.0.0.6', 'FRANK', '00:06:00', sdJournal, 301), 'filtered-ecs'],
  [line('10.0.0.7', 'GRACE', '00:07:00', 'http://www.sciencedirect.com:80/static/style.css'), 'filtered-ecs'],
  [line('10.0.0.8', 'HEIDI', '00:08:00', sdJournal, 401), 'denied'],
  [line('10.0.0.9', 'IVAN', '00:09:00', sdJournal, 403), 'denied'],
  [line('10.0.0.10', 'JUDY', '00:10:00', 'http://boom.example.org/article/1'), 'unknown-errors'],
  [line('10.0.0.11', 'KARL', '00:11:00', 'https://www.google.fr/search?q=euler'), 'ignored-domains'],
  [line('172.16.5.9', 'LAB', '00:11:30', sdArticle('S0012160612000005')), 'ignored-hosts'],
  [line('209.185.108.20', 'LEO', '00:12:00', sdArticle('S0012160612000002')), 'robots-ecs'],
  [line('10.0.0.13', 'MALLORY', '00:13:00', sdArticle('S0967064508000301')), 'duplicate-ecs'],
  [line('10.0.0.13', 'MALLORY', '00:13:06', sdArticle('S0967064508000301')), 'event'],
  [line('10.0.0.14', 'NIAJ', '00:14:00', sdArticle('S0012160612000003')), 'event'],
  [line('10.0.0.15', 'OLIVIA', '00:13:55', sdPdf('S0012160612000004')), 'unordered-ecs'],
];

const sha1 = (text: string) => createHash('sha1').update(text).digest('hex');

let app: TestApp;
let platformsDir: string;
let exclusionsDir: string;
// The reference's exclusion lists and knowledge bases (../shared), or a visible skip.
const ready = shared(t, 'exclusions') !== undefined && shared(t, 'pkb') !== undefined;

if (ready) t.before(async () => {
  // The real sd platform, and a community-style parser that throws: its lines are unknown errors.
  platformsDir = await mkdtemp(join(tmpdir(), 'logsift-platforms-'));
  await cp(join(PROJECT_ROOT, 'repos', 'platforms', 'sd'), join(platformsDir, 'sd'), { recursive: true });
  await mkdir(join(platformsDir, 'boom'));
  await writeFile(join(platformsDir, 'boom', 'manifest.json'), JSON.stringify({ name: 'boom', longname: 'Throws', domains: ['boom.example.org'] }));
  await writeFile(join(platformsDir, 'boom', 'parser.js'), "module.exports = { execute() { throw new Error('boom: this parser always fails'); } };\n");
  // A host list of our own (the reference's is empty): a reading-room subnet left out on purpose.
  exclusionsDir = await mkdtemp(join(tmpdir(), 'logsift-exclusions-'));
  await writeFile(join(exclusionsDir, 'hosts.reading-room.txt'), '# library reading room\n172.16.5.0/24\n');
  // The reference's exclusion lists (robots, ignored domains), ours, and knowledge bases.
  app = await startApp({ platformsDir }, {
    EXCLUSIONS_DIRS: [join(SHARED_DIR, 'exclusions'), exclusionsDir].join(delimiter),
    PKB_DIRS: join(SHARED_DIR, 'pkb'),
  });
});
if (ready) t.teardown(async () => {
  await app.close();
  await rm(platformsDir, { recursive: true, force: true });
  await rm(exclusionsDir, { recursive: true, force: true });
});

t.test('every input line ends in exactly one place, and the report adds up', { skip: !ready }, async (t) => {
  // An empty line in the middle and CRLF endings: neither is a line of its own.
  const input = LOG.map(([l]) => l);
  const body = [...input.slice(0, 2), '', ...input.slice(2)].join('\r\n');
  const res = await postJob(app.url, body, { 'Reject-Files': 'all', 'Crypted-Fields': 'none' });
  t.equal(res.status, 200);

  // Where each line went, by its SHA-1 (the events' log_id; the reject files hold the lines).
  const places = new Map<string, Place[]>();
  const put = (hash: string, place: Place) => places.set(hash, [...(places.get(hash) ?? []), place]);
  const csvIds = (text: string) => {
    const [head, ...records] = lines(text);
    const col = head.split(';').indexOf('log_id');
    return records.map((r) => r.split(';')[col]);
  };
  for (const id of csvIds(res.body)) put(id, 'event');
  const denied = await get(res.headers.get('denied-ecs')!);
  for (const id of csvIds(denied.body)) put(id, 'denied');
  const files: Record<string, string[]> = {};
  for (const c of REJECT_CATEGORIES) {
    const f = await get(res.headers.get(`lines-${c}`)!);
    t.equal(f.status, 200, `lines-${c}.log is there (Reject-Files: all)`);
    files[c] = lines(f.body);
    if (c !== 'pkb-miss-ecs') for (const l of files[c]) put(sha1(l), c);
  }

  for (const [l, expected] of LOG) t.same(places.get(sha1(l)), [expected], `${expected}: ${l.slice(0, 90)}`);

  const r = await report(app.url, res.id!);
  const g = r.general;
  t.equal(g['nb-lines-input'], LOG.length, 'non-empty lines read');
  t.equal(accountedLines(r as never), LOG.length, 'events + denied + rejects = lines read');
  const count = (p: Place) => LOG.filter(([, place]) => place === p).length;
  // every place is exercised (pkb-miss-ecs is informational, checked below)
  for (const p of ['event', 'denied', ...REJECT_CATEGORIES] as Place[]) {
    if (p !== 'pkb-miss-ecs') t.ok(count(p) > 0, `the log has a line for ${p}`);
  }
  t.equal(g['nb-ecs'], count('event'));
  t.equal(g['nb-denied-ecs'], count('denied'));
  for (const c of REJECT_CATEGORIES) {
    if (c === 'pkb-miss-ecs') continue;
    t.equal(r.rejets[REJECT_COUNTERS[c]], count(c), `${REJECT_COUNTERS[c]}`);
    t.equal(files[c].length, count(c), `lines-${c}.log holds as many lines as counted`);
  }
  // A knowledge-base miss is informational: the event went on through the chain, and ended as an
  // event, a denied event, or later in the sequential stages (double clicks, chronology).
  t.equal(r.rejets['nb-lines-pkb-miss-ecs'], files['pkb-miss-ecs'].length);
  t.ok(files['pkb-miss-ecs'].length > 0, 'the sd knowledge base misses some titles here');
  for (const l of files['pkb-miss-ecs']) {
    t.ok(['event', 'denied', 'duplicate-ecs', 'unordered-ecs'].includes(places.get(sha1(l))?.[0] ?? ''), `pkb-miss went through the chain: ${l.slice(0, 90)}`);
  }

  const traces = await get(res.headers.get('job-traces')!);
  t.match(traces.body, /error: A line could not be processed \(unknown-errors\): Error: boom: this parser always fails/);
  t.notMatch(traces.body, /accounted for/, 'the job found its books balanced');
});

/**
 * A service whose one job holds two events in its double-click window, still reading: returned
 * once both lines are parsed (a busy machine takes its time).
 */
async function jobHoldingTwoEvents(t: Test) {
  const app = await startApp({ limits: { maxConcurrentJobs: 0, maxUploadBytes: 0, idleUploadMs: 0, maxLineBytes: 10_000 } }, { POOL_THREADS: '1' });
  t.teardown(() => app.close());
  const job = openJob(app.url, [
    line('10.0.0.1', 'ALICE', '00:01:00', sdPdf('S0012160612004174')),
    line('10.0.0.2', 'BOB', '00:01:05', sdArticle('S0012160612000001')),
  ].join('\n') + '\n', { 'Log-Format-ezproxy': '%h %l %u %t "%r" %s %b', 'Double-Click-Removal': 'true' });
  const parsed = () => app.app.runningJobs.list().find((j) => j.progress().linesRead >= 2);
  for (let waited = 0; waited < 15_000 && !parsed(); waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
  return { app, job, id: parsed()!.id };
}

t.test('a job whose input breaks off still writes the events its double-click window held', async (t) => {
  const { job } = await jobHoldingTwoEvents(t);
  job.push('x'.repeat(20_000)); // a line over the limit
  job.push(null);
  const res = await job.response;
  const rows = (await res.text()).trimEnd().split('\n');
  t.equal(res.status, 200, 'the events went out before the failure');
  t.equal(rows.length, 4, 'the header, both events, the error line');
  t.match(rows[3], /^#logsift-error 4022 /);
  const traces = await get(res.headers.get('job-traces')!);
  t.notMatch(traces.body, /accounted for/, 'no accounting error');
  t.notMatch(traces.body, /still held/, 'nothing held back');
});

t.test('a job stopped by the shutdown still writes the events its double-click window held, before the error line', async (t) => {
  const { app, job, id } = await jobHoldingTwoEvents(t);
  const closing = app.app.close();
  const res = await job.response.catch(() => undefined);
  const text = (await res?.text().catch(() => undefined)) ?? '';
  await closing;
  const rows = text.trimEnd().split('\n');
  t.equal(rows.length, 4, 'the header, both events, the error line');
  t.match(rows[3], /^#logsift-error 5003 /);
  const traces = await readFile(join(app.varDir, 'jobs', id, 'job-traces.log'), 'utf8');
  t.notMatch(traces, /accounted for/, 'no accounting error');
  t.notMatch(traces, /still held/, 'nothing held back: every line read is accounted for');
  const report = JSON.parse(await readFile(join(app.varDir, 'jobs', id, 'report.json'), 'utf8')) as { general: Record<string, number> };
  t.equal(report.general['nb-ecs'], 2);
});

t.test('the shutdown with FLUSH_AFTER_MS=0: the complete lines a job holds still give their events before the 5003 line', async (t) => {
  // Lines wait there for a full batch or the upload's end: aborted at once, the job dropped them
  // (report: nb-lines-input 0), where the default flush had sent them on.
  const app = await startApp({ pool: { flushAfterMs: 0 }, limits: { idleUploadMs: 0 } }, { POOL_THREADS: '1' });
  t.teardown(() => app.close());
  const held = [
    line('10.0.0.1', 'ALICE', '00:01:00', sdPdf('S0012160612004174')),
    line('10.0.0.2', 'BOB', '00:02:00', sdArticle('S0012160612000001')),
  ].join('\n') + '\n';
  const job = openJob(app.url, held, { 'Log-Format-ezproxy': '%h %l %u %t "%r" %s %b', 'Double-Click-Removal': 'false' });
  const received = () => app.app.runningJobs.list().find((j) => j.bytesRead >= Buffer.byteLength(held));
  for (let waited = 0; waited < 15_000 && !received(); waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
  const id = received()!.id;
  t.equal(received()!.linesRead, 0, 'the lines are held, not parsed');
  const closing = app.app.close();
  const res = await job.response;
  const rows = (await res.text()).trimEnd().split('\n');
  await closing;
  t.equal(res.status, 200);
  t.equal(rows.length, 4, 'the header, both events, the error line');
  t.match(rows[3], /^#logsift-error 5003 The service is shutting down/);
  const done = JSON.parse(await readFile(join(app.varDir, 'jobs', id, 'report.json'), 'utf8')) as { general: Record<string, number> };
  t.equal(done.general['nb-lines-input'], 2, 'both lines read');
  t.equal(done.general['nb-ecs'], 2);
  t.equal(done.general.status, 5003);
});
