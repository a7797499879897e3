import { join } from 'node:path';
import { holdsFiles } from '../platforms/loader.js';
import { loadMiddlewares, type LoadedMiddlewares } from '../resources/middlewares.js';
import { UpdateError } from './operations.js';

/**
 * The middlewares that loaded before an update and would not after it, each with why (pure). Only
 * those whose folder is still there (`present`: it holds a file) count: a folder the update removed
 * is a middleware removed on purpose (unless MIDDLEWARES names it: the reload then fails). A new
 * middleware that fails is left out and logged, as at start.
 */
export function brokenMiddlewares(before: readonly string[], after: LoadedMiddlewares, present: ReadonlySet<string>): LoadedMiddlewares['problems'] {
  return after.problems.filter((p) => before.includes(p.folder) && present.has(p.folder));
}

/**
 * Reads the middlewares folder as an update left it, before the next jobs get it: a middleware
 * that loaded and no longer builds or imports fails the update (which is then rolled back) with
 * the reason, instead of disappearing from the next jobs (4025 for those naming it).
 */
export async function checkUpdatedMiddlewares(dir: string, cacheDir: string, reserved: ReadonlySet<string>, before: readonly string[]): Promise<void> {
  const after = await loadMiddlewares(dir, cacheDir, reserved);
  const present = new Set<string>();
  for (const name of before) if (await holdsFiles(join(dir, name))) present.add(name);
  const broken = brokenMiddlewares(before, after, present);
  if (broken.length === 0) return;
  // Folder names only: the answer must not tell where the service's files are.
  const strip = (text: string) => text.replaceAll(`${dir}/`, '').replaceAll(`${cacheDir}/`, '');
  throw new UpdateError(500, 'updateFailed', `middlewares not loaded: ${broken.map((p) => `${p.folder}: ${strip(p.message)}`).join('; ')}`);
}
