import t from 'tap';
import { lineBatches, withoutLineEnd } from '../../src/pipeline/line-batches.js';

/** 2,000 lines of 80 bytes (160 kB), delivered in chunks of `chunk` bytes as a socket would. */
function upload(chunk: number): { bytes: Buffer; source: () => AsyncIterable<Uint8Array> } {
  const bytes = Buffer.from(Array.from({ length: 2000 }, (_, i) => `line ${String(i).padStart(5, '0')} `.padEnd(79, 'x') + '\n').join(''));
  return {
    bytes,
    source: async function* () {
      for (let i = 0; i < bytes.length; i += chunk) yield bytes.subarray(i, i + chunk);
    },
  };
}

async function collect(source: AsyncIterable<Uint8Array>, opts: Parameters<typeof lineBatches>[1]): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  for await (const b of lineBatches(source, opts)) out.push(b);
  return out;
}

t.test('the first batch is cut small, the others at the batch size, all of whole lines', async (t) => {
  const { bytes, source } = upload(1000);
  const batches = await collect(source(), { batchBytes: 32 * 1024, firstBatchBytes: 4096, maxLineBytes: 1000 });
  t.equal(Buffer.concat(batches).toString(), bytes.toString(), 'nothing lost, nothing repeated, in order');
  t.ok(batches[0].length >= 4096 && batches[0].length < 4096 + 1000, `first batch ${batches[0].length} bytes`);
  for (const b of batches.slice(1, -1)) t.ok(b.length >= 32 * 1024 && b.length < 33 * 1024, `then ${b.length} bytes`);
  for (const b of batches) t.equal(b[b.length - 1], 0x0a, 'ends with a whole line');
});

t.test('without a first batch size (or a larger one), every batch is cut at the batch size', async (t) => {
  const { source } = upload(1000);
  for (const firstBatchBytes of [undefined, 0, 64 * 1024]) {
    const batches = await collect(source(), { batchBytes: 32 * 1024, firstBatchBytes, maxLineBytes: 1000 });
    t.ok(batches[0].length >= 32 * 1024 && batches[0].length < 33 * 1024, `first batch ${batches[0].length} bytes (firstBatchBytes ${firstBatchBytes})`);
  }
});

t.test('a first batch size below one line still gives whole lines', async (t) => {
  const { bytes, source } = upload(7);
  const batches = await collect(source(), { batchBytes: 16 * 1024, firstBatchBytes: 10, maxLineBytes: 1000 });
  t.equal(batches[0].length, 80, 'the first line alone');
  t.equal(Buffer.concat(batches).toString(), bytes.toString());
});

t.test('an abort while the input is failing too leaves no rejection unheard', async (t) => {
  // A client that goes away aborts its job and breaks its upload: the read pending when the job
  // stops fails after it. Unheard, that rejection ended the whole service.
  const unheard: unknown[] = [];
  const listener = (reason: unknown) => unheard.push(reason);
  process.on('unhandledRejection', listener);
  t.teardown(() => { process.off('unhandledRejection', listener); });
  const controller = new AbortController();
  const gone = Object.assign(new Error('aborted'), { code: 'ECONNRESET' });
  const source: AsyncIterable<Uint8Array> = {
    [Symbol.asyncIterator]: () => ({
      next: () => new Promise<IteratorResult<Uint8Array>>((_, reject) => setTimeout(() => reject(gone), 20)),
    }),
  };
  controller.abort(new Error('the client closed the connection'));
  await t.rejects(collect(source, { batchBytes: 1024, maxLineBytes: 100_000, signal: controller.signal }), /the client closed the connection/);
  await new Promise((resolve) => setTimeout(resolve, 60));
  t.same(unheard, [], 'no unhandled rejection');
});

t.test('a line over the limit fails with 4022 wherever the chunks cut it', async (t) => {
  const long = 'x'.repeat(1500);
  const text = Buffer.from(`a\n${long}\nb\n`);
  const chunked = (size: number): AsyncIterable<Uint8Array> => (async function* () {
    for (let i = 0; i < text.length; i += size) yield text.subarray(i, i + size);
  })();
  // 900-byte chunks: never 1,000 bytes pending at a chunk's end, the line is 1,500 long
  for (const size of [900, 700, 64, text.length]) {
    await t.rejects(collect(chunked(size), { batchBytes: 1024, maxLineBytes: 1000 }), { code: 4022 }, `chunks of ${size} bytes`);
  }
  const fine = Buffer.from(`a\n${'x'.repeat(1000)}\nb\n`);
  const out = await collect((async function* () { yield fine.subarray(0, 900); yield fine.subarray(900); })(), { batchBytes: 1024, maxLineBytes: 1000 });
  t.equal(Buffer.concat(out).toString(), fine.toString(), 'a line of exactly the limit goes through');
});

