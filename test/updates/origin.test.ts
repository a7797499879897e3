import t from 'tap';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Test } from 'tap';
import { fs, git } from '../../src/updates/git.js';
import { startGitServer } from '../helpers/git-server.js';
import { cloneInto, commitLocally, demoPlatform, Upstream, type FileChanges } from '../helpers/git-fixtures.js';
import { adminHeaders, startService, tempDir } from '../helpers/service.js';

async function status(app: FastifyInstance, part: string, query = ''): Promise<Record<string, unknown>> {
  const res = await app.inject({ url: `/api/admin/${part}/status${query}`, headers: adminHeaders() });
  if (res.statusCode !== 200) throw new Error(`GET ${part}: ${res.statusCode} ${res.body}`);
  return res.json();
}

/**
 * Two origins served over HTTP: `up` (the repository's own origin) and `mirror`, a clone of it
 * with one more commit (what `<PART>_ORIGIN` points to).
 */
async function twoOrigins(t: Test, files: FileChanges) {
  const root = await tempDir(t);
  const server = await startGitServer(join(root, 'served'));
  t.teardown(() => server.close());
  const up = new Upstream(server.root, server.url, 'own');
  const own = await up.init(files);
  const mirrorDir = join(server.root, 'mirror');
  await cloneInto(up.url, mirrorDir);
  const ahead = await commitLocally(mirrorDir, join(mirrorDir, '.git'), { 'mirror.txt': 'ahead\n' }, 'only on the mirror');
  return { root, up, own, mirror: { url: `${server.url}/mirror/.git`, ahead } };
}

const originUrl = (gitdir: string) => git.getConfig({ fs, gitdir, path: 'remote.origin.url' });

t.test('APP_ORIGIN is fetched without rewriting the checkout\'s origin remote, which serves again without the setting', async (t) => {
  const { root, up, own, mirror } = await twoOrigins(t, { 'package.json': '{"version":"1.0.0"}' });
  const appDir = join(root, 'app');
  await cloneInto(up.url, appDir);
  await mkdir(join(root, 'repos', 'platforms'), { recursive: true });

  const { app: first } = await startService(t, root, { env: { APP_DIR: appDir, APP_ORIGIN: mirror.url, VAR_DIR: join(root, 'var1') } });
  t.match(await status(first, 'app', '?refresh=1'), { origin: mirror.url, remoteOid: mirror.ahead, 'from-head': 'outdated', headOid: own });
  t.notOk('error' in (await status(first, 'app')));
  t.equal(await originUrl(join(appDir, '.git')), up.url, 'the checkout\'s origin remote is as it was');
  await first.close();

  // started again without APP_ORIGIN
  const { app: second } = await startService(t, root, { env: { APP_DIR: appDir, VAR_DIR: join(root, 'var2') } });
  t.match(await status(second, 'app', '?refresh=1'), { origin: up.url, remoteOid: own, 'from-head': 'uptodate', headOid: own });
});

t.test('PLATFORMS_ORIGIN the same: the part updates from it and its own origin remote stays', async (t) => {
  const { root, up, own, mirror } = await twoOrigins(t, demoPlatform('ARTICLE'));
  const dir = join(root, 'repos', 'platforms');
  const gitdir = join(root, 'repos', '.gitdirs', 'platforms');
  await cloneInto(up.url, dir, gitdir);

  const { app: first } = await startService(t, root, { env: { PLATFORMS_ORIGIN: mirror.url, VAR_DIR: join(root, 'var1') } });
  const put = await first.inject({ method: 'PUT', url: '/api/admin/platforms/status', headers: adminHeaders() });
  t.equal(put.statusCode, 200, put.body);
  t.match(put.json(), { origin: mirror.url, headOid: mirror.ahead, 'from-head': 'uptodate' });
  t.equal(await originUrl(gitdir), up.url, 'the part\'s origin remote is as it was');
  await first.close();

  const { app: second } = await startService(t, root, { env: { VAR_DIR: join(root, 'var2') } });
  t.match(await status(second, 'platforms', '?refresh=1'), {
    origin: up.url, remoteOid: own, headOid: mirror.ahead, 'local-commits': true, 'from-head': 'uptodate',
  }, 'compared with its own origin again: the mirror\'s commit is now a local one');
});
