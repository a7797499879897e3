import t from 'tap';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { demoPlatform } from '../helpers/git-fixtures.js';
import { platformsClone } from '../helpers/platforms-part.js';
import { adminHeaders } from '../helpers/service.js';

t.test('/info/platforms/changed: the files an update would bring, by platform, from the last fetch', async (t) => {
  const { app, up, gitdir } = await platformsClone(t);
  const changed = async () => {
    const res = await app.inject({ url: '/info/platforms/changed' });
    t.equal(res.statusCode, 200);
    return res.json() as Record<string, string[]>;
  };
  t.same(await changed(), {}, 'a fresh clone: nothing');
  const other = Object.fromEntries(Object.entries(demoPlatform('ARTICLE')).map(([path, text]) => [path.replace('demo/', 'other/'), text!.replace(/demo/g, 'other')]));
  await up.commit({ ...demoPlatform('BOOK'), ...other, 'README.md': '# top\n' }, 'more');
  t.same(await changed(), {}, 'the route does not fetch');
  t.equal((await app.inject({ url: '/api/admin/platforms/status?refresh=1', headers: adminHeaders() })).statusCode, 200);
  for (const prefix of ['/info', '/api/info']) {
    t.same((await app.inject({ url: `${prefix}/platforms/changed` })).json(), { demo: ['rules.yaml'], other: ['manifest.json', 'rules.yaml'] },
      `${prefix}: after a fetch, the changed files of each platform; a top-level file left out`);
  }
  const put = await app.inject({ method: 'PUT', url: '/api/admin/platforms/status', headers: adminHeaders() });
  t.equal(put.statusCode, 200, put.body);
  t.same(await changed(), {}, 'up to date: nothing');
  t.ok(existsSync(gitdir));
});

t.test('/info/middlewares/changed: {} while the part is not a repository, and it is not made one', async (t) => {
  const { app, gitdir } = await platformsClone(t);
  for (const prefix of ['/info', '/api/info']) {
    const res = await app.inject({ url: `${prefix}/middlewares/changed` });
    t.equal(res.statusCode, 200);
    t.same(res.json(), {});
  }
  t.notOk(existsSync(join(gitdir, '..', 'middlewares')), 'no repository made from the folder by a public read');
});
