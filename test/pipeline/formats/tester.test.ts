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
