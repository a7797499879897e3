import { once } from 'node:events';
import { PassThrough, type Transform } from 'node:stream';
import { gunzipSync, inflateSync } from 'node:zlib';
import iconv from 'iconv-lite';
import t from 'tap';
import { contentTypeWithCharset, createEncoder, parseResponseEncoding, type ResponseEncoding } from '../../../src/pipeline/writers/encoding.js';
import { StatusError } from '../../../src/status-codes.js';

function codeOf(fn: () => unknown): number | undefined {
  try {
    fn();
  } catch (err) {
    if (err instanceof StatusError) return err.code;
    throw err;
  }
  return undefined;
}

/** Writes the chunks, ends, and returns every byte that came out. */
async function run(encoder: Transform, chunks: readonly string[]): Promise<Buffer> {
  const out: Buffer[] = [];
  encoder.on('data', (b: Buffer) => out.push(b));
  for (const chunk of chunks) encoder.write(chunk);
  encoder.end();
  await once(encoder, 'end');
  return Buffer.concat(out);
}

const TEXT = ['datetime;login;title\n', '2013-01-15T21:56:23+01:00;é;Ça coûte 5 £', '\n', 'x;ÿ;"quoted"\n'];

t.test('parseResponseEncoding', async (t) => {
  t.same(parseResponseEncoding(undefined, undefined), { charset: 'utf-8', compression: undefined, contentEncoding: undefined });
  t.same(parseResponseEncoding(' ', ''), { charset: 'utf-8', compression: undefined, contentEncoding: undefined });
  for (const utf8 of ['utf8', 'UTF-8', 'Utf8', ' utf-8 ']) t.equal(parseResponseEncoding(utf8, undefined).charset, 'utf-8', utf8);
  t.equal(parseResponseEncoding('latin1', undefined).charset, 'latin1');
  t.equal(parseResponseEncoding('ISO-8859-15', undefined).charset, 'ISO-8859-15');
  t.equal(parseResponseEncoding('windows-1252', undefined).charset, 'windows-1252');
  t.equal(parseResponseEncoding('utf-16le', undefined).charset, 'utf-16le');
  t.equal(parseResponseEncoding('Shift_JIS', undefined).charset, 'Shift_JIS');
  for (const bad of ['bogus', 'utf-9', 'base64', 'hex', 'latin-1x']) t.equal(codeOf(() => parseResponseEncoding(bad, undefined)), 4016, bad);

  t.same(parseResponseEncoding(undefined, 'gzip'), { charset: 'utf-8', compression: 'gzip', contentEncoding: 'gzip' });
  t.same(parseResponseEncoding(undefined, 'deflate'), { charset: 'utf-8', compression: 'deflate', contentEncoding: 'deflate' });
  t.equal(parseResponseEncoding(undefined, 'deflate, gzip').compression, 'gzip', 'gzip preferred');
  t.equal(parseResponseEncoding(undefined, 'br, deflate').compression, 'deflate');
  t.equal(parseResponseEncoding(undefined, ' GZIP ;q=1').compression, 'gzip');
  for (const bad of ['br', 'identity', 'gzipped', 'compress, br']) t.equal(codeOf(() => parseResponseEncoding(undefined, bad)), 4005, bad);
  // the charset is checked first (reference 1.4 order)
  t.equal(codeOf(() => parseResponseEncoding('bogus', 'br')), 4016);
});

t.test('contentTypeWithCharset announces the charset used', async (t) => {
  t.equal(contentTypeWithCharset('text/csv', 'utf-8'), 'text/csv; charset=utf-8');
  t.equal(contentTypeWithCharset('application/json', 'latin1'), 'application/json; charset=latin1');
  t.equal(contentTypeWithCharset('text/csv; charset=utf-8', 'utf-16le'), 'text/csv; charset=utf-16le');
  t.equal(contentTypeWithCharset('text/csv;header=present;Charset=x', 'latin1'), 'text/csv;header=present; charset=latin1');
});

t.test('UTF-8 without compression is a bare pass-through', async (t) => {
  const enc = createEncoder(parseResponseEncoding(undefined, undefined));
  t.ok(enc instanceof PassThrough);
  t.equal((await run(enc, TEXT)).toString('utf8'), TEXT.join(''));
});

t.test('round trips', async (t) => {
  const cases: [string | undefined, string | undefined, (b: Buffer) => Buffer][] = [
    ['latin1', undefined, (b) => b],
    ['utf-16le', undefined, (b) => b],
    ['utf-16', undefined, (b) => b],
    ['windows-1252', undefined, (b) => b],
    [undefined, 'gzip', gunzipSync],
    [undefined, 'deflate', inflateSync],
    ['latin1', 'gzip', gunzipSync],
    ['utf-16le', 'deflate', inflateSync],
    ['iso-8859-15', 'gzip, deflate', gunzipSync],
  ];
  for (const [charset, compression, uncompress] of cases) {
    const enc: ResponseEncoding = parseResponseEncoding(charset, compression);
    const bytes = uncompress(await run(createEncoder(enc), TEXT));
    const expected = iconv.encode(TEXT.join(''), enc.charset, { addBOM: enc.charset === 'utf-16' });
    t.same(bytes, expected, `${charset ?? 'utf-8'} ${compression ?? ''}: the bytes of the text in that charset`);
    t.equal(iconv.decode(bytes, enc.charset), TEXT.join(''), `${charset ?? 'utf-8'} ${compression ?? ''}: decodes back`);
  }
  // characters the charset cannot hold become ?, as iconv-lite does
  const latin = await run(createEncoder(parseResponseEncoding('latin1', undefined)), ['€漢']);
  t.equal(latin.toString('latin1'), '??');
  const cp1252 = await run(createEncoder(parseResponseEncoding('windows-1252', undefined)), ['5 €']);
  t.same(cp1252, Buffer.from([0x35, 0x20, 0x80]));
});

t.test('compression with a charset keeps back-pressure and ends', async (t) => {
  const enc = createEncoder(parseResponseEncoding('utf-16le', 'gzip'));
  // incompressible text so that the output is large
  let seed = 1;
  const random = () => (seed = (seed * 48271) % 2147483647);
  const chunks: string[] = [];
  for (let i = 0; i < 400; i++) {
    let s = '';
    for (let j = 0; j < 1000; j++) s += String.fromCharCode(0x20 + (random() % 0x5e));
    chunks.push(s + 'é\n');
  }
  const out: Buffer[] = [];
  let refused = 0;
  for (const chunk of chunks) {
    if (!enc.write(chunk)) {
      refused++;
      // read slowly: one chunk at a time
      while (enc.writableNeedDrain) {
        const piece = enc.read();
        if (piece === null) await new Promise((r) => setImmediate(r));
        else out.push(piece as Buffer);
      }
    }
  }
  t.ok(refused > 0, `write() asked to wait ${refused} times`);
  const done = once(enc, 'end');
  enc.end();
  enc.on('data', (b: Buffer) => out.push(b));
  await done;
  t.equal(iconv.decode(gunzipSync(Buffer.concat(out)), 'utf-16le'), chunks.join(''));
});

t.test('a destroyed encoder stops', async (t) => {
  const enc = createEncoder(parseResponseEncoding('latin1', 'deflate'));
  enc.write('abc');
  const closed = once(enc, 'close');
  enc.destroy();
  await closed;
  t.ok(enc.destroyed);
});
