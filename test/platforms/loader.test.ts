import t from 'tap';
import { join } from 'node:path';
import { compilePlatform, readPlatformFolder, readPlatformSources } from '../../src/platforms/loader.js';
import { urlView } from '../../src/platforms/url-view.js';

const manifest = (name: string) => JSON.stringify({ name, longname: name, domains: [`${name}.example.org`] });
const rules = (when: string, extra = '') => `format: 1\nrules:\n  - when: { ${when} }\n    set: { rtype: ARTICLE }${extra}\n`;

t.test('a folder whose rules do not compile is reported and left out, like one that cannot be read', async (t) => {
  const root = t.testdir({
    good: { 'manifest.json': manifest('good'), 'rules.yaml': rules("path: '^/a/(?<id>[0-9]+)$'") },
    badregex: { 'manifest.json': manifest('badregex'), 'rules.yaml': rules("path: '^/(unclosed'") },
    badkey: { 'manifest.json': manifest('badkey'), 'rules.yaml': rules("path: '^/a'", '\n    sett: { mime: PDF }') },
    nohook: { 'manifest.json': manifest('nohook'), 'rules.yaml': rules("path: '^/a'", '\n    hook: missing') },
    badyaml: { 'manifest.json': manifest('badyaml'), 'rules.yaml': 'format: 1\nrules: [ { when: \n' },
  });
  const { sources, problems } = await readPlatformSources(root, join(root, '.cache'));
  t.same(sources.map((s) => s.manifest.name), ['good'], 'only the platform that compiles');
  const byFolder = Object.fromEntries(problems.map((p) => [p.folder.slice(root.length + 1), p.message]));
  t.same(Object.keys(byFolder).sort(), ['badkey', 'badregex', 'badyaml', 'nohook']);
  t.match(byFolder.badregex, /^rules\[0\]\.when\.path: invalid regular expression/);
  t.match(byFolder.badkey, /unknown key "sett"/);
  t.match(byFolder.nohook, /no hook "missing"/);
});

t.test('lazily compiled platforms (the workers\'): rules compiled at the first event, the same matches', async (t) => {
  const root = t.testdir({
    good: { 'manifest.json': manifest('good'), 'rules.yaml': rules("path: '^/a/(?<id>[0-9]+)$'", "\n    let: { x: '{id}' }") + '  - when: { path: ^/b }\n    set: { rtype: BOOK }\n' },
    bad: { 'manifest.json': manifest('bad'), 'rules.yaml': rules("path: '^/(unclosed'") },
  });
  const good = (await readPlatformFolder(join(root, 'good'), join(root, '.cache')))!;
  const [eager, lazy] = [await compilePlatform(good), await compilePlatform(good, true)];
  t.equal(lazy.ruleCount, eager.ruleCount, 'its rules counted without compiling them');
  for (const url of ['http://good.example.org/a/12', 'http://good.example.org/b', 'http://good.example.org/c']) {
    t.same(lazy.match({ url }, urlView(url)), eager.match({ url }, urlView(url)), url);
  }
  t.same(lazy.match({ url: 'http://good.example.org/b' }, urlView('http://good.example.org/b')), { rtype: 'BOOK' });
  // rules changed on disk after the main thread checked them: the platform recognises nothing
  const bad = (await readPlatformFolder(join(root, 'bad'), join(root, '.cache')))!;
  await t.rejects(compilePlatform(bad), /invalid regular expression/, 'compiled now, the error is thrown');
  const late = await compilePlatform(bad, true);
  t.equal(late.match({ url: 'http://bad.example.org/x' }, urlView('http://bad.example.org/x')), undefined, 'compiled at its first event, it recognises nothing');
  t.equal(late.match({ url: 'http://bad.example.org/y' }, urlView('http://bad.example.org/y')), undefined, 'and does not throw on the next');
});

t.test('a community parser.js compiled at its first event: one that cannot load fails each of its events, with its reason', async (t) => {
  const root = t.testdir({
    noexec: { 'manifest.json': manifest('noexec'), 'parser.js': 'module.exports = {};\n' },
    works: { 'manifest.json': manifest('works'), 'parser.js': "module.exports = { execute: (ec) => ({ rtype: 'BOOK', unitid: ec.url.slice(-1) }) };\n" },
  });
  const { sources, problems } = await readPlatformSources(root, join(root, '.cache'));
  t.same([sources.map((s) => s.manifest.name), problems], [['noexec', 'works'], []], 'parser.js is not loaded when read');
  const [noexec, works] = await Promise.all(sources.map((s) => compilePlatform(s, true)));
  t.throws(() => noexec.match({ url: 'http://noexec.example.org/1' }, undefined), /does not export execute/);
  t.throws(() => noexec.match({ url: 'http://noexec.example.org/2' }, undefined), /does not export execute/, 'and on the next');
  t.same(works.match({ url: 'http://works.example.org/7' }, undefined), { rtype: 'BOOK', unitid: '7' });
  await t.rejects(compilePlatform(sources[0]), /does not export execute/, 'compiled now, the error is thrown now');
});

t.test('folders read several at once: sources and problems in the folders\' order, shared hooks prepared once each', async (t) => {
  // more folders than are read at once, broken ones among them, and the same hooks in several
  const hooks = "export const parse = ({ view }: { view?: { pathname: string } }) => ({ rtype: 'BOOK', unitid: view?.pathname.slice(1) });\n";
  const tree: Record<string, Record<string, string>> = {};
  const names = Array.from({ length: 40 }, (_, i) => `p${String(i).padStart(2, '0')}`);
  for (const [i, name] of names.entries()) {
    tree[name] = i % 7 === 3 ? { 'manifest.json': manifest(name) } // no rules: a problem
      : i % 5 === 1 ? { 'manifest.json': manifest(name), 'hooks.ts': hooks }
        : { 'manifest.json': manifest(name), 'rules.yaml': rules("path: '^/a'") };
  }
  // the same name in two folders: the first in order is kept
  tree.q00 = { 'manifest.json': manifest('p00'), 'rules.yaml': rules("path: '^/b'") };
  const root = t.testdir(tree);
  const { sources, problems, shadowed } = await readPlatformSources(root, join(root, '.cache'));
  const broken = names.filter((_, i) => i % 7 === 3);
  t.same(sources.map((s) => s.manifest.name), names.filter((n) => !broken.includes(n)), 'the sources in the folders\' order');
  t.same(problems.map((p) => p.folder.slice(root.length + 1)), broken, 'the problems in the folders\' order');
  for (const p of problems) t.match(p.message, /no rules\.yaml, hooks\.ts or parser\.js/);
  t.same(shadowed.map((d) => d.slice(root.length + 1)), ['q00']);
  const withHooks = sources.filter((s) => s.hooksModule);
  t.equal(withHooks.length, 7);
  t.equal(new Set(withHooks.map((s) => s.hooksModule)).size, 1, 'one transpiled copy for the same code');
  const p01 = await compilePlatform(withHooks[0], true);
  t.same(p01.match({ url: 'http://p01.example.org/x9' }, urlView('http://p01.example.org/x9')), { rtype: 'BOOK', unitid: 'x9' });
});
