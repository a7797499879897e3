import { StatusError } from '../status-codes.js';

export interface BatchOptions {
  /** target size of a batch in bytes (a batch ends at the last newline past this size) */
  readonly batchBytes: number;
  /**
   * target size of the first batch, when smaller (0 or absent: batchBytes): the first events come
   * back once a few lines are in, not a whole batch
   */
  readonly firstBatchBytes?: number;
  /** a line (bytes since the last newline) longer than this fails with 4022 */
  readonly maxLineBytes: number;
  /**
   * complete lines waiting longer than this for more input are sent on (a slow or live upload
   * still gets its events at once); 0 = only full batches and the end
   */
  readonly flushAfterMs?: number;
  /** stops waiting for input at once (job aborted, service shutting down) */
  readonly signal?: AbortSignal;
  /**
   * the input as a 4022 names it (`file 2 (access.log.1)`; default `the input`): of a month of
   * files, the one to look at
   */
  readonly inputName?: string;
}

const NEWLINE = 0x0a;
const CR = 0x0d;
const TIMEOUT = Symbol('timeout');

/**
 * A line (its newline cut off) without the carriage returns of its line end: the CR of a CRLF,
 * one more before it (`\r\r\n`: the reference cuts at `\r?\n`, then strips a trailing `\r`),
 * and one at its start, which lines ended by `\n\r` leave there. The workers do the same on the
 * bytes (batch-processor.ts).
 */
export function withoutLineEnd(line: string): string {
  let end = line.length;
  if (end > 0 && line.charCodeAt(end - 1) === CR) {
    end--;
    if (end > 0 && line.charCodeAt(end - 1) === CR) end--;
  }
  const start = end > 0 && line.charCodeAt(0) === CR ? 1 : 0;
  return start === 0 && end === line.length ? line : line.slice(start, end);
}

/** What a refusal adds when carriage returns came without line feeds: lines ended by `\r` alone. */
const CR_ONLY_HINT = 'it holds carriage returns (\\r) but no line feed: lines must end with \\n or \\r\\n, not \\r alone';

/** What a refusal adds when a line holds lines of the format ended by `\r` alone. */
export const CR_ENDED_HINT = 'it holds lines ended by a carriage return (\\r) alone: lines must end with \\n or \\r\\n';

/**
 * The next chunk, or TIMEOUT after `timeoutMs` (0: no timeout), or the signal's reason thrown.
 * The listener and the timer are removed at once: racing each chunk against one long-lived
 * promise would leave a reaction on it per chunk, each keeping its chunk alive to the end.
 */
function waitStep<T>(next: Promise<T>, timeoutMs: number, signal: AbortSignal | undefined): Promise<T | typeof TIMEOUT> {
  if (signal?.aborted) {
    // The input fails too when the abort was its client going away: that rejection is the abort's
    // own, and left unheard it would end the process.
    next.catch(() => undefined);
    return Promise.reject(signal.reason);
  }
  if (timeoutMs === 0 && !signal) return next;
  return new Promise<T | typeof TIMEOUT>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const onAbort = () => finish(() => reject(signal!.reason));
    const finish = (settle: () => void) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      settle();
    };
    if (timeoutMs > 0) timer = setTimeout(() => finish(() => resolve(TIMEOUT)), timeoutMs);
    signal?.addEventListener('abort', onAbort, { once: true });
    next.then((v) => finish(() => resolve(v)), (e: unknown) => finish(() => reject(e)));
  });
}

/** What a refusal adds when the long line is NUL bytes: a log file cut off by a crash. */
const NUL_HINT = 'it is NUL bytes (\\0), as a log file cut off by a crash holds: remove them (tr -d \'\\000\') and send the log again';

/** Whether most of a long line's first bytes are NULs (a crash's hole in a file, not text). */
function mostlyNul(sample: Uint8Array): boolean {
  const head = sample.subarray(0, 4096);
  let zeros = 0;
  for (const b of head) if (b === 0) zeros++;
  return head.length > 0 && zeros >= head.length * 0.9;
}

/**
 * The 4022 of a line over the limit, saying where it starts (`start`, a byte offset in the input)
 * and, from `sample` (its bytes in the last chunk read), what it is made of.
 */
function lineTooLong(max: number, start: number, sample: Uint8Array, inputName = 'the input'): StatusError {
  // a log whose lines end with \r alone is one long line
  const hint = sample.includes(CR) ? CR_ONLY_HINT : mostlyNul(sample) ? NUL_HINT : 'the input is not a log, or a line is absurdly long';
  return new StatusError(4022, `none in ${max} bytes of a line (MAX_LINE_BYTES): ${hint}; that line starts at byte ${start} of ${inputName}`);
}

/**
 * Where a line that ends in `chunk` and is longer than `max` starts, relative to the chunk (negative:
 * in earlier chunks), or undefined: the one it completes (its first `pending` bytes came in
 * earlier chunks) or, in a chunk longer than `max`, one wholly inside it. The pending part alone
 * is checked at each chunk's end; a line can be long without ever being that long at a chunk's end.
 */
