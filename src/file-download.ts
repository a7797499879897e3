/**
 * How a download of a job's file answers a request's validators and byte ranges (RFC 9110 §13,
 * §14): a large result or reject file cut off can be resumed (`curl -C -`, `wget -c`, browsers'
 * download managers) and fetched again only when it changed. Pure: the request's headers and the
 * file's size and time in, the answer's status, headers and bytes to send out.
 */

/** What identifies a version of a file: a file that grows (a running job's) changes both. */
export interface FileVersion {
  readonly size: number;
  readonly mtimeMs: number;
}

export type RequestHeaders = Readonly<Record<string, string | string[] | undefined>>;

export type Download =
  | { readonly status: 200; readonly headers: Record<string, string> }
  | { readonly status: 206; readonly start: number; readonly end: number; readonly headers: Record<string, string> }
  | { readonly status: 304 | 412 | 416; readonly headers: Record<string, string> };

/** A strong validator: the same size and modification time (to the millisecond) is the same file. */
export function fileEtag(file: FileVersion): string {
  return `"${file.size.toString(16)}-${Math.floor(file.mtimeMs).toString(16)}"`;
}

function one(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

/** The entity tags of an If-Match / If-None-Match list, or '*'. */
function etagList(value: string): string[] | '*' {
  if (value.trim() === '*') return '*';
  return value.match(/(?:W\/)?"[^"]*"/g) ?? [];
}

const opaque = (tag: string) => tag.replace(/^W\//, '');

/** An HTTP date in seconds, or undefined when it does not parse. */
function httpDate(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : Math.floor(ms / 1000);
}

/**
 * The one byte range asked for: `bytes=a-b`, `bytes=a-`, `bytes=-n`. 'ignore' for what a server
 * may answer whole (another unit, a syntax error, several ranges), 'unsatisfiable' for a range
 * starting past the end (or an empty file).
 */
export function byteRange(value: string, size: number): { start: number; end: number } | 'ignore' | 'unsatisfiable' {
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(value);
  if (!m || (m[1] === '' && m[2] === '')) return 'ignore';
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (m[2] !== '' && Number(m[2]) < start) return 'ignore';
  if (start >= size) return 'unsatisfiable';
  return { start, end };
}

/**
 * The answer to a GET or HEAD of a file, in RFC 9110's order: If-Match / If-Unmodified-Since
 * (412), If-None-Match / If-Modified-Since (304), then Range under If-Range (206, 416, or the
 * whole file when the client's copy is another version). Range is defined for GET only.
 */
export function download(method: string, headers: RequestHeaders, file: FileVersion): Download {
  const etag = fileEtag(file);
  const seconds = Math.floor(file.mtimeMs / 1000);
  const validators = { ETag: etag, 'Last-Modified': new Date(seconds * 1000).toUTCString(), 'Accept-Ranges': 'bytes' };

  const ifMatch = one(headers['if-match']);
  if (ifMatch !== undefined) {
    const tags = etagList(ifMatch);
    // strong comparison: a weak tag never matches
    if (tags !== '*' && !tags.includes(etag)) return { status: 412, headers: validators };
  } else {
    const since = httpDate(one(headers['if-unmodified-since']));
    if (since !== undefined && seconds > since) return { status: 412, headers: validators };
  }

  const ifNoneMatch = one(headers['if-none-match']);
  if (ifNoneMatch !== undefined) {
    const tags = etagList(ifNoneMatch);
    // weak comparison
    if (tags === '*' || tags.some((t) => opaque(t) === etag)) return { status: 304, headers: validators };
  } else {
    const since = httpDate(one(headers['if-modified-since']));
    if (since !== undefined && seconds <= since) return { status: 304, headers: validators };
  }

  const range = one(headers.range);
  if (method !== 'GET' || range === undefined) return { status: 200, headers: validators };
  const ifRange = one(headers['if-range'])?.trim();
  if (ifRange !== undefined) {
    // the client's part is of another version: the whole file, not a piece of this one to glue on
    const same = ifRange.startsWith('"') ? ifRange === etag : httpDate(ifRange) === seconds;
    if (!same) return { status: 200, headers: validators };
  }
  const wanted = byteRange(range, file.size);
  if (wanted === 'ignore') return { status: 200, headers: validators };
  if (wanted === 'unsatisfiable') return { status: 416, headers: { ...validators, 'Content-Range': `bytes */${file.size}` } };
  return {
    status: 206,
    start: wanted.start,
    end: wanted.end,
    headers: { ...validators, 'Content-Range': `bytes ${wanted.start}-${wanted.end}/${file.size}` },
  };
}
