import { urlView } from '../../platforms/url-view.js';
import type { PlatformSet } from '../../platforms/platform-set.js';
import type { CompiledPlatform } from '../../platforms/loader.js';
import type { EventStage } from './types.js';

export interface PlatformStageOptions {
  /** Force-Parser: the platform used when the host has none */
  readonly forceParser?: string;
  /** Filter-Platforms: only these platforms may claim an event */
  readonly filterPlatforms?: ReadonlySet<string>;
  /** Allow-Domain-Wildcards */
  readonly allowWildcards: boolean;
  /** Force-ECField-Publisher */
  readonly forcePublisher?: string;
}

/**
 * Routes the event to the platforms of its host and keeps the first one that recognises a
 * consultation (reference 3.7): unknown host → unknown-domains, platforms filtered out →
 * filtered-ecs, nothing recognised → unqualified-ecs.
 */
export function platformStage(set: PlatformSet, opts: PlatformStageOptions): EventStage {
  const forced = opts.forceParser ? set.platforms.get(opts.forceParser) : undefined;
  const onlyForced: readonly CompiledPlatform[] = forced ? [forced] : [];
  return {
    name: 'parser',
    run(ec, flags) {
      const domain = typeof ec.domain === 'string' ? ec.domain : '';
      let candidates = domain ? set.router.lookup(domain, opts.allowWildcards) : [];
      if (candidates.length === 0) candidates = onlyForced;
      if (candidates.length === 0) return 'unknown-domains';
      if (opts.filterPlatforms) {
        candidates = candidates.filter((p) => opts.filterPlatforms!.has(p.name));
        if (candidates.length === 0) return 'filtered-ecs';
      }
      const view = typeof ec.url === 'string' ? urlView(ec.url) : undefined;
      for (const platform of candidates) {
        const fields = platform.match(ec, view);
        if (!fields) continue;
        ec.platform = platform.name;
        ec.platform_name = platform.manifest.longname;
        const publisher = opts.forcePublisher ?? platform.manifest.publisher_name;
        if (publisher) ec.publisher_name = publisher;
        for (const key in fields) {
          if (key === '_granted') {
            flags.denied = fields[key] === 'false';
            continue;
          }
          ec[key] = fields[key];
        }
        return undefined;
      }
      return 'unqualified-ecs';
    },
  };
}
