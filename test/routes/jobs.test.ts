import t from 'tap';
import { readFileSync } from 'node:fs';
import { createHash, createHmac } from 'node:crypto';
import { startApp, EZPROXY_DEFAULT } from '../helpers/app.js';
import { post, csvRows } from '../helpers/http.js';
import { shared } from '../helpers/shared.js';

const REFERENCE_HEADER = 'datetime;date;login;platform;platform_name;publisher_name;rtype;mime;print_identifier;online_identifier;title_id;doi;publication_title;publication_date;unitid;domain;on_campus;log_id;ezpaarse_version;ezpaarse_date;middlewares_version;middlewares_date;platforms_version;platforms_date;middlewares;geoip-country;geoip-latitude;geoip-longitude;host;identd;url;status;size';

const SD_LINE = '1.2.3.4 - JOHN [30/Nov/2012:00:14:18 +0100] "GET http://www.sciencedirect.com:80/science/article/pii/S0967064508000301 HTTP/1.1" 200 224846\n';

const server = await startApp({}, { POOL_THREADS: '1' });
t.teardown(() => server.close());
const url = server.url;

t.test('the ScienceDirect log: CSV with the reference header, job headers, trailers', async (t) => {
  const file = shared(t, 'datasets', 'sd.2012-11-30.300.log');
  if (!file) return;
  const res = await post(url, readFileSync(file), { 'Log-Format-ezproxy': EZPROXY_DEFAULT });
  t.equal(res.status, 200);
  t.match(res.headers['content-type'], /^text\/csv; charset=utf-8/);
  const rows = csvRows(res.text);
  t.equal(rows[0].join(';'), REFERENCE_HEADER, 'the default column list of reference 5.2');
  t.equal(rows.length - 1, 22, '22 consultations');
  const id = res.headers['job-id'] as string;
  t.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, 'a random (v4) job id');
  t.equal(res.headers['job-report'], `${url}/${id}/job-report.json`);
  t.equal(res.headers['job-traces'], `${url}/${id}/job-traces.log`);
  t.equal(res.headers['lines-unknown-formats'], `${url}/${id}/lines-unknown-formats.log`);
  t.equal(res.headers['denied-ecs'], `${url}/${id}/denied-ecs.csv`);
  t.equal(res.headers['service-status'], undefined, 'no status header on success');
  t.equal(res.trailers['job-done'], 'true', 'the Job-Done trailer says the result is complete');
  const row = server.app.jobStore.get(id);
  t.equal(row?.state, 'done');
  t.equal(row?.events, 22);
  t.equal(row?.lines_read, 283);
});

t.test('JSON output equals the reference result on the fields that matter', async (t) => {
  const file = shared(t, 'datasets', 'sd.2012-11-30.300.log');
  const expectedFile = shared(t, 'datasets', 'sd.2012-11-30.300.result.json');
  if (!file || !expectedFile) return;
  const res = await post(url, readFileSync(file), { 'Log-Format-ezproxy': EZPROXY_DEFAULT, Accept: 'application/json', 'Crypted-Fields': 'none' });
  t.equal(res.status, 200);
  t.match(res.headers['content-type'], /^application\/json/);
  const got = res.json<Array<Record<string, unknown>>>();
  const expected = JSON.parse(readFileSync(expectedFile, 'utf8')) as Array<Record<string, unknown>>;
  t.equal(got.length, expected.length);
  const instant = (s: unknown) => Date.parse(String(s));
  for (let i = 0; i < expected.length; i++) {
    for (const k of ['platform', 'rtype', 'unitid', 'doi', 'print_identifier', 'login', 'host', 'status', 'size', 'url']) {
      if (k in expected[i]) t.equal(got[i][k], expected[i][k], `event ${i} ${k}`);
    }
    // The result file is from a 2012 parser: today's sd rows (shared/platforms/sd/test) give
    // tables of contents the mime HTML, not MISC, and every event a title_id (the ISSN's digits).
    t.equal(got[i].mime, expected[i].rtype === 'TOC' ? 'HTML' : expected[i].mime, `event ${i} mime`);
    if (expected[i].print_identifier) t.equal(got[i].title_id, String(expected[i].print_identifier).replace('-', ''), `event ${i} title_id`);
    t.equal(instant(got[i].datetime), instant(expected[i].datetime), `event ${i} instant`);
    t.equal(got[i].datetime, expected[i].datetime, 'the offset of the line is kept');
  }
});

