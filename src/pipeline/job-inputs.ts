import type { IncomingMessage } from 'node:http';
import { finished as streamEnded, PassThrough, Transform, Readable } from 'node:stream';
import { createGunzip, createInflate, type Gunzip, type Inflate } from 'node:zlib';
import busboy from 'busboy';
import iconv from 'iconv-lite';
import { StatusError } from '../status-codes.js';
import type { JobInput } from './job-runner.js';
import { untilAborted } from '../until-aborted.js';
import { charsetParameter } from './charsets.js';

/** Content types that mean a gzip file (reference 1.2). */
export const GZIP_TYPES = new Set([
  'application/gzip', 'application/x-gzip', 'application/x-gunzip', 'application/gzipped',
  'application/gzip-compressed', 'application/x-compressed', 'application/x-compress', 'gzip/document',
]);

/** A Content-Type without its parameters, lower-cased (`text/CSV; charset=utf-8` → `text/csv`). */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';', 1)[0].trim().toLowerCase();
}

/** The content types of a CSV file of events (reference 1.2), whatever their parameters. */
const CSV_TYPES = new Set([
  'text/csv', 'text/x-csv', 'application/csv', 'application/x-csv', 'text/comma-separated-values',
  'text/x-comma-separated-values', 'application/vnd.ms-excel',
]);

/**
 * C0 and C1 controls (NUL, ESC of terminal sequences, DEL) and the bidirectional overrides,
 * embeddings, isolates and marks, which reorder what a terminal or a page shows after them.
 */
const UNSEEN = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * A name from the client (a multipart file name) as it may be recorded in the traces and the
 * report: each control and direction override becomes U+FFFD, so that an administrator reading
 * the traces in a terminal sees that something was there and nothing it does.
 */
export function visibleText(text: string): string {
  return text.replace(UNSEEN, '\ufffd');
}

/**
 * Calls `count` with the size of each chunk a piped stream gives out: a listener beside the
 * pipe's own, so it sees every chunk and pausing the pipe pauses it too. A throw from `count`
 * detaches it and goes to `onOver`. Returns the detacher.
 */
function countChunks(stream: Readable, count: (bytes: number) => void, onOver: (err: Error) => void): () => void {
  const onData = (chunk: Uint8Array) => {
    try {
      count(chunk.length);
    } catch (err) {
      stream.off('data', onData);
      onOver(err as Error);
    }
  };
  stream.on('data', onData);
  return () => stream.off('data', onData);
}

/**
 * The upload limit (MAX_UPLOAD_BYTES, 0: none) counts the bytes received, before decompression:
 * `add` is told each chunk of the body as it comes and throws 4034 past the limit.
 */
export class UploadMeter {
  private received = 0;

  constructor(private readonly maxBytes: number) {}

  add(bytes: number): void {
    this.received += bytes;
    if (this.maxBytes > 0 && this.received > this.maxBytes) throw new StatusError(4034, `more than ${this.maxBytes} bytes (MAX_UPLOAD_BYTES)`);
  }

  /** Counts what a piped stream gives out, failing `onOver` past the limit. */
  watch(stream: Readable, onOver: (err: Error) => void): () => void {
    if (this.maxBytes <= 0) return () => undefined;
    return countChunks(stream, (bytes) => this.add(bytes), onOver);
  }
}

/** Bytes an inflater gives before its ratio is checked: a small file may be denser than a log. */
export const INFLATE_RATIO_FROM_BYTES = 10_000_000;

/**
 * The bound on what compressed data expands to (MAX_INFLATE_RATIO, 0: none): past
 * INFLATE_RATIO_FROM_BYTES of output, more than `maxRatio` times the compressed bytes the inflater
 * has consumed (zlib's bytesWritten) fails with 4034. A proxy log expands 3 to 20 times; a
 * decompression bomb (3 GB of newlines in 3 MB of gzip) a thousand times, and would keep the job
 * decompressing for minutes with nothing to answer.
 */
export class InflateGuard {
  private out = 0;

  constructor(
    private readonly inflater: Gunzip | Inflate,
    private readonly maxRatio: number,
    private readonly described: string,
  ) {}

