/** The benchmark's job in one thread, as a parsing worker runs it (worker-path.ts, floor.ts). */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PROJECT_ROOT } from '../src/paths.js';
import { platformsCacheDir } from '../src/config.js';
import { FORMAT } from './common.js';

type Modules = [
  typeof import('../src/platforms/platform-set.js'),
  typeof import('../src/pipeline/batch-processor.js'),
  typeof import('../src/pipeline/job-options.js'),
  typeof import('../src/pipeline/job-spec.js'),
  typeof import('../src/pipeline/output-fields.js'),
  typeof import('../src/resources/index.js'),
  typeof import('../src/config.js'),
  typeof import('../src/pipeline/packed-events.js'),
];
const PATHS = ['platforms/platform-set', 'pipeline/batch-processor', 'pipeline/job-options', 'pipeline/job-spec', 'pipeline/output-fields', 'resources/index', 'config', 'pipeline/packed-events'];

/** A module of the production build (dist/), or of the sources. */
export function importBuilt<M>(path: string, fromDist: boolean): Promise<M> {
  return import(fromDist ? pathToFileURL(join(PROJECT_ROOT, 'dist/src', `${path}.js`)).href : `../src/${path}.js`) as Promise<M>;
}

/**
 * The platforms, and a job's context for the benchmark log (its EZproxy format, default headers,
 * a fixed crypting salt so that digests do not change from one run to the next), with the
 * functions that run it; from `dist/` (whose CPU profiles have true line numbers) or the sources.
 */
export async function benchJob(fromDist: boolean) {
  if (fromDist && !existsSync(join(PROJECT_ROOT, 'dist/src/server.js'))) throw new Error('dist/ is missing: npm run build');
  const [{ loadPlatformSet }, { createJobContext, processBatch }, { readJobOptions }, { jobSpec }, { computeColumns }, { loadResources, openResources }, { readConfig }, { unpackEvents, EventPacker }] = (await Promise.all(
    PATHS.map((p) => importBuilt(p, fromDist)),
  )) as Modules;
  const platforms = await loadPlatformSet(join(PROJECT_ROOT, 'repos/platforms'), platformsCacheDir());
  const options = readJobOptions({ 'log-format-ezproxy': FORMAT, 'crypting-salt': 'bench' }, { platforms: new Set(platforms.platforms.keys()) });
  const spec = jobSpec('bench', options.format!, options, {
    defaultZone: 'Europe/Paris',
    charset: 'utf-8',
    columns: computeColumns(options.outputFields, options.stageFields, options.format!.fieldNames),
    versions: { ezpaarse_version: 'bench', ezpaarse_date: '2024-01-01', platforms_version: 'bench', platforms_date: '2024-01-01' },
  });
  const resources = await loadResources(readConfig());
  const ctx = createJobContext(spec, { platforms, resources: await openResources(resources.data), packer: new EventPacker() });
  return { platforms, spec, ctx, processBatch, unpackEvents };
}

/** Batches as the service makes them: whole lines, about `size` bytes each, each with its own buffer. */
export function* batchesOf(bytes: Buffer, size: number): Generator<Uint8Array> {
  for (let pos = 0; pos < bytes.length;) {
    let end = Math.min(bytes.length, pos + size);
    if (end < bytes.length) end = bytes.lastIndexOf(10, end) + 1 || bytes.length;
    yield new Uint8Array(bytes.subarray(pos, end));
    pos = end;
  }
}
