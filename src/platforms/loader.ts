import { readFile, readdir, mkdir, stat } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';
import { transform } from 'esbuild';
import { checkManifest, routingOrder, type PlatformManifest } from './manifest.js';
import { ParsedRulesCache, parseRulesYaml } from './parsed-rules.js';
import { writeFileAside } from '../write-aside.js';
import { compileRules, countRules, type PlatformMatcher } from './rules/compile.js';
import type { HooksModule, RulesFileSpec, Fields } from './rules/types.js';
import type { Tables } from './rules/transforms.js';

/**
 * One platform folder as read from disk: plain data, so that the main thread can read the
 * folder once and hand the result to every worker.
 */
export interface PlatformSource {
  readonly dir: string;
  readonly manifest: PlatformManifest;
  /** `rules`: logsift's declarative rules (with optional hooks); `ezpaarse`: a community parser.js */
  readonly kind: 'rules' | 'ezpaarse';
  readonly rules?: RulesFileSpec;
  readonly tables: Record<string, Record<string, string>>;
  /** path of the hooks module to import (transpiled to JavaScript when written in TypeScript) */
  readonly hooksModule?: string;
  /** path of an ezPAARSE-style parser.js */
  readonly parserFile?: string;
}

export interface LoadProblem {
  readonly folder: string;
  readonly message: string;
}

export interface LoadedSources {
  readonly sources: PlatformSource[];
  readonly problems: LoadProblem[];
  /** folders left out because a platform of the same name was read from an earlier folder */
  readonly shadowed: string[];
  /** for each folder of `shadowed`, the earlier folder whose platform of that name was kept */
  readonly shadowedBy: ReadonlyMap<string, string>;
}

const RULE_FILES = ['rules.yaml', 'rules.yml', 'rules.json'];

/** Whether a path exists (file or folder). */
export async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/** Whether a folder exists and holds a file at any depth (a checkout leaves the folders it emptied). */
export async function holdsFiles(dir: string): Promise<boolean> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.some((e) => e.isFile());
}

/** The JSON files of a platform's `tables` folder, by name. */
async function readTables(folder: string): Promise<Record<string, Record<string, string>>> {
  const tables: Record<string, Record<string, string>> = {};
  for (const file of (await readdir(folder)).sort()) {
    if (!file.endsWith('.json')) continue;
    const data = JSON.parse(await readFile(join(folder, file), 'utf8')) as Record<string, unknown>;
    const table: Record<string, string> = {};
    for (const [k, v] of Object.entries(data)) table[k] = String(v);
    tables[file.slice(0, -5)] = table;
  }
  return tables;
}

/** Transpiles a TypeScript hooks file once per content into the cache folder; returns the module path. */
async function prepareHooks(file: string, cacheDir: string): Promise<string> {
  if (file.endsWith('.js') || file.endsWith('.mjs')) return file;
  const code = await readFile(file, 'utf8');
  const digest = createHash('sha1').update(code).digest('hex').slice(0, 16);
  const out = join(cacheDir, `hooks-${digest}.mjs`);
  if (!(await exists(out))) {
    const js = await transform(code, { loader: 'ts', format: 'esm', target: 'node20', sourcefile: file });
    await mkdir(cacheDir, { recursive: true });
    // several processes, or platforms of one process read at once (READ_AHEAD), may prepare the same hooks together
    await writeFileAside(out, js.code);
  }
  return out;
}

/**
 * Reads one platform folder; throws with a message naming what is wrong. `parsed`: rules files
 * parsed by earlier reads (readPlatformSources keeps them in `cacheDir`).
 */
