/**
 * URL normalisation and `domain` (reference 2.8, plus `/https/` rewritten URLs).
 *
 * Hot path: the host is found by a short scan of the authority. Only URLs whose authority holds
 * unusual characters (IPv6 brackets, spaces, backslashes, percent signs, non-ASCII names…) go to
 * Node's legacy parser, whose `hostname` the reference used, so results match it exactly.
 */
import { parse as legacyParse } from 'node:url';

/** Longest host name the legacy parser keeps (longer ones become empty). */
const HOSTNAME_MAX = 255;

/** [a-zA-Z0-9._-]: characters of a host name needing no special treatment. */
function isPlainHostChar(code: number): boolean {
  return (
    (code >= 97 && code <= 122) ||
    (code >= 65 && code <= 90) ||
    (code >= 48 && code <= 57) ||
    code === 46 ||
    code === 45 ||
    code === 95
  );
}

/** Lower-cased host of an absolute http(s) URL, without port or user info; undefined if empty. */
function hostnameOf(url: string, authorityStart: number): string | undefined {
  const n = url.length;
  let at = -1;
  let colon = -1;
  let end = authorityStart;
  let plain = true;
  let upper = false;
  for (; end < n; end++) {
    const code = url.charCodeAt(end);
    if (code === 47 || code === 63 || code === 35) break; // / ? #
    if (code === 64) {
      // @: what came before is user info; the host starts again
      at = end;
      colon = -1;
      upper = false;
      plain = true;
      continue;
    }
    if (code === 58) {
      if (colon < 0) colon = end;
      continue;
    }
    if (code >= 65 && code <= 90) upper = true;
    else if (!isPlainHostChar(code)) plain = false;
  }
  if (!plain || (at >= 0 && !plainUserInfo(url, authorityStart, at))) return legacyHostname(url);
  const hostStart = at >= 0 ? at + 1 : authorityStart;
  // the port, and anything after a second colon, are not part of the host name
  const hostEnd = colon >= 0 ? colon : end;
  if (hostEnd <= hostStart || hostEnd - hostStart > HOSTNAME_MAX) return undefined;
  const host = url.slice(hostStart, hostEnd);
  return upper ? host.toLowerCase() : host;
}

/** User info the legacy parser reads like the fast path: no escapes, no spaces, no backslashes. */
function plainUserInfo(url: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const code = url.charCodeAt(i);
    if (code <= 32 || code === 37 || code === 92 || code > 126) return false;
  }
  return true;
}

function legacyHostname(url: string): string | undefined {
  try {
    return legacyParse(url).hostname || undefined;
  } catch {
    // e.g. a malformed escape in the user info
    return undefined;
  }
}

/**
 * `/http/…` and `/https/…` become absolute; a URL still starting with `/` is relative (no domain);
 * any other URL without `http://` or `https://` (in any case) gets `http://` (Bibliopam logs `www.site.com/path`).
 * The url keeps its port; `domain` is the lower-cased host without port and user info.
 */
export function normaliseUrl(url: string): { url: string; domain: string | undefined } {
  if (url.length === 0) return { url, domain: undefined };
  if (url.charCodeAt(0) === 47) {
    if (url.startsWith('/http/')) url = 'http://' + url.slice(6);
    else if (url.startsWith('/https/')) url = 'https://' + url.slice(7);
    else return { url, domain: undefined };
  } else if (!url.startsWith('http://') && !url.startsWith('https://')) {
    // a scheme is case-insensitive: `HTTP://host/` is not the host "http"
    const scheme = /^https?:\/\//i.exec(url);
    url = scheme ? scheme[0].toLowerCase() + url.slice(scheme[0].length) : 'http://' + url;
  }
  const authorityStart = url.charCodeAt(4) === 58 ? 7 : 8; // http: or https:
  return { url, domain: hostnameOf(url, authorityStart) };
}
