import t from 'tap';
import { Exclusions } from '../../../src/resources/exclusions.js';
import { IpRangeBuilder } from '../../../src/resources/ip-ranges.js';
import { exclusionStage, readDisableFilters, userAgentField } from '../../../src/pipeline/stages/exclusions.js';
import type { EventFlags } from '../../../src/pipeline/stages/types.js';

function lists(): Exclusions {
  const robots = new IpRangeBuilder();
  robots.add('209.185.108');
  const hosts = new IpRangeBuilder();
  hosts.add('192.0.2.0/24');
  return new Exclusions({
    robots: { ranges: robots.build(), names: ['crawl.example.org'] },
    hosts: { ranges: hosts.build(), names: [] },
    domains: ['www.google.fr'],
    files: [],
  });
}

const flags = (): EventFlags => ({ denied: false, pkbMiss: false });
const ON = readDisableFilters(undefined);

t.test('Disable-Filters', async (t) => {
  t.same(ON, { robots: true, ignoredHosts: true, ignoredDomains: true });
  t.same(readDisableFilters('ALL'), { robots: false, ignoredHosts: false, ignoredDomains: false });
  t.same(readDisableFilters('robots, ignored-domains'), { robots: false, ignoredHosts: true, ignoredDomains: false });
  t.throws(() => readDisableFilters('robot'), { code: 4032 });
  t.throws(() => readDisableFilters('none, robots'), { code: 4032, message: /"none" stands alone/ }, 'not "unknown filter none"');
});

t.test('order and categories (reference 3.3 steps 6-8)', async (t) => {
  const stage = exclusionStage(lists(), ON, 'user-agent');
  t.equal(stage.run({ domain: 'www.google.fr', host: '209.185.108.1' }, flags()), 'ignored-domains', 'domain first');
  t.equal(stage.run({ domain: 'x.org', host: '192.0.2.9' }, flags()), 'ignored-hosts');
  t.equal(stage.run({ domain: 'x.org', host: '209.185.108.1' }, flags()), 'robots-ecs');
  t.equal(stage.run({ domain: 'x.org', host: '10.0.0.1, 209.185.108.1' }, flags()), 'robots-ecs', 'a proxy chain');
  t.equal(stage.run({ domain: 'x.org', host: 'CRAWL.example.org' }, flags()), 'robots-ecs', 'a host name');
  t.equal(stage.run({ domain: 'x.org', host: '1.1.1.1', 'user-agent': 'Googlebot/2.1 (+http://www.google.com/bot.html)' }, flags()), 'robots-ecs', 'a crawler agent');
  const ec: Record<string, string> = { domain: 'x.org', host: '1.1.1.1', 'user-agent': 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0' };
  t.equal(stage.run(ec, flags()), undefined);
  t.equal(ec.robot, 'no');
});

t.test('filters off: robots marked, nothing rejected', async (t) => {
  const stage = exclusionStage(lists(), readDisableFilters('all'));
  const ec: Record<string, string> = { domain: 'www.google.fr', host: '209.185.108.1' };
  t.equal(stage.run(ec, flags()), undefined);
  t.equal(ec.robot, 'yes');
});

t.test('the user-agent field of a format', async (t) => {
  t.equal(userAgentField(['host', 'user-agent']), 'user-agent');
  t.equal(userAgentField(['host', 'User-Agent']), 'User-Agent');
  t.equal(userAgentField(['host', 'referer']), undefined);
});
