import t from 'tap';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testApp } from '../helpers/accounts.js';

const LINE = '1.2.3.4 - JOHN [30/Nov/2012:00:14:18 +0100] "GET http://www.sciencedirect.com:80/science/article/pii/S0967064508000301 HTTP/1.1" 200 224846';

t.test('PUT /api/format/logparser', async (t) => {
  const ta = await testApp(t, { FORMAT_TEST_BUDGET_MS: '300' });
  const put = (payload: unknown) => ta.inject({ method: 'PUT', url: '/api/format/logparser', payload: payload as object });

  t.test('auto-detection on the first line: the format, its regex and the event', async (t) => {
    const res = await put({ logLines: `${LINE}\n${LINE}\nnot a log line\n` });
    t.equal(res.statusCode, 200);
    t.match(res.json(), {
      autoDetect: true, proxy: 'ezproxy', format: '%h %l %u %t "%r" %s %b', regexp: /^\/\^.*\$\/$/, strictMatch: true,
      recognised: true, formatBreak: null, regexpBreak: null, breakAt: null, missing: [],
      ec: { host: '1.2.3.4', login: 'JOHN', datetime: '2012-11-30T00:14:18+01:00', date: '2012-11-30', timestamp: 1354230858, domain: 'www.sciencedirect.com', status: '200', size: '224846' },
      lines: { tested: 3, matching: 2 },
    });
  });

  t.test('a wrong date format: the lines do not count as matching, as in a job (4003)', async (t) => {
    const sd = '247.63.228.176 - X [30/Nov/2012:00:14:17 +0100] "GET http://www.sciencedirect.com:80/science/journal/00121606 HTTP/1.1" 200 224846';
    const res = await put({ logLines: sd, dateFormat: 'YYYY-MM-DD' });
    t.equal(res.statusCode, 200);
    t.match(res.json(), { strictMatch: true, recognised: false, missing: ['date'], lines: { tested: 1, matching: 0 } });
    t.match((await put({ logLines: sd })).json(), { recognised: true, lines: { matching: 1 } }, 'with the right one');
  });

  t.test('a given format that breaks: how far it goes', async (t) => {
    const res = await put({ logLines: LINE, format: '%h %l %u %t %s "%r"', proxy: 'ezproxy' });
    t.equal(res.statusCode, 200);
    t.match(res.json(), { autoDetect: false, strictMatch: false, formatBreak: '%h %l %u %t ', breakAt: { format: 12, line: 44 }, ec: null, missing: ['date', 'url', 'domain'] });
    t.match(res.json().regexpBreak, /^\/\^.*\\\] \/$/);
  });

  t.test('what the event lacks', async (t) => {
    const noDate = await put({ logLines: 'bob /path/x 200', format: '%u %U %s', proxy: 'apache' });
    t.match(noDate.json(), { strictMatch: true, missing: ['date', 'domain'], ec: { login: 'bob', url: '/path/x' } });
    const noUrl = await put({ logLines: '10.0.0.1 [30/Nov/2012:00:14:18 +0100]', format: '%h %t', proxy: 'ezproxy' });
    t.match(noUrl.json(), { strictMatch: true, missing: ['url', 'domain'] });
    const dated = await put({ logLines: '2024-03-01 10:11:12 http://a.org/x', format: '%{datetime}<[0-9: -]+> %{url}<[^ ]+>', dateFormat: 'YYYY-MM-DD HH:mm:ss' });
    t.match(dated.json(), { missing: [], ec: { date: '2024-03-01', domain: 'a.org' } });
  });

  t.test('bad input: 400 with a code and what to fix', async (t) => {
    const bad = await put({ logLines: LINE, format: '%h %Q' });
    t.equal(bad.statusCode, 400);
    t.match(bad.json(), { message: 'invalidFormat', detail: /unknown EZproxy directive %Q/, position: 3 });
    t.equal((await put({ logLines: LINE, dateFormat: 'YYYY-QQ' })).json().message, 'invalidDateFormat');
    t.equal((await put({ logLines: 'x'.repeat(9000) })).json().message, 'lineTooLong');
    const tooMuch = await put({ logLines: `${'x'.repeat(100)}\n`.repeat(700) });
    t.equal(tooMuch.statusCode, 400, 'more text than the limit');
    t.equal(tooMuch.json().message, 'tooMuchText', 'said as such, in ASCII as in other scripts');
    t.equal((await put({ logLines: `${'é'.repeat(100)}\n`.repeat(400) })).json().message, 'tooMuchText');
    t.equal((await put({ logLines: LINE, proxy: 'nginx' })).statusCode, 400);
    t.equal((await put({ format: '%h' })).statusCode, 400, 'logLines is required');
  });

  t.test('a catastrophic regex is answered within the budget', async (t) => {
    // Exponential backtracking: (a+)+ on a run of a's that cannot end with b.
    const lines = Array.from({ length: 20 }, () => `${'a'.repeat(40)}!`).join('\n');
    const started = Date.now();
    const res = await put({ logLines: lines, format: '%{x}<(a+)+b>' });
    const took = Date.now() - started;
    t.equal(res.statusCode, 422);
    t.match(res.json(), { message: 'tooCostly', code: 4038 });
    t.ok(took < 3000, `answered in ${took} ms`);
    const after = await put({ logLines: LINE });
    t.equal(after.statusCode, 200, 'the tester still works afterwards');
  });
});

