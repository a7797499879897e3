import t from 'tap';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { parse, type DefaultTreeAdapterMap } from 'parse5';
import { startApp, type TestApp } from '../helpers/app.js';
import { shared } from '../helpers/shared.js';
import { get, lines, openJob, postJob, report } from '../helpers/jobs.js';
import { accountedLines, rejectionRate, REJECT_COUNTERS } from '../../src/pipeline/job-report.js';
import { REJECT_CATEGORIES, type RejectCategory } from '../../src/pipeline/stages/types.js';

type Node = DefaultTreeAdapterMap['node'];
type Element = DefaultTreeAdapterMap['element'];

function elements(node: Node, tag: string, out: Element[] = []): Element[] {
  if ('tagName' in node && node.tagName === tag) out.push(node);
  if ('childNodes' in node) for (const child of node.childNodes) elements(child, tag, out);
  if ('content' in node && node.content) elements(node.content as Node, tag, out);
  return out;
}

function textOf(node: Node): string {
  if (node.nodeName === '#text') return (node as DefaultTreeAdapterMap['textNode']).value;
  return 'childNodes' in node ? node.childNodes.map(textOf).join('') : '';
}

const attr = (el: Element, name: string) => el.attrs.find((a) => a.name === name)?.value;

let app: TestApp;
t.before(async () => {
  // Reports rewritten every 100 ms and tiny batches: a running job's report moves while it is read.
  app = await startApp({}, { JOB_REPORT_INTERVAL_MS: '100', BATCH_BYTES: '64' });
});
t.teardown(() => app.close());

const datasets = shared(t, 'datasets');

