import t from 'tap';
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { constants as zlib, deflateSync, gunzipSync, gzipSync } from 'node:zlib';
import { breakable, INFLATE_RATIO_FROM_BYTES, requestInputs, visibleText, type InputLimits } from '../../src/pipeline/job-inputs.js';

/** A request body as a socket delivers it: 16 kB chunks. */
function body(bytes: Buffer, headers: Record<string, string>): IncomingMessage {
  const chunks = Array.from({ length: Math.ceil(bytes.length / 16384) }, (_, i) => bytes.subarray(i * 16384, (i + 1) * 16384));
  return Object.assign(Readable.from(chunks), { headers }) as unknown as IncomingMessage;
}

t.test('a gzip body cut short: a slow reader still gets every byte zlib decoded before the cut, then 4002', async (t) => {
  const text = Array.from({ length: 4000 }, (_, i) => `line ${i} ${'x'.repeat(120)} ${(i * 7919) % 10007}\n`).join('');
  const gz = gzipSync(text);
  const cut = gz.subarray(0, gz.length - 4000);
  const decodable = gunzipSync(cut, { finishFlush: zlib.Z_SYNC_FLUSH }).length;
  let got = 0;
  let error: unknown;
  try {
    for await (const input of requestInputs(body(cut, { 'content-type': 'text/plain' }), 'gzip')) {
      for await (const chunk of input.bytes) {
        got += chunk.length;
        await sleep(2); // slower than zlib: decoded chunks wait in its buffer
      }
    }
  } catch (err) {
    error = err;
  }
  t.match(error, { code: 4002 }, 'the cut is an error');
  t.equal(got, decodable, `${got} of the ${decodable} bytes decodable before the cut`);
});

t.test('multipart file names are recorded without controls and direction overrides', async (t) => {
  t.equal(visibleText('résumé 2024.log'), 'résumé 2024.log', 'other characters kept');
  t.equal(visibleText('\u202e\u0000\u001b[31mred\u0085\u007f\u2066.log'), '\ufffd\ufffd\ufffd[31mred\ufffd\ufffd\ufffd.log');
  const boundary = 'xyz';
  const form = Buffer.from([
    `--${boundary}`,
    "Content-Disposition: form-data; name=\"f\"; filename*=UTF-8''%E2%80%AE%00%1b%5B31mred.log",
    'Content-Type: text/plain',
    '',
    'a line',
    `--${boundary}--`,
    '',
  ].join('\r\n'));
  const names: Array<string | undefined> = [];
  for await (const input of requestInputs(body(form, { 'content-type': `multipart/form-data; boundary=${boundary}` }), undefined)) {
    names.push(input.name);
    for await (const _ of input.bytes) { /* read through */ }
  }
  t.same(names, ['\ufffd\ufffd\ufffd[31mred.log']);
});

t.test('breakable: what it has given is not kept (a race against one long-lived promise kept every chunk: the whole upload)', async (t) => {
  async function* chunks(): AsyncIterable<Buffer> {
    for (let i = 0; i < 400; i++) yield Buffer.alloc(1 << 20, i);
  }
  const controller = new AbortController();
  let most = 0;
  let n = 0;
  for await (const chunk of breakable(chunks(), controller.signal)) {
    n++;
    if (chunk.length !== 1 << 20) t.fail('a chunk as given');
    most = Math.max(most, process.memoryUsage().arrayBuffers);
  }
  t.equal(n, 400);
  t.ok(most < 200 * (1 << 20), `at most ${(most / (1 << 20)).toFixed(0)} MB of buffers held while 400 MB went through`);
  // and it still breaks off
  const stalled = breakable((async function* () { yield 1; await new Promise(() => undefined); })(), controller.signal);
  t.equal((await stalled.next()).value, 1);
  const waiting = stalled.next();
  controller.abort(new Error('idle'));
  await t.rejects(waiting, /idle/);
});