  add(bytes: number): void {
    this.out += bytes;
    if (this.maxRatio <= 0 || this.out <= INFLATE_RATIO_FROM_BYTES) return;
    const consumed = this.inflater.bytesWritten;
    if (this.out <= this.maxRatio * consumed) return;
    throw new StatusError(4034, `${this.described} expands more than ${this.maxRatio} times (${this.out} bytes from ${consumed}; MAX_INFLATE_RATIO): a log expands 3 to 20 times, this looks like a decompression bomb; a real log this dense can be sent uncompressed, or MAX_INFLATE_RATIO raised`);
  }
}

/** The limits a request's inputs are read under (0 or absent: none). */
export interface InputLimits {
  /** MAX_UPLOAD_BYTES: bytes received, before decompression */
  readonly maxUploadBytes?: number;
  /** MAX_INFLATE_RATIO: see InflateGuard */
  readonly maxInflateRatio?: number;
}

/** A compressed format, told by first bytes that no text starts with. */
interface Compressed {
  readonly name: string;
  /** the command that decompresses it */
  readonly unpack: string;
  /** its first bytes: a byte, or a range of bytes */
  readonly head: ReadonlyArray<number | readonly [number, number]>;
}

const COMPRESSED: readonly Compressed[] = [
  { name: 'gzip', unpack: 'gunzip', head: [0x1f, 0x8b] },
  // "BZh", a block size, then the magic of a first block or of the end of an empty stream
  { name: 'bzip2', unpack: 'bunzip2', head: [0x42, 0x5a, 0x68, [0x31, 0x39], 0x31, 0x41, 0x59, 0x26, 0x53, 0x59] },
  { name: 'bzip2', unpack: 'bunzip2', head: [0x42, 0x5a, 0x68, [0x31, 0x39], 0x17, 0x72, 0x45, 0x38, 0x50, 0x90] },
  { name: 'xz', unpack: 'unxz', head: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00] },
  { name: 'zip', unpack: 'unzip', head: [0x50, 0x4b, 0x03, 0x04] },
  { name: 'zstd', unpack: 'unzstd', head: [0x28, 0xb5, 0x2f, 0xfd] },
  { name: '7z', unpack: '7z x', head: [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c] },
];

function headMatches(c: Compressed, at: number, byte: number): boolean {
  const want = c.head[at];
  return typeof want === 'number' ? byte === want : byte >= want[0] && byte <= want[1];
}

/**
 * Reads the first bytes of an input, across chunks, to tell compressed data: a log compressed
 * twice, sent compressed without saying so, or in a format the service does not read (bzip2,
 * xz, zip…) would otherwise be read as lines and fail with 4003 saying they do not match the log
 * format, or that their line ends are wrong.
 */
class CompressionSniffer {
  private candidates: readonly Compressed[] = COMPRESSED;
  private seen = 0;
  /** what the input is, once `done` (undefined: not a compressed format known here) */
  found: Compressed | undefined;
  done = false;

  add(chunk: Uint8Array): Compressed | undefined {
    for (let i = 0; i < chunk.length && !this.done; i++) {
      const at = this.seen++;
      this.candidates = this.candidates.filter((c) => headMatches(c, at, chunk[i]));
      this.found = this.candidates.find((c) => c.head.length === this.seen);
      this.done = this.found !== undefined || this.candidates.length === 0;
    }
    return this.found;
  }
}

/** The first bytes of its head, up to four, as far as they are fixed. */
function headBytes(c: Compressed): string {
  const fixed = c.head.slice(0, 4);
  const end = fixed.findIndex((b) => typeof b !== 'number');
  return (end < 0 ? fixed : fixed.slice(0, end)).map((b) => (b as number).toString(16).padStart(2, '0')).join(' ');
}

/** The refusal of an input in a compressed format the service does not read. */
function unreadable(c: Compressed, what: string): StatusError {
  return new StatusError(4003, `${what} is ${c.name} data (it starts with the bytes ${headBytes(c)}), which the service does not read: decompress it (${c.unpack}) and send the log as it is, or compressed with gzip (and Content-Encoding: gzip)`);
}

/**
 * Whether a stream starts with gzip's two bytes (1f 8b), and the stream to read from then: the
 * same with what was read put back, or those bytes alone when it ended with them. A stream that
 * fails first is not gzip (its failure is heard by its own listener).
 */