t.test('auto-detection without a format header', async (t) => {
  const file = shared(t, 'datasets', 'sd.2012-11-30.300.log');
  if (!file) return;
  const res = await post(url, readFileSync(file), { Accept: 'application/jsonstream' });
  t.equal(res.status, 200);
  const lines = res.text.split('\n');
  t.equal(lines.length, 22, 'one object per line, no trailing newline');
  for (const l of lines) t.equal(typeof JSON.parse(l).unitid, 'string');
});

t.test('TSV and jsonstream', async (t) => {
  const tsv = await post(url, SD_LINE, { 'Log-Format-ezproxy': EZPROXY_DEFAULT, Accept: 'text/tab-separated-values' });
  t.match(tsv.headers['content-type'], /^text\/tab-separated-values/);
  t.match(tsv.text.split('\n')[0], /^datetime\tdate\tlogin\t/);
  const js = await post(url, SD_LINE, { 'Log-Format-ezproxy': EZPROXY_DEFAULT, Accept: 'application/jsonstream' });
  t.match(js.headers['content-type'], /^application\/json/);
  t.equal(JSON.parse(js.text).pii, 'S0967064508000301');
});

t.test('an empty Log-Format header counts as not given: the format is found by auto-detection', async (t) => {
  const res = await post(url, SD_LINE, { 'Log-Format-ezproxy': '' });
  t.equal(res.status, 200, res.headers['service-status-message'] as string);
  t.equal(csvRows(res.text).length, 2, 'the event of the line');
});

t.test('a Log-Format header of no known family (misspelt) is said in the report\'s alerts and in a refusal of the lines', async (t) => {
  const detected = await post(url, SD_LINE, { 'Log-Format-Ezprox': EZPROXY_DEFAULT });
  t.equal(detected.status, 200, 'the line matches a format found by auto-detection');
  const report = await (await fetch(`${url}/${String(detected.headers['job-id'])}/job-report.json`)).json() as { alerts: Record<string, string> };
  t.equal(report.alerts['alert-1'], 'Log-Format-Ezprox is not a log format header (known: Log-Format-ezproxy, -apache, -squid, -bibliopam): it was ignored, and the format was looked for among the known ones');
  const traces = await (await fetch(`${url}/${String(detected.headers['job-id'])}/job-traces.log`)).text();
  t.match(traces, /warn: Log-Format-Ezprox is not a log format header/);

  const custom = '1.2.3.4 Sess01 - JOHN [30/Nov/2012:10:00:00 +0100] "GET http://www.sciencedirect.com:80/science/article/pii/S0020706317300123 HTTP/1.1" 200 1 INSHS+CNRS\n';
  const refused = await post(url, custom, { 'Log-Format-ezprox': '%h %{session} %l %u %t "%r" %s %b %{groups}<[A-Z+]+>' });
  t.equal(refused.headers['service-status'], '4003');
  t.match(refused.headers['service-status-message'], /none of the 1 lines read matches the log format; Log-Format-Ezprox is not a log format header .*: it was ignored/);
});

t.test('Accept: unsupported → 406 code 4006, with the status headers and a JSON body', async (t) => {
  const res = await post(url, SD_LINE, { Accept: 'unsupported/format' });
  t.equal(res.status, 406);
  t.equal(res.headers['service-status'], '4006');
  t.equal(res.headers['ezpaarse-status'], '4006');
  t.match(res.headers['service-status-message'], /Requested format/);
  t.match(res.headers['content-type'], /^application\/json/);
  t.match(res.json(), { statusCode: 406, code: 4006 });
  const none = await post(url, SD_LINE, { Accept: '*/*;q=0' });
  t.equal(none.headers['service-status'], '4006', 'nothing at all acceptable (*/*;q=0): 4006 too, not the default CSV');
});

