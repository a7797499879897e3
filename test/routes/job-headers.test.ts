import t from 'tap';
import { request as httpRequest } from 'node:http';
import { startApp, type TestApp } from '../helpers/app.js';
import { get, postJob, report } from '../helpers/jobs.js';

const GOOD = '10.0.0.1 - A [30/Nov/2012:00:10:00 +0100] "GET http://www.sciencedirect.com:80/science/article/pii/S0012160612004174 HTTP/1.1" 200 1';
const LOG = `garbage first line\n${GOOD}\n`;
const SPOOF = { Host: 'evil.example', 'X-Forwarded-Host': 'evil.example', 'X-Forwarded-Proto': 'https' };

/** Every URL a job announces, in its headers and its report. */
async function announcedUrls(base: string, headers: Record<string, string>) {
  const res = await postJob(base, LOG, headers);
  const fromHeaders = [...res.headers].filter(([n]) => /^(job-report|job-traces|denied-ecs|lines-)/.test(n)).map(([, v]) => v);
  const r = await report(base, res.id!);
  const fromReport = [r.general['URL-Report'], r.general['URL-Traces'], r.general['url-denied-ecs'], r.general['result-file-ecs']] as string[];
  return { id: res.id!, urls: [...fromHeaders, ...fromReport] };
}

let app: TestApp;
t.before(async () => {
  app = await startApp();
});
t.teardown(() => app.close());

t.test('job URLs come from the listening address, never from a client Host or X-Forwarded-*', async (t) => {
  const { id, urls } = await announcedUrls(app.url, SPOOF);
  t.equal(urls.length, 3 + 11 + 4, 'report, traces, denied and 11 Lines-* headers; 4 URLs in the report');
  for (const url of urls) t.ok(url.startsWith(`${app.url}/${id}`), url);
});

t.test('behind a trusted proxy (TRUST_PROXY), the forwarded host and protocol', async (t) => {
  const proxied = await startApp({ trustProxy: 1 });
  t.teardown(() => proxied.close());
  const { id, urls } = await announcedUrls(proxied.url, { 'X-Forwarded-Host': 'logs.example.org', 'X-Forwarded-Proto': 'https' });
  for (const url of urls) t.ok(url.startsWith(`https://logs.example.org/${id}`), url);
});

t.test('behind a trusted proxy, a forwarded protocol other than http or https is not used', async (t) => {
  const proxied = await startApp({ trustProxy: 1 });
  t.teardown(() => proxied.close());
  for (const proto of ['javascript', 'data', 'https, javascript']) {
    const { id, urls } = await announcedUrls(proxied.url, { 'X-Forwarded-Host': 'logs.example.org', 'X-Forwarded-Proto': proto });
    for (const url of urls) t.ok(url.startsWith(`http://logs.example.org/${id}`), `${proto}: ${url}`);
  }
  const { id, urls } = await announcedUrls(proxied.url, { 'X-Forwarded-Host': 'logs.example.org', 'X-Forwarded-Proto': 'HTTPS' });
  for (const url of urls) t.ok(url.startsWith(`https://logs.example.org/${id}`), url);
});

t.test('PUBLIC_BASE_URL wins over everything', async (t) => {
  const configured = await startApp({ publicBaseUrl: 'https://stats.example.org/logsift', trustProxy: 1 });
  t.teardown(() => configured.close());
  const { id, urls } = await announcedUrls(configured.url, SPOOF);
  for (const url of urls) t.ok(url.startsWith(`https://stats.example.org/logsift/${id}`), url);
});

t.test('Traces-Level keeps the traces at or above the level asked for', async (t) => {
  const levels = ['error', 'warn', 'info', 'verbose', 'debug'];
  for (const [i, level] of levels.entries()) {
    const res = await postJob(app.url, LOG, { 'Traces-Level': level });
    t.equal(res.status, 200);
    const traces = (await get(`${app.url}/${res.id}/job-traces.log`)).body;
    const seen = new Set([...traces.matchAll(/^\S+Z (\w+): /gm)].map((m) => m[1]));
    for (const [j, other] of levels.entries()) {
      // This job traces no error; every other level has at least one message.
      if (other === 'error') continue;
      t.equal(seen.has(other), j <= i, `${level}: ${other} lines ${j <= i ? '' : 'not '}written`);
    }
    for (const l of traces.split('\n').filter(Boolean)) {
      t.match(l, /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z (error|warn|info|verbose|debug): |    )/, 'timestamped, levelled lines');
    }
    if (level === 'info') {
      t.match(traces, /info: New job with ID: /);
      t.match(traces, /warn: Line 1 does not match the log format: garbage first line/);
      t.match(traces, /info: Log format detected \(ezproxy\)/);
      t.match(traces, /info: Reading the request body/);
      t.match(traces, /info: 2 lines read: 1 events, 0 denied; rejected: unknown-formats 1/);
      t.match(traces, /info: Job done in /);
    }
  }
  const silly = await postJob(app.url, LOG, { 'Traces-Level': 'silly' });
  t.equal(silly.status, 200, 'silly (winston) is taken as debug');
  const bad = await postJob(app.url, LOG, { 'Traces-Level': 'loud' });
  t.equal(bad.status, 400);
  t.equal(JSON.parse(bad.body).code, 4030);
  t.equal(bad.headers.get('service-status'), '4030');
  t.match(bad.headers.get('service-status-message'), /known: error, warn, info, verbose, debug, and silly as debug/, 'the message names every level it takes');
});

