import t, { type Test } from 'tap';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { fs, git } from '../../src/updates/git.js';
import type { AppUpdateSteps, StepContext } from '../../src/updates/app-update.js';
import { startGitServer, type GitServer } from '../helpers/git-server.js';
import { cloneInto, commitLocally, Upstream } from '../helpers/git-fixtures.js';
import { adminHeaders, startService, tempDir } from '../helpers/service.js';
import { readPendingBuild } from '../../src/updates/build-marker.js';

const pkg = (version: string) => JSON.stringify({ name: 'logsift', version });

/** Steps that record what they were asked, with the version the checkout held at that moment. */
function recorder(fail: { build?: number } = {}) {
  const calls: string[] = [];
  let builds = 0;
  const version = async (ctx: StepContext) => (JSON.parse(await readFile(join(ctx.dir, 'package.json'), 'utf8')) as { version: string }).version;
  const steps: AppUpdateSteps = {
    install: async (ctx) => {
      calls.push(`install ${await version(ctx)}`);
      ctx.log('added 452 packages');
    },
    build: async (ctx) => {
      builds++;
      calls.push(`build ${await version(ctx)}`);
      if (builds === fail.build) throw new Error('tsc: 3 errors');
    },
    exit: async (code) => {
      calls.push(`exit ${code}`);
    },
  };
  return { calls, steps };
}

interface Setup {
  app: FastifyInstance;
  /** the temporary folder: var/ and repos/ are in it */
  root: string;
  up: Upstream;
  server: GitServer;
  appDir: string;
  tip: string;
}

/**
 * An app origin with releases v1 and v2 and one commit after v2; the checkout is on v1 (detached).
 * `exits`: where the restart route's exit codes go (no process exit).
 */
async function withAppCheckout(t: Test, steps: Partial<AppUpdateSteps>, exits: number[] = []): Promise<Setup> {
  const root = await tempDir(t);
  const server = await startGitServer(join(root, 'served'));
  t.teardown(() => server.close());
  const up = new Upstream(server.root, server.url, 'app');
  await up.init({ 'package.json': pkg('1.0.0'), '.gitignore': 'node_modules/\n' });
  await up.tag('v1');
  await up.commit({ 'package.json': pkg('2.0.0') }, 'release 2');
  await up.tag('v2');
  const tip = await up.commit({ 'package.json': pkg('2.1.0-dev') }, 'after 2');
  const appDir = join(root, 'app');
  await cloneInto(up.url, appDir);
  await git.checkout({ fs, dir: appDir, ref: 'v1' });
  await mkdir(join(appDir, 'node_modules'), { recursive: true });
  await mkdir(join(root, 'repos', 'platforms'), { recursive: true });
  const { app } = await startService(t, root, { env: { APP_DIR: appDir }, build: { updates: { appUpdateSteps: steps, exitProcess: (code) => exits.push(code) } } });
  return { app, root, up, server, appDir, tip };
}

const putApp = (app: FastifyInstance, query = '') => app.inject({ method: 'PUT', url: `/api/admin/app/status${query}`, headers: adminHeaders() });
const status = async (app: FastifyInstance) => (await app.inject({ url: '/api/admin/app/status?refresh=1', headers: adminHeaders() })).json();
const updateLog = async (app: FastifyInstance, since = 0) => (await app.inject({ url: `/api/admin/app/update-log?since=${since}`, headers: adminHeaders() })).json();

