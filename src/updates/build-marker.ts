import { readFile, rm } from 'node:fs/promises';
import { writeFileAside } from '../write-aside.js';

/**
 * An app update's install and build that have not completed: written before the checkout, removed
 * once built. Left behind by a process killed half-way (a restart, a crash, the machine), it says
 * that `node_modules` and `dist/` may not be those of the checkout.
 */
export interface PendingBuild {
  /** the commit being installed and built */
  readonly commit: string;
  /** what the update was for (`v2`, `master 1a2b3c4`) */
  readonly target?: string;
  /** when it started (ISO) */
  readonly since?: string;
}

/** The pending build the file records, if any; a file that cannot be read still says one is. */
export async function readPendingBuild(file: string): Promise<PendingBuild | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return { commit: 'unknown' };
  }
  try {
    const value = JSON.parse(text) as Partial<PendingBuild>;
    return typeof value.commit === 'string' && value.commit ? value as PendingBuild : { commit: 'unknown' };
  } catch {
    return { commit: 'unknown' };
  }
}

/** Records `pending` (whole or not at all: a reader never sees half a file). */
export async function writePendingBuild(file: string, pending: PendingBuild): Promise<void> {
  await writeFileAside(file, `${JSON.stringify(pending)}\n`);
}

/** Puts the record back to `pending` (undefined: none). */
export async function setPendingBuild(file: string, pending: PendingBuild | undefined): Promise<void> {
  if (pending) await writePendingBuild(file, pending);
  else await rm(file, { force: true });
}
