import t from 'tap';
import { pastedLines, testFormat, TesterInputError, type Matcher } from '../../../src/pipeline/formats/tester.js';

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
