import t from 'tap';
import iconv from 'iconv-lite';
import { csvEventLines } from '../../../src/pipeline/formats/csv-events.js';
import { csvRowFields } from '../../../src/pipeline/formats/csv-rows.js';
import { StatusError } from '../../../src/status-codes.js';

async function* chunksOf(data: Buffer, size: number): AsyncIterable<Uint8Array> {
  for (let i = 0; i < data.length; i += size) yield data.subarray(i, i + size);
}

/** The lines csvEventLines gives for `data` cut into chunks of `size` bytes, and the columns it was told. */
async function read(data: Buffer | string, opts: { size?: number; charset?: string; maxRowBytes?: number } = {}) {
  const bytes = typeof data === 'string' ? Buffer.from(data) : data;
  let columns: readonly string[] | undefined;
  const out: Buffer[] = [];
  for await (const chunk of csvEventLines(chunksOf(bytes, opts.size ?? 65536), {
    charset: opts.charset ?? 'utf-8',
    maxRowBytes: opts.maxRowBytes ?? 100_000,
    onColumns: (c) => { columns = c; },
  })) out.push(Buffer.from(chunk));
  const text = Buffer.concat(out).toString('utf8');
  return { columns, lines: text.split('\n').filter((l) => l !== '') };
}

t.test('each row becomes one JSON line keyed by the header row', async (t) => {
  const csv = '\ufeffhost;login;datetime;url\r\n'
    + '1.2.3.4;JOHN;2012-11-30T00:13:10+01:00;http://a.example/x?a=1;b=2\r\n'
    + '\r\n'
    + '5.6.7.8;"ANNE ""A"";B";2012-11-30T00:14:10+01:00;"http://b.example/\nsecond line"\n';
  const whole = await read(csv);
  t.same(whole.columns, ['host', 'login', 'datetime', 'url'], 'the BOM is not part of the first name');
  t.same(whole.lines.map((l) => JSON.parse(l)), [
    // cells past the last column are dropped (ragged rows are tolerated)
    { host: '1.2.3.4', login: 'JOHN', datetime: '2012-11-30T00:13:10+01:00', url: 'http://a.example/x?a=1' },
    { host: '5.6.7.8', login: 'ANNE "A";B', datetime: '2012-11-30T00:14:10+01:00', url: 'http://b.example/\nsecond line' },
  ], 'quoted cells keep their separators, quotes and line breaks; the empty row is skipped');
  t.same((await read(csv, { size: 1 })).lines, whole.lines, 'the same whatever the chunks');
  t.same((await read(csv, { size: 7 })).lines, whole.lines);
});

t.test('short rows lack their last cells; empty cells are there as empty text', async (t) => {
  const { lines } = await read('a;b;c\n1\n1;;3\n');
  t.same(lines.map((l) => JSON.parse(l)), [{ a: '1' }, { a: '1', b: '', c: '3' }]);
  t.same(csvRowFields(lines[1]), { a: '1', c: '3' }, 'the fields leave empty cells out');
});

t.test('the request charset decodes the file', async (t) => {
  const { lines } = await read(iconv.encode('login;url\nJÉRÔME;http://a.example/\n', 'latin1'), { charset: 'latin1', size: 3 });
  t.same(JSON.parse(lines[0]), { login: 'JÉRÔME', url: 'http://a.example/' });
  const utf16 = await read(iconv.encode('login;url\nJÉRÔME;http://a.example/\n', 'utf-16le'), { charset: 'utf-16le', size: 5 });
  t.same(JSON.parse(utf16.lines[0]), { login: 'JÉRÔME', url: 'http://a.example/' });
});

t.test('a quoted cell that never closes fails with 4022 instead of holding the file', async (t) => {
  const csv = 'a;b\n1;"never closed\n' + 'x;y\n'.repeat(200_000);
  await t.rejects(read(csv, { maxRowBytes: 10_000, size: 4096 }), { code: 4022 });
  const long = 'a;b\n1;"' + 'z'.repeat(9_000) + '"\n2;3\n';
  t.equal((await read(long, { maxRowBytes: 10_000, size: 1000 })).lines.length, 2, 'a long row within the limit passes');
});

t.test('a quote closed in the middle of a cell: 4003 quoting where and saying what to fix, not an internal error', async (t) => {
  await t.rejects(read('host;login;url\n1.2.3.4;"ab"x;https://a.example/\n'), {
    code: 4003, message: /cannot be read: .*at 'x;https:.*a quote inside it is doubled/,
  });
});

t.test('empty rows before the header row are skipped', async (t) => {
  t.same((await read(';;\n\na;b\n1;2\n')).columns, ['a', 'b']);
});

t.test('a failing input fails the lines with its own error', async (t) => {
  async function* broken(): AsyncIterable<Uint8Array> {
    yield Buffer.from('a;b\n1;2\n');
    throw new StatusError(4002, 'not valid gzip data');
  }
  const lines = csvEventLines(broken(), { charset: 'utf-8', maxRowBytes: 1000, onColumns: () => undefined });
  await t.rejects((async () => { for await (const _ of lines) { /* read on */ } })(), { code: 4002, message: /not valid gzip/ });
});

t.test('short rows read slower than they come: no false 4022 (the streams between hold a megabyte of them)', async (t) => {
  let csv = 'datetime;url\n';
  for (let i = 0; i < 40_000; i++) csv += `2024-03-04T00:00:00+01:00;https://www.sciencedirect.com/science/article/pii/S09670645080${String(i).padStart(5, '0')}\n`;
  const lines = csvEventLines(chunksOf(Buffer.from(csv), 65536), { charset: 'utf-8', maxRowBytes: 100_000, onColumns: () => undefined });
  let rows = 0;
  let first = true;
  for await (const chunk of lines) {
    rows += Buffer.from(chunk).toString('utf8').split('\n').length - 1;
    // the job busy elsewhere: the input keeps being pulled meanwhile
    if (first) await new Promise((resolve) => setTimeout(resolve, 300));
    first = false;
  }
  t.equal(rows, 40_000);
});

t.test('a quoted CR stays in its value; a __proto__ column is a field like any other', async (t) => {
  const csv = 'datetime;__proto__;constructor;_line;note\n'
    + '2012-11-30T00:13:10+01:00;P;C;L;"a\rb"\n'
    + '2012-11-30T00:13:11+01:00;;;;"x\r\ny"\n';
  const { columns, lines } = await read(csv);
  t.same(columns, ['datetime', '__proto__', 'constructor', '_line', 'note']);
  t.equal(lines.length, 2);
  t.equal(lines[0], '{"datetime":"2012-11-30T00:13:10+01:00","__proto__":"P","constructor":"C","_line":"L","note":"a\\rb"}');
  const first = csvRowFields(lines[0])!;
  t.ok(Object.hasOwn(first, '__proto__'), 'an own field, not the prototype');
  t.equal(first['__proto__'], 'P');
  t.equal(Object.getPrototypeOf(first), Object.prototype);
  t.same(Object.keys(first), ['datetime', '__proto__', 'constructor', '_line', 'note']);
  t.equal(csvRowFields(lines[1])!.note, 'x\r\ny');
  t.notOk(Object.hasOwn(csvRowFields(lines[1])!, '__proto__'), 'an empty cell is left out');
});
