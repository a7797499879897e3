import { compilePlatform, readPlatformSources, type CompiledPlatform, type LoadProblem, type PlatformSource } from './loader.js';
import { routedDomains, type PlatformManifest } from './manifest.js';
import { DomainRouter, type Routable } from './router.js';

/** The platforms one job runs with: compiled matchers and the domain router over them. */
export interface PlatformSet {
  /** version of the platforms folder (a commit id, or a content digest) */
  readonly version: string;
  readonly platforms: ReadonlyMap<string, CompiledPlatform>;
  readonly router: DomainRouter<CompiledPlatform>;
  readonly problems: readonly LoadProblem[];
}

/**
 * Compiles read sources; a platform that fails to compile is reported and left out. `lazy`: each
 * platform's rules are compiled at its first event (see compilePlatform), and so not checked here.
 */
export async function compilePlatformSet(sources: readonly PlatformSource[], version: string, problems: readonly LoadProblem[] = [], lazy = false): Promise<PlatformSet> {
  const platforms = new Map<string, CompiledPlatform>();
  const failed: LoadProblem[] = [...problems];
  for (const source of sources) {
    try {
      const p = await compilePlatform(source, lazy);
      if (platforms.has(p.name)) {
        failed.push({ folder: source.dir, message: `duplicate platform name ${p.name}` });
        continue;
      }
      platforms.set(p.name, p);
    } catch (err) {
      failed.push({ folder: source.dir, message: (err as Error).message });
    }
  }
  return { version, platforms, router: routerOver(platforms.values()), problems: failed };
}

/** The domain router over platforms (compiled here, or only described: /info/domains). */
export function routerOver<P extends Routable & { readonly manifest: PlatformManifest }>(platforms: Iterable<P>): DomainRouter<P> {
  return new DomainRouter([...platforms].map((platform) => ({ platform, domains: routedDomains(platform.manifest) })));
}

/** Reads and compiles a platforms folder in one go (tools and tests; the service splits the two steps). */
export async function loadPlatformSet(root: string | readonly string[], cacheDir: string, version = 'local', only?: ReadonlySet<string>): Promise<PlatformSet> {
  const { sources, problems } = await readPlatformSources(root, cacheDir, only);
  return compilePlatformSet(sources, version, problems);
}
