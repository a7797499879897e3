import t from 'tap';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../src/paths.js';

const run = promisify(execFile);
const CHILD = join(PROJECT_ROOT, 'test', 'pipeline', 'fixtures', 'young-generation.ts');

/** New space of a worker given a 24 MB young generation, in a process run like the start script. */
async function workerNewSpaceMb(clear: boolean): Promise<number> {
  const { stdout } = await run(process.execPath, ['--max-semi-space-size=1', '--import=tsx', CHILD, ...(clear ? ['clear'] : [])], { cwd: PROJECT_ROOT });
  return Number(stdout.trim());
}

t.test('the workers get the young generation of their resource limits, not the main thread\'s flag', async (t) => {
  // V8 lets the process's --max-semi-space-size override a worker's resource limits: with the
  // flag at 1 MB a worker's new space (two semi-spaces) stays at 2 MB whatever it was given.
  const capped = await workerNewSpaceMb(false);
  t.ok(capped <= 2, `without the fix the flag wins: ${capped} MB`);
  const sized = await workerNewSpaceMb(true);
  t.ok(sized > 4 && sized <= 24, `with it the worker's own limit applies: ${sized} MB`);
});