t.test('the 4022 says where the long line starts, in which input, and when it is NUL bytes', async (t) => {
  const before = 'a\nbb\n';
  const cases: Array<[string, Buffer, number, RegExp]> = [
    ['completed in a later chunk', Buffer.from(`${before}${'x'.repeat(1500)}\nc\n`), 5, /the input is not a log/],
    ['still pending', Buffer.from(`${before}${'x'.repeat(1500)}`), 5, /the input is not a log/],
    ['after a UTF-8 byte-order mark', Buffer.from(`\ufeff${before}${'x'.repeat(1500)}\n`), 8, /the input is not a log/],
    // a crash leaves a hole of NULs, the next line glued to it
    ['NUL bytes', Buffer.concat([Buffer.from(before), Buffer.alloc(1500), Buffer.from('c\n')]), 5, /it is NUL bytes \(\\0\), as a log file cut off by a crash holds: remove them/],
  ];
  for (const [what, text, start, hint] of cases) {
    for (const size of [3, 700, text.length]) {
      const source = (async function* () { for (let i = 0; i < text.length; i += size) yield text.subarray(i, i + size); })();
      const err = await collect(source, { batchBytes: 1024, maxLineBytes: 1000, inputName: 'file 2 (b.log)' }).then(() => undefined, (e: Error) => e);
      t.equal((err as { code?: number } | undefined)?.code, 4022, `${what}, chunks of ${size}`);
      t.match(err?.message, new RegExp(`; that line starts at byte ${start} of file 2 \\(b\\.log\\)$`), `${what}, chunks of ${size}: where`);
      t.match(err?.message, hint, `${what}, chunks of ${size}: what it is`);
    }
  }
});

t.test('the whole lines before a line over the limit are handed out before the failure', async (t) => {
  const before = Array.from({ length: 30 }, (_, i) => `line ${i}\n`).join('');
  const text = Buffer.from(`${before}${'x'.repeat(1500)}\nafter\n`);
  for (const size of [64, 700, 900]) {
    const got: Uint8Array[] = [];
    const source = (async function* () { for (let i = 0; i < text.length; i += size) yield text.subarray(i, i + size); })();
    await t.rejects((async () => { for await (const b of lineBatches(source, { batchBytes: 1 << 20, maxLineBytes: 1000 })) got.push(b); })(), { code: 4022 });
    t.equal(Buffer.concat(got).toString(), before, `chunks of ${size} bytes: every line before it, nothing of it`);
  }
});

t.test('an input that fails: the whole lines it gave are handed out before its error, the cut line is not', async (t) => {
  const source = (async function* () {
    yield Buffer.from('one\ntwo\nthr');
    throw Object.assign(new Error('unexpected end of file'), { code: 'Z_BUF_ERROR' });
  })();
  const got: Uint8Array[] = [];
  await t.rejects((async () => { for await (const b of lineBatches(source, { batchBytes: 1 << 20, maxLineBytes: 1000 })) got.push(b); })(), { code: 'Z_BUF_ERROR' });
  t.equal(Buffer.concat(got).toString(), 'one\ntwo\n');
});

t.test('withoutLineEnd: the CR of a CRLF, one more before it, and one at the start', async (t) => {
  const cases: Array<[string, string]> = [
    ['a line', 'a line'],
    ['a line\r', 'a line'],
    ['a line\r\r', 'a line'],
    ['a line\r\r\r', 'a line\r'],
    ['\r', ''],
    ['\r\r', ''],
    ['\ra line', 'a line'],
    ['\ra line\r', 'a line'],
    ['\r\ra line', '\ra line'],
    ['a\rline', 'a\rline'],
    ['', ''],
  ];
  for (const [line, want] of cases) t.equal(withoutLineEnd(line), want, JSON.stringify(line));
  const same = 'a line';
  t.equal(withoutLineEnd(same), same, 'a line without CR is the same string');
});
