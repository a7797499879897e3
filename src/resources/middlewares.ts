import { createHash } from 'node:crypto';
import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import type { AccessEvent } from '../pipeline/event.js';
import { exists } from '../platforms/loader.js';
import { PROJECT_ROOT } from '../paths.js';
import { writeFileAside } from '../write-aside.js';
import type { RejectCategory } from '../pipeline/stages/types.js';

/**
 * Extra per-event steps from `repos/middlewares/<name>/index.ts` (or `.js`, `.mjs`); see
 * repos/middlewares/README.md. A module's default export is a factory, called once per job in
 * each worker (and once on the main thread when the job starts, to check its headers), that
 * returns the function run on each event.
 */
export interface MiddlewareContext {
  /** the job's request headers, names lower-cased */
  readonly headers: Readonly<Record<string, string>>;
  /** the fields the log format captures, in format order */
  readonly formatFields: readonly string[];
}

/**
 * Runs on one event: changes its fields in place; returns nothing to pass it on, or the name of a
 * reject category (e.g. `filtered-ecs`, `robots-ecs`) to reject its line.
 */
export type MiddlewareFunction = (ec: AccessEvent) => RejectCategory | undefined | void;

export type MiddlewareFactory = (context: MiddlewareContext) => MiddlewareFunction;

export interface MiddlewareModule {
  readonly default: MiddlewareFactory;
  /** columns the step adds to the CSV/TSV output, in order */
  readonly fields?: readonly string[];
  /** the job headers the step reads (shown by `/info/middlewares/headers`) */
  readonly headers?: readonly MiddlewareHeader[];
}

/** A job header a step reads: what a middleware manifest's `headers` lists in the reference. */
export interface MiddlewareHeader {
  readonly name: string;
  readonly description?: string;
}

const isHeader = (h: unknown): boolean => typeof h === 'object' && h !== null && typeof (h as MiddlewareHeader).name === 'string'
  && ((h as MiddlewareHeader).description === undefined || typeof (h as MiddlewareHeader).description === 'string');

/** An extra step as read on the main thread: plain data for the workers. */
export interface MiddlewareSource {
  readonly name: string;
  /** the module to import (TypeScript is bundled into the cache folder first) */
  readonly module: string;
  readonly fields: readonly string[];
}

export interface LoadedMiddlewares {
  readonly sources: readonly MiddlewareSource[];
  readonly problems: ReadonlyArray<{ readonly folder: string; readonly message: string }>;
}

const ENTRY_FILES = ['index.ts', 'index.mjs', 'index.js'];
const NAME = /^[a-z0-9_-]+$/;

/**
 * TypeScript is bundled with its imports into one ES module in the cache folder (named by a digest
 * of the source), so that the module resolves its packages wherever the cache lives. Paths in
 * build errors are relative to `baseDir` (the middlewares folder: `name/index.ts:3:7: …`), not to
 * wherever the service was started.
 */
async function prepare(file: string, baseDir: string, cacheDir: string): Promise<string> {
  if (!file.endsWith('.ts')) return file;
  const result = await build({
    absWorkingDir: baseDir,
    entryPoints: [file],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    write: false,
    logLevel: 'silent',
    // the service's own packages, wherever the middlewares folder is (REPOS_DIR outside the project)
    nodePaths: [join(PROJECT_ROOT, 'node_modules')],
    // CommonJS packages bundled into an ES module still call require() for Node's own modules
    banner: { js: "import { createRequire as __logsiftRequire } from 'node:module'; const require = __logsiftRequire(import.meta.url);" },
  });
  const code = result.outputFiles[0].text;
  const digest = createHash('sha1').update(code).digest('hex').slice(0, 16);
  const out = join(cacheDir, `middleware-${digest}.mjs`);
  if (!(await exists(out))) {
    await mkdir(cacheDir, { recursive: true });
    await writeFileAside(out, code);
  }
  return out;
}

export async function importMiddleware(module: string): Promise<MiddlewareModule> {
  const mod = (await import(pathToFileURL(module).href)) as Partial<MiddlewareModule>;
  if (typeof mod.default !== 'function') throw new Error('its default export is not a function (the factory)');
  if (mod.fields !== undefined && !(Array.isArray(mod.fields) && mod.fields.every((f) => typeof f === 'string'))) {
    throw new Error('`fields` must be an array of field names');
  }
  if (mod.headers !== undefined && !(Array.isArray(mod.headers) && mod.headers.every(isHeader))) {
    throw new Error('`headers` must be an array of {name, description?}');
  }
  return mod as MiddlewareModule;
}

/**
 * Reads the extra steps of a folder (one sub-folder each, named as the step). A step whose name
 * is taken (`reserved`) or that does not load is reported and left out. Called again by a reload.
 */
export async function loadMiddlewares(dir: string, cacheDir: string, reserved: ReadonlySet<string>): Promise<LoadedMiddlewares> {
  const sources: MiddlewareSource[] = [];
  const problems: Array<{ folder: string; message: string }> = [];
  let names: string[];
  try {
    names = (await readdir(dir, { withFileTypes: true })).filter((e) => e.isDirectory() && !/^[._]/.test(e.name)).map((e) => e.name).sort();
  } catch {
    return { sources, problems };
  }
  for (const name of names) {
    try {
      if (!NAME.test(name)) throw new Error('a middleware name is lower-case letters, digits, - and _');
      if (reserved.has(name)) throw new Error('a built-in step has that name');
      let entry: string | undefined;
      for (const f of ENTRY_FILES) if (!entry && (await exists(join(dir, name, f)))) entry = join(dir, name, f);
      if (!entry) throw new Error(`no ${ENTRY_FILES.join(', ')}`);
      const module = await prepare(entry, dir, cacheDir);
      const mod = await importMiddleware(module);
      sources.push({ name, module, fields: [...(mod.fields ?? [])] });
    } catch (err) {
      // esbuild's "Build failed with 1 error:\n<file>:<line>: …" on one line
      problems.push({ folder: name, message: (err as Error).message.replace(/:\n/g, ': ').replace(/\n/g, '; ') });
    }
  }
  return { sources, problems };
}
