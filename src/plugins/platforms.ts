import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { createHash } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { readPlatformSources, type LoadProblem, type PlatformSource } from '../platforms/loader.js';
import { ParsingPool } from '../pipeline/parsing-pool.js';
import { ParsingRuntime, type Lease, type RuntimeSnapshot } from '../pipeline/parsing-runtime.js';
import { loadResources, type LoadedResources } from '../resources/index.js';
import { BUILTIN_MIDDLEWARES, isBuiltinMiddleware } from '../pipeline/middlewares.js';
import { StartError } from '../start-error.js';
import { makeDirs } from '../make-dirs.js';

/** The platforms the service runs with, read from disk (compiled in each worker of their pool). */
export interface LoadedPlatforms {
  readonly sources: readonly PlatformSource[];
  readonly names: ReadonlySet<string>;
  readonly problems: readonly LoadProblem[];
  /** a short digest of the rules, or the platforms repository's commit */
  readonly version: string;
  readonly date: string;
}

/**
 * What a pool is loaded with: the platforms, and the resources of the filters and enrichments
 * (exclusion lists, knowledge bases — read from the platforms' folders too —, geolocation,
 * campus networks, extra middlewares), reloaded together.
 */
export interface RuntimeData extends LoadedPlatforms {
  readonly resources: LoadedResources;
}

export type Runtime = ParsingRuntime<RuntimeData, ParsingPool>;
export type RuntimeLease = Lease<RuntimeData, ParsingPool>;
export type Snapshot = RuntimeSnapshot<RuntimeData, ParsingPool>;

declare module 'fastify' {
  interface FastifyInstance {
    /** platforms, pool and versions; a job takes `runtime.acquire()` and releases it at its end */
    runtime: Runtime;
    /** the current platforms and resources (a getter: changes after an update) */
    platforms: RuntimeData;
    /** the current pool (a getter); a job must hold a lease instead, or the pool may close under it */
    pool: ParsingPool;
    /** provenance fields added to every event (a getter on the current snapshot) */
    versions: Readonly<Record<string, string>>;
  }
}

/** Reads the platforms of one folder, or of several in order (the first of a name wins). */
export async function loadPlatforms(dir: string | readonly string[], cacheDir: string): Promise<LoadedPlatforms> {
  const { sources, problems } = await readPlatformSources(dir, cacheDir);
  // the hooks by their code, not their path: the compiled copy lives under VAR_DIR, and the same
  // platforms must have the same version wherever the service keeps its files
  const digest = createHash('sha1');
  for (const s of sources) {
    const hooks = s.hooksModule === undefined ? null : createHash('sha1').update(await readFile(s.hooksModule)).digest('hex');
    digest.update(JSON.stringify([s.manifest, s.rules ?? null, s.tables, hooks]));
  }
  return {
    sources,
    names: new Set(sources.map((s) => s.manifest.name)),
    problems,
    version: digest.digest('hex').slice(0, 7),
    date: new Date().toISOString().slice(0, 10),
  };
}

/**
 * PLATFORMS_CACHE_DIR must take files: a platform's `hooks.ts` is loaded from its transpiled copy
 * there, and without it the platform would be left out.
 */
export function checkCacheDir(cacheDir: string): void {
  const probe = join(cacheDir, `.writable-${process.pid}`);
  try {
    makeDirs(cacheDir);
    writeFileSync(probe, '');
    rmSync(probe);
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new StartError(`PLATFORMS_CACHE_DIR: cannot write in the folder ${cacheDir} (${reason}): give the service write access to it, or set PLATFORMS_CACHE_DIR to a folder it can write`);
  }
}

/**
 * Removes `var/cache/hooks/`, where earlier versions kept the transpiled hooks (now in
 * PLATFORMS_CACHE_DIR), unless the cache was set to that folder or one inside it; one that cannot be removed
 * is left, as nothing reads it. Runs under VAR_DIR's lock.
 */
export async function removeOldHooksCache(varDir: string, platformsCacheDir: string): Promise<void> {
  const old = join(varDir, 'cache', 'hooks');
  const inside = relative(resolve(old), resolve(platformsCacheDir));
  if (!inside.startsWith('..') && !isAbsolute(inside)) return;
  await rm(old, { recursive: true, force: true }).catch(() => undefined);
}

/**
 * The platforms and their pool of parsing workers, reloadable: after a platforms update new jobs
 * get a new pool while running jobs finish on theirs.
 */
export default fp(async (app) => {
  const cacheDir = app.config.platformsCacheDir;
  checkCacheDir(cacheDir);
  await removeOldHooksCache(app.config.varDir, cacheDir);
  const dirs = [app.config.platformsDir, ...app.config.extraPlatformsDirs];
  const runtime = await ParsingRuntime.start<RuntimeData, ParsingPool>({
    load: async () => {
      const platforms = await loadPlatforms(dirs, cacheDir);
      for (const p of platforms.problems) app.log.error({ platform: p.folder }, `platform not loaded: ${p.message}`);
      app.log.info({ platforms: platforms.sources.length, version: platforms.version }, 'platforms loaded');
      return { ...platforms, resources: await loadLoggedResources(app, platforms.names) };
    },
    createPool: (platforms) => new ParsingPool({
      threads: app.config.pool.threads,
      platformSources: platforms.sources,
      platformsVersion: platforms.version,
      resources: platforms.resources.data,
      batchTimeoutMs: app.config.pool.batchTimeoutMs,
      workerHeapMb: app.config.pool.workerHeapMb,
      workerYoungMb: app.config.pool.workerYoungMb,
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

async function loadLoggedResources(app: FastifyInstance, platforms: ReadonlySet<string>): Promise<LoadedResources> {
  const started = Date.now();
  const resources = await loadResources(app.config, platforms);
  for (const p of resources.problems) app.log.error(`${p.what} not loaded: ${p.message}`);
  for (const n of resources.notices) app.log.warn(`${n.what}: ${n.message}`);
  const unknown = app.config.middlewares?.filter((m) => !isBuiltinMiddleware(m) && !resources.middlewareModules.has(m));
  if (unknown?.length) {
    // a step whose folder is there but does not build or import: say why, not only that it is unknown
    const why = new Map(resources.problems.map((p) => [p.what, p.message]));
    const named = unknown.map((m) => (why.has(`middleware ${m}`) ? `${m} (not loaded: ${why.get(`middleware ${m}`)})` : m));
    const extra = [...resources.middlewareModules.keys()];
    throw new StartError(`MIDDLEWARES names unknown middlewares: ${named.join(', ')} (built in: ${BUILTIN_MIDDLEWARES.join(', ')}; in ${app.config.middlewaresDir}: ${extra.join(', ') || 'none'})`);
  }
  const { exclusions, pkb, geoip, middlewares } = resources.data;
  app.log.info({
    exclusionFiles: exclusions.files.length,
    ignoredDomains: exclusions.domains.length,
    pkbPlatforms: pkb.platforms.length,
    pkbTitles: pkb.titles,
    geoip: geoip.file ?? 'off',
    geoipBytes: geoip.buffer?.byteLength ?? 0,
    middlewares: middlewares.map((m) => m.name),
    ms: Date.now() - started,
  }, 'resources loaded');
  return resources;
}
