import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder holding package.json, found from this file whether it runs from src/ or dist/src/. */
function findRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'repos'))) return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error('logsift: cannot find the project folder (package.json beside repos/)');
    dir = up;
  }
}

export const PROJECT_ROOT = findRoot();

/** The shared reference material beside the checkout (tests and benchmarks only). */
export const SHARED_DIR = resolve(PROJECT_ROOT, '..', 'shared');

/** True when this module runs from TypeScript sources (tests, dev), false from the build. */
export const RUNNING_FROM_SOURCE = import.meta.url.endsWith('.ts');
