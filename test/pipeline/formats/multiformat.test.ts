/**
 * Real lines of each proxy family (shared/datasets/multiformat, reference section 9 and its
 * custom-formats test), parsed with their formats and compared with the `.result.json` twins
 * on the fields read from the log: count, login, status, size, custom fields, url, domain and the
 * datetime instant (the twins were written by older versions: hashed hosts and platform fields
 * are not compared).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { SHARED_DIR } from '../../../src/paths.js';
import { makeEventTimer, DEFAULT_DATE_FORMAT } from '../../../src/pipeline/dates.js';
import { AUTO_FORMATS, detectFormat } from '../../../src/pipeline/formats/auto-detect.js';
import { compileFormat } from '../../../src/pipeline/formats/compile.js';
import { parseLine } from '../../../src/pipeline/formats/line-parser.js';
import type { CompiledFormat, ProxyFamily } from '../../../src/pipeline/formats/types.js';
import { normaliseUrl } from '../../../src/pipeline/url-normalise.js';

const datasets = join(SHARED_DIR, 'datasets');
const multiformat = join(datasets, 'multiformat');

interface Case {
  file: string;
  /** undefined: no format header, auto-detection */
  format?: [ProxyFamily, string];
  /** the auto format expected to be detected */
  auto?: number;
  /** non-empty lines that parse */
  parsed: number;
  /** lines that do not parse */
  unknown: number;
}

const CASES: Case[] = [
  { file: 'univ_limoges.ezproxy.log', format: ['ezproxy', '%t %h %U'], parsed: 1, unknown: 1 },
  { file: 'univ_lyon.ezproxy.log', format: ['ezproxy', '%h %l %u %t "%r" %s %b'], parsed: 1, unknown: 0 },
  {
    file: 'univ_strasbourg.ezproxy.log',
    format: ['ezproxy', '%t %h %h %u %U %b %{session}<[a-zA-Z0-9]+|\\->'],
    parsed: 2,
    unknown: 0,
  },
  { file: 'ul.ezproxy.log', format: ['ezproxy', '%h %u %<[0-9]> %t "%r" %s %b %<[a-zA-Z\\+]+>'], parsed: 1, unknown: 0 },
  { file: 'upmc.ezproxy.log', format: ['ezproxy', '%h %{session} %u %t "%r" %s %b %<.*>'], parsed: 1, unknown: 0 },
  {
    file: 'univ_rennes1.ezproxy.log',
    format: [
      'ezproxy',
      '%h %{session1}<[a-zA-Z0-9\\-\\+]+> %{session2}<[a-zA-Z0-9\\-\\+]+> %t "%r" %s %b %{user}<[a-zA-Z0-9\\-\\+]+>',
    ],
    parsed: 3,
    unknown: 0,
  },
  { file: 'test.apache.log', format: ['apache', '%h %l %u %t "%r" %>s %b %<.*>'], parsed: 1, unknown: 0 },
  { file: 'univ_toulouse.apache.log', auto: 2, parsed: 1, unknown: 0 },
  { file: 'univ_parisdescartes.apache.log', auto: 2, parsed: 1, unknown: 0 },
  {
    file: 'upmc.squid.log',
    format: ['squid', '%ts.%03tu %6tr %>a %Ss/%03>Hs %<st %rm %ru %[un %Sh/%<a %mt'],
    parsed: 2,
    unknown: 0,
  },
  {
    file: 'inria.squid.log',
    format: ['squid', '%<A:%lp %>a %ui %[un [%tl] "%rm %ru HTTP/%rv" %>Hs %<st %<.*>'],
    parsed: 2,
    unknown: 0,
  },
];

/** Fields of the twins that do not come from the log line as such. */
const NOT_FROM_LOG = new Set(['host', 'datetime', 'timestamp', 'date', 'url', 'domain', 'mime']);

const timer = makeEventTimer(DEFAULT_DATE_FORMAT, 'UTC');

interface Parsed {
  fields: Record<string, string>;
  url: string | undefined;
  domain: string | undefined;
  timestamp: number | undefined;
}