export async function readPlatformFolder(dir: string, cacheDir: string, parsed?: ParsedRulesCache): Promise<PlatformSource | undefined> {
  // one listing instead of a stat a file name: a service reads some 650 folders at each start
  const entries = await readdir(dir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT' || err.code === 'ENOTDIR') return [];
    throw err;
  });
  const has = new Set(entries);
  if (!has.has('manifest.json')) return undefined;
  const manifest = checkManifest(JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')), dir);
  const hooksFile = has.has('hooks.ts') ? join(dir, 'hooks.ts') : has.has('hooks.js') ? join(dir, 'hooks.js') : undefined;
  const tables = () => (has.has('tables') ? readTables(join(dir, 'tables')) : Promise.resolve({}));
  const rulesName = RULE_FILES.find((name) => has.has(name));
  if (rulesName !== undefined) {
    const text = await readFile(join(dir, rulesName), 'utf8');
    const rules = (rulesName.endsWith('.json') ? JSON.parse(text) : parsed ? parsed.parse(text) : parseRulesYaml(text)) as RulesFileSpec;
    return {
      dir, manifest, kind: 'rules', rules, tables: await tables(),
      hooksModule: hooksFile ? await prepareHooks(hooksFile, cacheDir) : undefined,
    };
  }
  if (has.has('hooks.ts')) {
    return { dir, manifest, kind: 'rules', tables: await tables(), hooksModule: await prepareHooks(join(dir, 'hooks.ts'), cacheDir) };
  }
  if (has.has('parser.js')) return { dir, manifest, kind: 'ezpaarse', tables: {}, parserFile: join(dir, 'parser.js') };
  throw new Error(`${dir}: no rules.yaml, hooks.ts or parser.js`);
}

/** Platform folders read at once while the ones before them are checked. */
const READ_AHEAD = 16;

type Outcome<R> = { readonly ok: true; readonly value: R } | { readonly ok: false; readonly error: unknown };

/** `fn` over `items`, at most `limit` calls running at once, the outcomes given in the items' order. */
async function* inOrder<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): AsyncGenerator<Outcome<R> & { readonly item: T }> {
  const running: Array<Promise<Outcome<R>> | undefined> = [];
  const start = (i: number) => {
    // settled at once: a failure waits for its turn without being an unhandled rejection
    if (i < items.length) running[i] = fn(items[i]).then((value) => ({ ok: true, value }), (error: unknown) => ({ ok: false, error }));
  };
  for (let i = 0; i < limit; i++) start(i);
  for (let i = 0; i < items.length; i++) {
    const outcome = await running[i]!;
    running[i] = undefined;
    start(i + limit);
    yield { item: items[i], ...outcome };
  }
}

/**
 * Reads every platform folder under `root`, or under each of several roots in order (folders
 * starting with `.` or `_` are skipped: the community's `.lib` helpers live there). A broken folder
 * is reported in `problems` and left out; the others load. When two roots hold a platform of the
 * same name, the first root's is kept (logsift's own rules before a community checkout).
 *
 * Rules are compiled here once, and the result dropped: the workers compile them again, but rules
 * that cannot compile (an invalid regular expression, an unknown key) must be reported by the
 * thread that reads them, not left out silently by every worker.
 *
 * `cacheDir` keeps what reading makes: transpiled hooks, and the rules files as parsed
 * (parsed-rules.ts).
 */
export async function readPlatformSources(root: string | readonly string[], cacheDir: string, only?: ReadonlySet<string>): Promise<LoadedSources> {
  const sources: PlatformSource[] = [];
  const problems: LoadProblem[] = [];
  const shadowed: string[] = [];
  const shadowedBy = new Map<string, string>();
  /** platform name → the folder it was read from */
  const seen = new Map<string, string>();
  const parsed = await ParsedRulesCache.open(cacheDir);
  for (const base of typeof root === 'string' ? [root] : root) {
    const entries = await readdir(base, { withFileTypes: true });
    const names = entries
      .filter((e) => e.isDirectory() && !/^[._]/.test(e.name) && (!only || only.has(e.name)))
      .map((e) => e.name)
      .sort();
    // read a few folders at once (one after the other, a start waited on its file system calls
    // in turn: about 1.3 of its 5 s), then kept, checked and compiled in their order
    const dirs = names.map((name) => join(base, name));
    for await (const read of inOrder(dirs, READ_AHEAD, (d) => readPlatformFolder(d, cacheDir, parsed))) {
      const dir = read.item;
      try {
        if (!read.ok) throw read.error;
        const source = read.value;
        if (!source) continue;
        const kept = seen.get(source.manifest.name);
        if (kept !== undefined) {
          shadowed.push(dir);
          shadowedBy.set(dir, kept);
          continue;
        }
        // community parsers (parser.js) are not loaded here: requiring them would keep them in this thread
        if (source.kind === 'rules') await compilePlatform(source);
        seen.set(source.manifest.name, dir);
        sources.push(source);
      } catch (err) {
        problems.push({ folder: dir, message: (err as Error).message });
      }
    }
  }
  await parsed.save();
  return { sources, problems, shadowed, shadowedBy };
}

