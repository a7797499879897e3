import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { SHARED_DIR } from '../../../src/paths.js';
import { AUTO_FORMATS, autoFormats, detectFormat } from '../../../src/pipeline/formats/auto-detect.js';
import { parseLine } from '../../../src/pipeline/formats/line-parser.js';

t.test('the six auto formats of reference 2.6, in order', async (t) => {
  t.same(
    AUTO_FORMATS.map((f) => f.family),
    ['ezproxy', 'apache', 'apache', 'apache', 'squid', 'squid'],
  );
  t.equal(AUTO_FORMATS[0].literal, '%h %l %u %t "%r" %s %b');
  t.equal(AUTO_FORMATS[2].literal, '%h %l %u %t "%r" %>s %b "%{referer}<[^ "]+>" "%{user-agent}<[^"]+>"');
  t.equal(AUTO_FORMATS[5].literal, '%>a %[ui %[un [%tl] "%rm %ru HTTP/%rv" %>Hs %<st %Ss:%Sh');
  t.equal(autoFormats().length, 6);
  t.equal(autoFormats(), autoFormats(), 'compiled once');
});

t.test('each family of line finds its format', async (t) => {
  const cases: [string, number][] = [
    ['1.2.3.4 - bob [10/Apr/2012:09:38:11 +0200] "GET http://x.com/ HTTP/1.1" 200 1234', 0],
    ['1.2.3.4 - bob [10/Apr/2012:09:38:11 +0200] "GET http://x.com/ HTTP/1.1" 200 -', 1],
    ['1.2.3.4 - bob [10/Apr/2012:09:38:11 +0200] "GET http://x.com/ HTTP/1.1" 200 12 "-" "Mozilla/5.0 (X)"', 2],
    ['1358163603,10.1.2.3,4522,"Europresse",www.europresse.com/,200,"text/html",ETU,a1b2,S0123', 3],
    [
      '1319061710.284   2102 90.90.90.90 TCP_MISS/200 309401 GET http://www.sciencedirect.com/x cousteau DIRECT/198.81.200.2 text/html',
      4,
    ],
    ['1.2.3.4 - bob [10/Apr/2012:09:38:11 +0200] "GET http://x.com/ HTTP/1.0" 200 1234 TCP_MISS:DIRECT', 5],
  ];
  for (const [line, index] of cases) {
    const format = detectFormat(line);
    t.equal(format, autoFormats()[index], `format ${index + 1}`);
    const ec = parseLine(format!, line)!;
    t.ok(ec.host, 'has a host');
    t.ok(ec.url, 'has a url');
  }
  t.equal(detectFormat('This line does not look like any kind of log !'), undefined);
  t.equal(detectFormat(''), undefined);
});

const sd = join(SHARED_DIR, 'datasets', 'sd.2012-11-30.300.log');
t.test('sd.2012-11-30.300.log is auto-detected as EZproxy and every line parses', { skip: !existsSync(sd) && `no ${sd}` }, async (t) => {
  const lines = readFileSync(sd, 'utf8').split('\n').filter((l) => l !== '');
  t.equal(lines.length, 283);
  const format = detectFormat(lines[0]);
  t.equal(format?.literal, AUTO_FORMATS[0].literal);
  t.equal(format?.family, 'ezproxy');
  t.equal(lines.filter((l) => parseLine(format!, l) !== undefined).length, 283);
});
if (!existsSync(sd)) t.comment(`shared datasets not found beside the checkout (${sd}): dataset tests skipped`);
