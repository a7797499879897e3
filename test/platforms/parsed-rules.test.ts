import t from 'tap';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ParsedRulesCache, parseRulesYaml } from '../../src/platforms/parsed-rules.js';
import { readPlatformSources } from '../../src/platforms/loader.js';

const manifest = (name: string) => JSON.stringify({ name, longname: name, domains: [`${name}.example.org`] });
const rules = (rtype: string) => `format: 1\nrules:\n  - when: { path: '^/a' }\n    set: { rtype: ${rtype} }\n`;
const cacheFile = (root: string) => join(root, '.cache', 'parsed-rules.json');
const entriesOf = async (root: string) => (JSON.parse(await readFile(cacheFile(root), 'utf8')) as { entries: Record<string, string> }).entries;

t.test('rules read again come from the cache, by the digest of their text, the same as parsed', async (t) => {
  const root = t.testdir({
    one: { 'manifest.json': manifest('one'), 'rules.yaml': rules('ARTICLE') },
    two: { 'manifest.json': manifest('two'), 'rules.yaml': rules('BOOK') },
    // the same text as one's: one entry for both
    three: { 'manifest.json': manifest('three'), 'rules.yaml': rules('ARTICLE') },
  });
  const first = await readPlatformSources(root, join(root, '.cache'));
  const entries = await entriesOf(root);
  t.equal(Object.keys(entries).length, 2, 'an entry a distinct text');
  const second = await readPlatformSources(root, join(root, '.cache'));
  t.same(second.sources, first.sources, 'the same sources from the cache');
  t.not(second.sources[0].rules, second.sources[2].rules, 'each platform its own copy');

  // an entry of the cache is what a read uses: changed by hand, the next read gives the change
  const key = Object.keys(entries).find((k) => entries[k].includes('BOOK'))!;
  entries[key] = entries[key].replace('BOOK', 'BOOK_SECTION');
  const file = JSON.parse(await readFile(cacheFile(root), 'utf8')) as { entries: Record<string, string> };
  await writeFile(cacheFile(root), JSON.stringify({ ...file, entries }));
  const third = await readPlatformSources(root, join(root, '.cache'));
  t.match(third.sources.find((s) => s.manifest.name === 'two')?.rules, { rules: [{ set: { rtype: 'BOOK_SECTION' } }] });
});

t.test('a changed rules file is parsed again and its old entry dropped; a partial read drops nothing', async (t) => {
  const root = t.testdir({
    one: { 'manifest.json': manifest('one'), 'rules.yaml': rules('ARTICLE') },
    two: { 'manifest.json': manifest('two'), 'rules.yaml': rules('BOOK') },
  });
  await readPlatformSources(root, join(root, '.cache'));
  const before = Object.keys(await entriesOf(root));
  await writeFile(join(root, 'two', 'rules.yaml'), rules('TOC'));
  const only = await readPlatformSources(root, join(root, '.cache'), new Set(['two']));
  t.match(only.sources[0].rules, { rules: [{ set: { rtype: 'TOC' } }] });
  const afterPartial = Object.keys(await entriesOf(root));
  t.equal(afterPartial.length, 3, 'the partial read added its entry and dropped none');
  const all = await readPlatformSources(root, join(root, '.cache'));
  t.same(all.sources.map((s) => (s.rules?.rules[0] as { set: { rtype: string } }).set.rtype), ['ARTICLE', 'TOC']);
  const after = Object.keys(await entriesOf(root));
  t.equal(after.length, 2, 'the whole read keeps the entries in use only');
  t.ok(after.includes(before[0]) !== after.includes(before[1]), 'the changed file\'s old entry is gone');
});

t.test('a damaged cache, or one of another parser version, is parsed past and written anew', async (t) => {
  const root = t.testdir({ one: { 'manifest.json': manifest('one'), 'rules.yaml': rules('ARTICLE') }, '.cache': { 'parsed-rules.json': '{"parser": "yaml 2.9' } });
  const { sources, problems } = await readPlatformSources(root, join(root, '.cache'));
  t.same([sources.length, problems], [1, []]);
  t.equal(Object.keys(await entriesOf(root)).length, 1, 'written anew');
  const file = JSON.parse(await readFile(cacheFile(root), 'utf8')) as { parser: string; entries: Record<string, string> };
  const key = Object.keys(file.entries)[0];
  await writeFile(cacheFile(root), JSON.stringify({ parser: 'yaml 0.0.1', entries: { [key]: file.entries[key].replace('ARTICLE', 'WRONG') } }));
  const again = await readPlatformSources(root, join(root, '.cache'));
  t.match(again.sources[0].rules, { rules: [{ set: { rtype: 'ARTICLE' } }] }, 'another parser\'s entries are not used');
  t.match(JSON.parse(await readFile(cacheFile(root), 'utf8')), { parser: /^yaml \d/ });
});

t.test('what JSON would not give back the same is parsed each time, not kept', async (t) => {
  const dir = t.testdir({});
  const cache = await ParsedRulesCache.open(dir);
  t.same(cache.parse('a: .inf\n'), { a: Infinity });
  t.same(cache.parse('a: -0.0\n'), parseRulesYaml('a: -0.0\n'));
  t.ok(Object.is((cache.parse('a: -0.0\n') as { a: number }).a, -0), 'negative zero each time');
  t.same(cache.parse('a: [1, x, { b: null }]\n'), { a: [1, 'x', { b: null }] });
  await cache.save(true);
  const file = JSON.parse(await readFile(join(dir, 'parsed-rules.json'), 'utf8')) as { entries: Record<string, string> };
  t.same(Object.values(file.entries), ['{"a":[1,"x",{"b":null}]}'], 'only the plain value kept');
  await t.rejects(Promise.resolve().then(() => cache.parse('a: [\n')), 'a YAML error is thrown as the parser throws it');
});

t.test('a cache folder that cannot be written: the rules are read all the same', async (t) => {
  const root = t.testdir({ one: { 'manifest.json': manifest('one'), 'rules.yaml': rules('ARTICLE') }, blocker: 'a file where the cache folder would be' });
  const { sources, problems } = await readPlatformSources(root, join(root, 'blocker', 'cache'));
  t.same([sources.length, problems], [1, []]);
});
