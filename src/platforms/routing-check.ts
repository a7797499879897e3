import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
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
  /** the row's own platform won */
  readonly ok: boolean;
}

/**
 * Routes a row as the service would (URL normalised, `domain` from it, candidates in the platform
 * stage's order, no Force-Parser nor Filter-Platforms). Only rows that expect a match, on a host
 * that the row's platform declares, are checked: undefined for the others (a row that expects no
 * match says nothing about the other platforms of its host).
 */
export function routeRow(set: PlatformSet, row: ConformanceRow, allowWildcards = false): RoutingResult | undefined {
  const raw = row.input.url;
  if (raw === undefined || Object.keys(row.expected).length === 0) return undefined;
  const { url, domain } = normaliseUrl(raw);
  if (!domain) return undefined;
  const candidates = set.router.lookup(domain, allowWildcards);
  if (!candidates.some((p) => p.name === row.platform)) return undefined;
  // The platform stage's own order: the first candidate whose rules recognise the event wins
  // (read here rather than from the event, whose `platform` a platform's fields may override).
  const ec = { ...row.input, url, domain };
  const view = urlView(url);
  const winner = candidates.find((p) => p.match(ec, view) !== undefined)?.name;
  return { row, host: domain, candidates: candidates.map((p) => p.name), winner, ok: winner === row.platform };
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

/** A known misroute: rows of `platform` on `host` that `winner` claims (see routing-exceptions.yaml). */
export interface RoutingException {
  readonly platform: string;
  readonly host: string;
  readonly winner: string;
  readonly rows: number;
  readonly why?: string;
}

export async function readRoutingExceptions(file: string): Promise<RoutingException[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return [];
  }
  const list = parseYaml(text) ?? [];
  if (!Array.isArray(list)) throw new Error(`${file}: must hold a list`);
  for (const e of list) {
    if (typeof e?.platform !== 'string' || typeof e?.host !== 'string' || typeof e?.winner !== 'string' || typeof e?.rows !== 'number') {
      throw new Error(`${file}: each entry needs platform, host, winner and rows`);
    }
  }
  return list as RoutingException[];
}

export interface RoutingVerdict {
  /** misrouted rows that no exception lists */
  readonly unexpected: readonly RoutingResult[];
  /** exceptions that no longer match what happens (fewer or more rows, another winner, none) */
  readonly stale: readonly RoutingException[];
}

/** Sets the misroutes against the listed exceptions (each must account for exactly its rows). */
export function judgeRouting(summary: RoutingSummary, exceptions: readonly RoutingException[]): RoutingVerdict {
  const key = (platform: string, host: string, winner: string | undefined) => `${platform} ${host} ${winner ?? ''}`;
  const counts = new Map<string, number>();
  for (const r of summary.wrong) {
    const k = key(r.row.platform, r.host, r.winner);
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  const listed = new Set(exceptions.map((e) => key(e.platform, e.host, e.winner)));
  const unexpected = summary.wrong.filter((r) => !listed.has(key(r.row.platform, r.host, r.winner)));
  const stale = exceptions.filter((e) => counts.get(key(e.platform, e.host, e.winner)) !== e.rows);
  return { unexpected, stale };
}
