import t from 'tap';
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../../src/paths.js';

const run = promisify(execFile);
const FIXTURES = 'test/platforms/fixtures';

/** Runs `npm run platforms:test -- ARGS` (without npm): its output and exit code. */
async function cli(...args: string[]): Promise<{ out: string; err: string; code: number; last: string }> {
  let out: string;
  let err = '';
  let code = 0;
  try {
    ({ stdout: out, stderr: err } = await run(process.execPath, ['--import=tsx', 'src/platforms/conformance-cli.ts', ...args], { cwd: PROJECT_ROOT }));
  } catch (error) {
    const e = error as { stdout: string; stderr: string; code: number };
    out = e.stdout;
    err = e.stderr;
    code = e.code;
  }
  const lines = out.trimEnd().split('\n');
  return { out, err, code, last: lines[lines.length - 1] };
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

t.test('--help prints the options and exits 0; an unknown option is one line and exit 2', async (t) => {
  const help = await cli('--help');
  t.equal(help.code, 0);
  t.match(help.out, /^Usage: npm run platforms:test -- \[options\]\n/);
  for (const option of ['--dir', '--platform ', '--platforms', '--routing', '--wildcards', '--quiet', '--help']) t.match(help.out, `\n  ${option}`);
  for (const [args, said] of [
    [['--bogus'], "platforms:test: Unknown option '--bogus' (see --help)\n"],
    [['--dir'], "platforms:test: Option '--dir <value>' argument missing (see --help)\n"],
    [['extra'], "platforms:test: Unexpected argument 'extra' (see --help)\n"],
  ] as const) {
    const r = await cli(...args);
    t.equal(r.code, 2, args.join(' '));
    t.equal(r.err, said);
    t.equal(r.out, '');
  }
});

t.test('--platform with --routing: the routing exceptions of other platforms are not reported', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'logsift-conformance-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await cp(`${FIXTURES}/conformance`, dir, { recursive: true });
  await writeFile(join(dir, 'routing-exceptions.yaml'), '- { platform: demo, host: www.elsewhere.test, winner: plain, rows: 1 }\n');
  const all = await cli('--platforms', dir, '--routing');
  t.match(all.out, 'routing exception not seen as listed: demo on www.elsewhere.test (1 rows claimed by plain)', 'both platforms loaded: said');
  for (const only of ['plain', 'demo']) {
    const r = await cli('--platforms', dir, '--routing', '--platform', only);
    t.notMatch(r.out, 'routing exception', `--platform ${only}: an exception needing the other one is no news`);
    t.equal(r.code, 0);
  }
});
