import t from 'tap';
import { hidePaths } from '../../src/updates/hide-paths.js';

t.test('folders become their labels, a folder inside another keeping its own', async (t) => {
  const labels = [['/srv/logsift', 'app'], ['/srv/logsift/repos', 'REPOS_DIR'], ['/srv/logsift/repos/resources/', 'resources']] as const;
  t.equal(hidePaths('/srv/logsift/repos/resources: the repository has no commit', labels), 'resources: the repository has no commit');
  t.equal(hidePaths("ENOENT: open '/srv/logsift/repos/.gitdirs/x/HEAD'", labels), "ENOENT: open 'REPOS_DIR/.gitdirs/x/HEAD'");
  t.equal(hidePaths('cannot read /srv/logsift/package.json', labels), 'cannot read app/package.json');
  t.equal(hidePaths('no path here', labels), 'no path here');
  t.equal(hidePaths('/ stays', [['/', 'root']]), '/ stays', 'the root folder is no label');
});
