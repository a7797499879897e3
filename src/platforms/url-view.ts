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
  // The query string is parsed when a rule first reads it, with the function the legacy parser
  // itself would call (most URLs tried are rejected on their path alone).
  let parsed: ReturnType<typeof legacyParse>;
  try {
    parsed = legacyParse(decoded, false);
  } catch {
    // the legacy parser refuses some hosts (`http://[::1]_`): such a URL recognises nothing either
    return undefined;
  }
  return new UrlView(decoded, parsed);
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
  /** `http:`, `https:`, or '' for a relative URL */
  readonly protocol: string;
  /** lower-cased host name without port, '' for a relative URL */
  readonly hostname: string;
  readonly port: string;
  /** path without query or fragment, as the legacy parser escapes it ('/' at least for absolute URLs) */
  readonly pathname: string;
  /** query string without the leading '?', '' when absent */
  readonly search: string;
  /** fragment without the leading '#', '' when absent */
  readonly hash: string;
  private parsedQuery: Record<string, string | string[]> | undefined;
  private readonly rawQuery: string;

  /** `url`: the URL after the whole-string percent-decoding */
  constructor(readonly url: string, parsed: ReturnType<typeof legacyParse>) {
    this.protocol = parsed.protocol ?? '';
    this.hostname = parsed.hostname ?? '';
    this.port = parsed.port ?? '';
    this.pathname = parsed.pathname ?? '';
    this.search = parsed.search ? parsed.search.slice(1) : '';
    this.hash = parsed.hash ? parsed.hash.slice(1) : '';
    this.rawQuery = typeof parsed.query === 'string' ? parsed.query : '';
  }

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
