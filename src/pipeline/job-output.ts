import { createWriteStream, type WriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import type { Writable } from 'node:stream';
import { createEncoder, contentTypeWithCharset, type ResponseEncoding } from './writers/encoding.js';
import type { Frame } from './writers/types.js';
import { StatusError } from '../status-codes.js';

/** A frame's pieces as UTF-8 bytes. */
function frameBytes({ head, separator, terminator = '' }: Frame) {
  return { head: Buffer.from(head), separator: Buffer.from(separator), terminator: Buffer.from(terminator) };
}

/** Writes framed event texts (head before the first, separators between, tail at the end). */
class FramedSink {
  private count = 0;
  private resolved: Frame | undefined;
  private frameBytes: ReturnType<typeof frameBytes> | undefined;

  /** The frame is asked for at the first write: a CSV header needs the columns, known once the format is. */
  constructor(private readonly makeFrame: () => Frame, private readonly sink: Writable) {}

  private get frame(): Frame {
    return (this.resolved ??= this.makeFrame());
  }

  get events(): number {
    return this.count;
  }

  write(text: string): boolean {
    return this.writeAll([text]);
  }

  /**
   * Writes events in one write (one chunk on the socket rather than one per event). Texts come
   * as UTF-8 bytes from the workers: the chunk is assembled as bytes, never as a string (a
   * string, as write() gives, is encoded into it).
   */
  writeAll(texts: ReadonlyArray<string | Uint8Array>): boolean {
    if (texts.length === 0) return true;
    const b = (this.frameBytes ??= frameBytes(this.frame));
    const first = this.count === 0 ? b.head : b.separator;
    let size = first.length + (texts.length - 1) * b.separator.length + texts.length * b.terminator.length;
    for (const t of texts) size += typeof t === 'string' ? Buffer.byteLength(t, 'utf8') : t.length;
    const out = Buffer.allocUnsafe(size);
    let at = 0;
    for (let i = 0; i < texts.length; i++) {
      const lead = i === 0 ? first : b.separator;
      out.set(lead, at);
      at += lead.length;
      const t = texts[i];
      if (typeof t === 'string') at += out.write(t, at, 'utf8');
      else {
        out.set(t, at);
        at += t.length;
      }
      out.set(b.terminator, at);
      at += b.terminator.length;
    }
    this.count += texts.length;
    return this.sink.write(out);
  }

  /** the tail when something was written (a job with no event sends an empty body) */
  closing(): string {
    return this.count > 0 ? this.frame.tail : '';
  }

  marker(code: number, message: string): string {
    return this.frame.errorMarker(code, message);
  }
}

/**
 * Waits for `drain` on a stream, or for another stream to close; the listener that did not fire
 * is removed (a job waits for drain thousands of times: leftovers would pile up).
 */
export async function drainOrClose(stream: Writable, closer: NodeJS.EventEmitter = stream): Promise<void> {
  const stop = new AbortController();
  try {
    await Promise.race([once(stream, 'drain', { signal: stop.signal }), once(closer, 'close', { signal: stop.signal })]);
  } finally {
    stop.abort();
  }
}

function isPlain(enc: ResponseEncoding): boolean {
  return !enc.compression && /^utf-?8$/i.test(enc.charset);
}

export const TRAILERS = ['Job-Done', 'Service-Status', 'Service-Status-Message'];

/**
 * Whether the answer can end with trailers: only a chunked body carries them, and node does not
 * chunk the answer of an HTTP/1.0 request (`curl -0`, old proxies; the body then ends with the
 * connection). Announcing `Trailer` there made node throw at the first write: the job crashed and
 * its client waited for ever. Such a client learns a failure from the body's error line alone.
 */
export function carriesTrailers(res: ServerResponse): boolean {
  return res.useChunkedEncodingByDefault;
}

/** The head's `Trailer` announcement, when the answer can carry trailers. */
function trailerHeader(res: ServerResponse): Record<string, string> {
  return carriesTrailers(res) ? { Trailer: TRAILERS.join(', ') } : {};
}

/**
 * Header values must stay on one line of visible ASCII. Compatibility decomposition keeps what has
 * an ASCII form (the messages' `…` becomes `...`, `é` becomes `e`); anything else becomes a space.
 */
export function headerSafe(text: string): string {
  return text.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').replace(/[^\x20-\x7e]+/g, ' ').slice(0, 1000);
}

/** Where a job's events go: the response (`POST /`) or a result file (`PUT /{jobID}`). */
export interface JobOutput {
  /** the answer's head was sent: an error can no longer change its status */
  readonly started: boolean;
  /** writes an event; false means: wait for drained() before writing more */
  write(text: string): boolean;
  /** writes events in one chunk; false as for write() */
  writeAll(texts: ReadonlyArray<string | Uint8Array>): boolean;
  drained(): Promise<void>;
  /**
   * The job ended well: what stays once the job is over (a deferred job's result file) is made
   * whole, before the job's row says done. Its failure is told to the output's onError.
   */
  settle(): Promise<void>;
  /** the job ended well (after settle()) */
  finish(): Promise<void>;
  /** the job failed after the head was sent: said in-band and in the trailers */
  failStreaming(code: number, message: string): Promise<void>;
}

/**
 * The response of a job: nothing is sent until the first event (or the end), so that an error
 * found first can still be answered with its own HTTP status. After that, an error is told by
 * an in-band marker and by the trailers named in the Trailer header.
 */
export class ResponseOutput implements JobOutput {
  private readonly body: Writable;
  private readonly framed: FramedSink;
  private sentHead = false;

  constructor(
    private readonly res: ServerResponse,
    frame: () => Frame,
    private readonly encoding: ResponseEncoding,
    private readonly contentType: string,
    private readonly headers: () => Record<string, string>,
  ) {
    if (isPlain(encoding)) {
      this.body = res;
    } else {
      this.body = createEncoder(encoding);
      this.body.pipe(res, { end: false });
    }
    this.framed = new FramedSink(frame, this.body);
  }

  get started(): boolean {
    return this.sentHead;
  }

  get events(): number {
    return this.framed.events;
  }

  private head(): void {
    if (this.sentHead) return;
    this.sentHead = true;
    const headers: Record<string, string> = {
      ...this.headers(),
      'Content-Type': contentTypeWithCharset(this.contentType, this.encoding.charset),
      ...trailerHeader(this.res),
      'X-Content-Type-Options': 'nosniff',
    };
    if (this.encoding.contentEncoding) headers['Content-Encoding'] = this.encoding.contentEncoding;
    this.res.writeHead(200, headers);
  }

  /** Writes an event; false means: wait for drained() before writing more. */
  write(text: string): boolean {
    return this.writeAll([text]);
  }

  /** Writes events at once (in one chunk); false means: wait for drained() before writing more. */
  writeAll(texts: ReadonlyArray<string | Uint8Array>): boolean {
    if (texts.length === 0) return true;
    this.head();
    return this.framed.writeAll(texts);
  }

  async drained(): Promise<void> {
    if (!this.body.writableNeedDrain || this.res.destroyed) return;
    await drainOrClose(this.body, this.res);
  }

  private async endBody(tail: string, trailers: Record<string, string>): Promise<void> {
    if (this.res.destroyed) return;
    if (tail) this.body.write(tail);
    if (this.body !== this.res) {
      this.body.end();
      // the compressor ends once the response has taken its output: not when its client is gone
      await Promise.race([once(this.body, 'end'), once(this.res, 'close')]).catch(() => undefined);
    }
    if (carriesTrailers(this.res)) this.res.addTrailers(trailers);
    this.res.end();
  }

  /** (the answer itself is what stays: it ends in finish(), once the row is closed) */
  async settle(): Promise<void> {}

  /** The job ended well: the frame's tail, then `Job-Done: true` in the trailers. */
  async finish(): Promise<void> {
    this.head();
    await this.endBody(this.framed.closing(), { 'Job-Done': 'true' });
  }

  /**
   * The job failed after the first event was sent: an in-band marker that no client can take
   * for a complete result, and the status in the trailers.
   */
  async failStreaming(code: number, message: string): Promise<void> {
    await this.endBody(this.framed.marker(code, message), {
      'Job-Done': 'false',
      'Service-Status': String(code),
      'Service-Status-Message': headerSafe(message),
    });
  }
}

/** The denied events' file: same format as the result, created empty at the start of the job. */
export class DeniedFile {
  private readonly stream: WriteStream;
  private readonly framed: FramedSink;

  /**
   * `flags: 'a'` appends (the error line that ends a crashed job's result file). A file that
   * cannot be written (disk full) is told to `onError` once and written no more: an 'error'
   * nobody listened to ended the process.
   */
  constructor(path: string, frame: () => Frame, encoding: ResponseEncoding, flags: 'w' | 'a' = 'w', onError: (err: Error) => void = () => undefined) {
    this.stream = createWriteStream(path, { flags });
    const sink = isPlain(encoding) ? this.stream : createEncoder(encoding);
    if (sink !== this.stream) sink.pipe(this.stream);
    this.framed = new FramedSink(frame, sink);
    this.sink = sink;
    const fail = (err: Error) => {
      if (this.failed) return;
      this.failed = true;
      // the encoder, cut from its file, would wait for a drain for ever
      if (sink !== this.stream) sink.destroy();
      onError(err);
    };
    this.stream.on('error', fail);
    if (sink !== this.stream) sink.on('error', fail);
  }

  private readonly sink: Writable;
  private failed = false;

  get events(): number {
    return this.framed.events;
  }

  write(text: string): boolean {
    return this.failed || this.framed.write(text);
  }

  writeAll(texts: ReadonlyArray<string | Uint8Array>): boolean {
    return this.failed || this.framed.writeAll(texts);
  }

  async drained(): Promise<void> {
    // (a write error is told to onError: not thrown at the job waiting here)
    if (!this.failed && this.sink.writableNeedDrain) await drainOrClose(this.sink).catch(() => undefined);
  }

  /** Writes the frame's tail, or the error marker of a job that failed, and closes the file. */
  async close(marker?: { code: number; message: string }): Promise<void> {
    if (!this.failed) {
      const tail = marker ? this.framed.marker(marker.code, marker.message) : this.framed.closing();
      if (tail) this.sink.write(tail);
      this.sink.end();
    }
    if (!this.stream.closed) await once(this.stream, 'close');
  }
}

/**
 * The output of a deferred job (`PUT /{jobID}`): events go to the result file in the job folder
 * (framed and encoded as the response would be), while the response only gets a `.` every
 * `heartbeatMs` so that proxies keep the connection open. As with a streamed job, the head waits
 * (here for the first heartbeat or the end), so that an early error keeps its HTTP status.
 */
export class DeferredOutput implements JobOutput {
  private readonly file: DeniedFile;
  private readonly timer: NodeJS.Timeout;
  private sentHead = false;
  private closed = false;

  constructor(
    private readonly res: ServerResponse,
    private readonly path: string,
    frame: () => Frame,
    encoding: ResponseEncoding,
    private readonly headers: () => Record<string, string>,
    heartbeatMs: number,
    /** the result file cannot be written (disk full): its job must fail, not end 'done' with a cut file */
    onError: (err: Error) => void = () => undefined,
  ) {
    this.file = new DeniedFile(path, frame, encoding, 'w', onError);
    this.timer = setInterval(() => this.beat(), Math.max(heartbeatMs, 10));
    this.timer.unref();
  }

  get started(): boolean {
    return this.sentHead;
  }

  get events(): number {
    return this.file.events;
  }

  private head(): void {
    if (this.sentHead || this.res.headersSent || this.res.destroyed) return;
    this.sentHead = true;
    this.res.writeHead(200, {
      ...this.headers(),
      'Content-Type': 'text/plain; charset=utf-8',
      ...trailerHeader(this.res),
      'X-Content-Type-Options': 'nosniff',
    });
  }

  private beat(): void {
    if (this.res.destroyed || this.res.writableEnded) return;
    this.head();
    this.res.write('.');
  }

  write(text: string): boolean {
    return this.file.write(text);
  }

  writeAll(texts: ReadonlyArray<string | Uint8Array>): boolean {
    return this.file.writeAll(texts);
  }

  drained(): Promise<void> {
    return this.file.drained();
  }

  /** Closes the result file (its tail, or the error marker), once. */
  private async closeFile(marker?: { code: number; message: string }): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.file.close(marker);
  }

  /** Closes the result file and stops the heartbeat. */
  private async close(marker?: { code: number; message: string }): Promise<void> {
    clearInterval(this.timer);
    await this.closeFile(marker);
  }

  /** The result file whole and closed; the heartbeat goes on until finish(). */
  async settle(): Promise<void> {
    await this.closeFile();
    // Writes to a file removed under the job (its folder deleted by hand or by a clean-up) all
    // succeed, and the events are gone with it: the job is not done.
    try {
      await stat(this.path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      throw new StatusError(5005, `the result file ${this.path} was removed while the job ran (its folder deleted?): its events are lost, run the job again`);
    }
  }

  async finish(): Promise<void> {
    await this.close();
    if (this.res.destroyed) return;
    this.head();
    if (carriesTrailers(this.res)) this.res.addTrailers({ 'Job-Done': 'true' });
    this.res.end();
  }

  async failStreaming(code: number, message: string): Promise<void> {
    await this.close({ code, message });
    if (this.res.destroyed) return;
    if (carriesTrailers(this.res)) this.res.addTrailers({ 'Job-Done': 'false', 'Service-Status': String(code), 'Service-Status-Message': headerSafe(message) });
    this.res.end();
  }

  /** The job failed before the head was sent: the file gets its marker; the route answers the error. */
  abandon(code: number, message: string): Promise<void> {
    return this.close({ code, message });
  }
}
