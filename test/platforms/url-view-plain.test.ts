/**
 * The hand-written view of plain URLs gives exactly what Node's legacy parser gives: on every
 * shared test URL, and on generated URLs made of the characters that matter to it (hosts with
 * odd labels, ports, every ASCII character in path, query and fragment, non-ASCII text).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import t from 'tap';
import { legacyView, plainView, urlView, type UrlView } from '../../src/platforms/url-view.js';
import { shared } from '../helpers/shared.js';

function parts(v: UrlView | undefined): unknown {
  return v && [v.url, v.protocol, v.hostname, v.port, v.pathname, v.search, v.hash, { ...v.query }];
}

/** The legacy view, or the error it throws (which the plain view must then not answer). */
function legacy(url: string): unknown {
  try {
    return parts(legacyView(url));
  } catch (err) {
    return `throws ${(err as Error).message}`;
  }
}

/** undefined when the plain view leaves the URL to the legacy parser, else whether both agree. */
function agrees(url: string): boolean | undefined {
  const plain = plainView(url);
  if (plain === undefined) return undefined;
  return JSON.stringify(parts(plain)) === JSON.stringify(legacy(url));
}

t.test('examples', async (t) => {
  const v = plainView('https://WWW.Example.org:8443/a/b.pdf?x=1&x=2&y=%20#top?not=query')!;
  t.same(parts(v), ['https://WWW.Example.org:8443/a/b.pdf?x=1&x=2&y=%20#top?not=query', 'https:', 'www.example.org', '8443', '/a/b.pdf', 'x=1&x=2&y=%20', 'top?not=query', { x: ['1', '2'], y: ' ' }]);
  t.equal(plainView('http://a.com')!.pathname, '/', 'an empty path is /');
  t.equal(plainView('http://a.com?q')!.pathname, '/');
  t.equal(plainView('http://a.com:/x')!.port, '', 'an empty port');
  for (const url of ['HTTP://a.com/', 'ftp://a.com/', 'http://a b.com/', 'http://a.com/a b', 'http://a.com/a\\b', 'http://u@a.com/', 'http://[::1]/', 'http://xn--e1afmkfd.xn--p1ai/', 'http://a..b/', 'http://a.com./', 'http://é.com/', 'http://a.com/x\u00a0', 'http://a.com:80x/', `http://${'a'.repeat(64)}.com/`]) {
    t.equal(plainView(url), undefined, `${url}: left to the legacy parser`);
  }
  t.same(parts(urlView('http://a.com/a b')), legacy('http://a.com/a b'), 'which urlView then uses');
});

t.test('the same parts as the legacy parser on every shared test URL', async (t) => {
  const dir = shared(t, 'platforms');
  if (!dir) return;
  let plain = 0;
  let all = 0;
  for (const platform of readdirSync(dir)) {
    const testDir = join(dir, platform, 'test');
    if (!existsSync(testDir)) continue;
    for (const file of readdirSync(testDir)) {
      const lines = readFileSync(join(testDir, file), 'utf8').replace(/^\uFEFF/, '').split(/\r?\n/);
      const col = lines[0].split(';').map((h) => h.trim()).indexOf('in-url');
      if (col < 0) continue;
      for (const line of lines.slice(1)) {
        const raw = line.split(';')[col];
        if (!raw) continue;
        let decoded: string;
        try {
          decoded = decodeURIComponent(raw);
        } catch {
          continue;
        }
        for (const url of [raw, decoded]) {
          all++;
          const ok = agrees(url);
          if (ok === undefined) continue;
          plain++;
          if (!ok) t.fail(`differs from the legacy parser: ${url}`);
        }
      }
    }
  }
  t.ok(plain > 0.9 * all, `${plain} of ${all} URLs (raw and decoded) read by hand, all as the legacy parser reads them`);
});

t.test('the same parts as the legacy parser on generated URLs', async (t) => {
  const ascii = fc.integer({ min: 0, max: 127 }).map((c) => String.fromCharCode(c));
  const piece = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom('a', 'Z', '9', '-', '_', '.', '/', '?', '#', '&', '=', ':', '%', '+', ';', '@', '~') },
    { weight: 2, arbitrary: ascii },
    { weight: 1, arbitrary: fc.constantFrom('é', '中', '\u00a0', '\ufeff', '\u2028', 'xn--') },
  );
  const text = (max: number) => fc.array(piece, { maxLength: max }).map((a) => a.join(''));
  const label = fc.oneof(fc.stringMatching(/^[a-zA-Z0-9_-]{1,8}$/), fc.constantFrom('', 'xn--p1ai', 'a'.repeat(63), 'a'.repeat(64)), text(4));
  const url = fc.tuple(
    fc.constantFrom('http://', 'https://', 'HTTP://', 'http:/', ''),
    fc.array(label, { minLength: 1, maxLength: 4 }).map((l) => l.join('.')),
    fc.constantFrom('', ':', ':80', ':8x', ':443'),
    text(30),
  ).map(([scheme, host, port, rest]) => scheme + host + port + rest);
  fc.assert(fc.property(url, (u) => agrees(u) !== false), { numRuns: 20000 });
  // and plain URLs, which must be read by hand
  const plainUrl = fc.tuple(
    fc.constantFrom('http://', 'https://'),
    fc.array(fc.stringMatching(/^[a-zA-Z0-9_-]{1,12}$/), { minLength: 1, maxLength: 4 }).map((l) => l.join('.')),
    fc.constantFrom('', ':8080'),
    fc.stringMatching(/^(\/[a-zA-Z0-9._~!$&()*+,;=:@%-]*){0,4}(\?[a-zA-Z0-9._~!$&()*+,;=:@%/?-]*)?(#[a-zA-Z0-9._~!$&()*+,;=:@%/?#-]*)?$/),
  ).map((p) => p.join(''));
  fc.assert(fc.property(plainUrl, (u) => /xn--/i.test(u) || agrees(u) === true), { numRuns: 20000 });
  t.pass('20 000 mixed URLs and 20 000 plain URLs');
});
