import t from 'tap';
import { DomainTally, FormatBreakWatch, formatBreakAlert, unknownDomainAlerts, DEFAULT_ALERT_OPTIONS } from '../../src/pipeline/job-alerts.js';

t.test('alerts per unknown domain from the rate, over the activation threshold', async (t) => {
  const tally = new DomainTally();
  tally.add('www.unknowndomain.com', 138);
  tally.add('small.example.org', 20);
  tally.add('big.example.org', 400);
  t.same(unknownDomainAlerts(tally, 1100, DEFAULT_ALERT_OPTIONS), [
    'big.example.org is unknown but represents 36% of the log lines',
    'www.unknowndomain.com is unknown but represents 13% of the log lines',
  ]);
  t.same(unknownDomainAlerts(tally, 1000, DEFAULT_ALERT_OPTIONS), [], 'not more lines than the threshold: no alert');
  t.same(unknownDomainAlerts(tally, 1100, { activationThreshold: 0, unknownDomainsRate: 50 }), []);
  t.equal(unknownDomainAlerts(tally, 1100, { activationThreshold: 0, unknownDomainsRate: 2 }).length, 3, 'rate 2 %: 20/1100 rounds to 2');
});

t.test('the tally is exact up to its capacity, then keeps the heavy domains in bounded memory', async (t) => {
  const exact = new DomainTally(10);
  for (let i = 0; i < 10; i++) exact.add(`d${i}.example`, i + 1);
  t.same(new Map(exact.entries()).get('d9.example'), 10);

  const bounded = new DomainTally(100);
  let total = 0;
  for (let i = 0; i < 50_000; i++) {
    // one domain on 1 line in 5, the rest spread over 10 000 rare ones
    bounded.add(i % 5 === 0 ? 'heavy.example' : `rare${i % 10_000}.example`);
    total++;
  }
  const entries = bounded.entries();
  t.ok(entries.length <= 100, `at most 100 domains kept (${entries.length})`);
  const heavy = new Map(entries).get('heavy.example')!;
  t.ok(heavy >= 10_000 - total / 100 && heavy <= 10_000, `the heavy domain is kept, undercounted by at most 1 % (${heavy})`);
  const alerts = unknownDomainAlerts(bounded, total, DEFAULT_ALERT_OPTIONS);
  t.equal(alerts.length, 1);
  t.match(alerts[0], /^heavy\.example is unknown but represents (19|20)% of the log lines$/, 'its 20 % within the 1 % bound');
});

t.test('a log whose format changes part way: the run of batches of unknown formats after matching ones', async (t) => {
  const watch = new FormatBreakWatch();
  // four batches that match, one half-matching, then three that do not
  for (const [seq, lines, unknown] of [[0, 100, 0], [1, 1000, 20], [2, 1000, 0], [3, 1000, 600], [4, 1000, 1000], [5, 1000, 990], [6, 500, 500]]) watch.add(seq, lines, unknown);
  t.same(watch.largestBreak, { startLine: 3101, seq: 4, lines: 2500, unknown: 2490 });
  const text = formatBreakAlert(watch.largestBreak, 5600, DEFAULT_ALERT_OPTIONS, 'file 2 (access.log.2)');
  t.equal(text, 'From about line 3101 (the start of file 2 (access.log.2)) on, 2490 of the next 2500 lines did not match the log format (unknown-formats, 44% of the log lines), after lines that did: the log\'s format seems to change there (a field added by a proxy upgrade, another proxy\'s log). Try one of those lines in the format tester, and send them with their own Log-Format');

  const start = new FormatBreakWatch();
  start.add(0, 1000, 1000);
  start.add(1, 5000, 0);
  t.equal(start.largestBreak, undefined, 'unknown lines before any matching one: no change of format (the first lines decide the format)');

  const back = new FormatBreakWatch();
  for (const [seq, unknown] of [[0, 0], [1, 1000], [2, 0], [3, 1000], [4, 1000], [5, 0]]) back.add(seq, 1000, unknown);
  t.same(back.largestBreak, { startLine: 3001, seq: 3, lines: 2000, unknown: 2000 }, 'the largest of two runs');

  t.equal(formatBreakAlert(back.largestBreak, 30_000, DEFAULT_ALERT_OPTIONS), undefined, 'under the rate (7%): no alert');
  t.equal(formatBreakAlert({ startLine: 1, seq: 1, lines: 900, unknown: 900 }, 1000, DEFAULT_ALERT_OPTIONS), undefined, 'not over the activation threshold');
  t.equal(formatBreakAlert(undefined, 1000, DEFAULT_ALERT_OPTIONS), undefined);
});