t.test('stable: the latest release is checked out, installed, built, then the process exits with 75', async (t) => {
  const { calls, steps } = recorder();
  const { app, appDir } = await withAppCheckout(t, steps);
  const res = await putApp(app);
  t.equal(res.statusCode, 202);
  t.same(res.json(), { status: 'started' });
  await app.appUpdater.settled;
  t.same(calls, ['install 2.0.0', 'build 2.0.0', 'exit 75'], 'install and build see the new version, exit comes last');
  t.match(await status(app), { current: 'v2', tag: 'v2', 'from-tag': 'uptodate', 'local-changes': false });
  t.equal(await git.currentBranch({ fs, dir: appDir }), undefined, 'HEAD detached on the tag');
  const log = await updateLog(app);
  t.match(log, { state: 'restarting', target: 'v2', request: { version: 'stable', force: false, rebuild: true } });
  t.match(log.lines.join('\n'), /Checked out v2[\s\S]*added 452 packages[\s\S]*exiting with code 75/);
  const tail = await updateLog(app, log.lines.length - 1);
  t.equal(tail.lines.length, 1, '?since= gives the lines after those already read');
  t.equal(tail.offset, log.lines.length - 1);
  t.match(await updateLog(app, log.lines.length + 10), { offset: log.lines.length, lines: [] }, 'not the offset asked for');
});

t.test('latest: the branch is fast-forwarded to the origin', async (t) => {
  const { calls, steps } = recorder();
  const { app, appDir, tip } = await withAppCheckout(t, steps);
  t.equal((await putApp(app, '?version=latest')).statusCode, 202);
  await app.appUpdater.settled;
  t.same(calls, ['install 2.1.0-dev', 'build 2.1.0-dev', 'exit 75']);
  t.equal(await git.currentBranch({ fs, dir: appDir }), 'master');
  t.match(await status(app), { current: `v2-1-g${tip.slice(0, 7)}`, 'from-head': 'uptodate', 'from-tag': 'upward', headOid: tip });
});

t.test('stable on a checkout ahead of the latest release: nothing to do, unless forced', async (t) => {
  const { calls, steps } = recorder();
  const { app, tip } = await withAppCheckout(t, steps);
  await putApp(app, '?version=latest');
  await app.appUpdater.settled;
  calls.length = 0;
  t.equal((await putApp(app)).statusCode, 202);
  await app.appUpdater.settled;
  t.same(calls, [], 'no downgrade to v2, no build, no restart');
  const log = await updateLog(app);
  t.equal(log.state, 'done');
  t.match(log.lines.join('\n'), /ahead of the latest release v2/);
  t.match(await status(app), { headOid: tip });
  t.equal((await putApp(app, '?force=yes')).statusCode, 202);
  await app.appUpdater.settled;
  t.same(calls, ['install 2.0.0', 'build 2.0.0', 'exit 75'], 'forced: back to the release');
});

/** An app checkout whose branch master holds a commit of its own, not on the origin. */
async function withLocalFixOnMaster(t: Test) {
  const { calls, steps } = recorder();
  const checkout = await withAppCheckout(t, steps);
  const gitdir = join(checkout.appDir, '.git');
  await git.checkout({ fs, dir: checkout.appDir, ref: 'master' });
  const mine = await commitLocally(checkout.appDir, gitdir, { 'local.txt': 'a fix of ours\n' }, 'a local fix');
  return { ...checkout, calls, gitdir, mine };
}

t.test('local commits on the branch survive a stable update then a latest one: the split branch is not moved without force', async (t) => {
  const { calls, app, up, appDir, gitdir, mine } = await withLocalFixOnMaster(t);
  const three = await up.commit({ 'package.json': pkg('3.0.0') }, 'release 3');
  await up.tag('v3');
  t.match(await status(app), { 'local-commits': true, headOid: mine });
  const master = () => git.resolveRef({ fs, gitdir, ref: 'refs/heads/master' });

  await putApp(app);
  await app.appUpdater.settled;
  t.same(calls, ['install 3.0.0', 'build 3.0.0', 'exit 75'], 'stable: v3 checked out');
  t.equal(await git.currentBranch({ fs, dir: appDir }), undefined, 'detached on v3');
  t.equal(await master(), mine, 'master keeps the local commit');

  calls.length = 0;
  t.equal((await putApp(app, '?version=latest')).statusCode, 202);
  await app.appUpdater.settled;
  t.match(await updateLog(app), { state: 'failed', error: /^diverged: the branch master [0-9a-f]{7} has commits [0-9a-f]{7} lacks/ });
  t.equal(await master(), mine, 'master not moved: the local commit is still on it');
  t.same(calls, [], 'nothing installed');
  t.equal(await git.resolveRef({ fs, gitdir, ref: 'HEAD' }), three, 'HEAD still on v3');

  t.equal((await putApp(app, '?version=latest&force=yes')).statusCode, 202);
  await app.appUpdater.settled;
  t.equal(await master(), three, 'force=yes discards it, as documented');
  t.equal(await git.currentBranch({ fs, dir: appDir }), 'master');
  t.same(calls, ['install 3.0.0', 'build 3.0.0', 'exit 75']);
});

