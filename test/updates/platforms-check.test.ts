import t from 'tap';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Test } from 'tap';
import { fs, git } from '../../src/updates/git.js';
import { startGitServer } from '../helpers/git-server.js';
import { cloneInto, demoPlatform, type FileChanges, Upstream } from '../helpers/git-fixtures.js';
import { adminHeaders, startService, tempDir } from '../helpers/service.js';

/** The demo platform's files in folder `folder`, named `name`, recognising `host`. */
function platform(folder: string, name: string, host: string): FileChanges {
  const demo = demoPlatform('ARTICLE');
  return {
    [`${folder}/manifest.json`]: JSON.stringify({ name, longname: `Platform ${name}`, domains: [host] }),
    [`${folder}/rules.yaml`]: demo['demo/rules.yaml'],
  };
}

/** An origin with two platforms, `aaas` and `sd`, cloned as the platforms part, and the service on it. */
async function twoPlatforms(t: Test) {
  const root = await tempDir(t);
  const server = await startGitServer(join(root, 'served'));
  t.teardown(() => server.close());
  const up = new Upstream(server.root, server.url, 'platforms');
  await up.init({ ...platform('aaas', 'aaas', 'www.aaas.org'), ...platform('sd', 'sd', 'www.sciencedirect.com') });
  const dir = join(root, 'repos', 'platforms');
  const gitdir = join(root, 'repos', '.gitdirs', 'platforms');
  await cloneInto(up.url, dir, gitdir);
  const { app } = await startService(t, root, { env: { PLATFORMS_ORIGIN: up.url } });
  const head = await git.resolveRef({ fs, gitdir, ref: 'HEAD' });
  const update = (query = '') => app.inject({ method: 'PUT', url: `/api/admin/platforms/status${query}`, headers: adminHeaders() });
  const names = () => [...app.platforms.names].sort();
  return { app, up, dir, gitdir, head, update, names };
}

const refusals: Array<[string, FileChanges, RegExp]> = [
  ['sd/manifest.json renames the platform to an existing one',
    { 'sd/manifest.json': JSON.stringify({ name: 'aaas', longname: 'ScienceDirect', domains: ['www.sciencedirect.com'] }) },
    /^platforms not loaded: sd: left out: its platform name "aaas" is that of aaas, read first$/],
  ['sd/manifest.json is deleted, its rules kept',
    { 'sd/manifest.json': null },
    /^platforms not loaded: sd: no manifest\.json any more$/],
  ['sd/manifest.json says "domain" instead of "domains"',
    { 'sd/manifest.json': JSON.stringify({ name: 'sd', longname: 'ScienceDirect', domain: ['www.sciencedirect.com'] }) },
    /^platforms not loaded: sd: its manifest lists no "domains" any more/],
];

for (const [what, change, detail] of refusals) {
  t.test(`an update that would leave out a platform that loaded: ${what} → 500 updateFailed, rolled back`, async (t) => {
    const { app, up, gitdir, head, update, names } = await twoPlatforms(t);
    t.same(names(), ['aaas', 'sd']);
    const version = app.platforms.version;
    await up.commit(change, what);
    const res = await update();
    t.equal(res.statusCode, 500, res.body);
    t.match(res.json(), { message: 'updateFailed', detail });
    t.equal(await git.resolveRef({ fs, gitdir, ref: 'HEAD' }), head, 'HEAD did not move');
    t.same(names(), ['aaas', 'sd'], 'the service keeps the platforms it had');
    t.equal(app.platforms.version, version);
    t.match((await app.inject({ url: '/info/domains/www.sciencedirect.com' })).json(), [{ platform: 'sd' }], 'sd still recognises its host');
  });
}

t.test('a platform folder removed upstream (the whole folder) is an accepted update', async (t) => {
  const { app, up, update, names } = await twoPlatforms(t);
  const tip = await up.commit({ 'sd/manifest.json': null, 'sd/rules.yaml': null }, 'sd is gone');
  const res = await update();
  t.equal(res.statusCode, 200, res.body);
  t.equal(res.json().headOid, tip);
  t.same(names(), ['aaas']);
  t.notOk((await app.inject({ url: '/info/platforms' })).json().some((p: { name: string }) => p.name === 'sd'));
});

t.test('a platform moved to another folder under the same name is an accepted update', async (t) => {
  const { up, update, names } = await twoPlatforms(t);
  await up.commit({ 'sd/manifest.json': null, 'sd/rules.yaml': null, ...platform('sciencedirect', 'sd', 'www.sciencedirect.com') }, 'moved');
  const res = await update();
  t.equal(res.statusCode, 200, res.body);
  t.same(names(), ['aaas', 'sd']);
});

t.test('files git does not track in a platform folder the origin removes: named (409), removed with force=yes', async (t) => {
  const { up, dir, gitdir, head, update, names } = await twoPlatforms(t);
  await mkdir(join(dir, 'sd', 'old'), { recursive: true });
  await writeFile(join(dir, 'sd', 'notes.txt'), 'mine\n');
  await writeFile(join(dir, 'sd', 'old', 'rules.yaml~'), 'a backup\n');
  const tip = await up.commit({ 'sd/manifest.json': null, 'sd/rules.yaml': null }, 'sd is gone');

  const refused = await update();
  t.equal(refused.statusCode, 409, refused.body);
  t.match(refused.json(), { message: 'localChanges', detail: 'files git does not track, in folders the update removes: sd/notes.txt, sd/old/rules.yaml~ (remove them, or force=yes removes them)' });
  t.equal(await git.resolveRef({ fs, gitdir, ref: 'HEAD' }), head, 'HEAD did not move');
  t.same(names(), ['aaas', 'sd']);

  const forced = await update('?force=yes');
  t.equal(forced.statusCode, 200, forced.body);
  t.equal(forced.json().headOid, tip);
  t.notOk(existsSync(join(dir, 'sd')), 'the folder is gone, the files left in it too');
  t.same(names(), ['aaas']);
});

t.test('a forced update that fails puts back the files it removed with a folder the origin removed', async (t) => {
  const { up, dir, gitdir, head, update, names } = await twoPlatforms(t);
  await writeFile(join(dir, 'sd', 'notes.txt'), 'mine\n');
  await up.commit({ 'sd/manifest.json': null, 'sd/rules.yaml': null, 'aaas/rules.yaml': 'format: 1\nrules: [ { when: \n' }, 'sd is gone, aaas broken');
  const res = await update('?force=yes');
  t.equal(res.statusCode, 500, res.body);
  t.match(res.json(), { message: 'updateFailed', detail: /^platforms not loaded: aaas: / });
  t.equal(await git.resolveRef({ fs, gitdir, ref: 'HEAD' }), head, 'rolled back');
  t.equal(await readFile(join(dir, 'sd', 'notes.txt'), 'utf8'), 'mine\n', 'the file is back');
  t.ok(existsSync(join(dir, 'sd', 'manifest.json')));
  t.same(names(), ['aaas', 'sd']);
});