async function sniffGzip(stream: Readable): Promise<{ gzip: boolean; stream: Readable }> {
  const sniffer = new CompressionSniffer();
  const head: Buffer[] = [];
  let gzip = false;
  while (!sniffer.done) {
    const chunk = stream.read() as Buffer | null;
    if (chunk !== null) {
      head.push(chunk);
      gzip = sniffer.add(chunk)?.name === 'gzip';
      continue;
    }
    if (stream.readableEnded || stream.destroyed) break;
    await new Promise<void>((resolve) => {
      const events = ['readable', 'end', 'error', 'close'];
      const done = () => {
        for (const e of events) stream.off(e, done);
        resolve();
      };
      for (const e of events) stream.on(e, done);
    });
  }
  const read = Buffer.concat(head);
  if (read.length === 0) return { gzip, stream };
  // (an ended stream is destroyed too: read its bytes from elsewhere)
  if (stream.readableEnded) return { gzip, stream: Readable.from([read]) };
  if (!stream.destroyed) stream.unshift(read);
  return { gzip, stream };
}

/**
 * Decompresses when asked, turning zlib's errors into 4002. `meter` counts the compressed bytes,
 * when they are the request's (not a multipart file's, counted with the whole body).
 */
async function* decompressed(stream: Readable, compression: 'gzip' | 'deflate' | undefined, what: string, maxRatio: number, meter?: UploadMeter): AsyncIterable<Uint8Array> {
  const sniffer = new CompressionSniffer();
  if (!compression) {
    // Not destroyed on an early stop: the request's socket must stay open for the error answer.
    for await (const chunk of stream.iterator({ destroyOnReturn: false })) {
      meter?.add((chunk as Uint8Array).length);
      const found = sniffer.done ? undefined : sniffer.add(chunk as Uint8Array);
      if (found?.name === 'gzip') {
        throw new StatusError(4003, `${what} is gzip data (it starts with the bytes 1f 8b), sent without saying so: send it with Content-Encoding: gzip (or Content-Type: application/gzip, or as a multipart file)`);
      }
      if (found) throw unreadable(found, what);
      yield chunk as Uint8Array;
    }
    return;
  }
  const inflater = createInflater(compression);
  const guard = new InflateGuard(inflater, maxRatio, `${what}, read as ${compression},`);
  const stopMetering = meter?.watch(stream, (err) => inflater.destroy(err));
  // A body cut off before its end (its client gone, even after sending it all: node drops the
  // unread part) must fail the inflater, which a pipe would leave waiting for ever.
  const stopWatching = streamEnded(stream, { writable: false }, (err) => { if (err) inflater.destroy(err); });
  stream.pipe(inflater);
  try {
    for await (const chunk of drainThenFail(inflater)) {
      guard.add(chunk.length);
      const found = sniffer.done ? undefined : sniffer.add(chunk);
      if (found?.name === 'gzip') {
        throw new StatusError(4002, `${what}, read as ${compression}, is still gzip data once decompressed (it starts with the bytes 1f 8b): it was compressed twice; decompress it once (gunzip) before sending it`);
      }
      if (found) throw unreadable(found, `${what}, read as ${compression}, once decompressed,`);
      yield chunk;
    }
  } catch (err) {
    throw inflateError(err as Error, compression, what);
  } finally {
    stopWatching();
    stopMetering?.();
    stream.unpipe(inflater);
    // what it still holds is dropped: a job that stopped early (a bomb) decodes nothing more
    inflater.destroy();
  }
}

/**
 * A stream's chunks, then its error once every chunk it had produced is handed out. A stream's
 * async iterator throws at once and drops what the stream still held: a gzip upload cut short
 * lost the lines decoded just before the cut when the job read slower than zlib decoded.
 */
async function* drainThenFail(stream: Readable): AsyncGenerator<Uint8Array> {
  let failure: Error | undefined;
  let wake: (() => void) | undefined;
  const onError = (err: Error) => { failure ??= err; wake?.(); };
  const onChange = () => wake?.();
  stream.on('error', onError);
  for (const event of ['readable', 'end', 'close']) stream.on(event, onChange);
  try {
    for (;;) {
      const chunk = stream.read() as Uint8Array | null;
      if (chunk !== null) {
        yield chunk;
        continue;
      }
      if (failure) throw failure;
      if (stream.readableEnded || stream.destroyed) return;
      // events come in later ticks: none can be missed between read() and this wait
      await new Promise<void>((resolve) => { wake = resolve; });
      wake = undefined;
    }
  } finally {
    stream.off('error', onError);
    for (const event of ['readable', 'end', 'close']) stream.off(event, onChange);
  }
}

