import { parse as legacyParse } from 'node:url';
import { parse as parseQuery } from 'node:querystring';

/** Decodes like decodeURIComponent, or returns undefined for a malformed escape. */
export function safeDecode(text: string): string | undefined {
  if (text.indexOf('%') < 0) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/**
 * Builds the view of a raw URL, or undefined when the URL cannot be decoded (a malformed `%` escape:
 * the reference then recognises nothing in it) or parsed.
 */
export function urlView(rawUrl: string): UrlView | undefined {
  const decoded = safeDecode(rawUrl);
  if (decoded === undefined) return undefined;
  const plain = plainView(decoded);
  if (plain !== undefined) return plain;
  try {
    return legacyView(decoded);
  } catch {
    // the legacy parser refuses some hosts (`http://[::1]_`): such a URL recognises nothing either
    return undefined;
  }
}

/** The view through Node's legacy parser itself (which may throw, as it did for the reference). */
export function legacyView(decoded: string): UrlView {
  // The query string is parsed when a rule first reads it, with the function the legacy parser
  // itself would call (most URLs tried are rejected on their path alone).
  const parsed = legacyParse(decoded, false);
  return new UrlView(
    decoded,
    parsed.protocol ?? '',
    parsed.hostname ?? '',
    parsed.port ?? '',
    parsed.pathname ?? '',
    parsed.search ? parsed.search.slice(1) : '',
    parsed.hash ? parsed.hash.slice(1) : '',
    typeof parsed.query === 'string' ? parsed.query : '',
  );
}

/**
 * Characters after the host that the legacy parser changes (escapes, turns into `/`, trims,
 * removes): a URL holding one is left to it. 1 = changed.
 */
const CHANGED_AFTER_HOST = new Uint8Array(128);
for (let c = 0; c < 33; c++) CHANGED_AFTER_HOST[c] = 1;
for (const ch of '"\'<>\\^`{|}') CHANGED_AFTER_HOST[ch.charCodeAt(0)] = 1;

/** Longest host name and label the legacy parser keeps as they are. */
const HOSTNAME_MAX = 255;
const LABEL_MAX = 63;

/**
 * The view of the URLs logs are made of, by hand: `http://` or `https://`, a host of letters,
 * digits, `-` and `_` in dot-separated labels, an optional port, then path, query and fragment
 * without any character the legacy parser would change. It gives exactly what the legacy parser
 * gives (tested on every shared test URL and on generated ones); anything else is undefined and
 * goes to the legacy parser.
 */
export function plainView(url: string): UrlView | undefined {
  let i: number;
  let protocol: string;
  if (url.startsWith('http://')) {
    i = 7;
    protocol = 'http:';
  } else if (url.startsWith('https://')) {
    i = 8;
    protocol = 'https:';
  } else {
    return undefined;
  }
  const n = url.length;
  const hostStart = i;
  let label = 0;
  let upper = false;
  let code = 0;
  for (; i < n; i++) {
    code = url.charCodeAt(i);
    if ((code >= 97 && code <= 122) || (code >= 48 && code <= 57) || code === 45 || code === 95) {
      label++;
    } else if (code >= 65 && code <= 90) {
      upper = true;
      label++;
    } else if (code === 46) {
      // empty labels, and punycode, are the IDNA conversion's business
      if (label === 0) return undefined;
      label = 0;
      continue;
    } else {
      break;
    }
    if (label > LABEL_MAX) return undefined;
  }
  const hostEnd = i;
  if (label === 0 || hostEnd - hostStart > HOSTNAME_MAX) return undefined;
  let port = '';
  if (i < n && code === 58) {
    const portStart = ++i;
    while (i < n && (code = url.charCodeAt(i)) >= 48 && code <= 57) i++;
    port = url.slice(portStart, i);
  }
  // the host ends at /, ? or #, or with the URL
  if (i < n && code !== 47 && code !== 63 && code !== 35) return undefined;
  let host = url.slice(hostStart, hostEnd);
  if (upper) host = host.toLowerCase();
  if (host.startsWith('xn--') || host.includes('.xn--')) return undefined;
  let query = -1;
  let hash = -1;
  for (let j = i; j < n; j++) {
    const c = url.charCodeAt(j);
    if (c < 128) {
      if (CHANGED_AFTER_HOST[c] === 1) return undefined;
      if (c === 35) {
        if (hash < 0) hash = j;
      } else if (c === 63 && query < 0 && hash < 0) {
        query = j;
      }
    }
  }
  // the legacy parser trims these at the end
  const last = url.charCodeAt(n - 1);
  if (last === 0xa0 || last === 0xfeff) return undefined;
  const pathEnd = query >= 0 ? query : hash >= 0 ? hash : n;
  const pathname = pathEnd > i ? url.slice(i, pathEnd) : '/';
  const search = query >= 0 ? url.slice(query + 1, hash >= 0 ? hash : n) : '';
  return new UrlView(url, protocol, host, port, pathname, search, hash >= 0 ? url.slice(hash + 1) : '', search);
}

/**
 * The parts of a consulted URL that platform rules look at.
 *
 * Platform expectations (the shared conformance rows, and the community's parsers) were written
 * against one precise view: the URL percent-decoded once as a whole, then parsed by Node's legacy
 * parser with query values decoded again (`+` is a space, repeated keys become arrays), the host
 * lower-cased and the fragment kept. Reproducing that view exactly is what keeps the rows passing,
 * so it lives here, in one place.
 */
export class UrlView {
  private parsedQuery: Record<string, string | string[]> | undefined;

  constructor(
    /** the URL after the whole-string percent-decoding */
    readonly url: string,
    /** `http:`, `https:`, or '' for a relative URL */
    readonly protocol: string,
    /** lower-cased host name without port, '' for a relative URL */
    readonly hostname: string,
    readonly port: string,
    /** path without query or fragment, as the legacy parser escapes it ('/' at least for absolute URLs) */
    readonly pathname: string,
    /** query string without the leading '?', '' when absent */
    readonly search: string,
    /** fragment without the leading '#', '' when absent */
    readonly hash: string,
    private readonly rawQuery: string,
  ) {}

  /** decoded query parameters; repeated keys give arrays */
  get query(): Readonly<Record<string, string | string[]>> {
    return (this.parsedQuery ??= parseQuery(this.rawQuery) as Record<string, string | string[]>);
  }
}

/** First value of a query parameter (the rules' default reading of a repeated key). */
export function firstValue(value: string | string[] | undefined): string | undefined {
  if (Array.isArray(value)) return value[0];
  return value;
}
