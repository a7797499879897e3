import t from 'tap';
import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../src/paths.js';
import { loadMiddlewares } from '../../src/resources/middlewares.js';
import { tempDir } from '../helpers/service.js';

t.test('a middlewares folder outside the project still finds the service\'s packages', async (t) => {
  // REPOS_DIR may be anywhere (a volume, /srv/…): the shipped user-agent-parser imports bowser,
  // which only the service's node_modules has
  const root = await tempDir(t);
  const dir = join(root, 'middlewares');
  await cp(join(PROJECT_ROOT, 'repos', 'middlewares', 'user-agent-parser'), join(dir, 'user-agent-parser'), { recursive: true });
  const loaded = await loadMiddlewares(dir, join(root, 'cache'), new Set(['filter']));
  t.same(loaded.problems, [], 'loaded without problems');
  t.same(loaded.sources.map((s) => s.name), ['user-agent-parser']);
});