t.test('Output-Fields: + and -, and the errors 4012 and 4013', async (t) => {
  const res = await post(url, SD_LINE, { 'Log-Format-ezproxy': EZPROXY_DEFAULT, 'Output-Fields': '-url,-host,+pii,+newCol' });
  const header = csvRows(res.text)[0];
  t.ok(header.includes('pii') && header.includes('newCol'));
  t.notOk(header.includes('url') || header.includes('host'));
  const empty = await post(url, SD_LINE, { 'Output-Fields': ',+newCol' });
  t.equal(empty.status, 400);
  t.equal(empty.json<{ code: number }>().code, 4012);
  const op = await post(url, SD_LINE, { 'Output-Fields': '-url,newCol' });
  t.equal(op.status, 400);
  t.equal(op.json<{ code: number }>().code, 4013);
});

t.test('crypting: HMAC of host and login by default, salt and algorithm, 4004', async (t) => {
  const res = await post(url, SD_LINE, { 'Log-Format-ezproxy': EZPROXY_DEFAULT, Accept: 'application/json', 'Crypting-Salt': 'pepper' });
  const [ec] = res.json<Array<Record<string, string>>>();
  t.equal(ec.host, createHmac('sha1', 'pepper').update('1.2.3.4').digest('hex'));
  t.equal(ec.login, createHmac('sha1', 'pepper').update('JOHN').digest('hex'));
  const sha256 = await post(url, SD_LINE, { 'Log-Format-ezproxy': EZPROXY_DEFAULT, Accept: 'application/json', 'Crypting-Salt': 'pepper', 'Crypting-Algorithm': 'sha256' });
  t.equal(sha256.json<Array<Record<string, string>>>()[0].host, createHmac('sha256', 'pepper').update('1.2.3.4').digest('hex'));
  const none = await post(url, SD_LINE, { 'Log-Format-ezproxy': EZPROXY_DEFAULT, Accept: 'application/json', 'Crypted-Fields': 'none' });
  t.equal(none.json<Array<Record<string, string>>>()[0].host, '1.2.3.4');
  // a list a script joined: the workers once read it otherwise than the job, and every event was lost
  const joined = await post(url, SD_LINE, { 'Log-Format-ezproxy': EZPROXY_DEFAULT, Accept: 'application/json', 'Crypted-Fields': 'none,' });
  t.equal(joined.status, 200);
  t.equal(joined.json<Array<Record<string, string>>>()[0]?.host, '1.2.3.4', '"none," is none');
  const miscased = await post(url, SD_LINE, { 'Log-Format-ezproxy': EZPROXY_DEFAULT, 'Crypted-Fields': 'Host,Login' });
  t.equal(miscased.status, 400, 'Host for host: refused rather than left clear');
  t.match(miscased.json<{ code: number; message: string }>(), { code: 4032, message: /did you mean "host"/ });
  const bad = await post(url, SD_LINE, { 'Crypting-Algorithm': 'nohash' });
  t.equal(bad.status, 400);
  t.equal(bad.json<{ code: number }>().code, 4004);
  const a = await post(url, SD_LINE, { 'Log-Format-ezproxy': EZPROXY_DEFAULT, Accept: 'application/json' });
  const b = await post(url, SD_LINE, { 'Log-Format-ezproxy': EZPROXY_DEFAULT, Accept: 'application/json' });
  t.not(a.json<Array<Record<string, string>>>()[0].host, b.json<Array<Record<string, string>>>()[0].host, 'without a salt, hashes differ between jobs');
});

