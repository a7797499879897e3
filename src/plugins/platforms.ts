import fp from 'fastify-plugin';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { readPlatformSources, type LoadProblem, type PlatformSource } from '../platforms/loader.js';

/** The platforms the service runs with, read once from disk (compiled in each worker). */
export interface LoadedPlatforms {
  readonly sources: readonly PlatformSource[];
  readonly names: ReadonlySet<string>;
  readonly problems: readonly LoadProblem[];
  /** a short digest of the rules, or the platforms repository's commit */
  readonly version: string;
  readonly date: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    platforms: LoadedPlatforms;
  }
}

/** Reads the platforms of one folder, or of several in order (the first of a name wins). */
export async function loadPlatforms(dir: string | readonly string[], cacheDir: string): Promise<LoadedPlatforms> {
  const { sources, problems } = await readPlatformSources(dir, cacheDir);
  const digest = createHash('sha1');
  for (const s of sources) digest.update(JSON.stringify([s.manifest, s.rules ?? null, s.tables, s.hooksModule ?? null]));
  return {
    sources,
    names: new Set(sources.map((s) => s.manifest.name)),
    problems,
    version: digest.digest('hex').slice(0, 7),
    date: new Date().toISOString().slice(0, 10),
  };
}

export default fp(async (app) => {
  const dirs = [app.config.platformsDir, ...app.config.extraPlatformsDirs];
  const platforms = await loadPlatforms(dirs, join(app.config.varDir, 'cache', 'hooks'));
  for (const p of platforms.problems) app.log.error({ platform: p.folder }, `platform not loaded: ${p.message}`);
  app.log.info({ platforms: platforms.sources.length, version: platforms.version }, 'platforms loaded');
  app.decorate('platforms', platforms);
}, { name: 'platforms' });
