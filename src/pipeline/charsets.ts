import iconv from 'iconv-lite';

/** A charset name as iconv-lite compares them: lower case, letters and digits only (`UTF_8` is `utf8`). */
export function canonicalCharset(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** Whether a charset name is a spelling of UTF-8. */
export function isUtf8(charset: string): boolean {
  return canonicalCharset(charset) === 'utf8';
}

/** Whether a charset writes `\n` as the single byte 0x0A (then workers can cut and decode lines). */
export function isAsciiCompatible(charset: string): boolean {
  const bytes = iconv.encode('\na', charset);
  return bytes.length === 2 && bytes[0] === 0x0a && bytes[1] === 0x61;
}

/** A byte stream's text in `charset`, chunk by chunk (a character cut between two chunks comes whole). */
export async function* decodedText(source: AsyncIterable<Uint8Array>, charset: string): AsyncIterable<string> {
  const decoder = iconv.getDecoder(charset);
  for await (const chunk of source) {
    const text = decoder.write(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    if (text) yield text;
  }
  const rest = decoder.end();
  if (rest) yield rest;
}

/** A byte stream in `charset` as UTF-8 bytes. */
export async function* transcodeToUtf8(source: AsyncIterable<Uint8Array>, charset: string): AsyncIterable<Uint8Array> {
  for await (const text of decodedText(source, charset)) yield Buffer.from(text, 'utf8');
}

/**
 * The `charset` parameter of a Content-Type (`text/plain; charset="iso-8859-1"` → `iso-8859-1`):
 * a request body's and a multipart file's, read alike.
 */
export function charsetParameter(contentType: string): string | undefined {
  return /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType)?.[1];
}

/**
 * The UTF-16 a byte-order mark at the start of `head` names (FF FE little-endian, FE FF
 * big-endian), or undefined. Neither pair is valid UTF-8, so data announced as UTF-8 that starts
 * with one is UTF-16 (as Windows PowerShell writes a log it redirects to a file).
 */
export function utf16ByBom(head: Uint8Array): 'utf-16le' | 'utf-16be' | undefined {
  if (head.length < 2) return undefined;
  if (head[0] === 0xff && head[1] === 0xfe) return 'utf-16le';
  if (head[0] === 0xfe && head[1] === 0xff) return 'utf-16be';
  return undefined;
}

/**
 * A byte stream meant as UTF-8, as it is; or, when it starts with a UTF-16 byte-order mark,
 * transcoded from that UTF-16 to UTF-8 (the mark dropped), `onUtf16` told which. Read as UTF-8,
 * such data was every other byte a NUL and no line matched.
 */
export async function* utf8OrMarkedUtf16(source: AsyncIterable<Uint8Array>, onUtf16?: (charset: string) => void): AsyncGenerator<Uint8Array> {
  const it = source[Symbol.asyncIterator]();
  const head: Uint8Array[] = [];
  let headBytes = 0;
  let ended = false;
  try {
    // (the first two bytes may come in two chunks)
    while (headBytes < 2) {
      const next = await it.next();
      if (next.done) {
        ended = true;
        break;
      }
      head.push(next.value);
      headBytes += next.value.length;
    }
    const rest: AsyncIterable<Uint8Array> = { [Symbol.asyncIterator]: () => it };
    async function* whole(): AsyncGenerator<Uint8Array> {
      yield* head;
      if (!ended) yield* rest;
      ended = true;
    }
    const charset = utf16ByBom(head.length === 1 ? head[0] : Buffer.concat(head));
    if (charset === undefined) {
      yield* whole();
      return;
    }
    onUtf16?.(charset);
    yield* transcodeToUtf8(whole(), charset);
  } finally {
    // stopped early (an error, an abort): the source is told
    if (!ended) await it.return?.();
  }
}