t.test('sd.2012-11-30.300.log: the counts add up and the HTML form renders', { skip: !datasets }, async (t) => {
  const log = readFileSync(join(datasets!, 'sd.2012-11-30.300.log'), 'utf8');
  const res = await postJob(app.url, log, { 'Crypted-Fields': 'none', 'Double-Click-Removal': 'false', 'User-Agent': 'report-test/1.0' });
  t.equal(res.status, 200);
  const r = await report(app.url, res.id!);
  const g = r.general;
  t.equal(g['Job-Done'], true);
  t.equal(g['nb-lines-input'], lines(log).length, 'every non-empty line read');
  t.equal(g['nb-ecs'], lines(res.body).length - 1, 'nb-ecs = events in the response');
  t.equal(accountedLines(r as never), g['nb-lines-input'], 'events + denied + rejects = lines read');
  const rejects: Partial<Record<RejectCategory, number>> = {};
  for (const c of REJECT_CATEGORIES) rejects[c] = r.rejets[REJECT_COUNTERS[c]] as number;
  t.equal(g['Rejection-Rate'], rejectionRate(g['nb-lines-input'] as number, rejects), 'the reference formula');
  t.match(g['Rejection-Rate'], /^\d+(\.\d{1,2})? %$/);
  t.match(g['process-speed'], /^\d+ lignes\/s$/);
  t.match(g['ecs-speed'], /^\d+ ec\/s$/);
  t.match(g['Job-Duration'], /^(\d+ h )?(\d+ m )?\d+ s $/);
  t.match(g['Job-Date'], /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}$/);
  t.equal(g['client-user-agent'], 'report-test/1.0');
  t.equal(g['input-format-proxy'], 'ezproxy');
  t.equal(g['input-format-literal'], '%h %l %u %t "%r" %s %b');
  t.match(g['input-format-regex'], /^\/\^.*\$\/$/);
  t.equal(g['input-first-line'], lines(log)[0]);
  for (const key of ['ezPAARSE-version', 'logsift-version', 'git-branch', 'git-tag', 'git-last-commit', 'git-date', 'platforms-version', 'platforms-date', 'middlewares']) {
    t.type(g[key], 'string', `general.${key}`);
  }
  t.equal(g['URL-Report'], `${app.url}/${res.id}/job-report.json`);
  t.equal(g['URL-Traces'], `${app.url}/${res.id}/job-traces.log`);
  t.equal(g['url-denied-ecs'], `${app.url}/${res.id}/denied-ecs.csv`);
  t.equal(g['result-file-ecs'], `${app.url}/${res.id}`);
  // stats: the events by platform, rtype and mime add up to nb-ecs
  const s = r.stats;
  t.equal(s.platforms, 1);
  t.equal(s['platform-sd'], g['nb-ecs']);
  const sum = (prefix: string) => Object.entries(s).filter(([k]) => k.startsWith(prefix)).reduce((n, [, v]) => n + (v as number), 0);
  t.equal(sum('mime-'), g['nb-ecs'], 'mime counters add up');
  t.equal(sum('rtype-'), g['nb-ecs'], 'rtype counters add up');
  t.equal(r['platform-versions'].sd, '2026-11-22', 'the version of the sd platform used');
  t.equal(r.first_event.platform, 'sd', 'first_event holds the first event');
  t.equal(r.first_event.log_id, lines(res.body)[1].split(';')[lines(res.body)[0].split(';').indexOf('log_id')]);
  t.same(r.alerts, { 'active-alerts': 'unknown-domains' }, 'no alert under 1000 relevant lines');
  t.equal(r.headers['user-agent'], 'report-test/1.0', 'the request headers are recorded');

  // Stored with the job in SQLite too.
  const row = app.app.jobStore.get(res.id!)!;
  t.equal(row.state, 'done');
  t.same(JSON.parse(row.report!), r, 'the database row holds the final report');

  // The HTML form: parses, one section header per section, one row per key, values escaped and linked.
  const html = await get(`${app.url}/${res.id}/job-report.html`);
  t.equal(html.status, 200);
  t.match(html.headers.get('content-type'), /^text\/html; charset=utf-8/);
  t.match(html.headers.get('content-security-policy'), /default-src 'none'/);
  t.equal(html.headers.get('x-content-type-options'), 'nosniff');
  const doc = parse(html.body, { onParseError: (e) => t.fail(`HTML parse error ${e.code} at line ${e.startLine}`) });
  t.match(textOf(elements(doc, 'title')[0]), /^Execution report \(\d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2}\) - logsift$/);
  t.equal(elements(doc, 'script').length, 0, 'no script');
  t.equal(elements(doc, 'link').length + elements(doc, 'img').length, 0, 'no external resource');
  // The reference's table of every value, after the summary a person reads first.
  const table = elements(doc, 'table').find((e) => attr(e, 'id') === 'all-values')!;
  const rows = elements(table, 'tr');
  const sectionRows = rows.filter((tr) => attr(tr, 'class') === 'section');
  t.equal(sectionRows.length, Object.keys(r).length, 'one header row per section');
  t.equal(rows.length - sectionRows.length, Object.values(r).reduce((n, sec) => n + Object.keys(sec).length, 0), 'one row per key');
  const row1 = rows.find((tr) => attr(tr, 'id') === 'nb-lines-input')!;
  t.equal(textOf(elements(row1, 'td')[1]), String(g['nb-lines-input']));
  const urlRow = rows.find((tr) => attr(tr, 'id') === 'URL-Traces')!;
  t.equal(attr(elements(urlRow, 'a')[0], 'href'), g['URL-Traces'], 'URLs are links');
  const firstLine = rows.find((tr) => attr(tr, 'id') === 'input-first-line')!;
  t.equal(textOf(elements(firstLine, 'td')[1]), g['input-first-line'], 'quotes and brackets survive escaping');

  // standalone=1 is the same self-contained page; French on request.
  const standalone = await get(`${app.url}/${res.id}/job-report.html?standalone=1`);
  t.equal(standalone.body, html.body);
  const fr = await get(`${app.url}/${res.id}/job-report.html`, { 'Accept-Language': 'fr-FR,fr;q=0.9,en;q=0.5' });
  t.match(fr.body, /<h1>Rapport d&#39;exécution <span class="state done"/);
  t.match(fr.body, />Rejets</);
  // the language the pages were switched to, before the browser's
  t.match((await get(`${app.url}/${res.id}/job-report.html?lang=fr`)).body, /<h1>Rapport d&#39;exécution/);
  t.match((await get(`${app.url}/${res.id}/job-report.html?lang=en`, { 'Accept-Language': 'fr-FR' })).body, /<h1>Execution report/);
  t.match((await get(`${app.url}/${res.id}/job-report.html?lang=de`, { 'Accept-Language': 'fr-FR' })).body, /<h1>Rapport d&#39;exécution/, 'another value: Accept-Language decides');
});

t.test('a running job: its report says Job-Done false with growing counts, then the final one', async (t) => {
  const line = (i: number) => `10.0.0.1 - USER${i} [30/Nov/2012:00:${String(10 + (i % 50)).padStart(2, '0')}:00 +0100] "GET http://www.sciencedirect.com:80/science/article/pii/S00121606120${String(10000 + i)} HTTP/1.1" 200 1000\n`;
  // Double clicks held back in their window would keep the first event from going out.
  const { push, response } = openJob(app.url, line(0), { 'Double-Click-Removal': 'false' });
  const res = await response; // the head goes out with the first event
  const id = res.headers.get('job-id')!;
  const reader = res.body!.getReader();
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const waitFor = async (check: (r: Record<string, Record<string, unknown>>) => boolean) => {
    for (let i = 0; i < 100; i++) {
      const r = await report(app.url, id);
      if (check(r)) return r;
      await sleep(50);
    }
    throw new Error('the report never got there');
  };
  const first = await waitFor((r) => (r.general['nb-lines-input'] as number) >= 1);
  t.equal(first.general['Job-Done'], false, 'Job-Done: false while running');
  for (let i = 1; i <= 5; i++) push(line(i));
  const later = await waitFor((r) => (r.general['nb-lines-input'] as number) >= 6);
  t.equal(later.general['Job-Done'], false, 'still running');
  t.ok((later.general['nb-ecs'] as number) > (first.general['nb-ecs'] as number), 'more events counted');
  const row = app.app.jobStore.get(id)!;
  t.equal(row.state, 'running');
  t.equal(JSON.parse(row.report!).general['Job-Done'], false, 'the database row follows the running report');
  t.same(later.alerts, { 'active-alerts': 'unknown-domains' }, 'the alerts of the lines so far: a job cut off by its process\'s end keeps those of its last snapshot');
  const html = await get(`${app.url}/${id}/job-report.html`);
  t.match(html.body, /still running/);
  push(null);
  while (!(await reader.read()).done);
  const final = await report(app.url, id);
  t.equal(final.general['Job-Done'], true);
  t.equal(final.general['nb-lines-input'], 6);
  t.equal(final.general['nb-ecs'], 6);
});

t.test('a log whose format changes part way (a field added by a proxy upgrade): an alert says from where', async (t) => {
  const line = (i: number, extra = '') => `127.0.0.1 - - [30/Nov/2012:00:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')} +0100] "GET http://pdn.sciencedirect.com/a${i} HTTP/1.1" 200 0${extra}`;
  const log = [
    ...Array.from({ length: 2000 }, (_, i) => line(i)),
    ...Array.from({ length: 3000 }, (_, i) => line(2000 + i, ' "SessionId123"')),
  ].join('\n');
  const res = await postJob(app.url, log, { 'Log-Format-ezproxy': '%h %l %u %t "%r" %s %b', 'Double-Click-Removal': 'false' });
  t.equal(res.status, 200);
  const r = await report(app.url, res.id!);
  t.equal(r.rejets['nb-lines-unknown-formats'], 3000);
  const text = Object.entries(r.alerts).find(([k, v]) => k.startsWith('alert-') && /did not match the log format/.test(String(v)))?.[1];
  t.match(text, /^From about line (\d+) on, (\d+) of the next \d+ lines did not match the log format \(unknown-formats, \d+% of the log lines\), after lines that did: the log's format seems to change there/);
  const from = Number(/line (\d+)/.exec(String(text))![1]);
  t.ok(Math.abs(from - 2001) < 400, `from about line ${from} (the change is at line 2001; to a batch of lines)`);
  t.match((await get(`${app.url}/${res.id}/job-traces.log`)).body, /warn: Alert: From about line \d+ on/);

  const steady = await report(app.url, (await postJob(app.url, log.split('\n').slice(0, 2000).join('\n'))).id!);
  t.notOk(Object.values(steady.alerts).some((v) => /did not match the log format/.test(String(v))), 'one format throughout: no such alert');
});

t.test('alerts-test: an unknown domain on 1 line in 8 of 1100', async (t) => {
  const log = Array.from({ length: 1100 }, (_, i) => {
    const url = i % 8 === 0 ? 'http://www.unknowndomain.com/' : 'http://pdn.sciencedirect.com/';
    return `127.0.0.1 - - [30/Nov/2012:00:00:00 +0100] "GET ${url} HTTP/1.1" 200 0`;
  }).join('\n');
  const res = await postJob(app.url, log);
  t.equal(res.status, 200);
  const r = await report(app.url, res.id!);
  t.equal(r.rejets['nb-lines-unknown-domains'], 138);
  t.equal(r.alerts['alert-1'], 'www.unknowndomain.com is unknown but represents 13% of the log lines');
  t.equal(r.alerts['active-alerts'], 'unknown-domains');
  const traces = await get(`${app.url}/${res.id}/job-traces.log`);
  t.match(traces.body, /warn: Alert: www\.unknowndomain\.com is unknown/);

  const high = await report(app.url, (await postJob(app.url, log, { 'Alerts-Unknown-Domains-Rate': '50' })).id!);
  t.equal(high.alerts['active-alerts'], 'unknown-domains');
  t.notOk('alert-1' in high.alerts, 'no alert above 13 %');

  const threshold = await report(app.url, (await postJob(app.url, log, { 'Alerts-Activation-Threshold': '1100' })).id!);
  t.notOk('alert-1' in threshold.alerts, 'no alert when the lines do not exceed the activation threshold');

  // a job that fails after its lines (a line over MAX_LINE_BYTES) has the alerts of what it read
  const failed = await postJob(app.url, `${log}\n${'x'.repeat(150_000)}`);
  const cut = await report(app.url, failed.id!);
  t.equal(cut.general.status, 4022);
  t.equal(cut.alerts['alert-1'], 'www.unknowndomain.com is unknown but represents 13% of the log lines', 'a failed job has its alerts');
  t.match((await get(`${app.url}/${failed.id}/job-traces.log`)).body, /warn: Alert: www\.unknowndomain\.com is unknown/);

  const bad = await postJob(app.url, log, { 'Alerts-Unknown-Domains-Rate': 'ten' });
  t.equal(bad.status, 400);
  t.equal(JSON.parse(bad.body).code, 4032);
});

t.test('the report records the headers, never the secret ones', async (t) => {
  // A service with an account, so that the Authorization header is a real login.
  const secured = await startApp();
  t.teardown(() => secured.close());
  const password = 'Correct-Horse-1';
  const registered = await fetch(`${secured.url}/api/admin/register`, {
    method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ userid: 'admin@example.org', password, confirm: password }),
  });
  t.equal(registered.status, 201);
  const log = '10.0.0.1 - A [30/Nov/2012:00:10:00 +0100] "GET http://www.sciencedirect.com:80/science/article/pii/S0012160612004174 HTTP/1.1" 200 1\n';
  const authorization = `Basic ${Buffer.from(`admin@example.org:${password}`).toString('base64')}`;
  const secrets = { Authorization: authorization, Cookie: 'session=s3cr3t-cookie', 'Crypting-Salt': 'pepper-and-salt', 'Proxy-Authorization': 'Basic cHJveHk6cHJveHk=' };
  const res = await postJob(secured.url, log, { ...secrets, 'X-Note': 'kept', 'Traces-Level': 'debug' });
  t.equal(res.status, 200);
  const asAdmin = { Authorization: authorization };
  const r = JSON.parse((await get(`${secured.url}/${res.id}/job-report.json`, asAdmin)).body) as Record<string, Record<string, unknown>>;
  t.equal(r.headers['x-note'], 'kept');
  t.equal(r.headers['traces-level'], 'debug');
  const row = secured.app.jobStore.get(res.id!)!;
  t.equal(row.user_id, 'admin@example.org', 'the job knows who submitted it');
  const everything = [
    JSON.stringify(r),
    row.request_headers,
    row.report,
    (await get(`${secured.url}/${res.id}/job-traces.log`, asAdmin)).body,
  ].join('\n');
  t.notOk(everything.includes(password), 'the password is recorded nowhere');
  for (const [name, value] of Object.entries(secrets)) {
    t.notOk(everything.includes(value), `${name}'s value is recorded nowhere`);
    t.notOk(name.toLowerCase() in r.headers, `${name} is not in the report`);
  }
});

