import t from 'tap';
import { request, type IncomingMessage } from 'node:http';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import iconv from 'iconv-lite';
import { startApp, EZPROXY_DEFAULT } from '../helpers/app.js';
import { post, csvRows, multipart } from '../helpers/http.js';
import { shared } from '../helpers/shared.js';

// CSV re-injection (reference 1.2): a CSV file of events instead of log lines.

const server = await startApp({}, { POOL_THREADS: '1' });
t.teardown(() => server.close());
const url = server.url;

const HEAD = 'host;login;datetime;url;status;size\n';
const ARTICLE = '1.2.3.4;JOHN;2012-11-30T00:14:18+01:00;http://www.sciencedirect.com:80/science/article/pii/S0967064508000301;200;2248\n';
const PDF = '1.2.3.5;ANNE;2012-11-30 00:15:18+01:00;http://pdn.sciencedirect.com:80/science?_ob=MiamiImageURL&_pii=S0960982213001917;200;24846\n';
const NONE = { 'Crypted-Fields': 'none' };

const report = (id: unknown) => JSON.parse(readFileSync(`${server.varDir}/jobs/${String(id)}/report.json`, 'utf8'));

t.test('the reference\'s re-injection test: sd.2012-11-30.300.csv gives the events of its result', async (t) => {
  const csv = shared(t, 'datasets', 'sd.2012-11-30.300.csv');
  const expected = shared(t, 'datasets', 'sd.2012-11-30.300.result.json');
  if (!csv || !expected) return;
  const json = await post(url, readFileSync(csv), { 'Content-Type': 'text/csv', Accept: 'application/json', ...NONE });
  t.equal(json.status, 200);
  const got = json.json<Array<Record<string, unknown>>>();
  const want = JSON.parse(readFileSync(expected, 'utf8')) as Array<Record<string, unknown>>;
  t.equal(got.length, 22);
  const instants = (events: Array<Record<string, unknown>>) => events.map((e) => Date.parse(String(e.datetime)));
  t.same(instants(got), instants(want), 'the same events, at the same instants');
  t.same(got.map((e) => e.unitid), want.map((e) => e.unitid));
  const csvOut = await post(url, readFileSync(csv), { 'Content-Type': 'text/csv', Accept: 'text/csv', ...NONE });
  const header = csvRows(csvOut.text)[0];
  for (const column of ['host', 'login', 'datetime', 'url', 'status', 'size', 'arbitrary-id']) t.ok(header.includes(column), `the output has the input's column ${column}`);
  const r = report(csvOut.headers['job-id']);
  t.equal(r.general['input-format-proxy'], 'csv');
  t.equal(r.general['input-format-literal'], 'host;login;datetime;url;status;size;arbitrary-id');
  t.equal(r.general['nb-lines-input'], 283, 'each row (the file has 283 under its header) is a line read');
});

t.test('a CSV body: any of its content types with parameters, gzip, the request charset', async (t) => {
  const plain = await post(url, HEAD + ARTICLE + PDF, { 'Content-Type': 'text/csv; charset=utf-8', ...NONE });
  t.equal(plain.status, 200);
  const rows = csvRows(plain.text);
  t.equal(rows.length, 3, 'two events');
  const col = (name: string) => rows.slice(1).map((r) => r[rows[0].indexOf(name)]);
  t.same(col('rtype'), ['ARTICLE', 'ARTICLE']);
  t.same(col('mime'), ['HTML', 'PDF']);
  t.same(col('datetime'), ['2012-11-30T00:14:18+01:00', '2012-11-30T00:15:18+01:00'], 'ISO 8601 dates, T or space');
  t.same(col('domain'), ['www.sciencedirect.com', 'pdn.sciencedirect.com'], 'URLs normalised as a log line\'s');

  const gz = await post(url, gzipSync(HEAD + ARTICLE), { 'Content-Type': 'application/vnd.ms-excel', 'Content-Encoding': 'gzip', ...NONE });
  t.equal(csvRows(gz.text).length, 2, 'a gzip body (the reference did not gunzip CSV)');

  const latin1 = await post(url, iconv.encode(HEAD + ARTICLE.replace('JOHN', 'JÉRÔME'), 'latin1'), { 'Content-Type': 'text/csv', 'Request-Charset': 'latin1', ...NONE });
  const l1 = csvRows(latin1.text);
  t.equal(l1[1][l1[0].indexOf('login')], 'JÉRÔME', 'decoded with Request-Charset (the reference did not)');

  const epoch = await post(url, 'timestamp;url\n1354230858;http://www.sciencedirect.com:80/science/article/pii/S0967064508000301\n', { 'Content-Type': 'text/csv', ...NONE });
  const e = csvRows(epoch.text);
  t.equal(Date.parse(e[1][e[0].indexOf('datetime')]), 1354230858_000, 'a timestamp column dates the event');

  const logLike = await post(url, HEAD + ARTICLE, { 'Content-Type': 'text/plain', 'Log-Format-ezproxy': EZPROXY_DEFAULT });
  t.equal(logLike.status, 400, 'other content types are log lines');
});

