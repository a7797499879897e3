import t from 'tap';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../src/paths.js';

// Every npm script that runs a benchmark, as package.json runs it: `npm run <script> -- --help`
// must say what the script does and which options it takes, without measuring anything.
const scripts = Object.entries(JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')).scripts as Record<string, string>)
  .filter(([name]) => name.startsWith('bench'));

const run = (command: string, ...args: string[]) => {
  const [node, ...nodeArgs] = command.split(' ');
  t.equal(node, 'node', 'the script runs node');
  return spawnSync(process.execPath, [...nodeArgs, ...args], { cwd: PROJECT_ROOT, encoding: 'utf8', timeout: 60_000 });
};

t.test('--help of every benchmark script prints its usage and exits 0', async (t) => {
  t.ok(scripts.length >= 6, 'the bench scripts are found');
  for (const [name, command] of scripts) {
    const r = run(command, '--help');
    t.equal(r.status, 0, `${name}: exit code 0 (${r.stderr.split('\n')[0]})`);
    t.match(r.stdout, /--[a-z]/, `${name}: names its options`);
    t.notMatch(r.stdout, /^\s*\*/m, `${name}: without the comment's marks`);
    t.equal(r.stderr, '', `${name}: nothing on stderr`);
  }
});

t.test('an option a benchmark script does not know stops it with one line, not a stack trace', async (t) => {
  for (const [name, command] of scripts) {
    const r = run(command, '--no-such-option');
    t.equal(r.status, 2, `${name}: exit code 2`);
    t.equal(r.stderr, "Unknown option '--no-such-option'; --help lists the options\n", `${name}: says so`);
  }
});
