import { countRules } from './rules/compile.js';
import type { PlatformSource } from './loader.js';
import type { PlatformManifest } from './manifest.js';

/** One entry of `/info/platforms`: the manifest as stored (as the reference's 3.x), plus counts. */
export type PlatformInfo = PlatformManifest & {
  /** host names routed to the platform (`domains` and `kb-domains`) */
  'domains-count': number;
  /** declarative rules, nested ones included; a community parser.js or a parse hook counts 1 */
  'rule-count': number;
  /** `rules` (logsift's rules, maybe with hooks) or `ezpaarse` (a community parser.js) */
  kind: PlatformSource['kind'];
};

export function ruleCountOf(source: PlatformSource): number {
  if (source.kind === 'ezpaarse' || !source.rules) return 1;
  return countRules(source.rules.rules);
}

/** The platforms' descriptions, sorted by name, optionally only those of one `status`. */
export function describePlatforms(sources: readonly PlatformSource[], status?: string): PlatformInfo[] {
  return sources
    .filter((s) => status === undefined || s.manifest.status === status)
    .map((s) => ({
      ...s.manifest,
      'domains-count': new Set([...s.manifest.domains, ...(s.manifest['kb-domains'] ?? [])].map((d) => d.trim().toLowerCase())).size,
      'rule-count': ruleCountOf(s),
      kind: s.kind,
    }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