t.test('multipart: the report lists the files read', async (t) => {
  const form = new FormData();
  const a = '10.0.0.1 - A [30/Nov/2012:00:10:00 +0100] "GET http://www.sciencedirect.com:80/science/article/pii/S0012160612004174 HTTP/1.1" 200 1\n';
  const b = '10.0.0.1 - A [30/Nov/2012:00:11:00 +0100] "GET http://www.sciencedirect.com:80/science/article/pii/S0012160612004175 HTTP/1.1" 200 1\n';
  form.append('first', new Blob([a]), 'monday.log');
  form.append('second', new Blob([b]), 'tuesday.log');
  const res = await fetch(`${app.url}/`, { method: 'POST', body: form, headers: { Accept: 'text/csv' } });
  t.equal(res.status, 200);
  await res.text();
  const r = await report(app.url, res.headers.get('job-id')!);
  t.same(r.files, { 1: 'monday.log', 2: 'tuesday.log' });
  const traces = await get(`${app.url}/${res.headers.get('job-id')}/job-traces.log`);
  t.match(traces.body, /info: Reading file 1: monday\.log/);
  t.match(traces.body, /info: Reading file 2: tuesday\.log/);
});

t.test('multipart: a file name\'s controls and direction overrides reach neither the report nor the traces', async (t) => {
  const line = '10.0.0.1 - A [30/Nov/2012:00:10:00 +0100] "GET http://www.sciencedirect.com:80/science/article/pii/S0012160612004174 HTTP/1.1" 200 1';
  const body = [
    '--xyz',
    "Content-Disposition: form-data; name=\"f\"; filename*=UTF-8''%E2%80%AE%00%1b%5B31mred.log",
    'Content-Type: text/plain',
    '',
    line,
    '--xyz--',
    '',
  ].join('\r\n');
  const res = await fetch(`${app.url}/`, { method: 'POST', body, headers: { 'Content-Type': 'multipart/form-data; boundary=xyz', Accept: 'text/csv' } });
  t.equal(res.status, 200);
  await res.text();
  const id = res.headers.get('job-id')!;
  t.same((await report(app.url, id)).files, { 1: '\ufffd\ufffd\ufffd[31mred.log' });
  const traces = (await get(`${app.url}/${id}/job-traces.log`)).body;
  t.match(traces, /info: Reading file 1: \ufffd\ufffd\ufffd\[31mred\.log\n/);
  t.notMatch(traces, /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/, 'no control character in the traces');
});

t.test('a compressed response has a compressed denied file, named so', { skip: !datasets }, async (t) => {
  const res = await fetch(`${app.url}/`, {
    method: 'POST',
    body: readFileSync(join(datasets!, 'sd.denied.log')),
    headers: { Accept: 'text/csv', 'Response-Encoding': 'gzip' },
  });
  t.equal(res.status, 200);
  await res.arrayBuffer();
  const url = res.headers.get('denied-ecs')!;
  t.match(url, /\/denied-ecs\.csv\.gz$/);
  const file = await fetch(url);
  t.equal(file.headers.get('content-type'), 'application/gzip');
  t.match(file.headers.get('content-disposition'), /^attachment; filename="[0-9a-f]{8}_denied-ecs\.csv\.gz"$/);
  t.equal(lines(gunzipSync(Buffer.from(await file.arrayBuffer())).toString('utf8')).length, 3, 'header + 2 denied events');
});

t.test('mail notifications asked for are reported as not sent', async (t) => {
  const log = '10.0.0.1 - A [30/Nov/2012:00:10:00 +0100] "GET http://www.sciencedirect.com:80/science/article/pii/S0012160612004174 HTTP/1.1" 200 1\n';
  const res = await postJob(app.url, log, { 'ezPAARSE-Job-Notifications': 'mail<a@example.org>, mail<b@example.org>' });
  t.equal(res.status, 200);
  const r = await report(app.url, res.id!);
  t.same(r.notifications, { mailto: 'a@example.org, b@example.org', 'mail-status': 'fail', 'mail-error-message': 'the service has no mail server' });
});
