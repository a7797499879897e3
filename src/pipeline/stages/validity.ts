import type { AccessEvent } from '../event.js';
import type { EventStage } from './types.js';

/**
 * Page furniture, judged on the extension of the URL's path (never its query string): the
 * reference's list (otf, css, gif, jpg, jpeg, png, js, js.min, favicon.ico) plus web fonts and
 * source maps, which no platform counts as a consultation.
 */
const STATIC_EXTENSIONS = new Set(['otf', 'css', 'gif', 'jpg', 'jpeg', 'png', 'js', 'woff', 'woff2', 'ttf', 'eot', 'map']);

/** The path's extension, lower-cased, or '' (`/a/b.min.js?x=1` → `js`). */
export function pathExtension(url: string): string {
  let end = url.length;
  const q = url.indexOf('?');
  if (q >= 0) end = q;
  const h = url.indexOf('#');
  if (h >= 0 && h < end) end = h;
  const slash = url.lastIndexOf('/', end - 1);
  const dot = url.lastIndexOf('.', end - 1);
  if (dot <= slash) return '';
  return url.slice(dot + 1, end).toLowerCase();
}

export function isStaticResource(url: string): boolean {
  const ext = pathExtension(url);
  if (ext === '') return false;
  if (STATIC_EXTENSIONS.has(ext)) return true;
  // the path is only needed for these two (and splitting it off costs more than the rest)
  if (ext !== 'min' && ext !== 'ico') return false;
  const path = url.split(/[?#]/, 1)[0].toLowerCase();
  return (ext === 'min' && path.endsWith('.js.min')) || (ext === 'ico' && path.endsWith('/favicon.ico'));
}

export interface ValidityOptions {
  /** a Force-Parser was given: events without a domain are kept for it */
  readonly forceParser: boolean;
}

/** Events without url, date or domain, and static resources, are filtered (reference 3.3 steps 1–3). */
export function validityStage(opts: ValidityOptions): EventStage {
  return {
    name: 'validity',
    run(ec: AccessEvent) {
      const url = ec.url;
      if (typeof url !== 'string' || url === '' || typeof ec.timestamp !== 'number' || Number.isNaN(ec.timestamp)) return 'filtered-ecs';
      if (!ec.domain && !opts.forceParser) return 'filtered-ecs';
      if (isStaticResource(url)) return 'filtered-ecs';
      return undefined;
    },
  };
}

export type StatusFilter =
  | { readonly mode: 'default'; readonly redirects: boolean }
  | { readonly mode: 'off' }
  | { readonly mode: 'list'; readonly codes: ReadonlySet<string> };

/**
 * HTTP status filter (reference 3.3 step 4). By default 200 and 304 pass, 401 and 403 pass but
 * are marked denied, 301/302 pass only when redirects are not filtered, all else is filtered.
 * Lines without a status always pass.
 */
export function statusStage(filter: StatusFilter): EventStage {
  return {
    name: 'status',
    run(ec, flags) {
      const status = ec.status;
      if (status === undefined || filter.mode === 'off') return undefined;
      const s = String(status);
      if (filter.mode === 'list') return filter.codes.has(s) ? undefined : 'filtered-ecs';
      switch (s) {
        case '200': case '304': return undefined;
        case '401': case '403': flags.denied = true; return undefined;
        case '301': case '302': return filter.redirects ? 'filtered-ecs' : undefined;
        default: return 'filtered-ecs';
      }
    },
  };
}