// A worker hashes log_id only once a line has become an event, unless a step reads it before
// (crypting, a double-click field, an external middleware): both ways give the same events.
t.test('log_id: the SHA-1 of the line, in its place, whether hashed early or late', async (t) => {
  const line = SD_LINE.slice(0, -1);
  const sha1 = createHash('sha1').update(line).digest('hex');
  const base = { 'Log-Format-ezproxy': EZPROXY_DEFAULT, Accept: 'application/json', 'Crypting-Salt': 'pepper' };
  const late = (await post(url, SD_LINE, base)).json<Array<Record<string, string>>>();
  t.equal(late.length, 1);
  t.equal(late[0].log_id, sha1, 'hashed late');
  const keys = Object.keys(late[0]);

  const crypted = (await post(url, SD_LINE, { ...base, 'Crypted-Fields': 'log_id' })).json<Array<Record<string, string>>>();
  t.equal(crypted[0].log_id, createHmac('sha1', 'pepper').update(sha1).digest('hex'), 'crypted: the HMAC of the hash');
  t.same(Object.keys(crypted[0]), keys, 'the same keys in the same order');

  // Two lines a second apart that differ only by host: with log_id as the C field they are two
  // consultations only if log_id is there when the double clicks are sorted out.
  const twice = `${SD_LINE}${SD_LINE.replace('1.2.3.4', '5.6.7.8').replace(':14:18', ':14:19')}`;
  const byLogId = (await post(url, twice, { ...base, 'Double-Click-C-Field': 'log_id', 'Double-Click-Strategy': 'C' })).json<Array<Record<string, string>>>();
  t.equal(byLogId.length, 2, 'distinct log_ids: no double click');
  t.equal(byLogId[0].log_id, sha1, 'hashed early, for the double-click step');
  t.same(Object.keys(byLogId[0]), keys);
});

t.test('Response-Charset and Response-Encoding', async (t) => {
  const line = SD_LINE.replace('JOHN', 'JOSÉ');
  const latin1 = await post(url, line, { 'Log-Format-ezproxy': '%h %l %{login}<[^ ]+> %t "%r" %s %b', 'Crypted-Fields': 'none', 'Response-Charset': 'latin1', Accept: 'application/jsonstream' });
  t.match(latin1.headers['content-type'], /charset=latin1/i, 'the charset actually used is announced');
  t.ok(latin1.bytes.includes(Buffer.from('JOS\xc9', 'latin1')), 'é written as one latin-1 byte');
  const gz = await post(url, SD_LINE, { 'Log-Format-ezproxy': EZPROXY_DEFAULT, 'Response-Encoding': 'gzip' }, { decompress: true });
  t.equal(gz.headers['content-encoding'], 'gzip');
  t.match(gz.text, /^datetime;/);
  const df = await post(url, SD_LINE, { 'Log-Format-ezproxy': EZPROXY_DEFAULT, 'Response-Encoding': 'deflate' }, { decompress: true });
  t.equal(df.headers['content-encoding'], 'deflate');
  t.match(df.text, /^datetime;/);
  const bad = await post(url, SD_LINE, { 'Response-Encoding': 'br' });
  t.equal(bad.status, 406);
  t.equal(bad.json<{ code: number }>().code, 4005);
  const badCharset = await post(url, SD_LINE, { 'Response-Charset': 'klingon' });
  t.equal(badCharset.status, 406);
  t.equal(badCharset.json<{ code: number }>().code, 4016);
});

t.test('Clean-Only keeps the original lines that pass the status filter', async (t) => {
  const file = shared(t, 'datasets', 'sd.multiple-status.log');
  if (!file) return;
  const res = await post(url, readFileSync(file), { 'Clean-Only': 'true', Accept: 'application/json' });
  t.equal(res.status, 200);
  t.match(res.headers['content-type'], /^text\/x-log/);
  const lines = res.text.split('\n').filter(Boolean);
  t.equal(lines.length, 4);
  t.same(lines.map((l) => l.split(' ').at(-2)), ['200', '304', '401', '403']);
});

t.test('no event: 200 with an empty body; Max-Parse-Attempts; no line at all: 4003', async (t) => {
  const wrong = shared(t, 'datasets', 'sd.wrong-first-line.log');
  if (wrong) {
    const res = await post(url, readFileSync(wrong), {});
    t.equal(res.status, 200);
    t.equal(res.text, '', 'no CSV header when there is no event');
    t.equal(res.headers['service-status'], undefined);
    const strict = await post(url, readFileSync(wrong), { 'Max-Parse-Attempts': '1' });
    t.equal(strict.status, 400);
    t.equal(strict.json<{ code: number }>().code, 4003);
  }
  const empty = await post(url, '', { 'Log-Format-ezproxy': EZPROXY_DEFAULT });
  t.equal(empty.status, 400);
  t.equal(empty.json<{ code: number }>().code, 4003);
  t.equal(empty.headers['service-status'], '4003');
  t.ok(empty.headers['job-id'], 'the job headers come with the error');
  const row = server.app.jobStore.get(empty.headers['job-id'] as string);
  t.equal(row?.state, 'failed');
  t.equal(row?.status_code, 4003);
});