/** A platform ready to recognise consultations. */
export interface CompiledPlatform {
  readonly name: string;
  readonly manifest: PlatformManifest;
  readonly kind: PlatformSource['kind'];
  readonly priority: number;
  readonly hostPriority?: Readonly<Record<string, number>>;
  readonly ruleCount: number;
  readonly match: PlatformMatcher;
}

function ezpaarseMatcher(parserFile: string): PlatformMatcher {
  // Community parsers are CommonJS modules exporting { execute(ec) } that return the fields.
  const mod = createRequire(parserFile)(parserFile) as { execute?: (ec: Record<string, unknown>) => unknown };
  if (typeof mod?.execute !== 'function') throw new Error(`${parserFile}: does not export execute(ec)`);
  return (ec) => {
    // a copy without the keys an event may hold as undefined (event-shape.ts, a late log_id): a
    // parser written for the reference may list its keys
    const copy: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(ec)) if (value !== undefined) copy[key] = value;
    const out = mod.execute!(copy);
    if (!out || typeof out !== 'object') return undefined;
    const fields: Fields = {};
    for (const [k, v] of Object.entries(out as Record<string, unknown>)) {
      if (v === undefined || v === null || v === '') continue;
      fields[k] = String(v);
    }
    return Object.keys(fields).length ? fields : undefined;
  };
}

/**
 * Compiles a platform read by readPlatformFolder (in whichever thread will use it). `lazy`: its
 * rules (or parser.js) are compiled at its first event instead, which a parsing worker wants: a
 * library's logs reach a few dozen of the 650 platforms, and the compiled rules of all of them
 * take about 13 MB in each worker. Its hooks module is imported now either way (an import is
 * asynchronous, a match is not).
 */
export async function compilePlatform(source: PlatformSource, lazy = false): Promise<CompiledPlatform> {
  const { manifest } = source;
  const base = {
    ...routingOrder(manifest), manifest, kind: source.kind, ruleCount: ruleCountOf(source),
  };
  if (source.kind === 'ezpaarse') {
    // not guarded: a community parser that throws makes its line an unknown error, as in the reference
    const make = () => ezpaarseMatcher(source.parserFile!);
    return { ...base, match: lazy ? onFirstCall(make) : make() };
  }
  const hooks: HooksModule = source.hooksModule ? await import(pathToFileURL(source.hooksModule).href) : {};
  if (!lazy) return { ...base, match: compileRules(source.rules, hooks, source.tables as Tables).match };
  // Compiled at its first event, the matcher takes the place of the lazy one: the platform stage
  // then calls it without a wrapper. Rules that fail to compile recognise nothing (the main thread
  // compiled the same sources when it read them).
  let compiled: PlatformMatcher | undefined;
  const compile = (): PlatformMatcher => {
    try {
      return compileRules(source.rules, hooks, source.tables as Tables).match;
    } catch {
      return NOTHING;
    }
  };
  const platform: { -readonly [K in keyof CompiledPlatform]: CompiledPlatform[K] } = {
    ...base,
    match: (ec, view) => {
      platform.match = compiled ??= compile();
      return compiled(ec, view);
    },
  };
  return platform;
}

const NOTHING: PlatformMatcher = () => undefined;

/** Declarative rules, nested ones included (without compiling them); a parser.js or a parse hook counts 1. */
export function ruleCountOf(source: PlatformSource): number {
  if (source.kind === 'ezpaarse' || !source.rules) return 1;
  return countRules(source.rules.rules);
}

/**
 * A matcher made by `make` when first called. If making it fails, so does every call, with the
 * same error: a community parser.js that cannot be loaded makes each of its lines an unknown
 * error whose trace says why.
 */
function onFirstCall(make: () => PlatformMatcher): PlatformMatcher {
  let match: PlatformMatcher | undefined;
  let failure: { readonly error: unknown } | undefined;
  return (ec, view) => {
    if (match === undefined) {
      if (failure) throw failure.error;
      try {
        match = make();
      } catch (error) {
        failure = { error };
        throw error;
      }
    }
    return match(ec, view);
  };
}

