import t from 'tap';
import { readFileSync } from 'node:fs';
import { shared } from '../../helpers/shared.js';
import { discoverFormats, formatCandidates, oneByOne } from '../../../src/pipeline/formats/discover.js';
import type { Matcher } from '../../../src/pipeline/formats/tester.js';

const plain: Matcher = (source, line) => {
  const m = new RegExp(source).exec(line);
  return m === null ? null : Array.from(m, (x) => x ?? null);
};

const EZPROXY = '1.2.3.4 - JOHN [30/Nov/2012:00:14:18 +0100] "GET http://www.sciencedirect.com:80/a HTTP/1.1" 200 2248';
const SESSION = '1.2.3.4 - JOHN [30/Nov/2012:00:14:18 +0100] "GET http://www.sciencedirect.com:80/a HTTP/1.1" 200 2248 "AbCdEf12"';

const SETTINGS = {
  plain: { headers: { 'Log-Format-EZproxy': '%h %l %u %t "%r" %s %b' } },
  same: { headers: { 'log-format-ezproxy': ' %h %l %u %t "%r" %s %b ' } },
  session: { headers: { 'Log-Format-ezproxy': '%h %l %u %t "%r" %s %b "%{ezproxy-session}i"' } },
  iso: { headers: { 'Log-Format-ezproxy': '%h %l %u %t "%r" %s %b', 'Date-Format': 'YYYY-MM-DD HH:mm:ss' } },
  noFormat: { headers: { 'Crypted-Fields': 'none' } },
  unknownFamily: { headers: { 'Log-Format-nginx': '%h' } },
  broken: { headers: { 'Log-Format-ezproxy': '%{unclosed' } },
};

t.test('the candidates: one per distinct family, format and date format, with the settings using it', async (t) => {
  const c = formatCandidates(SETTINGS);
  t.same(c.map((x) => [x.proxy, x.format, x.dateFormat, x.ids]), [
    ['ezproxy', '%h %l %u %t "%r" %s %b', 'DD/MMM/YYYY:HH:mm:ss Z', ['plain', 'same']],
    ['ezproxy', '%h %l %u %t "%r" %s %b "%{ezproxy-session}i"', 'DD/MMM/YYYY:HH:mm:ss Z', ['session']],
    ['ezproxy', '%h %l %u %t "%r" %s %b', 'YYYY-MM-DD HH:mm:ss', ['iso']],
    ['ezproxy', '%{unclosed', 'DD/MMM/YYYY:HH:mm:ss Z', ['broken']],
  ], 'header names in any case, values trimmed; no format, no candidate');
});

t.test('discovery: the formats reading the lines as a job would, the most lines first', async (t) => {
  const candidates = formatCandidates(SETTINGS);
  const r = discoverFormats({ logLines: `${SESSION}\n${SESSION}\n${EZPROXY}\n\nnot a log line\n`, candidates, defaultZone: 'UTC' }, oneByOne(plain));
  t.equal(r.tested, 4, 'blank lines left out');
  t.same(r.formats.map((f) => [f.ids, f.matching]), [[['session'], 2], [['plain', 'same'], 1]],
    'the session format reads two lines, the plain one the third (a regex anchored at both ends); the ISO date format none, the broken format nothing');
  const none = discoverFormats({ logLines: 'nothing here', candidates, defaultZone: 'UTC' }, oneByOne(plain));
  t.same(none, { tested: 1, formats: [] });
});

t.test('the shared predefined settings: the benchmark\'s EZproxy lines find the institutions using that format', async (t) => {
  const file = shared(t, 'resources', 'predefined-settings.json');
  if (!file) return;
  const raw = JSON.parse(readFileSync(file, 'utf8')) as Record<string, { headers?: Record<string, string> }>;
  const candidates = formatCandidates(Object.fromEntries(Object.entries(raw).map(([id, s]) => [id, { headers: s.headers ?? {} }])));
  t.ok(candidates.length > 50, `${candidates.length} distinct formats`);
  const r = discoverFormats({ logLines: `${EZPROXY}\n${EZPROXY}`, candidates, defaultZone: 'Europe/Paris' }, oneByOne(plain));
  const ids = r.formats.flatMap((f) => f.ids);
  t.ok(ids.length >= 1, `${ids.length} settings read the lines: ${ids.slice(0, 8).join(', ')}…`);
  t.ok(r.formats.every((f) => f.matching === 2), 'each reading both lines');
});