function longLineStart(chunk: Uint8Array, pending: number, lastNewline: number, max: number): number | undefined {
  const firstNewline = chunk.indexOf(NEWLINE);
  if (pending + firstNewline > max) return -pending;
  if (lastNewline - firstNewline <= max) return undefined;
  for (let start = firstNewline + 1; start <= lastNewline;) {
    const end = chunk.indexOf(NEWLINE, start);
    if (end - start > max) return start;
    start = end + 1;
  }
  return undefined;
}

/**
 * Cuts a byte stream into batches of whole lines without looking at each line: only the last
 * newline of each chunk is searched. Each batch owns its memory (an ArrayBuffer of its own) so
 * that it can be transferred to a worker without copying. The last line needs no newline. A
 * UTF-8 byte-order mark at the very start is dropped.
 */
export async function* lineBatches(source: AsyncIterable<Uint8Array>, opts: BatchOptions): AsyncGenerator<Uint8Array> {
  let pieces: Uint8Array[] = [];
  let size = 0;
  /** bytes since the last newline seen, across pieces */
  let pendingLine = 0;
  /** bytes of the input before the chunk being read (a UTF-8 byte-order mark included) */
  let consumed = 0;
  let first = true;
  let target = opts.firstBatchBytes && opts.firstBatchBytes < opts.batchBytes ? opts.firstBatchBytes : opts.batchBytes;

  const take = (end: number): Uint8Array => {
    // Copies the first `end` bytes of the accumulated pieces into a batch that owns its buffer.
    const batch = new Uint8Array(new ArrayBuffer(end));
    let offset = 0;
    const rest: Uint8Array[] = [];
    for (const piece of pieces) {
      if (offset >= end) { rest.push(piece); continue; }
      const n = Math.min(piece.length, end - offset);
      batch.set(n === piece.length ? piece : piece.subarray(0, n), offset);
      offset += n;
      if (n < piece.length) rest.push(piece.subarray(n));
    }
    pieces = rest;
    size -= end;
    target = opts.batchBytes;
    return batch;
  };

  const iterator = source[Symbol.asyncIterator]();
  const flushAfter = opts.flushAfterMs ?? 0;
  let next: Promise<IteratorResult<Uint8Array>> | undefined;
  try {
    for (;;) {
      next ??= iterator.next();
      let step: IteratorResult<Uint8Array> | typeof TIMEOUT;
      try {
        step = await waitStep(next, flushAfter > 0 && size > pendingLine ? flushAfter : 0, opts.signal);
      } catch (err) {
        // the input failed (gzip cut short, a broken upload): the whole lines it gave still go
        if (!opts.signal?.aborted && size > pendingLine) {
          next = undefined;
          yield take(size - pendingLine);
        }
        throw err;
      }
      if (step === TIMEOUT) {
        // Input is quiet: send the complete lines we have; keep waiting for the same chunk.
        yield take(size - pendingLine);
        continue;
      }
      next = undefined;
      if (step.done) break;
      let chunk = step.value;
      if (first) {
        first = false;
        if (chunk.length >= 3 && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) {
          chunk = chunk.subarray(3);
          consumed = 3;
        }
      }
      if (chunk.length === 0) continue;
      const lastNewline = chunk.lastIndexOf(NEWLINE);
      /** whole lines held before this chunk */
      const whole = size - pendingLine;
      let longStart: number | undefined;
      if (lastNewline < 0) {
        pendingLine += chunk.length;
      } else {
        longStart = longLineStart(chunk, pendingLine, lastNewline, opts.maxLineBytes);
        pendingLine = chunk.length - lastNewline - 1;
      }
      if (longStart === undefined && pendingLine > opts.maxLineBytes) longStart = chunk.length - pendingLine;
      if (longStart !== undefined) {
        // the whole lines before it are still parsed: the job fails after their events
        if (whole > 0) yield take(whole);
        const sampleEnd = chunk.indexOf(NEWLINE, Math.max(0, longStart));
        const sample = chunk.subarray(Math.max(0, longStart), sampleEnd < 0 ? chunk.length : sampleEnd);
        throw lineTooLong(opts.maxLineBytes, consumed + longStart, sample, opts.inputName);
      }
      consumed += chunk.length;
      pieces.push(chunk);
      size += chunk.length;
      if (size >= target && size > pendingLine) yield take(size - pendingLine);
    }
    if (size > 0) yield take(size);
  } finally {
    // Stop the source when the consumer stops early (error, abort).
    if (next === undefined) await iterator.return?.();
  }
}

/**
 * Calls `fn` with each line of a batch (bytes between newlines, `\r` kept) and its byte offset,
 * until `fn` returns false. Used where a few lines must be looked at on the main thread.
 */
export function forEachLine(batch: Uint8Array, fn: (line: Uint8Array, start: number) => boolean): void {
  let start = 0;
  while (start < batch.length) {
    let end = batch.indexOf(NEWLINE, start);
    if (end < 0) end = batch.length;
    if (!fn(batch.subarray(start, end), start)) return;
    start = end + 1;
  }
}
