import t from 'tap';
import { formatBreakHint, pastedLines, testFormat, TesterInputError, type Matcher } from '../../../src/pipeline/formats/tester.js';
import { compileFormat } from '../../../src/pipeline/formats/compile.js';

const plain: Matcher = (source, line) => {
  const m = new RegExp(source).exec(line);
  return m === null ? null : Array.from(m, (x) => x ?? null);
};

const LINE = '1.2.3.4 - JOHN [30/Nov/2012:00:14:18 +0100] "GET http://www.sciencedirect.com:80/a HTTP/1.1" 200 2248';

t.test('the break: the longest beginning of the format that matches', async (t) => {
  const r = testFormat({ logLines: LINE, format: '%h %l %u %t "%r" %s - %b', defaultZone: 'UTC' }, plain);
  t.equal(r.strictMatch, false);
  t.equal(r.formatBreak, '%h %l %u %t "%r" %s', 'up to the status: the line has no " - " after it');
  t.same(r.breakAt, { format: 19, line: LINE.indexOf('200') + 3 });
  const whole = testFormat({ logLines: `${LINE} trailing`, format: '%h %l %u %t "%r" %s %b', defaultZone: 'UTC' }, plain);
  t.equal(whole.formatBreak, '%h %l %u %t "%r" %s %b', 'every token matches; the line goes on');
  t.equal(whole.breakAt?.line, LINE.length);
  const first = testFormat({ logLines: 'zzz', format: '[%h]', defaultZone: 'UTC' }, plain);
  t.equal(first.formatBreak, '', 'not even the first character');
  t.same(first.breakAt, { format: 0, line: 0 });
});

t.test('auto-detection restricted to a family, and nothing found', async (t) => {
  const squid = testFormat({ logLines: LINE, proxy: 'squid', defaultZone: 'UTC' }, plain);
  t.match(squid, { autoDetect: true, proxy: null, strictMatch: false, ec: null, missing: ['date', 'url', 'domain'] });
  const apache = testFormat({ logLines: LINE, proxy: 'apache', defaultZone: 'UTC' }, plain);
  t.match(apache, { proxy: 'apache', strictMatch: true });
});

t.test('pastedLines: bounds', async (t) => {
  t.same(pastedLines('a\r\n\n  \nb\n'), ['a', 'b']);
  t.equal(pastedLines('x\n'.repeat(100)).length, 20);
  t.throws(() => pastedLines('y'.repeat(70_000)), TesterInputError);
});

t.test('a line counts as matching as a job counts it: its date must read with the date format', async (t) => {
  const SD = '247.63.228.176 - X [30/Nov/2012:00:14:17 +0100] "GET http://www.sciencedirect.com:80/science/journal/00121606 HTTP/1.1" 200 224846';
  const wrong = testFormat({ logLines: `${SD}\n${SD}`, dateFormat: 'YYYY-MM-DD', defaultZone: 'UTC' }, plain);
  t.match(wrong, { proxy: 'ezproxy', strictMatch: true, recognised: false, missing: ['date'], lines: { tested: 2, matching: 0 } },
    'the format matches, the date does not read: no line a job would take');
  const right = testFormat({ logLines: `${SD}\n${SD}`, defaultZone: 'UTC' }, plain);
  t.match(right, { strictMatch: true, recognised: true, missing: [], lines: { tested: 2, matching: 2 } });
  const given = testFormat({ logLines: `${SD}\nnot a line`, format: '%h %l %u %t "%r" %s %b', dateFormat: 'YYYY-MM-DD', defaultZone: 'UTC' }, plain);
  t.match(given, { strictMatch: true, recognised: false, lines: { matching: 0 } }, 'a given format, a date format the dates do not fit');
  const noDate = testFormat({ logLines: 'bob /path/x 200', format: '%u %U %s', proxy: 'apache', defaultZone: 'UTC' }, plain);
  t.match(noDate, { strictMatch: true, recognised: false, missing: ['date', 'domain'], lines: { matching: 0 } }, 'no date at all: a job rejects it too');
});

t.test('formatBreakHint: what a job\'s 4003 says of a given format that the line does not match', async (t) => {
  const ua = `${LINE} "Mozilla/5.0 (X11; Linux x86_64)"`;
  const hint = (format: string, line: string) => formatBreakHint(compileFormat('ezproxy', format), line, plain);
  t.equal(hint('%h %l %u %t "%r" %s %b', LINE), undefined, 'a line it matches: nothing');
  // EZproxy's own LogFormat copied as it is: a bare %{User-Agent}i reads "Mozilla" and stops
  t.equal(hint('%h %l %u %t "%r" %s %b "%{User-Agent}i"', ua),
    'it matches as far as "%h %l %u %t \\"%r\\" %s %b \\"%{User-Agent}i", then "\\"" does not match "/5.0 (X11; Linux x86_64)\\""; %{User-Agent}i reads letters, digits and - only: give it a pattern, such as %{User-Agent}i<[^"]*> for a quoted field');
  t.match(hint('%h %{session}i %u %t "%r" %s %b', LINE.replace(' - ', ' ab:1 ')), /^it matches as far as "%h %\{session\}i", then " %u %t .*" does not match ":1 JOHN \[30\/Nov.*"; %\{session\}i reads letters, digits and - only/, 'the bare field that read too little, before the break');
  t.equal(hint('%h %l %u %t "%r" %s %b', ua), 'the whole format matches the start of the line, which goes on after it with " \\"Mozilla/5.0 (X11; Linux x86_64)\\""');
  t.match(hint('%h %l %u [%t] "%r" %s %b', LINE), /^it matches as far as "%h %l %u \[", then "%t\] .*" does not match "30\/Nov\/2012:00:14:18 \+0100\] \\"GET http:\/\/…"$/);
});