function createInflater(compression: 'gzip' | 'deflate'): Gunzip | Inflate {
  return compression === 'gzip' ? createGunzip() : createInflate();
}

/** zlib's errors are the client's (4002); others pass as they are. */
function inflateError(err: Error, compression: 'gzip' | 'deflate', what: string): Error {
  const code = (err as NodeJS.ErrnoException).code;
  return typeof code === 'string' && code.startsWith('Z_') ? new StatusError(4002, `${what}, read as ${compression}: ${err.message}`) : err;
}

/**
 * The inputs of a job request: the raw body (decompressed when its Content-Encoding or type
 * says gzip/deflate), or each file of a multipart/form-data upload, one after the other (the
 * whole multipart body decompressed first when its Content-Encoding says so). A body larger than
 * `maxUploadBytes` as received, or compressed data expanding more than `maxInflateRatio` times,
 * fails with 4034.
 */
export function requestInputs(req: IncomingMessage, contentEncoding: 'gzip' | 'deflate' | undefined, limits: InputLimits = {}): AsyncIterable<JobInput> {
  const meter = new UploadMeter(limits.maxUploadBytes ?? 0);
  const maxRatio = limits.maxInflateRatio ?? 0;
  const type = mediaType(req.headers['content-type']);
  if (type === 'multipart/form-data') return multipartInputs(req, contentEncoding, meter, maxRatio, req.headers['request-charset'] === undefined);
  const compression = contentEncoding ?? (GZIP_TYPES.has(type) ? 'gzip' : undefined);
  const csv = CSV_TYPES.has(type);
  return (async function* () {
    yield { bytes: decompressed(req, compression, 'the request body', maxRatio, meter), csv };
  })();
}

/** The longest part header block read for its charset (busboy's own limit is larger: past this, none). */
const MAX_PART_HEADER_BYTES = 16 * 1024;

/**
 * The `charset` of each file part's Content-Type (undefined: none), in upload order. Busboy tells a
 * file's media type without its parameters, so the part headers are read here as the body passes
 * on to busboy: a part is a file, as busboy counts them, when its Content-Disposition has a file
 * name or its type is application/octet-stream. Each chunk is scanned before busboy gets it, so a
 * file's entry is there when busboy reports the file.
 */
export class PartCharsets extends Transform {
  /** one entry per file part seen, taken by `next()` as busboy reports the files */
  private readonly charsets: (string | undefined)[] = [];
  private readonly delimiter: Buffer;
  /** the end of the text before this chunk, for a delimiter or a header block cut between chunks */
  private carry: Buffer = Buffer.alloc(0);
  private inHeaders = false;
  /** the closing delimiter was seen */
  private lastSeen = false;

  constructor(boundary: string) {
    super();
    this.delimiter = Buffer.from(`\r\n--${boundary}`, 'latin1');
    // the first delimiter may open the body without the CRLF before it
    this.carry = Buffer.from('\r\n', 'latin1');
  }

  /** The charset of the next file busboy reports. */
  next(): string | undefined {
    return this.charsets.shift();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: (err?: Error | null, data?: Buffer) => void): void {
    this.scan(Buffer.concat([this.carry, chunk]));
    done(null, chunk);
  }

  private scan(text: Buffer): void {
    let at = 0;
    for (;;) {
      if (this.inHeaders) {
        const end = text.indexOf('\r\n\r\n', at, 'latin1');
        if (end < 0) {
          // a header block too long to be read: it is left out, as a part without charset
          if (text.length - at > MAX_PART_HEADER_BYTES) this.endHeaders(undefined);
          else {
            this.carry = text.subarray(at);
            return;
          }
          at = text.length;
          continue;
        }
        this.endHeaders(text.subarray(at, end).toString('latin1'));
        at = end + 4;
        continue;
      }
      if (this.lastSeen) return;
      const found = text.indexOf(this.delimiter, at);
      if (found < 0) {
        this.carry = text.subarray(Math.max(at, text.length - this.delimiter.length));
        return;
      }
      // after the delimiter: the rest of its line (`--` closes the body), then the part's headers
      const lineEnd = text.indexOf('\r\n', found + this.delimiter.length, 'latin1');
      if (lineEnd < 0) {
        this.carry = text.subarray(found);
        return;
      }
      if (text.subarray(found + this.delimiter.length, found + this.delimiter.length + 2).toString('latin1') === '--') {
        this.lastSeen = true;
        return;
      }
      at = lineEnd + 2;
      this.inHeaders = true;
      // the header block may be empty: the blank line right after the delimiter's
      if (text.subarray(at, at + 2).toString('latin1') === '\r\n') {
        this.endHeaders('');
        at += 2;
      }
    }
  }

