import t from 'tap';
import { DomainTally, unknownDomainAlerts, DEFAULT_ALERT_OPTIONS } from '../../src/pipeline/job-alerts.js';

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
