import { basename } from 'node:path';
import { readPlatformSources, type LoadProblem } from '../platforms/loader.js';
import { UpdateError } from './operations.js';

/**
 * Reads the platforms folder as an update left it, before the next jobs get it: a folder that
 * loaded before the update and no longer does fails the update (which is then rolled back),
 * instead of its platform being quietly left out. Folders already broken before do not count.
 */
export async function checkUpdatedPlatforms(dir: string, cacheDir: string, before: readonly LoadProblem[]): Promise<void> {
  const known = new Set(before.map((p) => p.folder));
  const { problems } = await readPlatformSources(dir, cacheDir);
  const broken = problems.filter((p) => !known.has(p.folder));
  if (broken.length === 0) return;
  // Folder names only: the answer must not tell where the service's files are.
  const reasons = broken.map((p) => `${basename(p.folder)}: ${p.message.replaceAll(`${p.folder}: `, '').replaceAll(p.folder, basename(p.folder))}`);
  throw new UpdateError(500, 'updateFailed', `platforms not loaded: ${reasons.join('; ')}`);
}