/** Reads every input of a request to its end: the bytes read, and the error it ended with. */
async function readAll(req: IncomingMessage, encoding: 'gzip' | 'deflate' | undefined, limits: InputLimits) {
  let bytes = 0;
  try {
    for await (const input of requestInputs(req, encoding, limits)) {
      for await (const chunk of input.bytes) bytes += chunk.length;
    }
  } catch (error) {
    return { bytes, error };
  }
  return { bytes, error: undefined };
}

/** A multipart/form-data body of one file. */
function form(name: string, data: Buffer) {
  const boundary = 'b0und';
  return {
    bytes: Buffer.concat([Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="f"; filename="${name}"\r\nContent-Type: application/octet-stream\r\n\r\n`), data, Buffer.from(`\r\n--${boundary}--\r\n`)]),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  };
}

t.test('a decompression bomb fails with 4034 once past 10 MB, whatever carries it (MAX_INFLATE_RATIO)', async (t) => {
  // 40 MB of newlines in 40 kB: a thousand times (a proxy log: 3 to 20)
  const newlines = Buffer.alloc(40 << 20, 0x0a);
  const gz = gzipSync(newlines);
  const limits = { maxInflateRatio: 100 };
  const within = (got: { bytes: number; error: unknown }, what: string) => {
    t.match(got.error, { code: 4034, message: /expands more than 100 times .*MAX_INFLATE_RATIO.*decompression bomb/ }, `${what}: 4034`);
    t.ok(got.bytes <= INFLATE_RATIO_FROM_BYTES + (1 << 20), `${what}: stopped after ${got.bytes} bytes`);
  };
  within(await readAll(body(gz, { 'content-type': 'text/plain' }), 'gzip', limits), 'Content-Encoding: gzip');
  within(await readAll(body(gz, { 'content-type': 'application/gzip' }), undefined, limits), 'a gzip content type');
  within(await readAll(body(deflateSync(newlines), { 'content-type': 'text/plain' }), 'deflate', limits), 'deflate');
  const file = form('a.log.gz', gz);
  within(await readAll(body(file.bytes, file.headers), undefined, limits), 'a multipart .gz file');
  const whole = form('a.log', newlines);
  within(await readAll(body(gzipSync(whole.bytes), whole.headers), 'gzip', limits), 'a gzip multipart body');
  t.match((await readAll(body(gz, { 'content-type': 'text/plain' }), 'gzip', limits)).error, { message: /the request body, read as gzip, expands/ }, 'the message says what');

  // off: all of it
  t.same(await readAll(body(gzipSync(newlines.subarray(0, 20 << 20)), {}), 'gzip', { maxInflateRatio: 0 }), { bytes: 20 << 20, error: undefined }, '0: no limit');
  // under 10 MB, a small file may be as dense as it likes
  t.same(await readAll(body(gzipSync(newlines.subarray(0, 9 << 20)), {}), 'gzip', limits), { bytes: 9 << 20, error: undefined }, 'a small dense file');
  // a log as dense as logs get and more: lines that differ only by their time, about 50 times
  const pad = (n: number) => String(n).padStart(2, '0');
  const log = Buffer.from(Array.from({ length: 100_000 }, (_, i) => `1.2.3.4 - JOHN [30/Nov/2012:${pad(Math.floor(i / 3600) % 24)}:${pad(Math.floor(i / 60) % 60)}:${pad(i % 60)} +0100] "GET http://www.sciencedirect.com:80/science/article/pii/S0967064508000301 HTTP/1.1" 200 224846\n`).join(''));
  const dense = gzipSync(log);
  t.ok(log.length > INFLATE_RATIO_FROM_BYTES && log.length / dense.length > 20, `a log of ${log.length} bytes, ${(log.length / dense.length).toFixed(0)} times its gzip`);
  t.same(await readAll(body(dense, {}), 'gzip', limits), { bytes: log.length, error: undefined }, 'goes through');
});

t.test('gzip data where lines are expected: compressed twice (4002), or sent without saying so (4003)', async (t) => {
  const gz = gzipSync('a log line\n');
  const twice = await readAll(body(gzipSync(gz), {}), 'gzip', {});
  t.match(twice.error, { code: 4002, message: /the request body, read as gzip, is still gzip data once decompressed .*compressed twice/ });
  t.equal(twice.bytes, 0, 'nothing read as lines');
  const file = form('a.log.gz', gzipSync(gz));
  t.match((await readAll(body(file.bytes, file.headers), undefined, {})).error, { code: 4002, message: /the file a\.log\.gz, read as gzip, is still gzip data/ }, 'a multipart .gz file');
  const undeclared = await readAll(body(gz, { 'content-type': 'text/plain' }), undefined, {});
  t.match(undeclared.error, { code: 4003, message: /the request body is gzip data .*Content-Encoding: gzip/ });
  // a multipart file is told by its first bytes, whatever its name (logrotate's access.log.1 may be gzip)
  const plain = form('a.log', gz);
  t.same(await readAll(body(plain.bytes, plain.headers), undefined, {}), { bytes: 11, error: undefined }, 'a multipart gzip file not named .gz is decompressed');
  const plainTwice = form('a.log', gzipSync(gz));
  t.match((await readAll(body(plainTwice.bytes, plainTwice.headers), undefined, {})).error, { code: 4002, message: /the file a\.log, read as gzip, is still gzip data/ }, 'and compressed twice, said so');
  for (const tiny of ['', 'x', '\x1f']) {
    const file = form('tiny.log', Buffer.from(tiny, 'latin1'));
    t.same(await readAll(body(file.bytes, file.headers), undefined, {}), { bytes: tiny.length, error: undefined }, `a file of ${tiny.length} bytes`);
  }
  // the two bytes may come in two chunks
  const split = Object.assign(Readable.from([gz.subarray(0, 1), gz.subarray(1)]), { headers: {} }) as unknown as IncomingMessage;
  t.match((await readAll(split, undefined, {})).error, { code: 4003 }, 'across chunks');
  t.same(await readAll(body(Buffer.from('\x1f a line\n'), {}), undefined, {}), { bytes: 9, error: undefined }, 'other text goes through');
});

t.test('data in a compressed format the service does not read: 4003 naming it and its command, not a word of lines', async (t) => {
  const log = Buffer.from(Array.from({ length: 50 }, (_, i) => `10.0.0.${i} - - [30/Nov/2012:00:14:0${i % 10} +0100] "GET http://example.org/${i} HTTP/1.1" 200 12\n`).join(''));
  // the tools' own output where the machine has them, else their first bytes before noise
  const made = (cmd: string, args: string[], head: string) => {
    const r = spawnSync(cmd, args, { input: log });
    return r.status === 0 && r.stdout.length > 0 ? { bytes: r.stdout as Buffer, real: true } : { bytes: Buffer.concat([Buffer.from(head, 'latin1'), randomBytes(300)]), real: false };
  };
  const cases: Array<[string, string, { bytes: Buffer; real: boolean }]> = [
    ['bzip2', 'bunzip2', made('bzip2', ['-c'], 'BZh91AY&SY')],
    ['xz', 'unxz', made('xz', ['-c'], '\xfd7zXZ\x00')],
    ['zstd', 'unzstd', made('zstd', ['-c', '-q'], '\x28\xb5\x2f\xfd')],
    ['zip', 'unzip', made('zip', ['-q', '-', '-'], 'PK\x03\x04')],
    ['7z', '7z x', { bytes: Buffer.concat([Buffer.from('7z\xbc\xaf\x27\x1c', 'latin1'), randomBytes(300)]), real: false }],
  ];
  for (const [name, command, { bytes, real }] of cases) {
    const what = `${name}${real ? '' : ' (its first bytes)'}`;
    const raw = await readAll(body(bytes, { 'content-type': 'text/plain' }), undefined, {});
    t.match(raw.error, { code: 4003, detail: new RegExp(`^the request body is ${name} data \\(it starts with the bytes [0-9a-f ]+\\), which the service does not read: decompress it \\(${command}\\)`) }, `${what}: the request body`);
    const file = form(`access.log.${name}`, bytes);
    t.match((await readAll(body(file.bytes, file.headers), undefined, {})).error, { code: 4003, detail: new RegExp(`^the file access\\.log\\.${name} is ${name} data`) }, `${what}: a multipart file`);
    t.match((await readAll(body(gzipSync(bytes), {}), 'gzip', {})).error, { code: 4003, detail: new RegExp(`^the request body, read as gzip, once decompressed, is ${name} data`) }, `${what}: inside gzip`);
  }
  // the first bytes alone say it: a log whose first line starts like one goes through
  for (const text of ['BZh9 a line\n', 'BZh91AY&S\n', 'PK a line\n', '7z a line\n']) {
    t.same(await readAll(body(Buffer.from(text, 'latin1'), {}), undefined, {}), { bytes: text.length, error: undefined }, JSON.stringify(text));
  }
  // across chunks, one byte each
  const bz = cases[0][2].bytes;
  const split = Object.assign(Readable.from(Array.from(bz.subarray(0, 12), (b) => Buffer.from([b]))), { headers: {} }) as unknown as IncomingMessage;
  t.match((await readAll(split, undefined, {})).error, { code: 4003, message: /bzip2 data/ }, 'across chunks');
});

t.test('each multipart file has the charset its Content-Type names, unless Request-Charset is given', async (t) => {
  const boundary = 'b0undary';
  const part = (headers: string[], data: string) => [`--${boundary}`, ...headers, '', data].join('\r\n');
  const form = Buffer.from([
    part(['Content-Disposition: form-data; name="note"'], 'a field, not a file'),
    part(['Content-Disposition: form-data; name="f"; filename="a.csv"', 'Content-Type: text/csv; charset=iso-8859-1'], `x\r\n--${boundary}x is no delimiter`),
    part(['Content-Disposition: form-data; name="f"; filename="b.log"'], 'no type'),
    part(['content-disposition: form-data; name="f"; filename="c.log"', 'content-type: text/plain;charset="windows-1252"'], 'c'),
    part(['Content-Disposition: form-data; name="f"; filename="d.log"', 'Content-Type: text/plain'], ''),
    `--${boundary}--`,
    '',
  ].join('\r\n'));
  const type = `multipart/form-data; boundary=${boundary}`;
  // every chunking: a delimiter or a header block cut anywhere
  for (const size of [1, 3, 7, 16384]) {
    const chunks = Array.from({ length: Math.ceil(form.length / size) }, (_, i) => form.subarray(i * size, (i + 1) * size));
    const req = Object.assign(Readable.from(chunks), { headers: { 'content-type': type } }) as unknown as IncomingMessage;
    const got: Array<[string | undefined, string | undefined]> = [];
    for await (const input of requestInputs(req, undefined)) {
      got.push([input.name, input.charset]);
      for await (const _ of input.bytes) { /* read through */ }
    }
    t.same(got, [['a.csv', 'iso-8859-1'], ['b.log', undefined], ['c.log', 'windows-1252'], ['d.log', undefined]], `chunks of ${size} bytes`);
  }
  const given: Array<string | undefined> = [];
  for await (const input of requestInputs(body(form, { 'content-type': type, 'request-charset': 'utf-8' }), undefined)) {
    given.push(input.charset);
    for await (const _ of input.bytes) { /* read through */ }
  }
  t.same(given, [undefined, undefined, undefined, undefined], 'Request-Charset wins');
  const bad = Buffer.from([part(['Content-Disposition: form-data; name="f"; filename="x.log"', 'Content-Type: text/plain; charset=nonesuch'], 'x'), `--${boundary}--`, ''].join('\r\n'));
  await t.rejects(async () => {
    for await (const input of requestInputs(body(bad, { 'content-type': type }), undefined)) for await (const _ of input.bytes) { /* read through */ }
  }, { code: 4015 }, 'an unknown charset: 4015 naming the file');
});
