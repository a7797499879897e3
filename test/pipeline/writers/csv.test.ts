import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseString } from 'fast-csv';
import t from 'tap';
import type { AccessEvent } from '../../../src/pipeline/event.js';
import { createCsvSerializer, csvFrame, csvHeader } from '../../../src/pipeline/writers/csv.js';
import { SHARED_DIR } from '../../../src/paths.js';
import { body, failedBody } from './frame-helper.js';

function parseCsv(text: string, delimiter: string): Promise<Record<string, string>[]> {
  return new Promise((resolve, reject) => {
    const rows: Record<string, string>[] = [];
    parseString(text, { headers: true, delimiter })
      .on('data', (row: Record<string, string>) => rows.push(row))
      .on('error', reject)
      .on('end', () => resolve(rows));
  });
}

t.test('values: quoting, trimming, newlines, numbers, absent', async (t) => {
  const s = createCsvSerializer(['a', 'b', 'c', 'd', 'e', 'f']);
  t.equal(s.serialize({ a: 'x', b: 'y z', c: '', d: undefined, f: 'end' }), 'x;y z;;;;end');
  t.equal(s.serialize({ a: 'semi;colon', b: 'say "hi"', c: '""', d: '"a;b"' }), '"semi;colon";"say ""hi""";"""""";"""a;b""";;');
  t.equal(s.serialize({ a: '  padded\t', b: ' \n lead' }), 'padded;lead;;;;', 'trimmed (trim removes the edge newline)');
  t.equal(s.serialize({ a: 'two\nlines', b: 'q"\nx', c: 'cr\r\nlf' }), 'twolines;"q""x";"cr\rlf";;;', 'every \\n removed, a value with \\r quoted');
  t.equal(s.serialize({ a: 'x', b: 'semi;\nnew' }), 'x;"semi;new";;;;', 'quoted before the \\n removal');
  t.equal(s.serialize({ a: 1354230858, b: 0, c: -1.5, d: 'id' }), '1354230858;0;-1.5;id;;', 'numbers as text, 0 kept');
  t.equal(s.serialize({}), ';;;;;');
  t.equal(s.serialize({ a: 'é ü 漢字', b: '😀' }), 'é ü 漢字;😀;;;;');
  // fields not in the columns, internal ones included, are not written
  t.equal(s.serialize({ _line: 'raw', z: 'no', a: 'yes' }), 'yes;;;;;');
  // null and arrays print as the reference prints them (they should not occur)
  t.equal(s.serialize({ a: null, b: ['1', '2'] } as unknown as AccessEvent), 'null;1,2;;;;');
});

t.test('a row never starts with #', async (t) => {
  const s = createCsvSerializer(['a', 'b']);
  t.equal(s.serialize({ a: '#logsift-error 5000 fake', b: '#x' }), '"#logsift-error 5000 fake";#x');
  t.equal(s.serialize({ a: '  #x' }), '"#x";');
  t.equal(csvHeader(['#a', '#b']), '"#a";#b');
});

t.test('header: names quoted like values', async (t) => {
  t.equal(csvHeader(['datetime', 'a;b', 'say"x"']), 'datetime;"a;b";"say""x"""');
  t.equal(csvHeader([]), '');
});

t.test('frame and body bytes', async (t) => {
  const frame = csvFrame(['host', 'size']);
  t.equal(frame.head, 'host;size\n');
  t.equal(frame.separator, '');
  t.equal(frame.terminator, '\n', 'each row ends with its newline at once');
  t.equal(frame.tail, '');
  t.equal(body('csv', ['host', 'size'], [{ host: 'h1', size: '10' }, { host: 'h2' }]), 'host;size\nh1;10\nh2;\n');
  t.equal(body('csv', ['host'], []), '', 'no event, no header (reference 5.1)');
});

t.test('error marker: a last line starting #logsift-error', async (t) => {
  const out = failedBody('csv', ['host', 'url'], [{ host: '#h', url: 'u' }, { host: 'h2', url: 'u2' }], 5002, 'worker\ncrashed');
  t.equal(out, 'host;url\n"#h";u\nh2;u2\n#logsift-error 5002 worker crashed\n');
  const lines = out.split('\n');
  t.equal(lines.filter((l) => l.startsWith('#logsift-error ')).length, 1);
  t.equal(lines.at(-2), '#logsift-error 5002 worker crashed');
});