function parseFile(lines: string[], format: CompiledFormat): { parsed: Parsed[]; unknown: number } {
  const parsed: Parsed[] = [];
  let unknown = 0;
  for (const line of lines) {
    const fields = parseLine(format, line);
    if (!fields) {
      unknown++;
      continue;
    }
    const normal = fields.url === undefined ? undefined : normaliseUrl(fields.url);
    parsed.push({
      fields,
      url: normal?.url,
      domain: normal?.domain ?? fields.domain,
      timestamp: timer(fields)?.timestamp,
    });
  }
  return { parsed, unknown };
}

/** Compares each expected EC with the parsed line of the same instant and url. */
function compareWithTwin(t: Test, parsed: Parsed[], format: CompiledFormat, expected: Record<string, unknown>[]): void {
  for (const [i, want] of expected.entries()) {
    const instant = Date.parse(String(want.datetime)) / 1000;
    const fromLog = format.fieldNames.filter((name) => !NOT_FROM_LOG.has(name));
    const same = parsed.filter((p) => p.timestamp === instant && p.url === want.url);
    // lines may share instant and url (then the kept one is the one whose fields all agree)
    const got = same.find((p) => fromLog.every((name) => p.fields[name] === want[name])) ?? same[0];
    if (!got) {
      t.fail(`EC ${i + 1}: no parsed line at ${String(want.datetime)} for ${String(want.url)}`);
      continue;
    }
    t.equal(got.timestamp, Number(want.timestamp), `EC ${i + 1}: timestamp`);
    t.equal(got.domain, want.domain, `EC ${i + 1}: domain`);
    for (const name of fromLog) {
      t.equal(got.fields[name], want[name] as string | undefined, `EC ${i + 1}: ${name}`);
    }
    if (!String(want.host).match(/^[0-9a-f]{32}$/)) t.equal(got.fields.host, want.host, `EC ${i + 1}: host`);
  }
}

t.test('multiformat datasets', { skip: !existsSync(multiformat) && `no ${multiformat}` }, async (t) => {
  for (const c of CASES) {
    t.test(c.file, async (t) => {
      const lines = readFileSync(join(multiformat, c.file), 'utf8')
        .split('\n')
        .filter((line) => line !== '');
      let format: CompiledFormat;
      if (c.format) {
        format = compileFormat(c.format[0], c.format[1]);
      } else {
        format = detectFormat(lines[0])!;
        t.equal(format?.literal, AUTO_FORMATS[c.auto!].literal, `auto format ${c.auto! + 1} detected`);
      }
      const { parsed, unknown } = parseFile(lines, format);
      t.equal(parsed.length, c.parsed, 'lines parsed');
      t.equal(unknown, c.unknown, 'unknown-format lines');
      t.ok(
        parsed.every((p) => p.timestamp !== undefined),
        'every parsed line has a date',
      );
      const twin = join(multiformat, c.file.replace(/\.log$/, '.result.json'));
      compareWithTwin(t, parsed, format, JSON.parse(readFileSync(twin, 'utf8')) as Record<string, unknown>[]);
    });
  }
});