t.test('PUT /api/format/discover: the predefined settings whose log format reads the pasted lines', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'logsift-discover-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'institutions.json'), JSON.stringify({
    'univ-a': { fullName: 'University A', country: 'FR', headers: { 'Log-Format-ezproxy': '%h %l %u %t "%r" %s %b "%{ezproxy-session}i"' } },
    'univ-b': { fullName: 'University B', country: 'BE', headers: { 'Log-Format-ezproxy': '%h %l %u %t "%r" %s %b "%{ezproxy-session}i"' } },
    'univ-c': { fullName: 'University C', country: 'FR', headers: { 'Log-Format-ezproxy': '%h %l %u %t "%r" %s %b', 'Date-Format': 'YYYY-MM-DD' } },
    // a custom regex that backtracks for ever on some lines
    'univ-d': { fullName: 'University D', country: 'FR', headers: { 'Log-Format-ezproxy': '%{x}<(a+)+b>' } },
  }));
  const ta = await testApp(t, { PREDEFINED_SETTINGS_DIR: dir, FORMAT_TEST_BUDGET_MS: '300' });
  const discover = (payload: unknown) => ta.inject({ method: 'PUT', url: '/api/format/discover', payload: payload as object });

  const withSession = `${LINE} "AbCdEf12"`;
  const res = await discover({ logLines: `${withSession}\n${withSession}\n${LINE}\n` });
  t.equal(res.statusCode, 200);
  t.same(res.json().tested, 3);
  t.same(res.json().settings.map((s: { id: string; matching: number }) => [s.id, s.matching]), [
    ['univ-a', 2], ['univ-b', 2], ['logsift-apache-common', 1], ['logsift-ezproxy-standard', 1],
  ], 'the institutions with that format first (two lines), then logsift\'s own standard formats (the third line); not University C, whose dates read otherwise');
  t.match(res.json().settings[0], { id: 'univ-a', fullName: 'University A', country: 'FR', proxy: 'ezproxy', format: /ezproxy-session/, dateFormat: 'DD/MMM/YYYY:HH:mm:ss Z', matching: 2 });
  t.same((await discover({ logLines: 'not a log line' })).json(), { tested: 1, settings: [] }, 'nothing reads it: an empty list');

  const long = await discover({ logLines: 'x'.repeat(9000) });
  t.equal(long.statusCode, 400);
  t.equal(long.json().message, 'lineTooLong', 'the same limits as the tester');
  t.equal((await discover({})).statusCode, 400, 'logLines is required');

  const costly = await discover({ logLines: Array.from({ length: 20 }, () => `${'a'.repeat(40)}!`).join('\n') });
  t.equal(costly.statusCode, 422, 'a setting\'s regex that backtracks on these lines: answered within the budget');
  t.match(costly.json(), { message: 'tooCostly', code: 4038 });
  t.equal((await discover({ logLines: LINE })).statusCode, 200, 'and the next request works');
});