  private endHeaders(block: string | undefined): void {
    this.inHeaders = false;
    if (block === undefined) {
      this.charsets.push(undefined);
      return;
    }
    const headers = new Map<string, string>();
    for (const line of block.split('\r\n')) {
      const colon = line.indexOf(':');
      if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
    }
    const disposition = headers.get('content-disposition') ?? '';
    const type = headers.get('content-type');
    if (!/;\s*filename\*?\s*=/i.test(disposition) && mediaType(type) !== 'application/octet-stream') return;
    this.charsets.push(type === undefined ? undefined : charsetParameter(type));
  }
}

/** The boundary of a multipart Content-Type. */
function boundaryOf(contentType: string | undefined): string | undefined {
  return /;\s*boundary\s*=\s*(?:"([^"]+)"|([^;\s]+))/i.exec(contentType ?? '')?.slice(1).find((b) => b !== undefined);
}

interface FilePart {
  readonly name: string;
  /** the file's bytes, in a stream of the job's own (see multipartInputs) */
  readonly stream: PassThrough;
  /** busboy's stream of the file, piped into `stream` */
  readonly source: Readable;
  /** `stream` was ended by the upload's failure, not by the file's end */
  broken: boolean;
  readonly mime: string;
  /** the charset its Content-Type names */
  readonly charset: string | undefined;
}

/**
 * A file's bytes whose error is the upload's own when it has one: busboy fails a file's stream
 * with a plain Error ("Unexpected end of form") which the job would take for an internal one
 * (5000) and lose the lines before it; the upload's failure says 4007, or that the client left.
 */
async function* failingAs(failure: () => Error | undefined, part: FilePart, bytes: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
  try {
    yield* bytes;
  } catch (err) {
    throw failure() ?? err;
  }
  if (part.broken) throw failure() ?? new StatusError(4007, `the file ${part.name} was cut short`);
}

/**
 * Multipart files in upload order. Busboy hands out the next file only once the current one has
 * been read, so the files go through the job one after the other without being buffered.
 */