t.test('a failed job traces its error and reports its status', async (t) => {
  const res = await postJob(app.url, 'nothing\nthat\nlooks\nlike\na\nlog\n', { 'Max-Parse-Attempts': '3' });
  t.equal(res.status, 400);
  t.ok(res.id, 'the error answer still names the job');
  const traces = (await get(`${app.url}/${res.id}/job-traces.log`)).body;
  t.match(traces, /error: Job failed: 4003 /);
  const r = await report(app.url, res.id!);
  t.equal(r.general['Job-Done'], false);
  t.equal(r.general.status, 4003);
  t.match(r.general['status-message'], /Line format was not recognized/);
  t.equal(r.general['nb-lines-input'], 3, 'the lines read before it gave up');
  t.equal(r.rejets['nb-lines-unknown-formats'], 3);
  t.notMatch(traces, /accounted for/, 'every line read is accounted for');
});

/** Runs of two words of `a` (its letters, digits and hyphens, lower-cased) that `b` holds too. */
function sharedWordPairs(a: string, b: string): string[] {
  const words = (s: string) => s.toLowerCase().match(/[a-z0-9][a-z0-9-]*/g) ?? [];
  const pairs = (w: string[]) => w.slice(1).map((x, i) => `${w[i]} ${x}`);
  const inB = new Set(pairs(words(b)));
  return pairs(words(a)).filter((p) => inB.has(p));
}

t.test('a refused header\'s message says the problem once, then what to fix', async (t) => {
  const { STATUS_CODES } = await import('../../src/status-codes.js');
  const cases: Array<[headers: Record<string, string>, code: keyof typeof STATUS_CODES, detail: string]> = [
    [{ 'Reject-Files': 'foo' }, 4029, '"foo" (known: all, none, unknown-formats, '],
    [{ 'Reject-Files': 'all,unknown-formats' }, 4029, 'all stands alone; list categories without it'],
    [{ 'Traces-Level': 'x' }, 4030, '"x" (known: error, warn, '],
    [{ Geoip: 'foo' }, 4019, '"foo" (known: none, all, geoip-country'],
    [{ 'Response-Charset': 'nope' }, 4016, 'Response-Charset: "nope" (known charsets: '],
    [{ 'Request-Charset': 'nope' }, 4015, 'Request-Charset: "nope" (known charsets: '],
    [{ 'Output-Fields': 'a' }, 4013, '"a"'],
    [{ 'Output-Fields': '+a,,b' }, 4012, 'item 2 of "+a,,b"'],
    [{ 'Output-Fields': '+' }, 4012, '"+" (item 1 of "+")'],
    [{ 'Crypting-Algorithm': 'nope' }, 4004, 'Crypting-Algorithm: "nope" (known: sha1'],
    [{ 'ezPAARSE-Middlewares': 'x!' }, 4024, 'ezPAARSE-Middlewares: "x!" (letters, digits, - and _ only)'],
    [{ 'ezPAARSE-Middlewares': 'nosuch' }, 4025, 'ezPAARSE-Middlewares: "nosuch" (see /info/middlewares)'],
    [{ 'ezPAARSE-Predefined-Settings': 'nosuch' }, 4026, 'ezPAARSE-Predefined-Settings: "nosuch" (see /info/predefined-settings)'],
    [{ 'Force-Parser': 'nosuch' }, 4033, 'Force-Parser: "nosuch" (see /info/platforms)'],
    [{ 'Double-Click-x_y': '3' }, 4031, 'Double-Click-X_Y: a window\'s name is letters and digits'],
    [{ 'Date-Format': 'Q' }, 4028, 'Date-Format: "Q" needs a year, a month and a day'],
    [{ 'Date-Format': 'YYYY-MM-DD MM' }, 4028, 'Date-Format: gives the month twice (MM)'],
  ];
  for (const [headers, code, detail] of cases) {
    const what = JSON.stringify(headers);
    const res = await fetch(app.url, { method: 'POST', body: `${GOOD}\n`, headers: { 'Log-Format-ezproxy': '%h %l %u %t "%r" %s %b', ...headers } });
    const body = (await res.json()) as { code: number; message: string };
    const table = STATUS_CODES[code].message;
    t.equal(body.code, code, `${what}: ${code}`);
    t.ok(body.message.startsWith(`${table}: ${detail}`), `${what}: ${body.message}`);
    t.equal(res.headers.get('service-status-message'), body.message.replace(/…/g, '...'), `${what}: the header says the same`);
    const rest = body.message.slice(table.length + 2);
    t.same(sharedWordPairs(table, rest), [], `${what}: the detail does not repeat the code's message`);
    const name = Object.keys(headers)[0].toLowerCase();
    t.equal(body.message.toLowerCase().split(`${name}:`).length - 1 <= 1, true, `${what}: the header is named once`);
  }
});

