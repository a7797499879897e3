import t from 'tap';
import { parse as legacyParse } from 'node:url';
import { readFileSync, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { urlView, safeDecode, firstValue } from '../../src/platforms/url-view.js';
import { shared } from '../helpers/shared.js';

t.test('decodes once as a whole, then parses the query with values decoded again', async (t) => {
  const v = urlView('http://Go.GaleGroup.com:80/ps/retrieve.do?docId=GALE%7CCX34&a=1&a=2&b=x+y%252B#frag');
  t.ok(v);
  t.equal(v!.hostname, 'go.galegroup.com', 'host lower-cased, without port');
  t.equal(v!.port, '80');
  t.equal(v!.pathname, '/ps/retrieve.do');
  t.same(v!.query.a, ['1', '2'], 'repeated keys become arrays');
  t.equal(v!.query.docId, 'GALE|CX34');
  t.equal(v!.query.b, 'x y+', '+ is a space, and %252B decodes twice to +');
  t.equal(v!.hash, 'frag');
  t.equal(v!.search, 'docId=GALE%7CCX34&a=1&a=2&b=x+y%2B');
});

t.test('relative URLs and URLs without a path', async (t) => {
  t.equal(urlView('/article/12?x=1')!.pathname, '/article/12');
  t.equal(urlView('/article/12?x=1')!.hostname, '');
  t.equal(urlView('https://www.example.org')!.pathname, '/');
});

t.test('a malformed escape gives no view', async (t) => {
  t.equal(urlView('http://www.example.org/a%zz'), undefined);
  t.equal(safeDecode('%E0%A4%A'), undefined);
  t.equal(safeDecode('plain'), 'plain');
});

t.test('decoding once as a whole: a double-encoded escape stays encoded once in url and path', async (t) => {
  const v = urlView('http://x.org/a%2520b/c?q=a%2520b')!;
  t.equal(v.url, 'http://x.org/a%20b/c?q=a%20b');
  t.equal(v.pathname, '/a%20b/c', 'the path is not decoded a second time');
  t.equal(v.search, 'q=a%20b', 'nor the query string');
  t.equal(v.query.q, 'a b', 'query values are: they are decoded again by the query parser');
  t.equal(urlView('http://x.org/p?x=%E2%82%AC')!.query.x, '€', 'UTF-8 escapes');
  t.equal(urlView('http://x.org/p?x=%25')!.query.x, '%', 'a lone % left by the first decoding stays as it is');
});

t.test('+ is a space in query values only; an encoded %2B becomes + then a space, as the reference saw it', async (t) => {
  const v = urlView('http://x.org/c+d?r=%2B1+2')!;
  t.equal(v.pathname, '/c+d');
  t.equal(v.query.r, ' 1 2');
});

t.test('query keys: repeated keys give arrays, empty and valueless keys give empty strings, case kept', async (t) => {
  const v = urlView('http://x.org/p?u=1&u=2&U=3&s&t=')!;
  t.same(v.query.u, ['1', '2']);
  t.equal(v.query.U, '3', 'keys are case-sensitive');
  t.equal(v.query.s, '');
  t.equal(v.query.t, '');
  const proto = urlView('http://x.org/p?__proto__=1&constructor=2')!;
  t.equal(proto.query.__proto__, '1', 'any key name is an own key');
  t.equal(proto.query.constructor, '2');
});

t.test('host lower-cased without port; protocol lower-cased; path and query keep their case', async (t) => {
  const v = urlView('HTTP://WWW.Example.ORG:8080/Path?A=B#Frag')!;
  t.equal(v.hostname, 'www.example.org');
  t.equal(v.port, '8080');
  t.equal(v.protocol, 'http:');
  t.equal(v.pathname, '/Path');
  t.same(v.query, { A: 'B' });
  t.equal(v.hash, 'Frag');
});

t.test('fragment: kept without #, and an encoded %23 becomes a real fragment after the decoding', async (t) => {
  t.equal(urlView('http://x.org/a?x=1#p=3')!.hash, 'p=3');
  const v = urlView('http://x.org/a%23b?x=1')!;
  t.equal(v.pathname, '/a');
  t.equal(v.hash, 'b?x=1');
  t.same(v.query, {}, 'what follows the fragment mark is no query');
  t.equal(urlView('http://x.org/a')!.hash, '');
});

t.test('malformed escapes anywhere give no view', async (t) => {
  t.equal(urlView('http://x.org/%E0%A4%A'), undefined, 'a truncated UTF-8 sequence');
  t.equal(urlView('http://x.org/p?x=a%2'), undefined, 'a truncated escape in the query');
  t.equal(urlView('http://x.org/p?x=%FF'), undefined, 'an invalid UTF-8 byte');
});

t.test('relative and scheme-less URLs: no host, everything in the path', async (t) => {
  const v = urlView('/path/only')!;
  t.same([v.url, v.protocol, v.hostname, v.port, v.pathname, v.search, v.hash, v.query], ['/path/only', '', '', '', '/path/only', '', '', {}]);
  t.equal(urlView('www.example.org/path?x=1')!.pathname, 'www.example.org/path', 'no scheme: the host is part of the path');
  t.equal(urlView('www.example.org/path?x=1')!.query.x, '1');
  t.equal(urlView('//cdn.x.org/a')!.hostname, '', 'a protocol-relative URL keeps its host in the path');
  t.equal(urlView('http://x.org/a b?q=x y')!.pathname, '/a%20b', 'spaces escaped in the path as the legacy parser does');
});

t.test('firstValue', async (t) => {
  t.equal(firstValue(['a', 'b']), 'a');
  t.equal(firstValue('a'), 'a');
  t.equal(firstValue(undefined), undefined);
});

// The view must be exactly what the reference's parsers saw for every URL of the conformance rows.
t.test('same parts as Node legacy parsing of the decoded URL, on every shared test URL', async (t) => {
  const dir = shared(t, 'platforms');
  if (!dir) return;
  let checked = 0;
  for (const platform of readdirSync(dir)) {
    const testDir = join(dir, platform, 'test');
    if (!existsSync(testDir)) continue;
    for (const file of readdirSync(testDir)) {
      const lines = readFileSync(join(testDir, file), 'utf8').replace(/^\uFEFF/, '').split(/\r?\n/);
      const header = lines[0].split(';').map((h) => h.trim());
      const col = header.indexOf('in-url');
      if (col < 0) continue;
      for (const line of lines.slice(1)) {
        const url = line.split(';')[col];
        if (!url) continue;
        const view = urlView(url);
        let decoded: string | undefined;
        try { decoded = decodeURIComponent(url); } catch { decoded = undefined; }
        if (decoded === undefined) { if (view !== undefined) t.fail(`${url} should give no view`); continue; }
        const ref = legacyParse(decoded, true);
        if (view!.pathname !== (ref.pathname ?? '') || view!.hostname !== (ref.hostname ?? '') ||
          JSON.stringify(view!.query) !== JSON.stringify(ref.query)) {
          t.fail(`view differs for ${url}`);
        }
        checked++;
      }
    }
  }
  t.ok(checked > 4000, `${checked} URLs checked`);
});
