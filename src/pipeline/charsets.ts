import iconv from 'iconv-lite';

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