t.test('format errors are answered before reading: 4027 naming the token, 4028', async (t) => {
  const unknown = await post(url, SD_LINE, { 'Log-Format-ezproxy': '%h %Z %u' });
  t.equal(unknown.status, 400);
  t.equal(unknown.json<{ code: number }>().code, 4027);
  t.match(unknown.headers['service-status-message'], /%Z/);
  const badRegex = await post(url, SD_LINE, { 'Log-Format-ezproxy': '%h %{x}<[a-z+> %u' });
  t.equal(badRegex.status, 400);
  t.equal(badRegex.json<{ code: number }>().code, 4027);
  const unclosed = await post(url, SD_LINE, { 'Log-Format-ezproxy': '%h %{bogus' });
  t.match(unclosed.json<{ message: string }>().message, '%{bogus… at character 4');
  t.match(unclosed.headers['service-status-message'], '%{bogus... at character 4', 'the header spells the ellipsis in ASCII');
  const badDate = await post(url, SD_LINE, { 'Log-Format-ezproxy': EZPROXY_DEFAULT, 'Date-Format': 'QQQQ' });
  t.equal(badDate.status, 400);
  t.equal(badDate.json<{ code: number }>().code, 4028);
});

t.test('a Date-Format that reads none of the dates: 4003 that says so, not an empty answer', async (t) => {
  const res = await post(url, SD_LINE.repeat(12), { 'Log-Format-ezproxy': EZPROXY_DEFAULT, 'Date-Format': 'YYYY-MM-DD HH:mm:ss' });
  t.equal(res.status, 400);
  t.equal(res.json<{ code: number }>().code, 4003);
  t.match(res.headers['service-status-message'], /their dates do not read with the date format "YYYY-MM-DD HH:mm:ss": set Date-Format/);
  // fewer lines than Max-Parse-Attempts: the end of the input says it too
  const short = await post(url, SD_LINE.repeat(2), { 'Log-Format-ezproxy': EZPROXY_DEFAULT, 'Date-Format': 'YYYY-MM-DD HH:mm:ss' });
  t.equal(short.json<{ code: number }>().code, 4003);
  t.match(short.headers['service-status-message'], /the 2 lines read match the log format, but their dates do not read with the date format "YYYY-MM-DD HH:mm:ss": set Date-Format/);
  // a first line whose date is wrong is an unknown format; the lines after it go through
  const bad = SD_LINE.replace('30/Nov/2012', '31/Foo/2012');
  const mixed = await post(url, bad + SD_LINE, { 'Log-Format-ezproxy': EZPROXY_DEFAULT, 'Reject-Files': 'unknown-formats' });
  t.equal(mixed.status, 200);
  t.equal(csvRows(mixed.text).length, 2, 'one event');
  const rejects = await fetch(`${url}/${mixed.headers['job-id']}/lines-unknown-formats.log`);
  t.equal(await rejects.text(), bad);
});

t.test('other header errors: 4015, 4029, 4030, 4033', async (t) => {
  for (const [h, v, code, http] of [
    ['Request-Charset', 'klingon', 4015, 406], ['Reject-Files', 'nosuch', 4029, 400], ['Traces-Level', 'loud', 4030, 400],
    ['Force-Parser', 'nosuchplatform', 4033, 400], ['Filter-Platforms', 'sd,nosuch', 4033, 400], ['Geoip', 'geoip-nothing', 4019, 400],
    ['ezPAARSE-Filter-Status', 'abc', 4032, 400],
  ] as const) {
    const res = await post(url, SD_LINE, { [h]: v });
    t.equal(res.status, http, `${h}: ${v}`);
    t.equal(res.json<{ code: number }>().code, code, `${h}: ${v}`);
  }
  const mixed = await post(url, SD_LINE, { 'Reject-Files': 'none,all' });
  t.equal(mixed.json<{ code: number }>().code, 4029);
  t.match(mixed.headers['service-status-message'], /none stands alone/, 'none or all with others: said so, not "unknown"');
});

