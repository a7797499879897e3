/**
 * Which platforms handle a host name: a hash lookup on the exact host, then, when the job allows
 * it, on `*.suffix` wildcard entries for each proper suffix of at least two labels
 * (`a.b.c.d` → `*.b.c.d`, `*.c.d`; never `*.d`, and `*.x.y` does not match `x.y` itself).
 */
export interface Routable {
  readonly name: string;
  readonly priority: number;
}

export class DomainRouter<P extends Routable> {
  private readonly exact = new Map<string, P[]>();
  private readonly wildcard = new Map<string, P[]>();

  constructor(platforms: Iterable<{ platform: P; domains: Iterable<string> }>) {
    for (const { platform, domains } of platforms) {
      for (const raw of domains) {
        const domain = raw.trim().toLowerCase();
        if (!domain) continue;
        if (domain.startsWith('*.')) add(this.wildcard, domain.slice(2), platform);
        else add(this.exact, domain, platform);
      }
    }
    for (const list of [...this.exact.values(), ...this.wildcard.values()]) list.sort(byPriority);
  }

  /** Platforms for a lower-cased host name, best first; empty when none. */
  lookup(host: string, allowWildcards = false): readonly P[] {
    const exact = this.exact.get(host);
    if (!allowWildcards || this.wildcard.size === 0) return exact ?? NONE;
    const found: P[] = exact ? [...exact] : [];
    let dot = host.indexOf('.');
    while (dot >= 0) {
      const suffix = host.slice(dot + 1);
      if (suffix.indexOf('.') < 0) break;
      for (const p of this.wildcard.get(suffix) ?? NONE) if (!found.includes(p)) found.push(p);
      dot = host.indexOf('.', dot + 1);
    }
    return found.length ? found.sort(byPriority) : NONE;
  }

  get size(): number {
    return this.exact.size + this.wildcard.size;
  }
}

const NONE: readonly never[] = Object.freeze([]);

function add<P extends Routable>(map: Map<string, P[]>, key: string, platform: P): void {
  const list = map.get(key);
  if (!list) map.set(key, [platform]);
  else if (!list.includes(platform)) list.push(platform);
}

function byPriority(a: Routable, b: Routable): number {
  return b.priority - a.priority || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}
