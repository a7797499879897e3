import { parseString } from 'fast-csv';
import t from 'tap';
import type { AccessEvent } from '../../../src/pipeline/event.js';
import { createTsvSerializer, tsvFrame, tsvHeader } from '../../../src/pipeline/writers/tsv.js';
import { body, failedBody } from './frame-helper.js';

function parseTsv(text: string): Promise<Record<string, string>[]> {
  return new Promise((resolve, reject) => {
    const rows: Record<string, string>[] = [];
    parseString(text, { headers: true, delimiter: '\t' })
      .on('data', (row: Record<string, string>) => rows.push(row))
      .on('error', reject)
      .on('end', () => resolve(rows));
  });
}

t.test('values: quoting, no trimming, falsy values, numbers', async (t) => {
  const s = createTsvSerializer(['a', 'b', 'c', 'd', 'e']);
  t.equal(s.serialize({ a: 'x', b: 'y;z', c: '', e: 'end' }), 'x\ty;z\t\t\tend', '; needs no quoting');
  t.equal(s.serialize({ a: 'tab\there', b: 'say "hi"', c: '"' }), '"tab\there"\t"say ""hi"""\t""""\t\t');
  t.equal(s.serialize({ a: '  padded ', b: 'a\nb' }), '  padded \tab\t\t\t', 'no trimming; every \\n removed, as in CSV');
  t.equal(s.serialize({ a: 0, b: 12, c: -1.5, d: '0' }), '\t12\t-1.5\t0\t', 'the number 0 prints empty, the text "0" does not');
  t.equal(s.serialize({}), '\t\t\t\t');
  t.equal(s.serialize({ _line: 'raw', a: 'é😀' }), 'é😀\t\t\t\t');
  t.equal(s.serialize({ a: '#x', b: '#y' }), '"#x"\t#y\t\t\t', 'a row never starts with #');
});

t.test('header, frame, body', async (t) => {
  t.equal(tsvHeader(['host', 'a\tb', 'q"']), 'host\t"a\tb"\t"q"""');
  const frame = tsvFrame(['host', 'size']);
  t.equal(frame.head, 'host\tsize\n');
  t.equal(frame.separator, '');
  t.equal(frame.terminator, '\n', 'each row ends with its newline at once');
  t.equal(frame.tail, '');
  t.equal(body('tsv', ['host', 'size'], [{ host: 'h1', size: '10' }, { host: 'h2', size: 0 }]), 'host\tsize\nh1\t10\nh2\t\n');
  t.equal(body('tsv', ['host'], []), '');
  t.equal(
    failedBody('tsv', ['host'], [{ host: 'h1' }], 4039, 'The client closed the connection'),
    'host\nh1\n#logsift-error 4039 The client closed the connection\n',
  );
});

t.test('round trip through fast-csv', async (t) => {
  const columns = ['datetime', 'url', 'title', 'size', 'missing'];
  const events: AccessEvent[] = [
    { datetime: '2012-11-30T00:14:18+01:00', url: 'http://x.org/a?b=1;c=2', title: 'A "quoted"\ttitle', size: 224846 },
    { datetime: '#first', url: '"', title: ';', size: '0' },
  ];
  const rows = await parseTsv(body('tsv', columns, events));
  t.equal(rows.length, events.length);
  for (let i = 0; i < events.length; i++) {
    for (const c of columns) {
      const v = events[i][c];
      t.equal(rows[i][c], v === undefined ? '' : String(v), `row ${i} ${c}`);
    }
  }
});

t.test('no raw line feed in a value or a name; \\r quoted', async (t) => {
  const s = createTsvSerializer(['a', 'b']);
  t.equal(s.serialize({ a: 'x', b: 'a\nb' }), 'x\tab', '\\n deleted, as in CSV');
  t.equal(s.serialize({ a: 'x', b: 'a\rb' }), 'x\t"a\rb"', 'a value holding \\r is quoted');
  t.equal(s.serialize({ a: 'x', b: 'a\r\n"b' }), 'x\t"a\r""b"');
  t.equal(s.serialize({ a: '\n#logsift-error 1 x', b: 'y' }), '"#logsift-error 1 x"\ty', 'a first value cannot start a row with # once its \\n is gone');
  t.equal(tsvHeader(['nl\nname', 'cr\rname']), 'nlname\t"cr\rname"');
  // a complete job whose value tries to forge the error marker or a row: one line per row, no marker line
  const out = body('tsv', ['a', 'b'], [{ a: 'x', b: 'y\n#logsift-error 5003 service shutting down' }, { a: 'z', b: 'q\nFAKE\tROW' }]);
  const lines = out.split('\n');
  t.equal(lines.length, 4, 'header, 2 rows, the final empty string');
  t.notOk(lines.some((l) => l.startsWith('#logsift-error')));
  t.same(await parseTsv(out), [{ a: 'x', b: 'y#logsift-error 5003 service shutting down' }, { a: 'z', b: 'qFAKE\tROW' }]);
});

t.test('columns named like Object.prototype properties read own fields only', async (t) => {
  const s = createTsvSerializer(['datetime', 'constructor', '__proto__', 'toString']);
  t.equal(s.serialize({ datetime: 'd' }), 'd\t\t\t');
  const ec: AccessEvent = { datetime: 'd', toString: 'T' };
  Object.defineProperty(ec, '__proto__', { value: 'P', enumerable: true, writable: true, configurable: true });
  t.equal(s.serialize(ec), 'd\t\tP\tT');
});
