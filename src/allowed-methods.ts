/**
 * The methods a path answers to, from the routes' patterns: a request of another method gets
 * 405 with `Allow` (RFC 9110 §15.5.6) instead of a 404 that says the path does not exist.
 */

export interface RouteEntry {
  readonly method: string;
  readonly url: string;
}

/** Constraints on named parameters: `/:jobId` is a job's path only for a job id. */
export type ParamChecks = Readonly<Record<string, (value: string) => boolean>>;

function segmentMatches(pattern: string, value: string, checks: ParamChecks): boolean {
  if (pattern.startsWith(':')) return value !== '' && (checks[pattern.slice(1)]?.(value) ?? true);
  return pattern === value;
}

/** Whether a route pattern (`/a/:b`, `/a/*`) matches a path (no query). */
export function routeMatches(url: string, path: string, checks: ParamChecks = {}): boolean {
  const patterns = url.split('/');
  const values = path.split('/');
  for (let i = 0; i < patterns.length; i++) {
    if (patterns[i] === '*') return true;
    if (i >= values.length || !segmentMatches(patterns[i], values[i], checks)) return false;
  }
  return patterns.length === values.length;
}

/**
 * The methods of the routes matching the path, in a stable order; OPTIONS routes are left out (a
 * preflight route covers a whole prefix, known paths or not). Empty when no route matches.
 */
export function allowedMethods(routes: ReadonlyArray<RouteEntry>, path: string, checks: ParamChecks = {}): string[] {
  const methods = new Set<string>();
  for (const r of routes) if (r.method !== 'OPTIONS' && routeMatches(r.url, path, checks)) methods.add(r.method);
  if (methods.has('GET')) methods.add('HEAD');
  const order = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];
  return [...methods].sort((a, b) => (order.indexOf(a) + 1 || 99) - (order.indexOf(b) + 1 || 99));
}
