import { join } from 'node:path';
import type { Config } from '../config.js';
import { campusRanges, type CampusRangeData } from '../pipeline/stages/on-campus.js';
import { BUILTIN_MIDDLEWARES } from '../pipeline/middlewares.js';
import { Exclusions, loadExclusions, type ExclusionData } from './exclusions.js';
import { buildPkb, PkbReader, type PkbData } from './pkb.js';
import { GeoLocator, loadGeoip, type GeoipData } from './geoip.js';
import { importMiddleware, loadMiddlewares, type MiddlewareModule, type MiddlewareSource } from './middlewares.js';

/**
 * What the filters and enrichments read, loaded once on the main thread: plain data and
 * SharedArrayBuffers, handed to every parsing worker in workerData (the big tables are shared,
 * not copied). Each part is loaded by a function of its folders, so that a reload can call it again.
 */
export interface ResourceData {
  readonly exclusions: ExclusionData;
  readonly pkb: PkbData;
  readonly geoip: GeoipData;
  readonly campus: readonly CampusRangeData[];
  readonly middlewares: readonly MiddlewareSource[];
}

export interface LoadedResources {
  readonly data: ResourceData;
  /** the extra steps, imported on the main thread too (their fields, their header checks) */
  readonly middlewareModules: ReadonlyMap<string, MiddlewareModule>;
  readonly problems: ReadonlyArray<{ readonly what: string; readonly message: string }>;
  /** what was skipped or looks wrong but loaded (KBART files), for the log's warnings */
  readonly notices: ReadonlyArray<{ readonly what: string; readonly message: string }>;
}

/** `platforms`: the names of the loaded platforms (a knowledge-base folder named for none is skipped). */
export async function loadResources(config: Config, platforms?: ReadonlySet<string>): Promise<LoadedResources> {
  const cacheDir = join(config.varDir, 'cache');
  const problems: Array<{ what: string; message: string }> = [];
  const notices: Array<{ what: string; message: string }> = [];
  const [exclusions, pkb, geoip, middlewares] = await Promise.all([
    loadExclusions(config.exclusionsDirs),
    buildPkb(config.platformsDir, config.pkbDirs, cacheDir, { platforms, notify: (n) => notices.push(n) }),
    loadGeoip(config.geoipDb, config.geoipCacheDir).then((data) => {
      if (data.slimError) problems.push({ what: `slim copy of the geolocation database ${config.geoipDb}`, message: `${data.slimError} (the whole file is used)` });
      return data;
    }, (err: Error) => {
      problems.push({ what: `geolocation database ${config.geoipDb}`, message: err.message });
      return {} as GeoipData;
    }),
    loadMiddlewares(config.middlewaresDir, join(cacheDir, 'middlewares'), new Set(BUILTIN_MIDDLEWARES)),
  ]);
  for (const p of middlewares.problems) problems.push({ what: `middleware ${p.folder}`, message: p.message });
  const modules = new Map<string, MiddlewareModule>();
  for (const s of middlewares.sources) modules.set(s.name, await importMiddleware(s.module));
  return {
    data: { exclusions, pkb, geoip, campus: campusRanges(config.onCampusRanges), middlewares: middlewares.sources },
    middlewareModules: modules,
    problems,
    notices,
  };
}

/** The resources as a worker uses them (built once per worker over the shared data). */
export interface WorkerResources {
  readonly exclusions: Exclusions;
  readonly pkb: PkbReader;
  readonly geo?: GeoLocator;
  readonly campus: readonly CampusRangeData[];
  readonly middlewares: ReadonlyMap<string, MiddlewareModule>;
}

export async function openResources(data: ResourceData): Promise<WorkerResources> {
  const middlewares = new Map<string, MiddlewareModule>();
  for (const s of data.middlewares) middlewares.set(s.name, await importMiddleware(s.module));
  const buffer = data.geoip.buffer;
  return {
    exclusions: new Exclusions(data.exclusions),
    pkb: new PkbReader(data.pkb),
    geo: buffer ? new GeoLocator({ ...data.geoip, buffer }) : undefined,
    campus: data.campus,
    middlewares,
  };
}
