import t from 'tap';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KEEP_DAYS, ParsedRulesCache, parseRulesYaml } from '../../src/platforms/parsed-rules.js';
import { readPlatformSources } from '../../src/platforms/loader.js';

const manifest = (name: string) => JSON.stringify({ name, longname: name, domains: [`${name}.example.org`] });
const rules = (rtype: string) => `format: 1\nrules:\n  - when: { path: '^/a' }\n    set: { rtype: ${rtype} }\n`;
const DAY = 86_400_000;

interface Entry { json: string; day: number }
interface File { parser: string; entries: Record<string, Entry> }
const readCache = async (cacheDir: string) => JSON.parse(await readFile(join(cacheDir, 'parsed-rules.json'), 'utf8')) as File;
/** The key of the entry whose JSON holds `rtype`. */
const keyOf = (file: File, rtype: string) => Object.keys(file.entries).find((k) => file.entries[k].json.includes(`"${rtype}"`));
const rtypes = (sources: Awaited<ReturnType<typeof readPlatformSources>>['sources']) => sources.map((s) => (s.rules?.rules[0] as { set: { rtype: string } }).set.rtype);

t.test('rules read again come from the cache, by the digest of their text, the same as parsed', async (t) => {
  const root = t.testdir({
    one: { 'manifest.json': manifest('one'), 'rules.yaml': rules('ARTICLE') },
    two: { 'manifest.json': manifest('two'), 'rules.yaml': rules('BOOK') },
    // the same text as one's: one entry for both
    three: { 'manifest.json': manifest('three'), 'rules.yaml': rules('ARTICLE') },
  });
  const cache = join(root, '.cache');
  const first = await readPlatformSources(root, cache);
  const file = await readCache(cache);
  t.equal(Object.keys(file.entries).length, 2, 'an entry a distinct text');
  const second = await readPlatformSources(root, cache);
  t.same(second.sources, first.sources, 'the same sources from the cache');
  t.not(second.sources[0].rules, second.sources[2].rules, 'each platform its own copy');

  // an entry of the cache is what a read uses: changed by hand, the next read gives the change
  const key = keyOf(file, 'BOOK')!;
  file.entries[key] = { ...file.entries[key], json: file.entries[key].json.replace('BOOK', 'BOOK_SECTION') };
  await writeFile(join(cache, 'parsed-rules.json'), JSON.stringify(file));
  t.same(rtypes((await readPlatformSources(root, cache)).sources), ['ARTICLE', 'ARTICLE', 'BOOK_SECTION']);
});

t.test('a changed rules file is parsed again; an entry goes once unused for KEEP_DAYS, whatever else shares the folder', async (t) => {
  const root = t.testdir({
    one: { 'manifest.json': manifest('one'), 'rules.yaml': rules('ARTICLE') },
    two: { 'manifest.json': manifest('two'), 'rules.yaml': rules('BOOK') },
    _other: { three: { 'manifest.json': manifest('three'), 'rules.yaml': rules('TOC') } },
  });
  const cache = join(root, '.cache');
  await readPlatformSources(root, cache);
  await writeFile(join(root, 'two', 'rules.yaml'), rules('ABS'));
  t.same(rtypes((await readPlatformSources(root, cache)).sources), ['ARTICLE', 'ABS'], 'the changed file parsed anew');
  // another set of platforms read with the same cache folder (an update's check, tests)
  t.same(rtypes((await readPlatformSources(join(root, '_other'), cache)).sources), ['TOC']);
  const file = await readCache(cache);
  t.same(['ARTICLE', 'BOOK', 'ABS', 'TOC'].map((r) => keyOf(file, r) !== undefined), [true, true, true, true], 'every text seen kept, the changed file\'s old one too');

  // later: what was not used for KEEP_DAYS goes, what is used stays with its new day
  const later = Date.now() + (KEEP_DAYS + 1) * DAY;
  const cached = await ParsedRulesCache.open(cache, later);
  t.same(cached.parse(rules('ARTICLE')), parseRulesYaml(rules('ARTICLE')));
  await cached.save();
  const left = await readCache(cache);
  t.same(Object.keys(left.entries), [keyOf(file, 'ARTICLE')], 'only the entry used within KEEP_DAYS');
  t.equal(Object.values(left.entries)[0].day, Math.floor(later / DAY), 'its day of last use moved on');
  // within KEEP_DAYS nothing goes
  const soon = await ParsedRulesCache.open(cache, later + (KEEP_DAYS - 1) * DAY);
  await soon.save();
  t.equal(Object.keys((await readCache(cache)).entries).length, 1);
});

t.test('a damaged cache, or one of another parser version, is parsed past and written anew', async (t) => {
  const root = t.testdir({ one: { 'manifest.json': manifest('one'), 'rules.yaml': rules('ARTICLE') }, '.cache': { 'parsed-rules.json': '{"parser": "yaml 2.9' } });
  const cache = join(root, '.cache');
  const { sources, problems } = await readPlatformSources(root, cache);
  t.same([sources.length, problems], [1, []]);
  const file = await readCache(cache);
  t.equal(Object.keys(file.entries).length, 1, 'written anew');
  const key = keyOf(file, 'ARTICLE')!;
  await writeFile(join(cache, 'parsed-rules.json'), JSON.stringify({ parser: 'yaml 0.0.1', entries: { [key]: { ...file.entries[key], json: file.entries[key].json.replace('ARTICLE', 'WRONG') } } }));
  t.same(rtypes((await readPlatformSources(root, cache)).sources), ['ARTICLE'], 'another parser\'s entries are not used');
  t.match(await readCache(cache), { parser: /^yaml \d/ });
});

t.test('what JSON would not give back the same is parsed each time, not kept', async (t) => {
  const dir = t.testdir({});
  const cache = await ParsedRulesCache.open(dir);
  t.same(cache.parse('a: .inf\n'), { a: Infinity });
  t.ok(Object.is((cache.parse('a: -0.0\n') as { a: number }).a, -0), 'negative zero');
  t.same(cache.parse('a: [1, x, { b: null }]\n'), { a: [1, 'x', { b: null }] });
  await cache.save();
  t.same(Object.values((await readCache(dir)).entries).map((e) => e.json), ['{"a":[1,"x",{"b":null}]}'], 'only the plain value kept');
  t.throws(() => cache.parse('a: [\n'), 'a YAML error is thrown as the parser throws it');
});

t.test('a cache folder that cannot be written: the rules are read all the same', async (t) => {
  const root = t.testdir({ one: { 'manifest.json': manifest('one'), 'rules.yaml': rules('ARTICLE') }, blocker: 'a file where the cache folder would be' });
  const { sources, problems } = await readPlatformSources(root, join(root, 'blocker', 'cache'));
  t.same([rtypes(sources), problems], [['ARTICLE'], []]);
});
