import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isBot } from 'isbot';
import { IpRangeBuilder, IpRanges, parseIPv4, someAddress, type IpRangeData } from './ip-ranges.js';

/**
 * The exclusion lists (reference 3.4): `robots.*` (crawler addresses), `hosts.*` (ignored client
 * hosts), `domains.*` (ignored sites). One entry a line, `#` starts a comment. Addresses, CIDR
 * prefixes, `a - b` ranges and `a.b.c` (a /24) go into shared range tables; other entries are
 * names compared without case (host names in robots/hosts, site names in domains).
 */
export interface HostListData {
  readonly ranges: IpRangeData;
  /** lower-cased host names */
  readonly names: readonly string[];
}

export interface ExclusionData {
  readonly robots: HostListData;
  readonly hosts: HostListData;
  /** lower-cased domain names */
  readonly domains: readonly string[];
  /** what was read: file, list, entries */
  readonly files: ReadonlyArray<{ readonly file: string; readonly list: ListKind; readonly entries: number }>;
}

export type ListKind = 'robots' | 'hosts' | 'domains';

const LIST_KINDS: readonly ListKind[] = ['robots', 'hosts', 'domains'];

/**
 * Calls `each` on the entries of a list file (comments and blanks dropped, entries trimmed) and
 * returns their number. Scans the text rather than splitting it: a list of 200 000 lines then
 * leaves no array of lines behind.
 */
export function forEachEntry(text: string, each: (entry: string) => void): number {
  let count = 0;
  let start = 0;
  // the next '#' (-1: none left), searched again only once passed: searching it from every line
  // scanned the rest of the text each time, quadratic in a list without comments
  let hash = -2;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    if (hash !== -1 && hash < start) hash = text.indexOf('#', start);
    const entry = text.slice(start, hash >= 0 && hash < end ? hash : end).trim();
    start = end + 1;
    if (entry === '') continue;
    count++;
    each(entry);
  }
  return count;
}

/**
 * Reads the list files of the given folders (in order; a missing folder is skipped) into shared
 * tables. Called again by a reload with the same folders.
 */
export async function loadExclusions(dirs: readonly string[]): Promise<ExclusionData> {
  const ranges = { robots: new IpRangeBuilder(), hosts: new IpRangeBuilder() };
  const names = { robots: new Set<string>(), hosts: new Set<string>() };
  const domains = new Set<string>();
  const files: Array<{ file: string; list: ListKind; entries: number }> = [];
  for (const dir of dirs) {
    let entries: string[];
    try {
      entries = (await readdir(dir)).sort();
    } catch {
      continue;
    }
    for (const name of entries) {
      const list = name.slice(0, name.indexOf('.')) as ListKind;
      if (!LIST_KINDS.includes(list)) continue;
      const file = join(dir, name);
      const count = forEachEntry(await readFile(file, 'utf8'), (item) => {
        if (list === 'domains') {
          // `images.iop.org,` in the community list: a stray separator is not part of a name
          domains.add(item.replace(/[,;]+$/, '').toLowerCase());
        } else if (!ranges[list].add(item)) {
          names[list].add(item.toLowerCase());
        }
      });
      files.push({ file, list, entries: count });
    }
  }
  return {
    robots: { ranges: ranges.robots.build(), names: [...names.robots] },
    hosts: { ranges: ranges.hosts.build(), names: [...names.hosts] },
    domains: [...domains],
    files,
  };
}

/** One host list ready for lookups. */
export class HostList {
  private readonly ranges: IpRanges;
  private readonly names: ReadonlySet<string>;

  constructor(data: HostListData) {
    this.ranges = new IpRanges(data.ranges);
    this.names = new Set(data.names);
  }

  get size(): number {
    return this.ranges.rangeCount + this.names.size;
  }

  get bytes(): number {
    return this.ranges.bytes;
  }

  /** Whether the host, or any address of a proxy chain `a, b`, is listed. */
  matches(host: string): boolean {
    if (host.indexOf(',') < 0) return this.matchesOne(host);
    return someAddress(host, (a) => this.matchesOne(a));
  }

  /** One address or name; runs on every line, so the IPv4 case is tried first and alone. */
  private matchesOne(a: string): boolean {
    const n = parseIPv4(a);
    if (n >= 0) return this.ranges.hasV4(n);
    if (a.indexOf(':') >= 0 && this.ranges.has(a)) return true;
    return this.names.size > 0 && this.names.has(a.toLowerCase());
  }
}

/** Bounded cache of user-agent verdicts: a log has few distinct agents, each seen many times. */
const UA_CACHE_LIMIT = 5000;

/** The exclusion lists of a worker (or of the main thread), over the shared tables. */
export class Exclusions {
  readonly robots: HostList;
  readonly hosts: HostList;
  private readonly domains: ReadonlySet<string>;
  private readonly uaCache = new Map<string, boolean>();

  constructor(data: ExclusionData) {
    this.robots = new HostList(data.robots);
    this.hosts = new HostList(data.hosts);
    this.domains = new Set(data.domains);
  }

  isIgnoredDomain(domain: string): boolean {
    return this.domains.has(domain) || this.domains.has(domain.toLowerCase());
  }

  /** A crawler user agent (isbot's patterns). */
  isRobotAgent(userAgent: string): boolean {
    let verdict = this.uaCache.get(userAgent);
    if (verdict === undefined) {
      verdict = isBot(userAgent);
      if (this.uaCache.size >= UA_CACHE_LIMIT) this.uaCache.clear();
      this.uaCache.set(userAgent, verdict);
    }
    return verdict;
  }
}
