import fp from 'fastify-plugin';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { readPlatformSources, type LoadProblem, type PlatformSource } from '../platforms/loader.js';
import { ParsingPool } from '../pipeline/parsing-pool.js';
import { ParsingRuntime, type Lease, type RuntimeSnapshot } from '../pipeline/parsing-runtime.js';

/** The platforms the service runs with, read from disk (compiled in each worker of their pool). */
export interface LoadedPlatforms {
  readonly sources: readonly PlatformSource[];
  readonly names: ReadonlySet<string>;
  readonly problems: readonly LoadProblem[];
  /** a short digest of the rules, or the platforms repository's commit */
  readonly version: string;
  readonly date: string;
}

export type Runtime = ParsingRuntime<LoadedPlatforms, ParsingPool>;
export type RuntimeLease = Lease<LoadedPlatforms, ParsingPool>;
export type Snapshot = RuntimeSnapshot<LoadedPlatforms, ParsingPool>;

declare module 'fastify' {
  interface FastifyInstance {
    /** platforms, pool and versions; a job takes `runtime.acquire()` and releases it at its end */
    runtime: Runtime;
    /** the current platforms (a getter: changes after a platforms update) */
    platforms: LoadedPlatforms;
    /** the current pool (a getter); a job must hold a lease instead, or the pool may close under it */
    pool: ParsingPool;
    /** provenance fields added to every event (a getter on the current snapshot) */
    versions: Readonly<Record<string, string>>;
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

/**
 * The platforms and their pool of parsing workers, reloadable: after a platforms update new jobs
 * get a new pool while running jobs finish on theirs.
 */
export default fp(async (app) => {
  const cacheDir = join(app.config.varDir, 'cache', 'hooks');
  const dirs = [app.config.platformsDir, ...app.config.extraPlatformsDirs];
  const runtime = await ParsingRuntime.start<LoadedPlatforms, ParsingPool>({
    load: async () => {
      const platforms = await loadPlatforms(dirs, cacheDir);
      for (const p of platforms.problems) app.log.error({ platform: p.folder }, `platform not loaded: ${p.message}`);
      app.log.info({ platforms: platforms.sources.length, version: platforms.version }, 'platforms loaded');
      return platforms;
    },
    createPool: (platforms) => new ParsingPool({
      threads: app.config.pool.threads,
      platformSources: platforms.sources,
      platformsVersion: platforms.version,
      onWorkerError: (err) => app.log.error({ err }, 'parsing worker error'),
    }),
    closePool: (pool) => pool.close(),
    onPoolClosed: (err) => {
      if (err) app.log.error({ err }, 'closing a parsing pool failed');
    },
    platformVersions: (platforms) => ({ platforms_version: platforms.version, platforms_date: platforms.date }),
    baseVersions: {
      ezpaarse_version: app.appVersion,
      ezpaarse_date: new Date().toISOString().slice(0, 10),
      middlewares_version: '',
      middlewares_date: '',
    },
  });
  app.decorate('runtime', runtime);
  app.decorate('platforms', { getter: () => runtime.current.platforms });
  app.decorate('pool', { getter: () => runtime.current.pool });
  app.decorate('versions', { getter: () => runtime.current.versions });
  app.addHook('onClose', async () => {
    await runtime.close();
  });
}, { name: 'platforms' });
