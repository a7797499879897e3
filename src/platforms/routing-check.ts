import { normaliseUrl } from '../pipeline/url-normalise.js';
import { urlView } from './url-view.js';
import type { ConformanceRow } from './conformance.js';
import type { PlatformSet } from './platform-set.js';

/** Where the service sends one conformance row when it routes it by its host. */
export interface RoutingResult {
  readonly row: ConformanceRow;
  readonly host: string;
  /** the platforms the router gives for the host, best first */
  readonly candidates: readonly string[];
  /** the platform that claimed the event (the first candidate whose rules match), if any */
  readonly winner?: string;
  /** the row's own platform won, or, for a row that expects no match, no other platform claimed it */
  readonly ok: boolean;
}

/**
 * Routes a row as the service would (URL normalised, `domain` from it, the platform stage with
 * no Force-Parser nor Filter-Platforms). Only rows whose host the row's platform declares are
 * checked: undefined for the others (their URL never reaches that platform in the service).
 */
export function routeRow(set: PlatformSet, row: ConformanceRow, allowWildcards = false): RoutingResult | undefined {
  const raw = row.input.url;
  if (raw === undefined) return undefined;
  const { url, domain } = normaliseUrl(raw);
  if (!domain) return undefined;
  const candidates = set.router.lookup(domain, allowWildcards);
  if (!candidates.some((p) => p.name === row.platform)) return undefined;
  // The platform stage's own order: the first candidate whose rules recognise the event wins
  // (read here rather than from the event, whose `platform` a platform's fields may override).
  const ec = { ...row.input, url, domain };
  const view = urlView(url);
  const winner = candidates.find((p) => p.match(ec, view) !== undefined)?.name;
  const expectsMatch = Object.keys(row.expected).length > 0;
  return {
    row,
    host: domain,
    candidates: candidates.map((p) => p.name),
    winner,
    ok: expectsMatch ? winner === row.platform : winner === undefined,
  };
}

export interface RoutingSummary {
  /** rows whose host the row's platform declares */
  readonly checked: number;
  /** of those, rows on a host that several platforms declare */
  readonly shared: number;
  readonly wrong: readonly RoutingResult[];
}

export function checkRouting(set: PlatformSet, rows: readonly ConformanceRow[], allowWildcards = false): RoutingSummary {
  let checked = 0;
  let shared = 0;
  const wrong: RoutingResult[] = [];
  for (const row of rows) {
    const r = routeRow(set, row, allowWildcards);
    if (!r) continue;
    checked++;
    if (r.candidates.length > 1) shared++;
    if (!r.ok) wrong.push(r);
  }
  return { checked, shared, wrong };
}

export function formatMisroute(r: RoutingResult): string {
  const got = r.winner ?? 'nothing';
  return `MISROUTE ${r.row.file}:${r.row.line} ${r.host}: ${r.row.platform} expected, ${got} claimed it `
    + `(candidates ${r.candidates.join(', ')}) ${r.row.input.url}`;
}
