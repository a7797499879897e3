import t from 'tap';
import { compileFormat } from '../../../src/pipeline/formats/compile.js';
import { parseLine } from '../../../src/pipeline/formats/line-parser.js';

t.test('a match becomes properties (reference 2.5)', async (t) => {
  const f = compileFormat('ezproxy', '%h %l %u %t "%r" %s %b');
  const line =
    '80.80.80.80 - oBzrStkEVAeUDeA [20/Nov/2011:17:45:50 +0100] "GET http://www.sciencedirect.com:80/science HTTP/1.1" 200 162009';
  t.same(parseLine(f, line), {
    host: '80.80.80.80',
    login: 'oBzrStkEVAeUDeA',
    datetime: '20/Nov/2011:17:45:50 +0100',
    url: 'http://www.sciencedirect.com:80/science',
    status: '200',
    size: '162009',
  });
  t.notOk('identd' in parseLine(f, line)!, '- is absent, not empty');
  t.equal(parseLine(f, line + ' '), undefined, 'anchored at the end');
  t.equal(parseLine(f, ' ' + line), undefined, 'anchored at the start');
  t.equal(parseLine(f, ''), undefined);
});

t.test('quotes: one surrounding pair removed', async (t) => {
  const f = compileFormat('ezproxy', '%u %{col1}<[0-9]+> %t "%r" %{col2}<"[A-Z]+">');
  const line =
    'chucknorris 012 [30/Nov/2012:00:13:10 +0100] "GET http://www.sciencedirect.com:80/science/article/pii/S0967064508000301 HTTP/1.1" "ABC"';
  t.same(parseLine(f, line), {
    login: 'chucknorris',
    col1: '012',
    datetime: '30/Nov/2012:00:13:10 +0100',
    url: 'http://www.sciencedirect.com:80/science/article/pii/S0967064508000301',
    col2: 'ABC',
  });
  const q = compileFormat('ezproxy', '%h %{v}<.*>');
  t.equal(parseLine(q, '1.1.1.1 ""x""')!.v, '"x"', 'only one pair');
  t.notOk('v' in parseLine(q, '1.1.1.1 ""')!, 'empty after unquoting: absent');
  t.notOk('v' in parseLine(q, '1.1.1.1 "-"')!, '- after unquoting: absent');
  t.equal(parseLine(q, '1.1.1.1 "')!.v, '"', 'a lone quote is kept');
  t.equal(parseLine(q, '1.1.1.1 "x')!.v, '"x', 'an unbalanced quote is kept');
  t.equal(parseLine(q, '1.1.1.1 x"')!.v, 'x"');
});

t.test('repeated properties: the last non-empty wins', async (t) => {
  const f = compileFormat('ezproxy', '%t %h %h %u %U %b %{session}<[a-zA-Z0-9]+|\\->');
  const ec = parseLine(f, '[18/Nov/2012:00:00:24 +0100] 40.30.25.122 40.30.25.123 5mpcyan6 http://link.springer.com:80/a 68903 -');
  t.equal(ec!.host, '40.30.25.123');
  t.notOk('session' in ec!);
  const g = compileFormat('ezproxy', '%h %{x}<.*> %h');
  t.equal(parseLine(g, '1.1.1.1 y -')!.host, '1.1.1.1', 'a later - does not erase an earlier value');
  const r = compileFormat('ezproxy', '"%r" %U');
  t.equal(parseLine(r, '"GET /a HTTP/1.1" /b')!.url, '/b');
  t.equal(parseLine(r, '"GET /a HTTP/1.1" -')!.url, '/a');
});

t.test('host lists are kept as they are', async (t) => {
  const f = compileFormat('ezproxy', '%h %u');
  t.equal(parseLine(f, '172.28.4.47, 195.221.0.34 bob')!.host, '172.28.4.47, 195.221.0.34');
  t.equal(parseLine(f, '172.28.4.47,195.221.0.34 bob')!.host, '172.28.4.47,195.221.0.34');
  t.equal(parseLine(f, '2001:db8::1 bob')!.host, '2001:db8::1');
});

t.test('inner groups of custom regexes are not properties', async (t) => {
  const f = compileFormat('ezproxy', '%h %{a}<(x)(y)?> %<(z)> %u');
  t.same(parseLine(f, '1.1.1.1 x z bob'), { host: '1.1.1.1', a: 'x', login: 'bob' });
  t.same(Object.keys(parseLine(f, '1.1.1.1 xy z bob')!), ['host', 'a', 'login']);
});

t.test('the regex keeps no state between lines', async (t) => {
  const f = compileFormat('ezproxy', '%h %u');
  for (let i = 0; i < 3; i++) t.same(parseLine(f, `1.1.1.${i} u${i}`), { host: `1.1.1.${i}`, login: `u${i}` });
});
