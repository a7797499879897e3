/** What a platform folder's `manifest.json` says about it. */
export interface PlatformManifest {
  /** short code, the folder name (`sd`, `wiley`…); becomes the event's `platform` */
  name: string;
  /** becomes the event's `platform_name` */
  longname: string;
  /** becomes the event's `publisher_name` */
  publisher_name?: string;
  /** host names routed to this platform; `*.suffix` entries only with Allow-Domain-Wildcards */
  domains: string[];
  /** more host names, taken from the platform's knowledge bases */
  'kb-domains'?: string[];
  /** order among platforms sharing a domain: higher first (default 0, then by name) */
  priority?: number;
  /** a priority for some of its hosts only (a host shared with a platform that should win elsewhere) */
  'host-priority'?: Record<string, number>;
  version?: string;
  status?: string;
  describe?: string;
  docurl?: string;
  contact?: string;
  [key: string]: unknown;
}

/** Every host name a manifest routes to its platform: its domains, then its knowledge bases'. */
export function routedDomains(manifest: PlatformManifest): string[] {
  return [...manifest.domains, ...(manifest['kb-domains'] ?? [])];
}

/** What the domain router orders platforms sharing a host by (router.ts, Routable). */
export function routingOrder(manifest: PlatformManifest): { name: string; priority: number; hostPriority?: Readonly<Record<string, number>> } {
  return { name: manifest.name, priority: manifest.priority ?? 0, hostPriority: manifest['host-priority'] };
}

export class ManifestError extends Error {}

const NAME = /^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/;

/** Checks a parsed manifest and returns it typed; throws ManifestError saying what is wrong. */
export function checkManifest(raw: unknown, folder: string): PlatformManifest {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new ManifestError(`${folder}: manifest.json must hold an object`);
  const m = raw as Record<string, unknown>;
  if (typeof m.name !== 'string' || !NAME.test(m.name)) throw new ManifestError(`${folder}: manifest "name" must be a short code`);
  const longname = typeof m.longname === 'string' && m.longname ? m.longname : m.name;
  const domains = m.domains ?? [];
  if (!Array.isArray(domains) || domains.some((d) => typeof d !== 'string')) {
    throw new ManifestError(`${folder}: manifest "domains" must be a list of host names`);
  }
  const kb = m['kb-domains'];
  if (kb !== undefined && (!Array.isArray(kb) || kb.some((d) => typeof d !== 'string'))) {
    throw new ManifestError(`${folder}: manifest "kb-domains" must be a list of host names`);
  }
  if (m.priority !== undefined && typeof m.priority !== 'number') throw new ManifestError(`${folder}: manifest "priority" must be a number`);
  const hp = m['host-priority'];
  if (hp !== undefined && (typeof hp !== 'object' || hp === null || Array.isArray(hp) || Object.values(hp).some((v) => typeof v !== 'number'))) {
    throw new ManifestError(`${folder}: manifest "host-priority" must map host names to numbers`);
  }
  return { ...m, name: m.name, longname, domains: domains as string[] } as PlatformManifest;
}
