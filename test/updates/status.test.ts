import t from 'tap';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { fs, git, http } from '../../src/updates/git.js';
import { APP_VERSION } from '../../src/version.js';
import { startGitServer } from '../helpers/git-server.js';
import { applyChanges, cloneInto, commitLocally, demoPlatform, Upstream } from '../helpers/git-fixtures.js';
import { adminHeaders, startService, tempDir } from '../helpers/service.js';
import { platformsClone } from '../helpers/platforms-part.js';

const HOUR = '3600000';

async function status(app: FastifyInstance, part: string, query = ''): Promise<Record<string, unknown>> {
  const res = await app.inject({ method: 'GET', url: `/api/admin/${part}/status${query}`, headers: adminHeaders() });
  if (res.statusCode !== 200) throw new Error(`GET ${part}: ${res.statusCode} ${res.body}`);
  return res.json();
}

t.test('1. a fresh clone without tags is up to date', async (t) => {
  const { app, up, dir } = await platformsClone(t, { UPDATES_FETCH_INTERVAL_MS: HOUR });
  const r = await status(app, 'platforms');
  t.same(Object.keys(r).slice(0, 8), ['is-git-repo', 'current', 'head', 'tag', 'from-head', 'from-tag', 'local-commits', 'local-changes'], 'the reference keys, in its order');
  t.match(r, {
    'is-git-repo': true, tag: '', 'from-head': 'uptodate', 'from-tag': 'uptodate',
    'local-commits': false, 'local-changes': false, branch: 'master', origin: up.url,
  });
  t.match(r.current, /^[0-9a-f]{7}$/);
  t.equal(r.head, r.current);
  t.equal(r.headOid, r.remoteOid);
  t.type(r.fetchedAt, 'string');
  t.notOk('error' in r);
  t.notOk(existsSync(join(dir, '.git')), 'no .git inside the work tree');
});

t.test('2. a new commit on the origin: outdated once fetched', async (t) => {
  const { app, up } = await platformsClone(t, { UPDATES_FETCH_INTERVAL_MS: HOUR });
  const before = await status(app, 'platforms');
  const next = await up.commit({ 'demo/rules.yaml': demoPlatform('BOOK')['demo/rules.yaml'] }, 'books now');
  const cached = await status(app, 'platforms');
  t.equal(cached['from-head'], 'uptodate', 'within the fetch interval nothing is fetched');
  t.equal(cached.fetchedAt, before.fetchedAt);
  const r = await status(app, 'platforms', '?refresh=1');
  t.equal(r['from-head'], 'outdated');
  t.equal(r['from-tag'], 'outdated', 'no tag: from-tag follows from-head');
  t.not(r.head, r.current);
  t.equal(r.remoteOid, next);
  t.equal(r['local-commits'], false);
});

t.test('5. a local commit', async (t) => {
  const { app, dir, gitdir } = await platformsClone(t, { UPDATES_FETCH_INTERVAL_MS: HOUR });
  await commitLocally(dir, gitdir, { 'demo/notes.txt': 'mine' }, 'a local note');
  const r = await status(app, 'platforms', '?refresh=1');
  t.equal(r['local-commits'], true);
  t.equal(r['from-head'], 'uptodate', 'the origin has nothing HEAD lacks');
  t.equal(r['local-changes'], false);
});

t.test('6. local changes: tracked files count, untracked ones do not', async (t) => {
  const { app, dir } = await platformsClone(t, { UPDATES_FETCH_INTERVAL_MS: HOUR });
  const file = join(dir, 'demo', 'rules.yaml');
  const original = await readFile(file, 'utf8');
  await writeFile(file, `${original}# edited\n`);
  t.equal((await status(app, 'platforms', '?refresh=1'))['local-changes'], true, 'a modified tracked file');
  await writeFile(file, original);
  await writeFile(join(dir, 'demo', 'untracked.txt'), 'new');
  t.equal((await status(app, 'platforms', '?refresh=1'))['local-changes'], false, 'an untracked file');
  await applyChanges(dir, { 'demo/manifest.json': null });
  t.equal((await status(app, 'platforms', '?refresh=1'))['local-changes'], true, 'a deleted tracked file');
});

t.test('10. origin unreachable: 200 with the local record and an error', async (t) => {
  const { app, server } = await platformsClone(t, { UPDATES_FETCH_INTERVAL_MS: HOUR });
  const ok = await status(app, 'platforms');
  await server.close();
  const r = await status(app, 'platforms', '?refresh=1');
  t.match(r, { 'is-git-repo': true, 'from-head': 'uptodate', 'local-changes': false, error: /^fetch failed/ });
  t.equal(r.fetchedAt, ok.fetchedAt, 'fetchedAt: the last fetch that worked');
});

t.test('a fresh install: the bundled content becomes a repository; no origin is said clearly', async (t) => {
  const root = await tempDir(t);
  const dir = join(root, 'repos', 'platforms');
  await applyChanges(dir, demoPlatform('ARTICLE'));
  const { app } = await startService(t, root);
  const r = await status(app, 'platforms');
  t.match(r, {
    'is-git-repo': true, tag: '', 'from-head': 'uptodate', 'local-commits': false, 'local-changes': false,
    origin: null, bundled: true, error: 'no origin configured: set PLATFORMS_ORIGIN',
  });
  t.notOk('remoteOid' in r);
  t.notOk(existsSync(join(dir, '.git')), 'the work tree holds no .git');
  t.ok(existsSync(join(root, 'repos', '.gitdirs', 'platforms', 'objects')), 'metadata under repos/.gitdirs');
  t.same(await git.listFiles({ fs, gitdir: join(root, 'repos', '.gitdirs', 'platforms') }), ['demo/manifest.json', 'demo/rules.yaml']);
  const m = await status(app, 'middlewares');
  t.match(m, { 'is-git-repo': true, bundled: true, error: /MIDDLEWARES_ORIGIN/ }, 'a part with no content yet: an empty commit');
});