t.test('multipart: a file named .csv or .csv.gz, or typed CSV, is a CSV of events', async (t) => {
  const { body, type } = multipart([
    { name: 'a.csv', type: 'application/octet-stream', data: HEAD + ARTICLE },
    { name: 'b.csv.gz', type: 'application/gzip', data: gzipSync(HEAD + PDF) },
    { name: 'c.txt', type: 'text/csv', data: HEAD + ARTICLE.replace('00:14:18', '00:16:18') },
  ]);
  const res = await post(url, body, { 'Content-Type': type, ...NONE });
  t.equal(res.status, 200);
  t.equal(csvRows(res.text).length, 4, 'three files, three events');
});

t.test('rows that give no event are rejected like lines, as their JSON', async (t) => {
  const bad = '9.9.9.9;X;yesterday;http://www.sciencedirect.com/science/article/pii/S0967064508000301;200;1\n';
  const ragged = '1.2.3.6;ZOE;2012-11-30T00:17:18+01:00;http://www.sciencedirect.com:80/science/article/pii/S0967064508000399\n';
  const res = await post(url, HEAD + ARTICLE + bad + ragged, { 'Content-Type': 'text/csv', 'Reject-Files': 'unknown-formats', Accept: 'application/json', ...NONE });
  t.equal(res.status, 200);
  const events = res.json<Array<Record<string, string>>>();
  t.equal(events.length, 2, 'the short row is an event (ragged rows are tolerated)');
  t.notOk('status' in events[1], 'its missing cells are absent fields');
  const row = { host: '1.2.3.4', login: 'JOHN', datetime: '2012-11-30T00:14:18+01:00', url: 'http://www.sciencedirect.com:80/science/article/pii/S0967064508000301', status: '200', size: '2248' };
  t.equal(events[0].log_id, createHash('sha1').update(JSON.stringify(row)).digest('hex'), 'log_id: SHA-1 of the row\'s JSON, as the reference');
  const id = res.headers['job-id'] as string;
  const rejected = readFileSync(`${server.varDir}/jobs/${id}/lines-unknown-formats.log`, 'utf8');
  t.same(JSON.parse(rejected), { host: '9.9.9.9', login: 'X', datetime: 'yesterday', url: 'http://www.sciencedirect.com/science/article/pii/S0967064508000301', status: '200', size: '1' }, 'the unknown format\'s line is its row as JSON');
  t.equal(report(id).rejets['nb-lines-unknown-formats'], 1);
});

