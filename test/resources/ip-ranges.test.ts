import t from 'tap';
import { IpRangeBuilder, IpRanges, parseIPv4, parseIpEntry, someAddress } from '../../src/resources/ip-ranges.js';

t.test('parseIPv4: dotted quads only', async (t) => {
  t.equal(parseIPv4('1.2.3.4'), 0x01020304);
  t.equal(parseIPv4('255.255.255.255'), 0xffffffff);
  t.equal(parseIPv4('0.0.0.0'), 0);
  for (const bad of ['1.2.3', '1.2.3.4.5', '256.1.1.1', '01.2.3.4', '1.2.3.4 ', 'a.b.c.d', '1..2.3', '::1', '']) t.equal(parseIPv4(bad), -1, bad);
});

t.test('entries: address, /24 shorthand, CIDR, ranges, IPv6, names', async (t) => {
  t.same(parseIpEntry('209.185.108'), { kind: 'v4', start: parseIPv4('209.185.108.0'), end: parseIPv4('209.185.108.255') });
  t.same(parseIpEntry('10.0.0.0/8'), { kind: 'v4', start: parseIPv4('10.0.0.0'), end: parseIPv4('10.255.255.255') });
  t.same(parseIpEntry('10.1.2.3/8'), { kind: 'v4', start: parseIPv4('10.0.0.0'), end: parseIPv4('10.255.255.255') }, 'host bits dropped');
  t.same(parseIpEntry('63.148.99.224 - 63.148.99.255'), { kind: 'v4', start: parseIPv4('63.148.99.224'), end: parseIPv4('63.148.99.255') });
  t.same(parseIpEntry('::ffff:1.2.3.4'), { kind: 'v4', start: 0x01020304, end: 0x01020304 });
  t.equal(parseIpEntry('2001:db8::/32')?.kind, 'v6');
  t.equal(parseIpEntry('crawl-66-249-67-210.googlebot.com'), undefined);
  t.equal(parseIpEntry('1.2.3.4 - 1.2.3.1'), undefined, 'a range backwards is not one');
});

t.test('lookups over merged tables', async (t) => {
  const b = new IpRangeBuilder();
  for (const e of ['1.2.3.4', '1.2.3.5', '209.185.108', '10.0.0.0/8', '2001:db8::/32', '2a01:4f8:191:848b::2', 'not-an-address']) b.add(e);
  const r = new IpRanges(b.build());
  t.equal(r.rangeCount, 5, '1.2.3.4 and 1.2.3.5 merged');
  for (const yes of ['1.2.3.4', '1.2.3.5', '209.185.108.20', '10.200.0.1', '2001:db8:1::5', '2a01:4f8:191:848b::2', '::ffff:10.0.0.1']) t.ok(r.has(yes), yes);
  for (const no of ['1.2.3.6', '209.185.109.1', '11.0.0.1', '2001:db9::1', 'example.org', '']) t.notOk(r.has(no), no);
});

t.test('the tables match a plain scan on random data', async (t) => {
  let seed = 7;
  const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
  const ranges: Array<[number, number]> = [];
  const b = new IpRangeBuilder();
  for (let i = 0; i < 2000; i++) {
    const start = Math.floor(rand() * 2 ** 32);
    const bits = 20 + Math.floor(rand() * 13);
    const size = 2 ** (32 - bits);
    const s = Math.floor(start / size) * size;
    ranges.push([s, s + size - 1]);
    b.add(`${[s >>> 24, (s >>> 16) & 255, (s >>> 8) & 255, s & 255].join('.')}/${bits}`);
  }
  const r = new IpRanges(b.build());
  let mismatches = 0;
  for (let i = 0; i < 20000; i++) {
    const n = i % 2 ? Math.floor(rand() * 2 ** 32) : ranges[i % ranges.length][0] + Math.floor(rand() * 3) - 1;
    const v = n >>> 0;
    if (r.hasV4(v) !== ranges.some(([s, e]) => v >= s && v <= e)) mismatches++;
  }
  t.equal(mismatches, 0);
});

t.test('someAddress: each address of a proxy chain', async (t) => {
  const seen: string[] = [];
  t.notOk(someAddress('1.1.1.1, 2.2.2.2 ,3.3.3.3', (a) => (seen.push(a), false)));
  t.same(seen, ['1.1.1.1', '2.2.2.2', '3.3.3.3']);
  t.ok(someAddress('1.1.1.1, 2.2.2.2', (a) => a === '2.2.2.2'));
});