t.test('latest from a detached release while the branch is ahead of the origin: back on the branch, which stays', async (t) => {
  const { calls, app, appDir, gitdir, mine, tip } = await withLocalFixOnMaster(t);
  await git.checkout({ fs, dir: appDir, ref: 'v2' });
  t.equal((await putApp(app, '?version=latest')).statusCode, 202);
  await app.appUpdater.settled;
  t.equal(await git.resolveRef({ fs, gitdir, ref: 'refs/heads/master' }), mine, `master not taken back to the origin's ${tip.slice(0, 7)}`);
  t.equal(await git.currentBranch({ fs, dir: appDir }), 'master');
  t.same(calls, ['install 2.1.0-dev', 'build 2.1.0-dev', 'exit 75']);
});

t.test('stable from a detached HEAD holding a commit of its own: refused unless forced (nothing else holds it)', async (t) => {
  const { calls, steps } = recorder();
  const { app, appDir } = await withAppCheckout(t, steps);
  const gitdir = join(appDir, '.git');
  const mine = await commitLocally(appDir, gitdir, { 'local.txt': 'made on v1\n' }, 'made on the detached v1');
  t.equal((await putApp(app)).statusCode, 202);
  await app.appUpdater.settled;
  t.match(await updateLog(app), { state: 'failed', error: /^diverged: the detached HEAD/ });
  t.equal(await git.resolveRef({ fs, gitdir, ref: 'HEAD' }), mine, 'HEAD still on it');
  t.same(calls, []);
  t.equal((await putApp(app, '?force=yes')).statusCode, 202);
  await app.appUpdater.settled;
  t.same(calls, ['install 2.0.0', 'build 2.0.0', 'exit 75'], 'forced: on v2');
});

const marker = (root: string) => join(root, 'var', 'app-build-pending.json');

t.test('an update killed during its install: the next start says the build is pending, and the update runs it again', async (t) => {
  const calls: string[] = [];
  const { app, root, appDir } = await withAppCheckout(t, {
    // npm ci killed with the process: it never ends
    install: async () => {
      calls.push('install');
      await new Promise(() => undefined);
    },
  });
  const v2 = await git.resolveRef({ fs, gitdir: join(appDir, '.git'), ref: 'refs/tags/v2' }).then((oid) => git.readTag({ fs, dir: appDir, oid })).then((tag) => tag.tag.object);
  t.equal((await putApp(app)).statusCode, 202);
  for (let i = 0; i < 500 && !calls.includes('install'); i++) await sleep(10);
  t.match(await readPendingBuild(marker(root)), { commit: v2, target: 'v2' }, 'recorded before the checkout, there while npm ci runs');
  t.match(await status(app), { current: 'v2', buildPending: v2, 'from-tag': 'outdated', 'from-head': 'outdated' }, 'the checkout is on v2, what runs is not');
  await app.close();

  // the supervisor starts the service again on the same folders
  const second = recorder();
  const { app: again } = await startService(t, root, { env: { APP_DIR: appDir }, build: { updates: { appUpdateSteps: second.steps } } });
  t.match(await status(again), { current: 'v2', tag: 'v2', buildPending: v2, 'from-tag': 'outdated' }, 'not up to date after the restart either');
  t.equal((await putApp(again)).statusCode, 202);
  await again.appUpdater.settled;
  t.same(second.calls, ['install 2.0.0', 'build 2.0.0', 'exit 75'], 'not "Already on v2": installed and built again');
  t.match((await updateLog(again)).lines.join('\n'), /did not complete[\s\S]*Already on v2: installing and building it again/);
  t.equal(await readPendingBuild(marker(root)), undefined, 'cleared once built');
  const done = await status(again);
  t.match(done, { current: 'v2', 'from-tag': 'uptodate' });
  t.notOk('buildPending' in done);
});

