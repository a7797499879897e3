import t, { type Test } from 'tap';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startScriptEnv, startScriptFlags, workerPathFlags } from '../../bench/service.js';
import { PROJECT_ROOT } from '../../src/paths.js';

function checkoutWithStart(t: Test, start: string): string {
  const dir = t.testdir();
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ scripts: { start } }));
  return dir;
}

t.test("the start script's node flags, environment, and the flags a worker's path runs with", async (t) => {
  const dir = checkoutWithStart(t, 'MALLOC_ARENA_MAX=${MALLOC_ARENA_MAX:-2} FOO=bar node --no-sparkplug --max-semi-space-size=2 --max-old-space-size=1024 --stack-size=2000 dist/src/server.js');
  t.same(startScriptFlags(dir), ['--no-sparkplug', '--max-semi-space-size=2', '--max-old-space-size=1024', '--stack-size=2000']);
  // the heap sizes are the main thread's: a worker has limits of its own
  t.same(workerPathFlags(dir), ['--no-sparkplug', '--stack-size=2000']);
  t.same(startScriptEnv(dir, {}), { MALLOC_ARENA_MAX: '2', FOO: 'bar' });
  t.same(startScriptEnv(dir, { MALLOC_ARENA_MAX: '8' }), { MALLOC_ARENA_MAX: '8', FOO: 'bar' }, "the shell's value wins, as in the script");
});

t.test('a start script without flags gives none', async (t) => {
  t.same(workerPathFlags(checkoutWithStart(t, 'node dist/src/server.js')), []);
});

t.test("this checkout's start script: what its workers run with", async (t) => {
  const flags = workerPathFlags(PROJECT_ROOT);
  t.ok(flags.includes('--no-sparkplug'), flags.join(' '));
  t.notOk(flags.some((f) => f.startsWith('--max-semi-space-size') || f.startsWith('--max-old-space-size')), 'no heap size of the main thread');
});