t.test('Extract: new fields from a field (cut-test), in the CSV columns after the geolocation', async (t) => {
  const acs = '172.28.4.47 - THEODORE_MCCLURE [06/Jan/2016:16:23:38 +0100] "GET http://pubs.acs.org:80/doi/pdf/10.1021/nn901499c HTTP/1.1" 200 2981936\n';
  const headers = { 'Log-Format-ezproxy': EZPROXY_DEFAULT, 'Crypted-Fields': 'none' };
  for (const [extract, expected] of [
    ['login => /^(\\w+)\\w_\\w(\\w+)$/i => firstname,lastname', { firstname: 'THEODOR', lastname: 'CCLURE' }],
    ['login => split(/[od_]+/i) => first,second,third', { first: 'THE', second: 'RE', third: 'MCCLURE' }],
    ['login => split(_) => firstname,lastname', { firstname: 'THEODORE', lastname: 'MCCLURE' }],
  ] as const) {
    const res = await post(url, acs, { ...headers, Extract: extract, Accept: 'application/jsonstream' });
    t.equal(res.status, 200, extract);
    t.match(JSON.parse(res.text), { login: 'THEODORE_MCCLURE', doi: '10.1021/nn901499c', ...expected }, extract);
  }
  const csv = await post(url, acs, { ...headers, Extract: 'login => split(_) => firstname,lastname' });
  const [columns, row] = csvRows(csv.text);
  t.same(columns.slice(columns.indexOf('geoip-longitude') + 1, columns.indexOf('host')), ['firstname', 'lastname'], 'after the geolocation, before the format properties');
  t.same([row[columns.indexOf('firstname')], row[columns.indexOf('lastname')]], ['THEODORE', 'MCCLURE']);
  t.match(row[columns.indexOf('middlewares')], /geolocalizer, cut, on-campus-counter/, 'cut in the chain, where the reference has it');
  // no Extract header: no new columns
  t.notOk(csvRows((await post(url, acs, headers)).text)[0].includes('firstname'));
  // a chain without cut: the header is checked, not applied
  const noCut = await post(url, acs, { ...headers, Extract: 'login => split(_) => firstname,lastname', 'ezPAARSE-Middlewares': '(only) filter, parser', Accept: 'application/jsonstream' });
  t.equal(JSON.parse(noCut.text).firstname, undefined);
});

t.test('Extract: a malformed expression is refused before any line is read (4032)', async (t) => {
  for (const bad of ['login => invalid => firstname', 'login invalid => firstname', 'login => /(/ => a']) {
    const res = await post(url, SD_LINE, { 'Log-Format-ezproxy': EZPROXY_DEFAULT, Extract: bad });
    t.equal(res.status, 400, bad);
    t.equal(res.json<{ code: number }>().code, 4032, bad);
    t.match(res.headers['service-status-message'], /Extract: invalid extract expression/, bad);
  }
});

t.test('Extract with the reference dataset (cut.log)', async (t) => {
  const file = shared(t, 'datasets', 'cut.log');
  if (!file) return;
  const res = await post(url, readFileSync(file), { Extract: 'login => split(_) => firstname,lastname', 'Crypted-Fields': 'none', Accept: 'application/jsonstream' });
  t.equal(res.status, 200);
  const events = res.text.split('\n').map((l) => JSON.parse(l) as Record<string, string>);
  t.ok(events.length > 0);
  for (const ec of events) t.same([ec.firstname, ec.lastname], ec.login.split('_').slice(0, 2), ec.login);
});

