import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { Exclusions, forEachEntry, loadExclusions } from '../../src/resources/exclusions.js';
import { PROJECT_ROOT } from '../../src/paths.js';
import { shared } from '../helpers/shared.js';

t.test('list files: comments, blanks, entries trimmed', async (t) => {
  const got: string[] = [];
  t.equal(forEachEntry('# head\n a.b.c \n\n1.2.3.4 # inline\n  # only\nx', (e) => got.push(e)), 3);
  t.same(got, ['a.b.c', '1.2.3.4', 'x']);
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
