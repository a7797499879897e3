import { PassThrough, Transform, type TransformCallback } from 'node:stream';
import { createDeflate, createGzip } from 'node:zlib';
import iconv from 'iconv-lite';
import { StatusError } from '../../status-codes.js';
import { canonicalCharset, isUtf8 } from '../charsets.js';

/**
 * Response-Charset and Response-Encoding (reference 1.3 and 5.6): the output text is encoded in the
 * charset, then compressed. The same applies to the denied and deferred files.
 */
export interface ResponseEncoding {
  /** the charset name to encode with and to announce (`utf-8` by default) */
  charset: string;
  compression: 'gzip' | 'deflate' | undefined;
  /** the response's Content-Encoding header, when compressed */
  contentEncoding: string | undefined;
}

/** iconv-lite also knows these, but they are byte-to-text encodings, not charsets a client can read. */
const NOT_CHARSETS = new Set(['base64', 'hex']);


/**
 * Reads the two headers. Any charset iconv-lite knows is accepted (unknown: 4016); every spelling of
 * UTF-8 is announced as `utf-8`. Response-Encoding is a comma list that must name gzip or deflate
 * (gzip wins when both are there; neither: 4005). Blank headers count as absent.
 */
export function parseResponseEncoding(
  charsetHeader: string | undefined,
  encodingHeader: string | undefined,
): ResponseEncoding {
  return { charset: readResponseCharset(charsetHeader), ...readResponseCompression(encodingHeader) };
}

/** Response-Charset alone (a job's headers check it before its log format, reference 1.4). */
export function readResponseCharset(charsetHeader: string | undefined): string {
  const charset = charsetHeader?.trim() || 'utf-8';
  if (isUtf8(charset)) return 'utf-8';
  if (!iconv.encodingExists(charset) || NOT_CHARSETS.has(canonicalCharset(charset))) {
    throw new StatusError(4016, `Response-Charset: "${charset}" (known charsets: utf-8, iso-8859-1, windows-1252…)`);
  }
  return charset;
}

/** Response-Encoding alone (checked with the writer, after Output-Fields). */
export function readResponseCompression(encodingHeader: string | undefined): Omit<ResponseEncoding, 'charset'> {
  const wanted = encodingHeader?.trim();
  if (!wanted) return { compression: undefined, contentEncoding: undefined };
  const names = wanted.split(',').map((item) => item.split(';')[0].trim().toLowerCase());
  const compression = names.includes('gzip') || names.includes('x-gzip') ? 'gzip' : names.includes('deflate') ? 'deflate' : undefined;
  if (!compression) {
    throw new StatusError(4005, `Response-Encoding: "${wanted}" names neither gzip nor deflate`);
  }
  return { compression, contentEncoding: compression };
}

/** `type; charset=name`, replacing a charset parameter already there. */
export function contentTypeWithCharset(contentType: string, charset: string): string {
  const base = contentType
    .split(';')
    .filter((part, i) => i === 0 || !/^\s*charset\s*=/i.test(part))
    .join(';')
    .trim();
  return `${base}; charset=${charset}`;
}

type IconvEncoder = ReturnType<typeof iconv.getEncoder>;

function asText(chunk: unknown): string {
  // strings are expected; bytes are taken as UTF-8 text
  return typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8');
}

/** Strings in, bytes of another charset out. */
class CharsetEncoder extends Transform {
  readonly #encoder: IconvEncoder;

  constructor(charset: string) {
    super({ decodeStrings: false });
    this.#encoder = iconv.getEncoder(charset);
  }

  override _transform(chunk: unknown, _encoding: BufferEncoding, callback: TransformCallback): void {
    const bytes = this.#encoder.write(asText(chunk));
    callback(null, bytes.length > 0 ? bytes : undefined);
  }

  override _flush(callback: TransformCallback): void {
    const rest = this.#encoder.end();
    callback(null, rest && rest.length > 0 ? rest : undefined);
  }
}

/**
 * Strings in, charset-encoded then compressed bytes out, as one Transform. The compressor is driven
 * inside: it is paused while this stream's readable side is full, so a slow client still slows the
 * writer down.
 */
class CompressingCharsetEncoder extends Transform {
  readonly #encoder: IconvEncoder;
  readonly #zip: Transform;

  constructor(charset: string, compression: 'gzip' | 'deflate') {
    super({ decodeStrings: false });
    this.#encoder = iconv.getEncoder(charset);
    this.#zip = compression === 'gzip' ? createGzip() : createDeflate();
    this.#zip.on('data', (bytes: Buffer) => {
      if (!this.push(bytes)) this.#zip.pause();
    });
    this.#zip.on('error', (err) => this.destroy(err));
  }

  override _read(size: number): void {
    this.#zip.resume();
    super._read(size);
  }

  override _transform(chunk: unknown, _encoding: BufferEncoding, callback: TransformCallback): void {
    const bytes = this.#encoder.write(asText(chunk));
    if (bytes.length === 0 || this.#zip.write(bytes)) callback();
    else this.#zip.once('drain', () => callback());
  }

  override _flush(callback: TransformCallback): void {
    const rest = this.#encoder.end();
    if (rest && rest.length > 0) this.#zip.write(rest);
    this.#zip.once('end', () => callback());
    this.#zip.end();
  }

  override _destroy(err: Error | null, callback: (error?: Error | null) => void): void {
    this.#zip.destroy();
    callback(err);
  }
}

/**
 * Strings in, bytes out: charset, then compression. UTF-8 needs no conversion of its own (the
 * stream turns strings into UTF-8 bytes as it would anyway), so UTF-8 is a bare PassThrough, or
 * the bare compressor.
 */
export function createEncoder(enc: ResponseEncoding): Transform {
  if (isUtf8(enc.charset)) {
    if (enc.compression === 'gzip') return createGzip();
    if (enc.compression === 'deflate') return createDeflate();
    return new PassThrough();
  }
  if (enc.compression) return new CompressingCharsetEncoder(enc.charset, enc.compression);
  return new CharsetEncoder(enc.charset);
}