t.test('custom fields and quotes (custom-fields-test)', async (t) => {
  const file = shared(t, 'datasets', 'customformat.log');
  if (!file) return;
  const res = await post(url, readFileSync(file), {
    'Log-Format-ezproxy': '%u %{col1}<[0-9]+> %t "%r" %{col2}<"[A-Z]+">', Accept: 'text/csv', 'Crypted-Fields': 'disabled',
  });
  const rows = csvRows(res.text);
  t.equal(rows.length, 2);
  t.ok(rows[0].includes('col1') && rows[0].includes('col2'));
  t.ok(rows[1].includes('chucknorris') && rows[1].includes('012') && rows[1].includes('ABC'));
});

t.test('information routes: codes', async (t) => {
  const codes = await fetch(`${url}/info/codes`).then((r) => r.json()) as Record<string, string>;
  t.equal(codes['4003'], 'Line format was not recognized');
  t.ok(codes['4027'] && codes['5002'], 'logsift codes listed too');
  const one = await fetch(`${url}/api/info/codes/4022`);
  t.equal(await one.json(), 'No line breaks detected');
  t.equal((await fetch(`${url}/info/codes/9999`)).status, 404);
  t.equal((await fetch(`${url}/info/codes/abc`)).status, 404);
});

t.test('platform headers: Force-Parser, Force-ECField-Publisher, Allow-Domain-Wildcards; Date-Format; notifications', async (t) => {
  const relative = '1.2.3.4 - JOHN [30/Nov/2012:00:14:18 +0100] "GET /science/article/pii/S0967064508000301 HTTP/1.1" 200 2248\n';
  const none = await post(url, relative, { 'Log-Format-ezproxy': EZPROXY_DEFAULT });
  t.equal(none.text, '', 'a relative URL has no domain: filtered');
  const forced = await post(url, relative, { 'Log-Format-ezproxy': EZPROXY_DEFAULT, 'Force-Parser': 'sd', Accept: 'application/json' });
  t.equal(forced.json<Array<{ platform: string; unitid: string }>>()[0].unitid, 'S0967064508000301', 'Force-Parser recognises it');
  const publisher = await post(url, SD_LINE, { 'Log-Format-ezproxy': EZPROXY_DEFAULT, 'Force-ECField-Publisher': 'My Press', Accept: 'application/json' });
  t.equal(publisher.json<Array<{ publisher_name: string }>>()[0].publisher_name, 'My Press');
  const bmjLine = '1.2.3.4 - JOHN [30/Nov/2012:00:14:18 +0100] "GET http://bjsm.bmj.com/content/45/2/129.full.pdf HTTP/1.1" 200 2248\n';
  const noWild = await post(url, bmjLine, { 'Log-Format-ezproxy': EZPROXY_DEFAULT, 'Reject-Files': 'unknown-domains' });
  const wild = await post(url, bmjLine, { 'Log-Format-ezproxy': EZPROXY_DEFAULT, 'Allow-Domain-Wildcards': 'true', Accept: 'application/json' });
  const routed = wild.text === '' ? [] : wild.json<Array<{ platform: string }>>();
  t.ok(noWild.text === '' && (routed.length === 0 || routed[0].platform === 'bmj'), 'a *.bmj.com host is routed only with wildcards');
  const dated = await post(url, '2012-11-30 00:14:18 1.2.3.4 http://www.sciencedirect.com/science/article/pii/S0967064508000301\n', {
    'Log-Format-ezproxy': '%{datetime}<[0-9-]+ [0-9:]+> %h %U', 'Date-Format': 'YYYY-MM-DD HH:mm:ss', Accept: 'application/json',
  });
  t.match(dated.json<Array<{ datetime: string }>>()[0].datetime, /^2012-11-30T00:14:18/);
  const mail = await post(url, SD_LINE, { 'Log-Format-ezproxy': EZPROXY_DEFAULT, 'ezPAARSE-Job-Notifications': 'mail<a@example.org>' });
  t.equal(mail.status, 200, 'a mail notification is accepted (and said not sent in the traces)');
  const other = await post(url, SD_LINE, { 'ezPAARSE-Job-Notifications': 'sms<0600>' });
  t.equal(other.status, 406);
  t.equal(other.json<{ code: number }>().code, 4021);
});