t.test('a failed build whose rollback fails too: the previous version\'s build stays pending', async (t) => {
  const calls: string[] = [];
  const { app, root, appDir } = await withAppCheckout(t, {
    install: async () => void calls.push('install'),
    build: async () => {
      calls.push('build');
      throw new Error('tsc: 3 errors');
    },
  });
  const v1 = await git.resolveRef({ fs, gitdir: join(appDir, '.git'), ref: 'HEAD' });
  t.equal((await putApp(app)).statusCode, 202);
  await app.appUpdater.settled;
  t.same(calls, ['install', 'build', 'install', 'build']);
  t.match(await readPendingBuild(marker(root)), { commit: v1 });
  t.match(await status(app), { current: 'v1', buildPending: v1 });
  t.equal((await putApp(app, '?rebuild=no')).statusCode, 202);
  await app.appUpdater.settled;
  t.match(await readPendingBuild(marker(root)), { commit: v1 }, 'rebuild=no does not clear it');
});

t.test('a failed build puts the previous version back, rebuilds it and does not exit', async (t) => {
  const { calls, steps } = recorder({ build: 1 });
  const { app, appDir } = await withAppCheckout(t, steps);
  t.equal((await putApp(app)).statusCode, 202);
  await app.appUpdater.settled;
  t.same(calls, ['install 2.0.0', 'build 2.0.0', 'install 1.0.0', 'build 1.0.0']);
  t.match(await updateLog(app), { state: 'failed', error: /tsc: 3 errors/ });
  t.equal(JSON.parse(await readFile(join(appDir, 'package.json'), 'utf8')).version, '1.0.0');
  t.match(await status(app), { current: 'v1', 'local-changes': false });
  t.notOk('buildPending' in (await status(app)), 'the previous version was built again: nothing pending');
});

t.test('rebuild=no only checks out; one update at a time; local changes need force', async (t) => {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const calls: string[] = [];
  const { app, appDir } = await withAppCheckout(t, {
    install: async () => void calls.push('install'),
    build: async () => void calls.push('build'),
    exit: async (code) => {
      calls.push(`exit ${code}`);
      await held;
    },
  });
  await writeFile(join(appDir, 'package.json'), pkg('1.0.0-patched'));
  t.equal((await putApp(app, '?rebuild=no')).statusCode, 202);
  await app.appUpdater.settled;
  t.match(await updateLog(app), { state: 'failed', error: /^localChanges/ });
  t.same(calls, [], 'refused before any step');

  t.equal((await putApp(app, '?rebuild=no&force=yes')).statusCode, 202);
  const second = await putApp(app, '?force=yes');
  t.equal(second.statusCode, 409);
  t.equal(second.json().message, 'updateInProgress');
  release();
  await app.appUpdater.settled;
  t.same(calls, ['exit 75'], 'no install nor build with rebuild=no');
  t.equal(JSON.parse(await readFile(join(appDir, 'package.json'), 'utf8')).version, '2.0.0', 'the local change was discarded');
});

const restart = (app: FastifyInstance, query = '') => app.inject({ method: 'POST', url: `/api/admin/restart${query}`, headers: adminHeaders() });

async function until(what: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !what(); i++) await sleep(10);
  if (!what()) throw new Error('waited in vain');
}

