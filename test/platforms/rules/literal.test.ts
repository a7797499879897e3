import t from 'tap';
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { literalPrecheck, requiredLiteral } from '../../../src/platforms/rules/literal.js';
import { readConformanceTree } from '../../../src/platforms/conformance.js';
import { urlView } from '../../../src/platforms/url-view.js';
import { PROJECT_ROOT, SHARED_DIR } from '../../../src/paths.js';

t.test('the required literal of a pattern', async (t) => {
  t.same(requiredLiteral('^/doi/(?<doi>10\\.[0-9]+/.+)$'), { text: '/doi/', anchored: true });
  t.same(requiredLiteral('^/science/article/pii/(?<pii>S[0-9X]+)'), { text: '/science/article/pii/', anchored: true });
  t.same(requiredLiteral('/content/(?<id>[0-9]+)\\.full\\.pdf$'), { text: '/content/', anchored: false }, 'the longest run');
  t.same(requiredLiteral('/c/(?<id>[0-9]+)\\.full\\.pdf$'), { text: '.full.pdf', anchored: false });
  t.same(requiredLiteral('^/c/(?<id>[0-9]+)\\.full\\.pdf$'), { text: '/c/', anchored: true }, 'a prefix before a longer run');
  t.same(requiredLiteral('^/(?:abs|full)/view\\.html'), { text: '/view.html', anchored: false }, 'after a group: required, not a prefix');
  t.same(requiredLiteral('^/ab?cd'), { text: '/a', anchored: true }, 'an optional character ends the run');
  t.same(requiredLiteral('^/x/ab*cd/'), { text: '/x/a', anchored: true });
  t.same(requiredLiteral('^/x*/abcd/'), { text: '/abcd/', anchored: false });
  t.same(requiredLiteral('^/ab+cd'), { text: '/ab', anchored: true }, 'a repeated character ends the run after it');
  t.same(requiredLiteral('^/a{2}bcd'), { text: 'bcd', anchored: false }, 'counted: conservative');
  t.same(requiredLiteral('^/[0-9a-f]{8}-[0-9a-f]{4}/(?:[^/]+/){2,}ab'), { text: 'ab', anchored: false }, 'quantifier digits are no text');
  t.same(requiredLiteral('^/book[.]aspx'), { text: '/book', anchored: true }, 'a class is no text');
  t.same(requiredLiteral('^[a-z]\\d+/bcd'), { text: '/bcd', anchored: false }, 'class escapes end a run');
  t.equal(requiredLiteral('^/abc|^/def'), undefined, 'top-level alternation: nothing is sure');
  t.equal(requiredLiteral('^/abc', 'i'), undefined, 'case-insensitive: no pre-check');
  t.equal(requiredLiteral('^/abc', 'm'), undefined);
  t.equal(requiredLiteral('^/'), undefined, 'too short: nothing to gain');
  t.same(requiredLiteral('^(?:/ab|/cd)/efg'), { text: '/efg', anchored: false }, 'alternation inside a group is skipped');
  t.same(requiredLiteral('^/a\\.b\\/c'), { text: '/a.b/c', anchored: true }, 'escaped punctuation is text');
  t.equal(requiredLiteral('(?<x>[^/]+)\\1'), undefined, 'a back-reference is no text');
  const anchored = literalPrecheck({ text: '/doi/', anchored: true });
  t.ok(anchored('/doi/10.1/x'));
  t.notOk(anchored('/x/doi/'));
  const inside = literalPrecheck({ text: '.pdf', anchored: false });
  t.ok(inside('/a/b.pdf'));
  t.notOk(inside('/a/b.html'));
});

// Soundness on the real rules: whenever a view pattern of a platform matches a URL of its rows,
// its pre-check passes.
t.test('every pattern of every platform: the pre-check never rejects a URL its regex matches', async (t) => {
  const root = join(PROJECT_ROOT, 'repos', 'platforms');
  const rows = [...await readConformanceTree(root), ...(existsSync(join(SHARED_DIR, 'platforms')) ? await readConformanceTree(join(SHARED_DIR, 'platforms')) : [])];
  const urlsOf = new Map<string, string[]>();
  for (const r of rows) if (r.input.url) urlsOf.set(r.platform, [...(urlsOf.get(r.platform) ?? []), r.input.url]);
  const parts = { url: 'url', path: 'pathname', host: 'hostname', search: 'search', hash: 'hash', protocol: 'protocol' } as const;
  let patterns = 0;
  let matched = 0;
  const wrong: string[] = [];
  const visit = (node: unknown, platform: string, views: ReturnType<typeof urlView>[]) => {
    if (Array.isArray(node)) { for (const n of node) visit(n, platform, views); return; }
    if (typeof node !== 'object' || node === null) return;
    for (const [key, value] of Object.entries(node)) {
      const part = parts[key as keyof typeof parts];
      const source = typeof value === 'string' ? value : (value as { re?: unknown })?.re;
      if (part && typeof source === 'string') {
        const flags = typeof value === 'string' ? '' : (value as { flags?: string }).flags ?? '';
        const literal = requiredLiteral(source, flags);
        if (literal) {
          patterns++;
          const re = new RegExp(source, flags);
          const check = literalPrecheck(literal);
          for (const v of views) {
            if (!v || !re.test(v[part])) continue;
            matched++;
            if (!check(v[part])) wrong.push(`${platform}: ${source} matches ${v[part]} but the pre-check ${JSON.stringify(literal)} rejects it`);
          }
        }
      } else visit(value, platform, views);
    }
  };
  for (const name of readdirSync(root)) {
    const file = join(root, name, 'rules.yaml');
    if (!existsSync(file)) continue;
    visit(parseYaml(readFileSync(file, 'utf8'), { merge: true }), name, (urlsOf.get(name) ?? []).map(urlView));
  }
  t.same(wrong, []);
  t.ok(patterns > 1500 && matched > 4000, `${patterns} patterns with a pre-check, ${matched} matches checked`);
});