t.test('7. app outside a git checkout', async (t) => {
  const root = await tempDir(t);
  await mkdir(join(root, 'repos', 'platforms'), { recursive: true });
  const { app } = await startService(t, root);
  t.same(await status(app, 'app'), { 'is-git-repo': false, current: APP_VERSION });
});

t.test('3 and 4. release tags: an older release is outdated, a build past the latest release is upward', async (t) => {
  const root = await tempDir(t);
  const server = await startGitServer(join(root, 'served'));
  t.teardown(() => server.close());
  const up = new Upstream(server.root, server.url, 'app');
  await up.init({ 'package.json': '{"version":"1.0.0"}' });
  await up.tag('v1');
  await up.commit({ 'package.json': '{"version":"2.0.0"}' }, 'two');
  await up.tag('v2');
  const appDir = join(root, 'app');
  await cloneInto(up.url, appDir);
  await git.checkout({ fs, dir: appDir, ref: 'v1' });
  await mkdir(join(root, 'repos', 'platforms'), { recursive: true });
  const { app } = await startService(t, root, { env: { APP_DIR: appDir, UPDATES_FETCH_INTERVAL_MS: HOUR } });

  let r = await status(app, 'app');
  t.match(r, { 'is-git-repo': true, current: 'v1', head: 'v2', tag: 'v2', 'from-tag': 'outdated', 'from-head': 'outdated', branch: 'master' });

  await up.commit({ 'a.txt': '1' }, 'after v2');
  const tip = await up.commit({ 'a.txt': '2' }, 'after v2, again');
  // The checkout follows master, fast-forwarded to the origin's head.
  await git.fetch({ fs, http, dir: appDir, ref: 'master', singleBranch: true, tags: true });
  await git.writeRef({ fs, dir: appDir, ref: 'refs/heads/master', value: tip, force: true });
  await git.checkout({ fs, dir: appDir, ref: 'master' });
  r = await status(app, 'app', '?refresh=1');
  t.match(r, { current: `v2-2-g${tip.slice(0, 7)}`, head: `v2-2-g${tip.slice(0, 7)}`, tag: 'v2', 'from-head': 'uptodate', 'from-tag': 'upward', 'local-commits': false });
});

t.test('unknown part, missing credentials', async (t) => {
  const root = await tempDir(t);
  await mkdir(join(root, 'repos', 'platforms'), { recursive: true });
  const { app } = await startService(t, root);
  const unknown = await app.inject({ method: 'GET', url: '/api/admin/exclusions/status', headers: adminHeaders() });
  t.equal(unknown.statusCode, 404);
  t.equal(unknown.json().message, 'unknownRepository');
  const anonymous = await app.inject({ method: 'GET', url: '/api/admin/platforms/status' });
  t.equal(anonymous.statusCode, 401);
  const wrong = await app.inject({ method: 'PUT', url: '/api/admin/platforms/status', headers: { authorization: `Basic ${Buffer.from('admin@example.org:nope').toString('base64')}` } });
  t.equal(wrong.statusCode, 401);
});

t.test('a linked worktree cannot be read: 500 statusFailed saying why', async (t) => {
  const root = await tempDir(t);
  await mkdir(join(root, 'repos', 'platforms'), { recursive: true });
  const appDir = join(root, 'app');
  const linked = join(root, 'main', '.git', 'worktrees', 'app');
  await mkdir(join(linked, 'objects'), { recursive: true });
  await writeFile(join(linked, 'commondir'), '../..\n');
  await mkdir(appDir);
  await writeFile(join(appDir, '.git'), `gitdir: ${linked}\n`);
  const { app } = await startService(t, root, { env: { APP_DIR: appDir } });
  const res = await app.inject({ url: '/api/admin/app/status', headers: adminHeaders() });
  t.equal(res.statusCode, 500);
  t.match(res.json(), { message: 'statusFailed', detail: /linked git worktree/ });
});

t.test('a repository that cannot be read: 500 statusFailed naming the part, its path in the log only', async (t) => {
  const root = await tempDir(t);
  await mkdir(join(root, 'repos', 'platforms'), { recursive: true });
  const dir = join(root, 'repos', 'resources');
  // metadata without a single commit: what an interrupted clone or a damaged folder leaves
  await mkdir(dir, { recursive: true });
  await git.init({ fs, dir, gitdir: join(root, 'repos', '.gitdirs', 'resources'), defaultBranch: 'master' });
  const logs: string[] = [];
  const { app } = await startService(t, root, { logs });
  const res = await app.inject({ url: '/api/admin/resources/status', headers: adminHeaders() });
  t.equal(res.statusCode, 500);
  t.same(res.json(), { statusCode: 500, error: 'Internal Server Error', message: 'statusFailed', detail: 'resources: the repository has no commit' });
  t.notOk(res.body.includes(root), 'no server path in the answer');
  t.ok(logs.some((l) => l.includes('update route failed') && l.includes(`${dir}: the repository has no commit`)), 'the cause, path included, in the log');
});
