import t from 'tap';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { makeDirs } from '../src/make-dirs.js';

t.test('makeDirs makes the folders on the way, and takes one that exists', async (t) => {
  const root = t.testdir({ file: 'x' });
  makeDirs(join(root, 'a', 'b', 'c'));
  t.ok(statSync(join(root, 'a', 'b', 'c')).isDirectory());
  makeDirs(join(root, 'a', 'b'));
  t.throws(() => makeDirs(join(root, 'file')), { code: 'EEXIST' }, 'a file in its place');
  t.throws(() => makeDirs(join(root, 'file', 'sub')), { code: 'ENOTDIR' });
});

// Node's recursive mkdir loops for ever there: the start hung without a word
t.test('a folder the system answers ENOENT for, its parent there, fails at once', { skip: !existsSync('/proc/self') && 'no /proc here' }, async (t) => {
  t.throws(() => makeDirs('/proc/logsift-var/x'), { code: 'ENOENT' });
});