t.test('reference details of the twins', { skip: !existsSync(multiformat) && `no ${multiformat}` }, async (t) => {
  const read = (file: string) => readFileSync(join(multiformat, file), 'utf8').split('\n').filter(Boolean);
  // parisdescartes: %b is `-` → no size
  const pd = read('univ_parisdescartes.apache.log');
  const pdFields = parseLine(detectFormat(pd[0])!, pd[0])!;
  t.notOk('size' in pdFields);
  t.equal(pdFields['user-agent'], 'Mozilla/5.0 (compatible; MSIE 9.0; Windows NT 6.1; WOW64; Trident/5.0)');
  t.equal(normaliseUrl(pdFields.url).url.startsWith('http://pdn.sciencedirect.com/science?'), true, '/http/ rewritten');
  // inria: relative URL, the domain comes from %<A
  const inria = read('inria.squid.log');
  const f = compileFormat('squid', '%<A:%lp %>a %ui %[un [%tl] "%rm %ru HTTP/%rv" %>Hs %<st %<.*>');
  const first = parseLine(f, inria[0])!;
  t.equal(first.domain, 'istproxy.inrialpes.fr');
  t.equal(first.port, '443');
  t.equal(first.status, '401');
  t.notOk('login' in first);
  t.equal(normaliseUrl(first.url).domain, undefined, 'relative url: no domain from the url');
  t.equal(parseLine(f, inria[1])!.login, 'tartempion');
  // upmc.squid: timestamp kept as read; the timer turns it into a number
  const upmc = read('upmc.squid.log');
  const squid = compileFormat('squid', '%ts.%03tu %6tr %>a %Ss/%03>Hs %<st %rm %ru %[un %Sh/%<a %mt');
  const denied = parseLine(squid, upmc[0])!;
  t.equal(denied.status, '407');
  t.notOk('login' in denied);
  t.equal(denied.squidHierarchyStatus, 'NONE');
  t.equal(parseLine(squid, upmc[1])!.mime, 'text/html');
  t.same(timer(parseLine(squid, upmc[1])!), {
    timestamp: 1319061710,
    datetime: '2011-10-19T22:01:50+00:00',
    date: '2011-10-19',
  });
  // rennes1: the offset of the line is kept (the reference moved it to the server's zone)
  const rennes = read('univ_rennes1.ezproxy.log');
  const rf = compileFormat('ezproxy', '%h %{session1}<[a-zA-Z0-9\\-\\+]+> %{session2}<[a-zA-Z0-9\\-\\+]+> %t "%r" %s %b %{user}<[a-zA-Z0-9\\-\\+]+>');
  t.equal(timer(parseLine(rf, rennes[0])!)!.datetime, '2013-06-26T14:10:18+01:00');
  // upmc.ezproxy: a login with a percent sign
  const upmcEz = read('upmc.ezproxy.log');
  t.equal(
    parseLine(compileFormat('ezproxy', '%h %{session} %u %t "%r" %s %b %<.*>'), upmcEz[0])!.login,
    'i.am.anonymous@no-identity.fr%20P',
  );
  // INRIA.squid.test.log has no twin but the same lines
  t.equal(read('INRIA.squid.test.log').filter((l) => parseLine(f, l)).length, 2);
});

const duplicates = join(datasets, 'sd.duplicates.log');
t.test('sd.duplicates.log with %h %u %{session}<[a-zA-Z0-9\\-]+> %t "%r" %s', { skip: !existsSync(duplicates) && `no ${duplicates}` }, async (t) => {
  const format = compileFormat('ezproxy', '%h %u %{session}<[a-zA-Z0-9\\-]+> %t "%r" %s');
  t.same(format.fieldNames, ['host', 'login', 'session', 'datetime', 'url', 'status']);
  const lines = readFileSync(duplicates, 'utf8').split('\n').filter(Boolean);
  const { parsed, unknown } = parseFile(lines, format);
  t.equal(lines.length, 19);
  t.equal(parsed.length, 19);
  t.equal(unknown, 0);
  for (const name of ['session', 'login', 'ip', 'mixed-login', 'manyclick', 'manyclick2']) {
    const file = join(datasets, `sd.duplicates-${name}.result.json`);
    const expected = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>[];
    const source = name.startsWith('manyclick') ? join(datasets, `sd.duplicates-${name}.log`) : duplicates;
    const own = parseFile(readFileSync(source, 'utf8').split('\n').filter(Boolean), format);
    t.equal(own.unknown, 0, `${name}: every line parses`);
    t.test(`against sd.duplicates-${name}.result.json`, async (t) => compareWithTwin(t, own.parsed, format, expected));
  }
});

const sd300 = join(datasets, 'sd.2012-11-30.300.log');
t.test('sd.2012-11-30.300.log (auto-detected) against its result', { skip: !existsSync(sd300) && `no ${sd300}` }, async (t) => {
  const lines = readFileSync(sd300, 'utf8').split('\n').filter(Boolean);
  const format = detectFormat(lines[0])!;
  const { parsed, unknown } = parseFile(lines, format);
  t.equal(parsed.length, 283);
  t.equal(unknown, 0);
  const expected = JSON.parse(readFileSync(join(datasets, 'sd.2012-11-30.300.result.json'), 'utf8')) as Record<string, unknown>[];
  t.equal(expected.length, 22);
  compareWithTwin(t, parsed, format, expected);
});

if (!existsSync(multiformat)) t.comment(`shared datasets not found beside the checkout (${datasets}): dataset tests skipped`);
