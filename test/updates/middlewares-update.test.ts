import t from 'tap';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Test } from 'tap';
import { fs, git } from '../../src/updates/git.js';
import { startGitServer } from '../helpers/git-server.js';
import { cloneInto, type FileChanges, Upstream } from '../helpers/git-fixtures.js';
import { adminHeaders, startService, tempDir } from '../helpers/service.js';

/** A middleware adding the column `tag`. */
const TAGGER: FileChanges = {
  'tagger/index.ts': "export const fields = ['tag'];\nexport default () => (ec: Record<string, unknown>) => { ec.tag = 'v1'; };\n",
};
/** The same, no longer valid TypeScript. */
const BROKEN: FileChanges = {
  'tagger/index.ts': "export const fields = ['tag'];\nexport default () => (ec: Record<string, unknown>) => { ec.tag = ; };\n",
};

/** An origin with the middleware `tagger`, cloned as the middlewares part, and the service on it. */
async function middlewaresClone(t: Test, env: Record<string, string> = {}) {
  const root = await tempDir(t);
  const server = await startGitServer(join(root, 'served'));
  t.teardown(() => server.close());
  const up = new Upstream(server.root, server.url, 'middlewares');
  const first = await up.init(TAGGER);
  await mkdir(join(root, 'repos', 'platforms'), { recursive: true });
  const dir = join(root, 'repos', 'middlewares');
  const gitdir = join(root, 'repos', '.gitdirs', 'middlewares');
  await cloneInto(up.url, dir, gitdir);
  const { app } = await startService(t, root, { env: { MIDDLEWARES_ORIGIN: up.url, ...env } });
  const update = () => app.inject({ method: 'PUT', url: '/api/admin/middlewares/status', headers: adminHeaders() });
  return { app, up, dir, gitdir, first, update };
}

t.test('a middlewares update rolled back by a failed reload: new jobs keep the commit the files are at', async (t) => {
  // MIDDLEWARES names the step: the reload fails when it does not load
  const { app, up, gitdir, first, update } = await middlewaresClone(t, { MIDDLEWARES: 'tagger' });
  t.equal(app.versions.middlewares_version, first.slice(0, 7));
  const refused = await up.commit(BROKEN, 'a syntax error');
  const res = await update();
  t.equal(res.statusCode, 500, res.body);
  t.equal(res.json().message, 'updateFailed');
  t.equal(await git.resolveRef({ fs, gitdir, ref: 'HEAD' }), first, 'rolled back');
  t.equal(app.versions.middlewares_version, first.slice(0, 7), `not the refused commit ${refused.slice(0, 7)}`);

  const fixed = await up.commit({ 'tagger/index.ts': TAGGER['tagger/index.ts']!.replace("'v1'", "'v2'") }, 'v2');
  t.equal((await update()).statusCode, 200);
  t.equal(app.versions.middlewares_version, fixed.slice(0, 7), 'an update that works gives its commit');
});

const available = async (app: { inject: (o: { url: string }) => Promise<{ json: () => { available: string[] } }> }) =>
  (await app.inject({ url: '/info/middlewares' })).json().available;

t.test('a middlewares update that breaks a middleware that loaded: 500 updateFailed with the build error, rolled back', async (t) => {
  const { app, up, dir, gitdir, first, update } = await middlewaresClone(t);
  t.ok((await available(app)).includes('tagger'));
  await up.commit(BROKEN, 'a syntax error');
  const res = await update();
  t.equal(res.statusCode, 500, res.body);
  t.match(res.json(), { message: 'updateFailed', detail: /^middlewares not loaded: tagger: Build failed with 1 error: tagger\/index\.ts:2:\d+: ERROR: / });
  t.notOk(res.json().detail.includes(dir), 'the folder, not its path on the server');
  t.equal(await git.resolveRef({ fs, gitdir, ref: 'HEAD' }), first, 'rolled back');
  t.ok((await available(app)).includes('tagger'), 'the middleware is still there for the next jobs');
  t.equal(app.versions.middlewares_version, first.slice(0, 7));
});

t.test('the same when MIDDLEWARES names it: the detail is the build error, not "unknown middlewares"', async (t) => {
  const { app, up, update } = await middlewaresClone(t, { MIDDLEWARES: 'tagger' });
  await up.commit(BROKEN, 'a syntax error');
  const res = await update();
  t.equal(res.statusCode, 500, res.body);
  t.match(res.json(), { message: 'updateFailed', detail: /^middlewares not loaded: tagger: Build failed with 1 error: tagger\/index\.ts:2:\d+: ERROR: / });
  t.same((await app.inject({ url: '/info/middlewares' })).json().config, ['tagger']);
});

t.test('a middleware folder removed upstream is an accepted update', async (t) => {
  const { app, up, update } = await middlewaresClone(t);
  const tip = await up.commit({ 'tagger/index.ts': null }, 'no more tagger');
  const res = await update();
  t.equal(res.statusCode, 200, res.body);
  t.equal(app.versions.middlewares_version, tip.slice(0, 7));
  t.notOk((await available(app)).includes('tagger'));
});
