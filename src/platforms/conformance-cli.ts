/**
 * npm run platforms:test -- [--dir DIR] [--platform NAME[,NAME]] [--platforms DIR] [--quiet]
 *
 * Runs the test rows of DIR/<platform>/test/*.csv (default: ../shared/platforms when present,
 * else the bundled platforms' own examples) against the platforms loaded from --platforms
 * (default: repos/platforms), prints each failing row with its differences, and ends with
 * `N passed, M failed`. Exit code 1 when a row fails.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { PROJECT_ROOT, SHARED_DIR } from '../paths.js';
import { loadPlatformSet } from './platform-set.js';
import { formatFailure, readConformanceTree, runRow } from './conformance.js';

const { values } = parseArgs({
  options: {
    dir: { type: 'string' },
    platform: { type: 'string', multiple: true },
    platforms: { type: 'string' },
    quiet: { type: 'boolean', default: false },
  },
});

const sharedPlatforms = join(SHARED_DIR, 'platforms');
const platformsDir = resolve(values.platforms ?? join(PROJECT_ROOT, 'repos', 'platforms'));
const csvDir = resolve(values.dir ?? (existsSync(sharedPlatforms) ? sharedPlatforms : platformsDir));
const only = values.platform ? new Set(values.platform.flatMap((p) => p.split(',')).map((p) => p.trim()).filter(Boolean)) : undefined;

const set = await loadPlatformSet(platformsDir, join(PROJECT_ROOT, 'var', 'cache', 'hooks'), 'local', only);
for (const p of set.problems) console.log(`PROBLEM ${p.folder}: ${p.message}`);
const rows = await readConformanceTree(csvDir, only);
let passed = 0;
let failed = 0;
for (const row of rows) {
  const result = runRow(row, set.platforms.get(row.platform));
  if (result.ok) passed++;
  else {
    failed++;
    if (!values.quiet) console.log(formatFailure(result));
  }
}
console.log(`platforms loaded: ${set.platforms.size} from ${platformsDir}; rows from ${csvDir}`);
console.log(`${passed} passed, ${failed} failed`);
process.exitCode = failed > 0 ? 1 : 0;
