import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { Exclusions, forEachEntry, loadExclusions } from '../../src/resources/exclusions.js';
import { PROJECT_ROOT } from '../../src/paths.js';
import { shared } from '../helpers/shared.js';

/** A dotted quad from its number. */
function quad(n: number): string {
  return `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
}

t.test('list files: comments, blanks, entries trimmed', async (t) => {
  const got: string[] = [];
  t.equal(forEachEntry('# head\n a.b.c \n\n1.2.3.4 # inline\n  # only\nx', (e) => got.push(e)), 3);
  t.same(got, ['a.b.c', '1.2.3.4', 'x']);
  const more: string[] = [];
  t.equal(forEachEntry('a # 1 # 2\nb\nc\n#d\ne#\nf', (e) => more.push(e)), 5, 'several # on a line, comments lines apart');
  t.same(more, ['a', 'b', 'c', 'e', 'f']);
});

t.test('folders: robots, hosts, domains; later folders add entries', async (t) => {
  const a = await mkdtemp(join(tmpdir(), 'logsift-excl-'));
  const b = await mkdtemp(join(tmpdir(), 'logsift-excl-'));
  t.teardown(() => Promise.all([rm(a, { recursive: true }), rm(b, { recursive: true })]));
  await writeFile(join(a, 'robots.one.txt'), '# bots\n66.249.64.0/19\ncrawl.example.org\n');
  await writeFile(join(a, 'domains.x.txt'), 'WWW.Google.FR\nimages.iop.org,\n');
  await writeFile(join(a, 'README.md'), '1.2.3.4\n');
  await writeFile(join(b, 'hosts.local.txt'), '192.0.2.0/24\n2001:db8::1\n');
  const data = await loadExclusions([a, b, join(a, 'missing')]);
  t.same(data.files.map((f) => [f.list, f.entries]), [['domains', 2], ['robots', 2], ['hosts', 2]]);
  const x = new Exclusions(data);
  t.ok(x.robots.matches('66.249.70.1'));
  t.ok(x.robots.matches('Crawl.Example.org'));
  t.ok(x.robots.matches('10.0.0.1, 66.249.70.1'), 'any address of a chain');
  t.notOk(x.robots.matches('1.2.3.4'), 'README.md is not a list');
  t.ok(x.hosts.matches('192.0.2.77'));
  t.ok(x.hosts.matches('2001:db8:0::1'));
  t.ok(x.isIgnoredDomain('www.google.fr'));
  t.ok(x.isIgnoredDomain('images.iop.org'), 'a stray comma is not part of the name');
  t.ok(x.isRobotAgent('Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)'));
  t.notOk(x.isRobotAgent('Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0'));
});

t.test('the shipped lists load', async (t) => {
  const x = new Exclusions(await loadExclusions([join(PROJECT_ROOT, 'repos', 'resources', 'exclusions')]));
  t.ok(x.robots.matches('66.249.66.1'), 'Googlebot');
  t.ok(x.isIgnoredDomain('fonts.googleapis.com'));
});

t.test('the community lists: every kind of entry, and lookup cost', async (t) => {
  const dir = shared(t, 'exclusions');
  if (!dir) return;
  const started = process.hrtime.bigint();
  const data = await loadExclusions([dir]);
  const loadMs = Number(process.hrtime.bigint() - started) / 1e6;
  const x = new Exclusions(data);
  t.ok(x.robots.matches('209.185.108.20'), 'a.b.c entry (Googlebot /24)');
  t.ok(x.robots.matches('69.162.124.226'), 'UptimeRobot');
  t.ok(x.robots.matches('63.148.99.240'), 'a range written a - b');
  t.ok(x.robots.matches('2a01:4f8:191:848b::2'), 'IPv6');
  t.ok(x.robots.matches('msnbot-207-46-13-52.search.msn.com'), 'host name');
  t.ok(x.isIgnoredDomain('linkinghub.elsevier.com'));
  t.notOk(x.robots.matches('10.1.2.3'));
  // the per-line cost: random addresses against the whole robot table
  const n = 200_000;
  const hosts = Array.from({ length: 1000 }, (_, i) => `${(i * 7) % 223 + 1}.${(i * 13) % 256}.${(i * 29) % 256}.${i % 256}`);
  const t0 = process.hrtime.bigint();
  let hits = 0;
  for (let i = 0; i < n; i++) if (x.robots.matches(hosts[i % hosts.length])) hits++;
  const ns = Number(process.hrtime.bigint() - t0) / n;
  t.comment(`${data.files.length} files, ${x.robots.size} robot ranges and names in ${x.robots.bytes} shared bytes, loaded in ${loadMs.toFixed(0)} ms; ${ns.toFixed(0)} ns per lookup (${hits} hits)`);
  t.ok(ns < 5000, 'a lookup costs microseconds at most');
});

t.test('a generated list of a million entries: right answers, load time, shared bytes, lookup cost', async (t) => {
  // 800 000 addresses (every 4th from 11.0.0.0), 150 000 /28 prefixes (every 32nd address from
  // 100.64.0.0), 25 000 IPv6 addresses and 25 000 IPv6 /64 prefixes (every other one): no two touch, so each stays
  // a range of its own, and the address between two entries is a miss
  const V4 = 800_000;
  const CIDR = 150_000;
  const V6 = 25_000;
  const v4Base = 11 * 2 ** 24;
  const cidrBase = (100 * 256 + 64) * 2 ** 16;
  const lines: string[] = [];
  for (let i = 0; i < V4; i++) lines.push(quad(v4Base + 4 * i));
  for (let j = 0; j < CIDR; j++) lines.push(`${quad(cidrBase + 32 * j)}/28`);
  for (let k = 0; k < V6; k++) lines.push(`2001:db8:0:${k.toString(16)}::1`, `2001:db8:1:${(2 * k).toString(16)}::/64`);
  t.equal(new Set(lines).size, 1_000_000, 'a million distinct entries');
  // a fixed shuffle: the files are not sorted either
  let seed = 12345;
  for (let i = lines.length - 1; i > 0; i--) {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    const j = seed % (i + 1);
    [lines[i], lines[j]] = [lines[j], lines[i]];
  }
  const dir = await mkdtemp(join(tmpdir(), 'logsift-excl-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const text = `# generated\n${lines.join('\n')}\n`;
  lines.length = 0;
  await writeFile(join(dir, 'robots.generated.txt'), text);

  const started = process.hrtime.bigint();
  const data = await loadExclusions([dir]);
  const loadMs = Number(process.hrtime.bigint() - started) / 1e6;
  t.same(data.files.map((f) => f.entries), [1_000_000]);
  t.ok(data.robots.ranges.v4 instanceof SharedArrayBuffer && data.robots.ranges.v6 instanceof SharedArrayBuffer, 'tables the workers share');
  t.same(data.robots.names, [], 'every entry read as an address or prefix');
  const x = new Exclusions(data);
  t.equal(x.robots.size, 1_000_000, 'no range merged with another');

  // hits and misses of every kind, checked one by one, then timed
  const cases: Array<[string, boolean]> = [];
  for (let s = 0; s < 2000; s++) {
    const i = (s * 397) % V4;
    const j = (s * 71) % CIDR;
    const k = (s * 13) % V6;
    cases.push(
      [quad(v4Base + 4 * i), true], [quad(v4Base + 4 * i + 1 + (s % 3)), false],
      [quad(cidrBase + 32 * j + (s % 16)), true], [quad(cidrBase + 32 * j + 16 + (s % 16)), false],
    );
    if (s % 10 === 0) {
      cases.push(
        [`2001:db8:0:${k.toString(16)}::1`, true], [`2001:db8:0:${k.toString(16)}::2`, false],
        [`2001:db8:1:${(2 * k).toString(16)}:ab:cd:ef:1`, true], [`2001:db8:1:${(2 * k + 1).toString(16)}::1`, false],
      );
    }
  }
  cases.push(
    [quad(v4Base), true], [quad(v4Base + 4 * (V4 - 1)), true], [quad(v4Base - 1), false], [quad(v4Base + 4 * V4), false],
    [`${quad(cidrBase + 32 * (CIDR - 1) + 15)}`, true], ['192.0.2.1', false], ['0.0.0.0', false], ['255.255.255.255', false],
    [`10.0.0.1, ${quad(v4Base + 8)}`, true], ['::ffff:11.0.0.4', true], ['::ffff:11.0.0.5', false], ['crawler.example.org', false],
  );
  const wrong = cases.filter(([host, listed]) => x.robots.matches(host) !== listed).map(([host]) => host);
  t.same(wrong, [], `${cases.length} hits and misses answered right`);

  const time = (hosts: readonly string[], n: number) => {
    let hits = 0;
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) if (x.robots.matches(hosts[i % hosts.length])) hits++;
    return { ns: Number(process.hrtime.bigint() - t0) / n, hits };
  };
  const v4 = cases.filter(([h]) => h.indexOf(':') < 0 && h.indexOf(',') < 0).map(([h]) => h);
  const v6 = cases.filter(([h]) => h.indexOf(':') >= 0).map(([h]) => h);
  const mixed = cases.map(([h]) => h);
  time(mixed, 100_000); // warm-up
  const a = time(v4, 1_000_000);
  const b = time(v6, 100_000);
  const c = time(mixed, 1_000_000);
  t.comment(`1 000 000 entries (${(text.length / 2 ** 20).toFixed(1)} MB) loaded in ${loadMs.toFixed(0)} ms into ${x.robots.bytes} shared bytes (${(x.robots.bytes / 2 ** 20).toFixed(1)} MB); per lookup ${a.ns.toFixed(0)} ns IPv4, ${b.ns.toFixed(0)} ns IPv6, ${c.ns.toFixed(0)} ns mixed (${c.hits} hits)`);
  t.equal(x.robots.bytes, (V4 + CIDR) * 8 + 2 * V6 * 32, 'two 32-bit words an IPv4 range, four 64-bit an IPv6 one');
  t.ok(c.ns < 5000, 'a lookup costs under 5 µs on average');
});
