import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * `mkdir -p`, one folder at a time. Node's own recursive mkdir loops for ever where the system
 * answers ENOENT for a folder whose parent exists (`/proc/x`): a start must fail, not hang.
 */
export function makeDirs(path: string): void {
  try {
    mkdirSync(path);
    return;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' && statSync(path).isDirectory()) return;
    if (code !== 'ENOENT' || dirname(path) === path) throw err;
  }
  makeDirs(dirname(path));
  // a second ENOENT, its parent now there, is the system's answer: thrown as it is
  mkdirSync(path);
}
