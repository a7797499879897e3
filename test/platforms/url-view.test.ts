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
