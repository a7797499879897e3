import t from 'tap';
import { join } from 'node:path';
import { testApp } from '../helpers/accounts.js';
import { tempDir } from '../helpers/service.js';
import { applyChanges } from '../helpers/git-fixtures.js';

const HEADER = 'publication_title\tprint_identifier\tonline_identifier\ttitle_id';

t.test('/castor/status without knowledge bases: idle', async (t) => {
  const ta = await testApp(t, { REPOS_DIR: join(await tempDir(t), 'repos') });
  const res = await ta.inject({ url: '/castor/status' });
  t.equal(res.statusCode, 200);
  t.same(res.json(), { state: 'idle', remaining: 0, synchronizing: [], platforms: [], titles: 0, files: 0 });
});

t.test('/castor/status: synchronized once the bases are indexed, synchronizing during a reload', async (t) => {
  const kb = join(await tempDir(t), 'pkb');
  await applyChanges(kb, {
    'alpha/alpha_all_2024-01-01.txt': `${HEADER}\nA\t\t\tT1\nB\t\t\tT2\n`,
    'beta/BETA_2023-01-01.txt': `${HEADER}\nC\t\t\tC1\n`,
  });
  const ta = await testApp(t, { PKB_DIRS: kb });
  const res = await ta.inject({ url: '/castor/status' });
  t.equal(res.statusCode, 200);
  t.match(res.headers['content-type'], /^application\/json/);
  t.same(res.json(), { state: 'synchronized', remaining: 0, synchronizing: [], platforms: ['alpha', 'beta'], titles: 3, files: 2 });
  t.notMatch(res.body, kb, 'no server path');

  const reload = ta.app.runtime.reloadPlatforms();
  t.equal((await ta.inject({ url: '/castor/status' })).json().state, 'synchronizing', 'while the bases are read again');
  await reload;
  t.equal((await ta.inject({ url: '/castor/status' })).json().state, 'synchronized', 'and after');
});
