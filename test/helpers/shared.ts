import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Test } from 'tap';
import { SHARED_DIR } from '../../src/paths.js';

/**
 * The path of a file or folder of ../shared, or undefined after a visible skip when ../shared is
 * not there (tests never depend on copies of it).
 */
export function shared(t: Test, ...parts: string[]): string | undefined {
  const path = join(SHARED_DIR, ...parts);
  if (existsSync(path)) return path;
  t.skip(`../shared/${parts.join('/')} is not there: this check is skipped`, () => undefined);
  return undefined;
}
