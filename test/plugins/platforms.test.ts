import t from 'tap';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { existsSync, readdirSync } from 'node:fs';
import { checkCacheDir, loadPlatforms, removeOldHooksCache } from '../../src/plugins/platforms.js';
import { PROJECT_ROOT } from '../../src/paths.js';

t.test('the platforms version depends on the platforms, not on where their hooks are compiled', async (t) => {
  const dir = join(PROJECT_ROOT, 'repos', 'platforms');
  const [a, b] = await Promise.all([0, 1].map(async () => loadPlatforms(dir, join(await mkdtemp(join(tmpdir(), 'logsift-hooks-')), 'cache', 'hooks'))));
  t.ok(a.sources.some((s) => s.hooksModule !== undefined), 'platforms with hooks among them');
  t.match(a.version, /^[0-9a-f]{7}$/);
  t.equal(a.version, b.version, 'two VAR_DIRs, one version');
});

t.test('the hooks cache of earlier versions (var/cache/hooks) is removed, unless PLATFORMS_CACHE_DIR names it', async (t) => {
  const varDir = t.testdir({ cache: { hooks: { 'abc.mjs': 'export {}', 'parsed-rules.json': '{}' }, platforms: { 'x.mjs': '' }, geoip: {} } });
  await removeOldHooksCache(varDir, join(varDir, 'cache', 'hooks'));
  t.ok(existsSync(join(varDir, 'cache', 'hooks', 'abc.mjs')), 'kept when it is the cache in use');
  await removeOldHooksCache(varDir, join(varDir, 'cache', 'hooks', 'sub'));
  t.ok(existsSync(join(varDir, 'cache', 'hooks', 'abc.mjs')), 'or holds it');
  await removeOldHooksCache(varDir, join(varDir, 'cache', 'platforms'));
  t.notOk(existsSync(join(varDir, 'cache', 'hooks')));
  t.ok(existsSync(join(varDir, 'cache', 'platforms', 'x.mjs')), 'the other caches stay');
  t.ok(existsSync(join(varDir, 'cache', 'geoip')));
  await removeOldHooksCache(varDir, join(varDir, 'cache', 'platforms'));
  t.pass('nothing to remove is no error');
});

t.test('PLATFORMS_CACHE_DIR must take files, else the start stops saying so', async (t) => {
  const root = t.testdir({ file: 'x' });
  checkCacheDir(join(root, 'new', 'cache'));
  t.same(readdirSync(join(root, 'new', 'cache')), [], 'made, and the probe removed');
  t.throws(() => checkCacheDir(join(root, 'file')), { name: 'StartError', message: /^PLATFORMS_CACHE_DIR: cannot write in the folder .*file \(EEXIST\): give the service write access/ });
});
