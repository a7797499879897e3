import t from 'tap';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../src/paths.js';

const run = promisify(execFile);
const CHILD = join(PROJECT_ROOT, 'test', 'pipeline', 'fixtures', 'worker-heap.ts');

/** A worker's heap, given 24 MB young and 128 MB old by its limits, in a process run like the start script. */
async function workerHeap(clear: boolean): Promise<{ newSpaceMb: number; limitMb: number }> {
  const flags = ['--max-semi-space-size=1', '--max-old-space-size=1024'];
  const { stdout } = await run(process.execPath, [...flags, '--import=tsx', CHILD, ...(clear ? ['clear'] : [])], { cwd: PROJECT_ROOT });
  return JSON.parse(stdout) as { newSpaceMb: number; limitMb: number };
}

t.test('the workers get the heap of their resource limits, not the main thread\'s flags', async (t) => {
  // V8 lets the process's heap flags override a worker's resource limits: with them a worker's
  // new space (two semi-spaces) stays at 2 MB, and its heap limit is the main thread's 1 GB.
  const capped = await workerHeap(false);
  t.ok(capped.newSpaceMb <= 2, `without clearing the flags, the new space is theirs: ${capped.newSpaceMb} MB`);
  t.ok(capped.limitMb > 1000, `and so is the heap limit: ${capped.limitMb} MB`);
  const sized = await workerHeap(true);
  t.ok(sized.newSpaceMb > 4 && sized.newSpaceMb <= 24, `cleared, the worker's own young generation: ${sized.newSpaceMb} MB`);
  t.ok(sized.limitMb > 128 && sized.limitMb < 200, `and its own heap limit (old 128 MB + young): ${sized.limitMb} MB`);
});
