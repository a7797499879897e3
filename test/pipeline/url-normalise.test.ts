import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as legacyParse } from 'node:url';
import fc from 'fast-check';
import t from 'tap';
import { SHARED_DIR } from '../../src/paths.js';
import { normaliseUrl } from '../../src/pipeline/url-normalise.js';

// the legacy parser warns (once) about ports that are not numbers; the comparisons provoke it
process.removeAllListeners('warning');

/** What the reference computed: url.parse(url).hostname, '' and errors meaning no domain. */
function legacyDomain(url: string): string | undefined | Error {
  try {
    return legacyParse(url).hostname || undefined;
  } catch (err) {
    return err as Error;
  }
}

t.test('reference 2.8', async (t) => {
  t.same(normaliseUrl('http://www.sciencedirect.com:80/science/article/pii/S1'), {
    url: 'http://www.sciencedirect.com:80/science/article/pii/S1',
    domain: 'www.sciencedirect.com',
  });
  t.same(normaliseUrl('/http/www.sciencedirect.com/science/article/pii/S1'), {
    url: 'http://www.sciencedirect.com/science/article/pii/S1',
    domain: 'www.sciencedirect.com',
  });
  t.same(normaliseUrl('/https/www.x.com/p'), { url: 'https://www.x.com/p', domain: 'www.x.com' }, '/https/ too');
  t.same(normaliseUrl('/redirect/index.php?request=http%3A%2F%2Fwww.x.com'), {
    url: '/redirect/index.php?request=http%3A%2F%2Fwww.x.com',
    domain: undefined,
  }, 'relative: no domain');
  t.same(normaliseUrl('//www.x.com/p'), { url: '//www.x.com/p', domain: undefined });
  t.same(normaliseUrl('www.europresse.com/webapp/'), { url: 'http://www.europresse.com/webapp/', domain: 'www.europresse.com' });
  t.same(normaliseUrl('https://User:Secret@WWW.Example.COM:8443/a?b#c'), {
    url: 'https://User:Secret@WWW.Example.COM:8443/a?b#c',
    domain: 'www.example.com',
  });
  t.same(normaliseUrl('http://proxy.univ.fr:2048/login?url=http://www.publisher.com/a'), {
    url: 'http://proxy.univ.fr:2048/login?url=http://www.publisher.com/a',
    domain: 'proxy.univ.fr',
  }, 'starting-point URLs are not unwrapped');
  t.same(normaliseUrl('http://www.x.com?a=1'), { url: 'http://www.x.com?a=1', domain: 'www.x.com' });
  t.same(normaliseUrl('http://www.x.com#top'), { url: 'http://www.x.com#top', domain: 'www.x.com' });
  t.same(normaliseUrl('http://www.x.com'), { url: 'http://www.x.com', domain: 'www.x.com' });
  t.same(normaliseUrl('http:///path'), { url: 'http:///path', domain: undefined });
  t.same(normaliseUrl(''), { url: '', domain: undefined });
  t.equal(normaliseUrl('http://[2001:db8::1]:8080/x').domain, '2001:db8::1');
  t.equal(normaliseUrl('http://www.éxample.com/').domain, 'www.xn--xample-9ua.com', 'IDN as punycode, like the reference');
  t.equal(normaliseUrl('http://a@b@c.com/').domain, 'c.com');
  t.equal(normaliseUrl('http://a.com\\b/c').domain, 'a.com');
  t.equal(normaliseUrl(`http://${'a'.repeat(256)}/`).domain, undefined, 'too long a host name');
});

/** Every URL of the shared platform tests (thousands of real ones), plus tricky made-up ones. */
function realUrls(): string[] {
  const dir = join(SHARED_DIR, 'platforms');
  const urls: string[] = [];
  for (const platform of readdirSync(dir)) {
    const testDir = join(dir, platform, 'test');
    if (!existsSync(testDir)) continue;
    for (const file of readdirSync(testDir)) {
      if (!file.endsWith('.csv')) continue;
      const [header, ...rows] = readFileSync(join(testDir, file), 'utf8').split(/\r?\n/);
      const column = header.split(';').findIndex((h) => h.trim() === 'in-url');
      if (column < 0) continue;
      for (const row of rows) {
        const url = row.split(';')[column];
        if (url) urls.push(url);
      }
    }
  }
  return urls;
}

t.test('domain equals the legacy parser hostname on real URLs', { skip: !existsSync(join(SHARED_DIR, 'platforms')) && 'no shared platforms' }, async (t) => {
  const urls = realUrls();
  t.ok(urls.length > 1000, `${urls.length} URLs`);
  let compared = 0;
  const differences: string[] = [];
  for (const raw of urls) {
    const { url, domain } = normaliseUrl(raw);
    if (url.startsWith('/')) continue;
    const expected = legacyDomain(url);
    if (expected instanceof Error) continue;
    compared++;
    if (domain !== expected) differences.push(`${raw} → ${String(domain)} (legacy ${String(expected)})`);
  }
  t.same(differences.slice(0, 20), [], `${compared} URLs compared`);
});

t.test('domain equals the legacy parser hostname on generated URLs', async (t) => {
  const hostChar = fc.constantFrom(
    ...'abcXYZ019.-_:@%[]!$&\'()*+,;=~ \t\\"<>^`{|}é'.split(''),
    'ü',
    '\u00a0',
    '%41',
    'xn--',
  );
  const tail = fc.constantFrom('', '/', '/p?q=1', '?x', '#f', '/a@b', ' x', '\\x');
  const scheme = fc.constantFrom('http://', 'https://', '');
  const property = fc.property(scheme, fc.array(hostChar, { maxLength: 14 }), tail, (s, host, rest) => {
    const raw = s + host.join('') + rest;
    const { url, domain } = normaliseUrl(raw);
    if (url.startsWith('/')) return true;
    const expected = legacyDomain(url);
    if (expected instanceof Error) return true;
    if (domain !== expected) throw new Error(`${JSON.stringify(raw)}: ${String(domain)} vs legacy ${String(expected)}`);
    return true;
  });
  t.doesNotThrow(() => fc.assert(property, { numRuns: 20000, seed: 42 }));
});

t.test('hot path: no URL object per line', async (t) => {
  const urls: string[] = [];
  for (let i = 0; i < 50000; i++) urls.push(`http://www.site${i % 100}.com:80/science/article/pii/S${i}?a=b&c=d`);
  const start = performance.now();
  let n = 0;
  for (const url of urls) if (normaliseUrl(url).domain) n++;
  const ms = performance.now() - start;
  t.equal(n, 50000);
  t.ok(ms < 2000, `50 000 URLs in ${ms.toFixed(0)} ms`);
});

t.test('a scheme in capitals is a scheme (the reference took HTTP:// for a host named "http")', async (t) => {
  t.same(normaliseUrl('HTTP://www.sciencedirect.com/science/article/pii/S0967064508000317'), { url: 'http://www.sciencedirect.com/science/article/pii/S0967064508000317', domain: 'www.sciencedirect.com' });
  t.same(normaliseUrl('Https://Example.org:443/a'), { url: 'https://Example.org:443/a', domain: 'example.org' });
  t.same(normaliseUrl('httpx://example.org/'), { url: 'http://httpx://example.org/', domain: 'httpx' }, 'another scheme stays a host, as before');
});
