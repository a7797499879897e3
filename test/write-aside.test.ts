import t from 'tap';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAside } from '../src/write-aside.js';

t.test('calls writing one file at once all succeed, one whole content wins, no temporary file left', async (t) => {
  const dir = t.testdir({});
  const file = join(dir, 'out.json');
  const contents = Array.from({ length: 20 }, (_, i) => JSON.stringify({ i, pad: 'x'.repeat(100_000) }));
  await Promise.all(contents.map((c) => writeFileAside(file, c)));
  t.ok(contents.includes(await readFile(file, 'utf8')), 'one of the contents, whole');
  t.same(await readdir(dir), ['out.json']);
});

t.test('a file that cannot be written: the error is thrown and no temporary file is left', async (t) => {
  const dir = t.testdir({ sub: {} });
  await t.rejects(writeFileAside(join(dir, 'missing', 'out.json'), 'x'), { code: 'ENOENT' });
  // the rename fails: a folder stands where the file would go
  await t.rejects(writeFileAside(join(dir, 'sub'), 'x'), /EISDIR|ENOTEMPTY|EEXIST/);
  t.same((await readdir(dir)).sort(), ['sub']);
});