async function* multipartInputs(req: IncomingMessage, contentEncoding: 'gzip' | 'deflate' | undefined, meter: UploadMeter, maxRatio: number, partCharsets: boolean): AsyncIterable<JobInput> {
  let bb: busboy.Busboy;
  try {
    // file names as browsers and curl send them: UTF-8 (busboy's default reads them as Latin-1)
    bb = busboy({ headers: req.headers, defParamCharset: 'utf8', limits: { fields: 200, fieldSize: 64 * 1024, files: 10_000 } });
  } catch (err) {
    throw new StatusError(4007, (err as Error).message);
  }
  const parts: FilePart[] = [];
  // without Request-Charset, a file's Content-Type charset decodes it (as a plain body's does)
  const boundary = boundaryOf(req.headers['content-type']);
  const charsets = partCharsets && boundary !== undefined ? new PartCharsets(boundary) : undefined;
  let finished = false;
  let failure: Error | undefined;
  let wake: (() => void) | undefined;
  const signal = () => { wake?.(); wake = undefined; };
  // Busboy destroys a file's stream when the body breaks, and the bytes it holds go with it: all
  // of a small upload, which busboy parses in one go. So a file's bytes go on into a stream of the
  // job's own, which a failure ends instead: the lines before the break are still read, then the
  // failure is thrown (failingAs), and the file being read does not wait for bytes that never come.
  const open = new Set<FilePart>();
  const breakOff = (part: FilePart) => {
    if (!open.delete(part)) return;
    part.source.unpipe(part.stream);
    part.broken = true;
    part.stream.end();
  };
  const fail = (err: Error) => {
    failure ??= err;
    for (const part of open) breakOff(part);
    signal();
  };
  bb.on('file', (_field, stream, info) => {
    const part: FilePart = { name: info.filename === undefined ? 'N/A' : visibleText(info.filename), stream: new PassThrough(), source: stream, broken: false, mime: info.mimeType, charset: charsets?.next() };
    open.add(part);
    // Busboy also reports a broken body on the file's stream: never leave that unheard.
    stream.on('error', (err) => fail(new StatusError(4007, err.message)));
    stream.on('end', () => open.delete(part));
    if (failure) breakOff(part);
    else stream.pipe(part.stream);
    parts.push(part);
    signal();
  });
  bb.on('close', () => { finished = true; signal(); });
  bb.on('error', (err) => fail(new StatusError(4007, (err as Error).message)));
  // as for a compressed body: a request cut off before its end must fail the job, not stall it
  const stopWatching = streamEnded(req, { writable: false }, (err) => { if (err) fail(err); });
  const stopMetering = meter.watch(req, fail);
  // HTTP's Content-Encoding is the whole body's: busboy reads what it decompresses to
  const inflater = contentEncoding && createInflater(contentEncoding);
  const source = inflater ? req.pipe(inflater) : req;
  if (inflater) {
    inflater.on('error', (err) => fail(inflateError(err, contentEncoding!, 'the request body')));
    const guard = new InflateGuard(inflater, maxRatio, `the request body, read as ${contentEncoding},`);
    countChunks(inflater, (bytes) => guard.add(bytes), fail);
  }
  if (charsets) source.pipe(charsets).pipe(bb);
  else source.pipe(bb);
  try {
    for (;;) {
      const part = parts.shift();
      if (part) {
        // a file's name and type are the browser's guess: its first bytes say gzip for sure
        const declared = GZIP_TYPES.has(part.mime.toLowerCase()) || /\.gz$/i.test(part.name);
        const sniffed = declared ? { gzip: true, stream: part.stream } : await sniffGzip(part.stream);
        const csv = CSV_TYPES.has(mediaType(part.mime)) || /\.csv(?:\.gz)?$/i.test(part.name);
        if (part.charset !== undefined && !iconv.encodingExists(part.charset)) {
          throw new StatusError(4015, `the charset of the file ${part.name}'s Content-Type: ${JSON.stringify(part.charset)} (known charsets: utf-8, iso-8859-1, windows-1252…)`);
        }
        yield { name: part.name, bytes: failingAs(() => failure, part, decompressed(sniffed.stream, sniffed.gzip ? 'gzip' : undefined, `the file ${part.name}`, maxRatio)), csv, charset: part.charset };
        part.stream.resume(); // whatever the job did not read, so that busboy goes on
        continue;
      }
      if (failure) throw failure;
      if (finished) return;
      await new Promise<void>((resolve) => { wake = resolve; });
    }
  } finally {
    stopWatching();
    stopMetering();
    if (charsets) {
      source.unpipe(charsets);
      charsets.unpipe(bb);
      charsets.destroy();
    } else {
      source.unpipe(bb);
    }
    if (inflater) {
      req.unpipe(inflater);
      inflater.destroy();
    }
  }
}

/**
 * The items of `source` until `signal` aborts, then its reason thrown, as if the source had
 * failed: the job reads what came before as it reads the lines before a broken upload. For what
 * the connection tells from outside the body's stream (an upload idle too long, a body cut before
 * its declared length), where destroying the request would take the answer's socket with it.
 * Each wait is bounded on its own (untilAborted): a race against one promise living as long as the
 * input kept every chunk it had given (its reactions hold the race's results: the whole upload).
 */
export async function* breakable<T>(source: AsyncIterable<T>, signal: AbortSignal): AsyncGenerator<T> {
  const iterator = source[Symbol.asyncIterator]();
  let pending = false;
  try {
    for (;;) {
      if (signal.aborted) throw signal.reason;
      pending = true;
      const step = await untilAborted(iterator.next(), signal);
      pending = false;
      if (step.done) return;
      yield step.value;
    }
  } finally {
    // a next() still waiting (the stalled upload) would hold return() until it settles
    if (!pending) await iterator.return?.();
  }
}