t.test('round trip through fast-csv', async (t) => {
  const columns = ['datetime', 'login', 'url', 'title', 'size', 'empty', 'hash'];
  const events: AccessEvent[] = [
    { datetime: '2012-11-30T00:14:18+01:00', login: 'THEODORE', url: 'http://x.org/a?b=1;c=2&d="e"', title: 'A "quoted"; title', size: 224846, hash: '#1' },
    { datetime: '2012-11-30T00:14:19+01:00', login: 'é;ü', url: '"', title: ';', size: 0, empty: '' },
    // no \n nor \r: the reference leaves a \r unquoted, which CSV parsers take for a line break
    { datetime: '#2012', login: '""', url: 'tab\there', title: 'spaces  inside' },
  ];
  const rows = await parseCsv(body('csv', columns, events), ';');
  t.equal(rows.length, events.length);
  for (let i = 0; i < events.length; i++) {
    for (const c of columns) {
      const v = events[i][c];
      t.equal(rows[i][c], v === undefined ? '' : String(v), `row ${i} ${c}`);
    }
  }
});

const FIXTURE = join(SHARED_DIR, 'datasets', 'sd.2013-01-15.result.csv');
const REINJECTED = join(SHARED_DIR, 'datasets', 'sd.2012-11-30.300.csv');
const noShared = existsSync(FIXTURE) ? false : `no ${FIXTURE} (the shared folder is not beside the checkout)`;

t.test('reference CSV files are reproduced byte for byte', { skip: noShared }, async (t) => {
  for (const file of [FIXTURE, REINJECTED]) {
    const text = readFileSync(file, 'utf8');
    const columns = text.slice(0, text.indexOf('\n')).split(';');
    const events = (await parseCsv(text, ';')).map((row) => {
      const ec: AccessEvent = {};
      for (const [k, v] of Object.entries(row)) if (v !== '') ec[k] = v;
      return ec;
    });
    t.ok(events.length > 0, `${file}: ${events.length} events`);
    t.equal(body('csv', columns, events), text, file);
  }
});

t.test('any values without \\n survive a fast-csv round trip, \\r included', async (t) => {
  const { default: fc } = await import('fast-check');
  const columns = ['a', 'b', 'c'] as const;
  // the reference trims values and drops \n: compare with that
  const value = fc.string({ unit: 'binary', maxLength: 30 }).map((s) => s.replace(/\n/g, ''));
  const event = fc.record({ a: value, b: value, c: value });
  await fc.assert(
    fc.asyncProperty(fc.array(event, { minLength: 1, maxLength: 5 }), async (events) => {
      const rows = await parseCsv(body('csv', columns, events), ';');
      return rows.length === events.length && rows.every((row, i) => columns.every((c) => row[c] === String(events[i][c]).trim()));
    }),
    { numRuns: 500 },
  );
  t.pass('500 random jobs');
});

t.test('a value holding \\r is quoted: a strict reader gets it whole', async (t) => {
  const s = createCsvSerializer(['a', 'b']);
  t.equal(s.serialize({ a: 'a\rb', b: 'c' }), '"a\rb";c');
  t.equal(s.serialize({ a: 'x', b: 'a\r\n;b' }), 'x;"a\r;b"', '\\n deleted, then quoted for \\r and ;');
  t.equal(csvHeader(['cr\rname', 'nl\nname']), '"cr\rname";nlname');
  const rows = await parseCsv(body('csv', ['a', 'b'], [{ a: 'a\rb', b: '1' }, { a: 'x', b: 'y\r' + 'z' }]), ';');
  t.same(rows, [{ a: 'a\rb', b: '1' }, { a: 'x', b: 'y\rz' }]);
});

t.test('columns named like Object.prototype properties read own fields only', async (t) => {
  const columns = ['datetime', 'constructor', '__proto__', 'toString', 'hasOwnProperty'];
  const s = createCsvSerializer(columns);
  t.equal(s.serialize({ datetime: 'd' }), 'd;;;;', 'nothing inherited is written');
  const ec: AccessEvent = { datetime: 'd', constructor: 'C', toString: 'T' };
  Object.defineProperty(ec, '__proto__', { value: 'P', enumerable: true, writable: true, configurable: true });
  t.equal(s.serialize(ec), 'd;C;P;T;', 'own fields so named are written');
  t.equal(csvHeader(columns), 'datetime;constructor;__proto__;toString;hasOwnProperty');
});
