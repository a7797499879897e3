import t from 'tap';
import { fs, git } from '../../src/updates/git.js';
import { compareVersions, describe, History, latestTag, listTagInfos, tagsByCommit } from '../../src/updates/describe.js';
import { Upstream } from '../helpers/git-fixtures.js';
import { tempDir } from '../helpers/service.js';

t.test('describe and latest tag on a local history', async (t) => {
  const root = await tempDir(t);
  const up = new Upstream(root, 'http://unused', 'repo');
  const c1 = await up.init({ 'a.txt': '1' });
  const repo = { dir: up.dir, gitdir: `${up.dir}/.git`, cache: {} };
  const h = new History(repo);

  let tags = await listTagInfos(repo);
  t.same(tags, [], 'no tag yet');
  t.equal((await describe(h, c1, tagsByCommit(tags))).text, c1.slice(0, 7), 'no tag: the abbreviation');

  await up.tag('v1.9.0');
  const c2 = await up.commit({ 'a.txt': '2' }, 'two');
  await up.tag('v1.10.0', false);
  const c3 = await up.commit({ 'a.txt': '3' }, 'three');
  const c4 = await up.commit({ 'b.txt': 'b' }, 'four');

  const h2 = new History({ ...repo, cache: {} });
  tags = await listTagInfos(repo);
  t.same(tags.map((x) => [x.name, x.annotated]).sort(), [['v1.10.0', false], ['v1.9.0', true]], 'annotated and lightweight tags, peeled');
  const byCommit = tagsByCommit(tags);
  t.equal((await describe(h2, c1, byCommit)).text, 'v1.9.0', 'on a tag: its name');
  t.equal((await describe(h2, c2, byCommit)).text, 'v1.10.0', 'lightweight tags count');
  t.equal((await describe(h2, c4, byCommit)).text, `v1.10.0-2-g${c4.slice(0, 7)}`, 'two commits after');
  t.equal(latestTag(tags)?.name, 'v1.10.0', 'latest = most recently committed tagged commit');
  t.equal(await h2.count(c2, c4), 2);
  t.ok(await h2.contains(c4, c1), 'c1 is an ancestor of c4');
  t.notOk(await h2.contains(c1, c4));
  t.equal(await h2.mergeBase(c3, c4), c3);

  // Two tags on one commit: the higher version names it.
  await git.tag({ fs, dir: up.dir, ref: 'v1.10.1', object: c2 });
  t.equal((await describe(h2, c2, tagsByCommit(await listTagInfos(repo)))).text, 'v1.10.1');
});

t.test('version order is numeric', async (t) => {
  t.ok(compareVersions('3.10.0', '3.9.2') > 0);
  t.ok(compareVersions('v10', 'v9') > 0);
  t.equal(latestTag([
    { name: '1.2', commitOid: 'a', annotated: true, committerTime: 5 },
    { name: '1.10', commitOid: 'a', annotated: true, committerTime: 5 },
    { name: '2.0', commitOid: 'b', annotated: true, committerTime: 4 },
  ])?.name, '1.10', 'same commit time: the higher version; an older commit loses whatever its name');
});
