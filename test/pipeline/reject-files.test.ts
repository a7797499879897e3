import t from 'tap';
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RejectFiles } from '../../src/pipeline/reject-files.js';
import { rejectFileName } from '../../src/pipeline/job-files.js';

t.test('a reject file that cannot be written (disk full): told once, written no more, closed; the process goes on', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'logsift-rejects-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  // /dev/full answers every write with ENOSPC, as a full disk does
  await symlink('/dev/full', join(dir, rejectFileName('unknown-formats')));
  const errors: Error[] = [];
  const files = new RejectFiles(dir, new Set(['unknown-formats', 'unknown-domains'] as const), (err) => errors.push(err));
  for (let i = 0; i < 100; i++) files.write('unknown-formats', [`line ${i} ${'x'.repeat(1000)}`]);
  await files.drained();
  await new Promise((resolve) => setTimeout(resolve, 50));
  files.write('unknown-formats', ['after the failure']);
  await files.drained();
  await files.close();
  t.equal(errors.length, 1, 'told once');
  t.match(errors[0], { code: 'ENOSPC' });
});
