/**
 * Which platforms handle a host name: a hash lookup on the exact host, then, when the job allows
 * it, on `*.suffix` wildcard entries for each proper suffix of at least two labels
 * (`a.b.c.d` → `*.b.c.d`, `*.c.d`; never `*.d`, and `*.x.y` does not match `x.y` itself).
 */
export interface Routable {
  readonly name: string;
  /** order among platforms sharing a host: higher first, then by name */
  readonly priority: number;
  /** a priority for some hosts (domain entries as written, `*.suffix` included), instead of `priority` */
  readonly hostPriority?: Readonly<Record<string, number>>;
}

interface Entry<P> {
  readonly platform: P;
  readonly priority: number;
}

export class DomainRouter<P extends Routable> {
  private readonly exact = new Map<string, P[]>();
  private readonly wildcard = new Map<string, Entry<P>[]>();

  constructor(platforms: Iterable<{ platform: P; domains: Iterable<string> }>) {
    const exact = new Map<string, Entry<P>[]>();
    for (const { platform, domains } of platforms) {
      const hostPriority = lowerKeys(platform.hostPriority);
      for (const raw of domains) {
        const domain = raw.trim().toLowerCase();
        if (!domain) continue;
        const entry = { platform, priority: hostPriority?.[domain] ?? platform.priority };
        if (domain.startsWith('*.')) add(this.wildcard, domain.slice(2), entry);
        else add(exact, domain, entry);
      }
    }
    for (const list of this.wildcard.values()) list.sort(byPriority);
    // Exact lists are kept as plain platform arrays: the common lookup returns them as they are.
    for (const [host, list] of exact) this.exact.set(host, list.sort(byPriority).map((e) => e.platform));
  }

  /** Platforms for a lower-cased host name, best first; empty when none. */
  lookup(host: string, allowWildcards = false): readonly P[] {
    const exact = this.exact.get(host);
    if (!allowWildcards || this.wildcard.size === 0) return exact ?? NONE;
    const found: Entry<P>[] = exact ? exact.map((platform) => ({ platform, priority: this.priorityOf(platform, host) })) : [];
    let dot = host.indexOf('.');
    while (dot >= 0) {
      const suffix = host.slice(dot + 1);
      if (suffix.indexOf('.') < 0) break;
      for (const e of this.wildcard.get(suffix) ?? NONE) if (!found.some((f) => f.platform === e.platform)) found.push(e);
      dot = host.indexOf('.', dot + 1);
    }
    return found.length ? found.sort(byPriority).map((e) => e.platform) : NONE;
  }

  get size(): number {
    return this.exact.size + this.wildcard.size;
  }

  private priorityOf(platform: P, host: string): number {
    const own = platform.hostPriority;
    if (own) for (const [k, v] of Object.entries(own)) if (k.toLowerCase() === host) return v;
    return platform.priority;
  }
}

const NONE: readonly never[] = Object.freeze([]);

function lowerKeys(map: Readonly<Record<string, number>> | undefined): Record<string, number> | undefined {
  if (!map) return undefined;
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(map)) out[k.trim().toLowerCase()] = v;
  return out;
}

function add<P extends Routable>(map: Map<string, Entry<P>[]>, key: string, entry: Entry<P>): void {
  const list = map.get(key);
  if (!list) map.set(key, [entry]);
  else if (!list.some((e) => e.platform === entry.platform)) list.push(entry);
}

function byPriority<P extends Routable>(a: Entry<P>, b: Entry<P>): number {
  const an = a.platform.name;
  const bn = b.platform.name;
  return b.priority - a.priority || (an < bn ? -1 : an > bn ? 1 : 0);
}