t.test('bad CSV gets a clear error, and the service goes on', async (t) => {
  const unclosed = await post(url, HEAD + '1.2.3.4;"JOHN\n' + ARTICLE.repeat(5000), { 'Content-Type': 'text/csv' });
  t.equal(unclosed.status, 400);
  t.equal(unclosed.json<{ code: number }>().code, 4022, 'a quoted cell that never closes');
  t.match(unclosed.headers['service-status-message'], /closing quote/);
  const midQuote = await post(url, HEAD + '1.2.3.4;"ab"x;https://a.example/\n', { 'Content-Type': 'text/csv' });
  t.equal(midQuote.status, 400, 'a quote closed in the middle of a cell: the client\'s error, not a 500');
  t.match(midQuote.json<{ code: number; message: string }>(), { code: 4003, message: /cannot be read.*doubled/ });
  const empty = await post(url, '', { 'Content-Type': 'text/csv' });
  t.equal(empty.json<{ code: number }>().code, 4003, 'no row at all');
  const headerOnly = await post(url, HEAD, { 'Content-Type': 'text/csv' });
  t.equal(headerOnly.status, 200, 'a header and no row: no event');
  t.equal(headerOnly.text, '');

  const { body, type } = multipart([
    { name: 'a.log', type: 'text/plain', data: ARTICLE.replace(/;/g, ' ') },
    { name: 'b.csv', type: 'text/csv', data: HEAD + ARTICLE },
  ]);
  const mixed = await post(url, body, { 'Content-Type': type, 'Log-Format-ezproxy': '%h %u %t %U %s %b' });
  const row = server.app.jobStore.get(mixed.headers['job-id'] as string);
  t.equal(row?.status_code, 4003, 'log lines and CSV events in one job');
  t.match(mixed.headers['service-status-message'] ?? mixed.trailers['service-status-message'], /separate jobs/);

  const comma = await post(url, HEAD.replace(/;/g, ',') + ARTICLE.replace(/;/g, ','), { 'Content-Type': 'text/csv' });
  t.equal(comma.headers['service-status'], '4003', 'a CSV saved with "," separators');
  t.match(comma.headers['service-status-message'], /separated by ";"/);
  const undated = await post(url, 'host;url\n1.2.3.4;http://www.sciencedirect.com/science/article/pii/S0967064508000301\n', { 'Content-Type': 'text/csv' });
  t.equal(undated.headers['service-status'], '4003', 'no column to date the events by');
  t.match(undated.headers['service-status-message'], /no datetime, timestamp or epoch column/);
  t.notMatch(undated.headers['service-status-message'], /Log-Format/, 'no log format given: no word of it');
  // a log sent as text/csv (Content-Type taken for Accept): the refusal says what made it CSV
  const log = '1.2.3.4 - JOHN [30/Nov/2012:00:14:18 +0100] "GET http://www.sciencedirect.com:80/science/article/pii/S0967064508000301 HTTP/1.1" 200 2248\n';
  const logAsCsv = await post(url, log, { 'Content-Type': 'text/csv', 'Log-Format-ezproxy': EZPROXY_DEFAULT });
  t.equal(logAsCsv.headers['service-status'], '4003');
  t.match(logAsCsv.headers['service-status-message'], /it was read as CSV \(the request's Content-Type says CSV\), not with the Log-Format-ezproxy given: send a log as text\/plain$/);
  const traces = await (await fetch(`${url}/${String(logAsCsv.headers['job-id'])}/job-traces.log`)).text();
  t.match(traces, /The request body is read as CSV events \(the request's Content-Type says CSV\): the log format given \(Log-Format-ezproxy\) is not used/);

  for (const type of ['text/tab-separated-values', 'application/json']) {
    const back = await post(url, HEAD.replace(/;/g, '\t') + ARTICLE.replace(/;/g, '\t'), { 'Content-Type': type });
    t.equal(back.headers['service-status'], '4003', `a ${type} result sent back`);
    t.match(back.headers['service-status-message'], /must be CSV \(;-separated, Content-Type: text\/csv\)/);
  }

  const after = await post(url, HEAD + ARTICLE, { 'Content-Type': 'text/csv' });
  t.equal(after.status, 200, 'the service goes on');
});

t.test('a CSV of megabytes whose answer is read late: every row (see csv-events.test.ts for the false 4022 this once gave)', async (t) => {
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  let text = 'datetime;url;host;status\n';
  for (let i = 0; i < 40_000; i++) text += `2024-03-04T${pad(Math.floor(i / 3600) % 24)}:${pad(Math.floor(i / 60) % 60)}:${pad(i % 60)}+01:00;https://www.sciencedirect.com/science/article/pii/S09670645080${pad(i, 5)};10.0.0.1;200\n`;
  // the answer read only after a pause: the job waits for it while the upload keeps coming
  const req = request(url, { method: 'POST', headers: { 'Content-Type': 'text/csv', 'Double-Click-Removal': 'false', TE: 'trailers' } });
  req.end(text);
  const [res] = (await once(req, 'response')) as [IncomingMessage];
  res.pause();
  await sleep(1500);
  let answer = '';
  for await (const chunk of res) answer += chunk;
  t.equal(res.trailers['job-done'], 'true', `${(text.length / 1e6).toFixed(1)} MB: the job done`);
  t.equal(csvRows(answer).length - 1, 40_000, 'every row an event');
});

/** Strict RFC 4180 with `sep`: a CR, LF or `"` in an unquoted cell, or text after a closing quote, throws. */
function strictRows(text: string, sep: string): string[][] {
  const rows: string[][] = [];
  let i = 0;
  while (i < text.length) {
    const row: string[] = [];
    for (;;) {
      let cell = '';
      if (text[i] === '"') {
        for (i++; ; i++) {
          if (i >= text.length) throw new Error('unterminated quote');
          if (text[i] === '"') {
            if (text[i + 1] !== '"') break;
            i++;
          }
          cell += text[i];
        }
        i++;
        if (i < text.length && text[i] !== sep && text[i] !== '\n') throw new Error(`text after a closing quote at ${i}`);
      } else {
        while (i < text.length && text[i] !== sep && text[i] !== '\n') {
          if (text[i] === '\r' || text[i] === '"') throw new Error(`${JSON.stringify(text[i])} in an unquoted cell at ${i}`);
          cell += text[i++];
        }
      }
      row.push(cell);
      if (text[i] === sep) { i++; continue; }
      i++; // the row's \n
      break;
    }
    rows.push(row);
  }
  return rows;
}

const objects = (rows: string[][]) => rows.slice(1).map((r) => Object.fromEntries(rows[0].map((name, i) => [name, r[i]])));

t.test('a round trip of CR, LF, __proto__ and _x columns: every format parses strictly and keeps what it can', async (t) => {
  const q = (s: string) => '"' + s.replaceAll('"', '""') + '"';
  const values = ['a\rb', 'a\nb', 'x\n#logsift-error 5003 service shutting down', 'c\r\nd'];
  const columns = ['datetime', 'url', 'login', '__proto__', '_x', '_line', 'note'];
  let csv = columns.join(';') + '\n';
  values.forEach((v, i) => {
    csv += [`2012-11-30T00:13:1${i}+01:00`, `http://www.sciencedirect.com/science/article/pii/S096706450800030${i}`, `u${i}`, 'P', 'X', 'L', q(v)].join(';') + '\n';
  });
  const H = { 'Content-Type': 'text/csv', ...NONE };
  const asCsv = await post(url, csv, { ...H, Accept: 'text/csv' });
  t.equal(asCsv.status, 200);
  const rows = objects(strictRows(asCsv.text, ';'));
  t.same(rows.map((r) => r.note), ['a\rb', 'ab', 'x#logsift-error 5003 service shutting down', 'c\rd'], 'CR kept (quoted), LF deleted');
  t.same(rows.map((r) => [r.__proto__, r._x, r._line]), values.map(() => ['P', 'X', 'L']));

  // logsift reads its own CSV back: one line per row, the values it wrote
  const again = await post(url, asCsv.text, { ...H, Accept: 'application/json' });
  t.equal(again.status, 200);
  const back = again.json<Array<Record<string, unknown>>>();
  t.same(back.map((e) => e.note), ['a\rb', 'ab', 'x#logsift-error 5003 service shutting down', 'c\rd']);
  t.same(back.map((e) => Object.hasOwn(e, '__proto__') && e.__proto__), values.map(() => 'P'));
  t.equal(report(again.headers['job-id']).general['nb-lines-input'], 4, 'one line read per row');

  const tsv = await post(url, csv, { ...H, Accept: 'text/tab-separated-values' });
  t.notOk(tsv.text.split('\n').some((l) => l.startsWith('#logsift-error')), 'no forged error marker');
  const tsvRows = objects(strictRows(tsv.text, '\t'));
  t.same(tsvRows.map((r) => r.note), ['a\rb', 'ab', 'x#logsift-error 5003 service shutting down', 'c\rd']);
  t.same(tsvRows.map((r) => r.__proto__), values.map(() => 'P'));

  for (const accept of ['application/json', 'application/jsonstream']) {
    const res = await post(url, csv, { ...H, Accept: accept });
    const events = accept === 'application/json' ? res.json<Array<Record<string, unknown>>>() : res.text.split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    t.same(events.map((e) => e.note), values, `${accept}: values whole`);
    t.same(events.map((e) => [Object.hasOwn(e, '__proto__') && e.__proto__, e._x, e._line]), values.map(() => ['P', 'X', 'L']), `${accept}: __proto__ and _ fields kept`);
  }

  const clean = await post(url, csv, { ...H, 'Clean-Only': 'true' });
  const cleanLines = clean.text.split('\n').filter((l) => l !== '');
  t.equal(cleanLines.length, 4);
  t.ok(cleanLines.every((l) => JSON.parse(l)._line === 'L'), 'Clean-Only writes each row\'s line, not its _line field');

  const odd = await post(url, csv, { ...H, Accept: 'text/csv', 'Output-Fields': '+constructor,+toString,+hasOwnProperty' });
  const oddRows = objects(strictRows(odd.text, ';'));
  t.same(oddRows.map((r) => [r.constructor, r.toString, r.hasOwnProperty]), values.map(() => ['', '', '']), 'nothing inherited is written');
});

t.test('a multipart file is decoded with its own Content-Type charset, as a plain body is (Request-Charset still wins)', async (t) => {
  const latin1 = iconv.encode(HEAD + ARTICLE.replace('JOHN', 'JÉRÔME'), 'latin1');
  const login = (text: string) => { const rows = csvRows(text); return rows[1][rows[0].indexOf('login')]; };
  const csvPart = multipart([{ name: 'a.csv', type: 'text/csv; charset=iso-8859-1', data: latin1 }]);
  t.equal(login((await post(url, csvPart.body, { 'Content-Type': csvPart.type, ...NONE })).text), 'JÉRÔME', 'a CSV file');
  const asUtf8 = await post(url, csvPart.body, { 'Content-Type': csvPart.type, 'Request-Charset': 'utf-8', ...NONE });
  t.equal(login(asUtf8.text), 'J\ufffdR\ufffdME', 'Request-Charset wins');

  const line = iconv.encode('1.2.3.4 - j [30/Nov/2012:00:14:18 +0100] "GET http://www.sciencedirect.com:80/science/article/pii/S0967064508000301 HTTP/1.1" 200 2248 JÉRÔME\n', 'latin1');
  const logParts = multipart([
    { name: 'a.log', type: 'text/plain; charset=iso-8859-1', data: line },
    { name: 'b.log', type: 'text/plain', data: Buffer.from(line.toString('latin1').replace('00:14:18', '00:15:18'), 'utf8') },
  ]);
  const logs = await post(url, logParts.body, { 'Content-Type': logParts.type, 'Log-Format-ezproxy': '%h %l %u %t "%r" %s %b %{who}<.+>', 'Output-Fields': '+who', ...NONE });
  t.equal(logs.status, 200);
  const rows = csvRows(logs.text);
  t.same(rows.slice(1).map((r) => r[rows[0].indexOf('who')]), ['JÉRÔME', 'JÉRÔME'], 'a log file in latin1 beside one in UTF-8');
});