t.test('a restart is refused while an app update installs, force=true included; once installed, it may hasten the update\'s own', async (t) => {
  const calls: string[] = [];
  const exits: number[] = [];
  let endInstall!: () => void;
  let endExit!: () => void;
  const installing = new Promise<void>((resolve) => (endInstall = resolve));
  const exiting = new Promise<void>((resolve) => (endExit = resolve));
  const { app } = await withAppCheckout(t, {
    install: async () => {
      calls.push('install');
      await installing;
    },
    build: async () => void calls.push('build'),
    exit: async (code) => {
      calls.push(`exit ${code}`);
      await exiting;
    },
  }, exits);
  t.equal((await putApp(app)).statusCode, 202);
  await until(() => calls.includes('install'));

  for (const query of ['', '?force=true']) {
    const refused = await restart(app, query);
    t.equal(refused.statusCode, 409, `refused${query}`);
    t.match(refused.json(), { statusCode: 409, message: 'updateInProgress', detail: /^an update of app is running: a restart now would cut it off \(force=true ends jobs, not updates\)/ });
  }
  t.same(exits, [], 'the process stays');

  endInstall();
  await until(() => calls.includes('exit 75'));
  t.equal(app.appUpdater.state, 'restarting');
  const late = await app.inject({ method: 'PUT', url: '/api/admin/platforms/status', headers: adminHeaders() });
  t.equal(late.statusCode, 409, 'no data-part update starts while the process winds down');
  t.equal(late.json().message, 'serviceRestarting');
  t.equal((await restart(app, '?force=true')).statusCode, 200, 'installed and built: the restart may come now');
  await until(() => exits.length > 0);
  t.same(exits, [75]);
  endExit();
  await app.appUpdater.settled;
});

t.test('a restart is refused while a data part updates, force=true included', async (t) => {
  const exits: number[] = [];
  const { app } = await withAppCheckout(t, recorder().steps, exits);
  const release = await app.updates.lock('platforms');
  const refused = await restart(app, '?force=true');
  t.equal(refused.statusCode, 409);
  t.match(refused.json(), { message: 'updateInProgress', detail: /^an update of platforms is running/ });
  await release();
  t.equal((await restart(app)).statusCode, 200);
  await until(() => exits.length > 0);
  t.same(exits, [75]);
});

t.test('origin unreachable: the update fails and the checkout stays', async (t) => {
  const { calls, steps } = recorder();
  const { app, server, appDir } = await withAppCheckout(t, steps);
  await server.close();
  t.equal((await putApp(app)).statusCode, 202);
  await app.appUpdater.settled;
  t.match(await updateLog(app), { state: 'failed', error: /^fetchFailed/ });
  t.same(calls, []);
  t.equal(JSON.parse(await readFile(join(appDir, 'package.json'), 'utf8')).version, '1.0.0');
});

t.test('without a git checkout: 409 notAGitCheckout', async (t) => {
  const root = await tempDir(t);
  await mkdir(join(root, 'repos', 'platforms'), { recursive: true });
  const { calls, steps } = recorder();
  const { app } = await startService(t, root, { build: { updates: { appUpdateSteps: steps } } });
  const res = await putApp(app);
  t.equal(res.statusCode, 409);
  t.equal(res.json().message, 'notAGitCheckout');
  const beta = await putApp(app, '?version=beta');
  t.equal(beta.statusCode, 400);
  t.same(beta.json(), { statusCode: 400, error: 'Bad Request', message: 'invalidRequest', detail: 'querystring/version must be one of "stable", "latest"' }, 'the values allowed');
  t.equal((await putApp(app, '?force=maybe')).json().detail, 'querystring/force must be one of "yes", "no"');
  t.same(calls, []);
  t.same(await updateLog(app), { state: 'idle', offset: 0, lines: [] });
  t.same(await updateLog(app, 5), { state: 'idle', offset: 0, lines: [] }, '?since= past the end: the offset is the log\'s length');
});