/** POSTs a job with headers exactly as given, a header with several values sent once per value (fetch would join them). */
function rawPost(base: string, body: string, headers: Record<string, string | string[]>): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ hostname, port, path: '/', method: 'POST', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => { text += c; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

t.test('a header of one value sent twice: the same value counts once, different values are a 400 saying so', async (t) => {
  const same = await rawPost(app.url, LOG, { 'Force-Parser': ['sd', 'sd'], 'ezPAARSE-Enrich': ['false', 'false'] });
  t.equal(same.status, 200, same.body);
  t.equal(same.body.trim().split('\n').length, 2, 'a header row and one event');
  const r = await report(app.url, String(same.headers['job-id']));
  t.equal(r.headers['force-parser'], 'sd', 'the report shows it once');
  const different = await rawPost(app.url, LOG, { 'Force-Parser': ['sd', 'wiley'] });
  t.equal(different.status, 400);
  t.equal(different.headers['service-status'], '4032');
  t.equal(JSON.parse(different.body).message, 'Invalid header value: Force-Parser: given 2 times with different values ("sd", "wiley"): send it once');
  const lists = await rawPost(app.url, LOG, { 'Filter-Platforms': ['sd', 'wiley'] });
  t.equal(lists.status, 200, 'a list header sent twice is both lists');
  t.equal(lists.body.trim().split('\n').length, 2);
});

t.test('a yes/no header with another value, or a Max-Parse-Attempts that is no number, is a 400', async (t) => {
  for (const [headers, message] of [
    [{ 'ezPAARSE-Enrich': 'nope' }, 'ezPAARSE-Enrich: expected true or false (also 1, yes, on, 0, no, off), got "nope"'],
    [{ 'Allow-Domain-Wildcards': 'si' }, 'Allow-Domain-Wildcards: expected true or false (also 1, yes, on, 0, no, off), got "si"'],
    [{ 'ezPAARSE-Enrich': 'false, false' }, 'ezPAARSE-Enrich: expected true or false (also 1, yes, on, 0, no, off), got "false, false"'],
    [{ 'Max-Parse-Attempts': 'x' }, 'Max-Parse-Attempts: expected a whole number from 1 to 100000, got "x"'],
  ] as const) {
    const res = await postJob(app.url, LOG, headers);
    t.equal(res.status, 400, JSON.stringify(headers));
    t.equal(res.headers.get('service-status'), '4032');
    t.equal(JSON.parse(res.body).message, `Invalid header value: ${message}`);
  }
  for (const v of ['no', '0', 'off', 'FALSE']) t.equal((await postJob(app.url, LOG, { 'ezPAARSE-Enrich': v })).status, 200, `ezPAARSE-Enrich: ${v}`);
});

t.test('DEFAULT_JOB_HEADERS with a yes/no header of another value stops the start', async (t) => {
  await t.rejects(startApp({ defaultJobHeaders: { 'ezPAARSE-Enrich': 'nope' } }), { name: 'StartError', message: /^DEFAULT_JOB_HEADERS: Invalid header value: ezPAARSE-Enrich: expected true or false .*got "nope" \(status 4032 of \/info\/codes\)$/ });
  await t.rejects(startApp({ defaultJobHeaders: { 'Max-Parse-Attempts': 'x' } }), { name: 'StartError', message: /Max-Parse-Attempts/ });
});
