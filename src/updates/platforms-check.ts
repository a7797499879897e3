import { basename, join } from 'node:path';
import { holdsFiles, readPlatformSources, type LoadedSources, type LoadProblem, type PlatformSource } from '../platforms/loader.js';
import { routedDomains } from '../platforms/manifest.js';
import { UpdateError } from './operations.js';

/** The platforms the service runs with when the update starts (`app.platforms`). */
export interface PlatformsBefore {
  readonly sources: readonly PlatformSource[];
  readonly problems: readonly LoadProblem[];
}

/**
 * The folders an update would break, each with why (pure). Two kinds: a folder that fails to load
 * and did not fail before (a new folder included), and a folder that loaded before, is still
 * there (`present`: it holds a file) and would not give its platform any more — left out silently
 * by the loader otherwise: no manifest.json, a platform name another folder read first has, or a
 * manifest that routes no host where it routed some. A folder the update removed (`present` lacks
 * it) takes its platform away on purpose.
 */
export function brokenByUpdate(before: PlatformsBefore, after: LoadedSources, present: ReadonlySet<string>): LoadProblem[] {
  const brokenBefore = new Set(before.problems.map((p) => p.folder));
  const broken: LoadProblem[] = after.problems.filter((p) => !brokenBefore.has(p.folder));
  const failing = new Set(after.problems.map((p) => p.folder));
  const loaded = new Map(after.sources.map((s) => [s.dir, s]));
  for (const old of before.sources) {
    if (!present.has(old.dir) || failing.has(old.dir)) continue;
    const now = loaded.get(old.dir);
    const by = after.shadowedBy.get(old.dir);
    if (by !== undefined) {
      const name = loaded.get(by)?.manifest.name;
      broken.push({ folder: old.dir, message: `left out: its platform name ${JSON.stringify(name)} is that of ${basename(by)}, read first` });
    } else if (!now) {
      broken.push({ folder: old.dir, message: 'no manifest.json any more' });
    } else if (routedDomains(now.manifest).length === 0 && routedDomains(old.manifest).length > 0) {
      broken.push({ folder: old.dir, message: 'its manifest lists no "domains" any more: the platform would recognise no host' });
    }
  }
  return broken.sort((a, b) => (a.folder < b.folder ? -1 : a.folder > b.folder ? 1 : 0));
}

/**
 * Reads the platforms folder as an update left it, before the next jobs get it: an update that
 * would break a folder (see brokenByUpdate) fails, and is then rolled back, instead of the
 * platform being quietly left out and its lines becoming unknown domains.
 */
export async function checkUpdatedPlatforms(dir: string, cacheDir: string, before: PlatformsBefore): Promise<void> {
  const after = await readPlatformSources(dir, cacheDir);
  const present = new Set<string>();
  for (const s of before.sources) {
    // the platforms of this part only (EXTRA_PLATFORMS_DIRS are not updated)
    if (join(dir, basename(s.dir)) === s.dir && (await holdsFiles(s.dir))) present.add(s.dir);
  }
  const broken = brokenByUpdate(before, after, present);
  if (broken.length === 0) return;
  // Folder names only: the answer must not tell where the service's files are.
  const reasons = broken.map((p) => `${basename(p.folder)}: ${p.message.replaceAll(`${p.folder}: `, '').replaceAll(p.folder, basename(p.folder))}`);
  throw new UpdateError(500, 'updateFailed', `platforms not loaded: ${reasons.join('; ')}`);
}
