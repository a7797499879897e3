import t from 'tap';
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { constants as zlib, gunzipSync, gzipSync } from 'node:zlib';
import { breakable, requestInputs, visibleText } from '../../src/pipeline/job-inputs.js';

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
