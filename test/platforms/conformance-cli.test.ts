import t from 'tap';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../../src/paths.js';

const run = promisify(execFile);
const FIXTURES = 'test/platforms/fixtures';

/** Runs `npm run platforms:test -- ARGS` (without npm): its output and exit code. */
async function cli(...args: string[]): Promise<{ out: string; code: number; last: string }> {
  let out: string;
  let code = 0;
  try {
    ({ stdout: out } = await run(process.execPath, ['--import=tsx', 'src/platforms/conformance-cli.ts', ...args], { cwd: PROJECT_ROOT }));
  } catch (err) {
    const e = err as { stdout: string; code: number };
    out = e.stdout;
    code = e.code;
  }
  const lines = out.trimEnd().split('\n');
  return { out, code, last: lines[lines.length - 1] };
}

t.test('--platforms DIR: runs DIR\'s platforms on DIR\'s own examples; the final line and exit 0', async (t) => {
  const r = await cli('--platforms', `${FIXTURES}/conformance`);
  t.equal(r.last, '6 passed, 0 failed');
  t.equal(r.code, 0);
  t.match(r.out, /platforms loaded: 2 from .*fixtures\/conformance; rows from .*fixtures\/conformance\n/);
});

t.test('--dir: rows from another folder; failing rows printed; exit 1', async (t) => {
  const r = await cli('--platforms', `${FIXTURES}/conformance`, '--dir', `${FIXTURES}/conformance-failing`);
  t.equal(r.last, '1 passed, 5 failed');
  t.equal(r.code, 1);
  t.match(r.out, 'FAIL demo demo/test/failing.csv:2 https://www.demo-platform.test/article/124?journal=jcp&vol=07\n  vol: expected "7", got "07"');
  const quiet = await cli('--platforms', `${FIXTURES}/conformance`, '--dir', `${FIXTURES}/conformance-failing`, '--quiet');
  t.notMatch(quiet.out, 'FAIL', '--quiet prints only the totals');
  t.equal(quiet.code, 1);
});

t.test('--platform: some platforms only (repeated or comma-separated)', async (t) => {
  t.equal((await cli('--platforms', `${FIXTURES}/conformance`, '--platform', 'plain')).last, '1 passed, 0 failed');
  t.equal((await cli('--platforms', `${FIXTURES}/conformance`, '--platform', 'plain,demo')).last, '6 passed, 0 failed');
  t.equal((await cli('--platforms', `${FIXTURES}/conformance`, '--platform', 'plain', '--platform', 'demo')).last, '6 passed, 0 failed');
});

t.test('several --platforms folders: bundled rules and community parser.js side by side', async (t) => {
  const r = await cli('--platforms', `${FIXTURES}/conformance`, '--platforms', `${FIXTURES}/ezpaarse`, '--dir', `${FIXTURES}/ezpaarse`);
  t.match(r.out, /platforms loaded: 4 from /);
  t.equal(r.last, '7 passed, 0 failed');
  const missing = await cli('--platforms', `${FIXTURES}/conformance`, '--dir', `${FIXTURES}/ezpaarse`);
  t.equal(missing.last, '0 passed, 7 failed', 'rows of platforms that are not loaded fail');
  t.match(missing.out, 'platform demobooks is not loaded');
});

t.test('--routing: rows routed by host as the service does', async (t) => {
  const r = await cli('--platforms', `${FIXTURES}/conformance`, '--routing');
  t.match(r.out, 'routing: 4 rows on their platform\'s hosts, 0 of them on shared hosts; 0 claimed by another platform');
  t.equal(r.last, '6 passed, 0 failed');
});
