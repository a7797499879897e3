import t from 'tap';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadPlatforms } from '../../src/plugins/platforms.js';
import { PROJECT_ROOT } from '../../src/paths.js';

t.test('the platforms version depends on the platforms, not on where their hooks are compiled', async (t) => {
  const dir = join(PROJECT_ROOT, 'repos', 'platforms');
  const [a, b] = await Promise.all([0, 1].map(async () => loadPlatforms(dir, join(await mkdtemp(join(tmpdir(), 'logsift-hooks-')), 'cache', 'hooks'))));
  t.ok(a.sources.some((s) => s.hooksModule !== undefined), 'platforms with hooks among them');
  t.match(a.version, /^[0-9a-f]{7}$/);
  t.equal(a.version, b.version, 'two VAR_DIRs, one version');
});
