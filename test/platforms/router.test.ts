import t from 'tap';
import { DomainRouter, type Routable } from '../../src/platforms/router.js';

const p = (name: string, priority = 0) => ({ name, priority });

t.test('exact hosts, case-insensitive entries, shared hosts ordered by priority then name', async (t) => {
  const hw = p('hw'), asmb = p('asmb'), lc = p('lc', 5);
  const router = new DomainRouter([
    { platform: hw, domains: ['journals.asm.org', 'WWW.Lyellcollection.org'] },
    { platform: asmb, domains: ['journals.asm.org'] },
    { platform: lc, domains: ['www.lyellcollection.org'] },
  ]);
  t.same(router.lookup('journals.asm.org').map((x) => x.name), ['asmb', 'hw']);
  t.same(router.lookup('www.lyellcollection.org').map((x) => x.name), ['lc', 'hw']);
  t.same(router.lookup('unknown.org'), []);
});

t.test('wildcards only when allowed, on proper suffixes of two labels or more', async (t) => {
  const bmj = p('bmj');
  const router = new DomainRouter([{ platform: bmj, domains: ['*.bmj.com'] }]);
  t.same(router.lookup('journals.bmj.com'), [], 'not without Allow-Domain-Wildcards');
  t.same(router.lookup('journals.bmj.com', true).map((x) => x.name), ['bmj']);
  t.same(router.lookup('a.b.journals.bmj.com', true).map((x) => x.name), ['bmj']);
  t.same(router.lookup('bmj.com', true), [], 'the bare suffix does not match');
  const broad = new DomainRouter([{ platform: p('x'), domains: ['*.com'] }]);
  t.same(broad.lookup('www.example.com', true), [], 'never a one-label suffix');
});

t.test('host-priority: a priority for some hosts only, wildcards included', async (t) => {
  const upso = { name: 'upso', priority: 0, hostPriority: { 'WWW.UPS.com': 1 } };
  const cso = p('cso');
  const router = new DomainRouter<Routable>([
    { platform: upso, domains: ['www.ups.com', 'chicago.ups.com'] },
    { platform: cso, domains: ['www.ups.com', 'chicago.ups.com'] },
  ]);
  t.same(router.lookup('www.ups.com').map((x) => x.name), ['upso', 'cso'], 'upso wins the host it has a priority for');
  t.same(router.lookup('chicago.ups.com').map((x) => x.name), ['cso', 'upso'], 'elsewhere the name decides');
  const wild = new DomainRouter<Routable>([
    { platform: { name: 'a', priority: 0, hostPriority: { '*.x.org': 2 } }, domains: ['*.x.org'] },
    { platform: p('b', 1), domains: ['www.x.org'] },
  ]);
  t.same(wild.lookup('www.x.org', true).map((x) => x.name), ['a', 'b'], 'exact and wildcard entries merged by their priorities');
  t.same(wild.lookup('www.x.org').map((x) => x.name), ['b']);
});
