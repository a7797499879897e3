import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { gunzipSync, inflateSync } from 'node:zlib';

export interface HttpResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  trailers: Record<string, string | undefined>;
  /** raw bytes of the body (decompressed when `decompress` is set) */
  bytes: Buffer;
  text: string;
  json<T = unknown>(): T;
}

/** Posts a body (bytes, or chunks written one after the other) and reads the whole answer. */
/**
 * Like the reference's test helper (which turns Crossref off on every request), jobs posted here
 * have double clicks off unless the test sets the header: the fixtures these tests compare with
 * were made so, and events stream out at once.
 */
const NO_DOUBLE_CLICKS = { 'Double-Click-Removal': 'false' };

export function post(url: string, body: Buffer | string | Iterable<Buffer | string>, headers: Record<string, string> = {}, opts: { method?: string; decompress?: boolean } = {}): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: opts.method ?? 'POST', agent: false, headers: { TE: 'trailers', ...NO_DOUBLE_CLICKS, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        let bytes = Buffer.concat(chunks);
        const enc = res.headers['content-encoding'];
        if (opts.decompress && enc === 'gzip') bytes = gunzipSync(bytes);
        if (opts.decompress && enc === 'deflate') bytes = inflateSync(bytes);
        const text = bytes.toString('utf8');
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          trailers: res.trailers,
          bytes,
          text,
          json: <T>() => JSON.parse(text) as T,
        });
      });
    });
    req.on('error', reject);
    if (typeof body === 'string' || Buffer.isBuffer(body)) req.end(body);
    else {
      for (const chunk of body) req.write(chunk);
      req.end();
    }
  });
}

/** CSV text → rows of cells (the service's CSV: `;`, quotes only around `;` or `"`). */
export function csvRows(text: string): string[][] {
  return text.split('\n').filter((l) => l !== '').map((line) => {
    const cells: string[] = [];
    let cur = '';
    let quoted = false;
    for (let i = 0; i < line.length; i++) {
      const c = line[i];
      if (quoted) {
        if (c === '"' && line[i + 1] === '"') { cur += '"'; i++; } else if (c === '"') quoted = false; else cur += c;
      } else if (c === '"') quoted = true;
      else if (c === ';') { cells.push(cur); cur = ''; } else cur += c;
    }
    cells.push(cur);
    return cells;
  });
}

/** A multipart/form-data body: its fields, then its files (each `files[]`); and its Content-Type. */
export function multipart(parts: Array<{ name: string; type: string; data: Buffer | string }>, fields: Record<string, string> = {}) {
  const boundary = `----logsift${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const [k, v] of Object.entries(fields)) {
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  }
  for (const p of parts) {
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="files[]"; filename="${p.name}"\r\nContent-Type: ${p.type}\r\n\r\n`));
    chunks.push(Buffer.isBuffer(p.data) ? p.data : Buffer.from(p.data));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), type: `multipart/form-data; boundary=${boundary}` };
}

/**
 * A job posted with `fetch` whose upload stays open: `push` sends more of it, `push(null)` ends it.
 * For tests that look at a job while it runs.
 */
export function heldPost(url: string, headers: Record<string, string>): { push: (chunk: string | null) => void; response: Promise<Response> } {
  let push!: (chunk: string | null) => void;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      push = (chunk) => (chunk === null ? controller.close() : controller.enqueue(new TextEncoder().encode(chunk)));
    },
  });
  const response = fetch(url, { method: 'POST', body, duplex: 'half', headers } as RequestInit);
  return { push, response };
}
