import t from 'tap';
import { DomainRouter } from '../../src/platforms/router.js';

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
