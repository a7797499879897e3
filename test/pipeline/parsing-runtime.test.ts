import t from 'tap';
import { ParsingRuntime } from '../../src/pipeline/parsing-runtime.js';

/** Platforms are a version string here; a pool records whether it was closed. */
function fakeRuntime(versions: string[]) {
  const closed: string[] = [];
  let loads = 0;
  const start = () => ParsingRuntime.start<string, { name: string }>({
    load: async () => {
      const v = versions[loads++];
      if (v === undefined) throw new Error('cannot read the platforms');
      return v;
    },
    createPool: (platforms) => ({ name: `pool-${platforms}` }),
    closePool: async (pool) => void closed.push(pool.name),
    platformVersions: (platforms) => ({ platforms_version: platforms }),
    baseVersions: { ezpaarse_version: '1.0.0', middlewares_version: '' },
  });
  return { start, closed };
}

t.test('a job keeps its snapshot across a reload; the old pool closes after its last job', async (t) => {
  const { start, closed } = fakeRuntime(['a', 'b', 'c']);
  const rt = await start();
  const job1 = rt.acquire();
  const job2 = rt.acquire();
  t.equal(job1.pool.name, 'pool-a');
  t.same(job1.versions, { ezpaarse_version: '1.0.0', middlewares_version: '', platforms_version: 'a' });

  await rt.reloadPlatforms();
  t.equal(rt.current.pool.name, 'pool-b', 'new jobs get the new pool');
  t.equal(rt.current.versions.platforms_version, 'b');
  t.equal(job1.versions.platforms_version, 'a', 'a running job keeps its versions');
  t.equal(rt.retiringPools, 1);
  job1.release();
  job1.release();
  t.same(closed, [], 'still one job on the old pool (a second release counts once)');
  job2.release();
  await new Promise((resolve) => setImmediate(resolve));
  t.same(closed, ['pool-a']);
  t.equal(rt.retiringPools, 0);

  await rt.reloadPlatforms();
  t.same(closed, ['pool-a', 'pool-b'], 'a pool nobody holds closes at once');

  rt.setVersions({ middlewares_version: 'abc1234' });
  t.equal(rt.current.versions.middlewares_version, 'abc1234');
  t.equal(rt.current.pool.name, 'pool-c', 'a versions change keeps the pool');
  await rt.close();
  t.same(closed, ['pool-a', 'pool-b', 'pool-c']);
});

t.test('a reload that cannot read the platforms keeps the current snapshot', async (t) => {
  const { start, closed } = fakeRuntime(['a']);
  const rt = await start();
  await t.rejects(rt.reloadPlatforms(), /cannot read/);
  t.equal(rt.current.pool.name, 'pool-a');
  t.same(closed, []);
  await rt.close();
});

t.test('versions given to a reload come with its pool, and not at all when it fails', async (t) => {
  const { start } = fakeRuntime(['a', 'b']);
  const rt = await start();
  await rt.reloadPlatforms({ middlewares_version: 'abc1234' });
  t.match(rt.current, { pool: { name: 'pool-b' }, versions: { middlewares_version: 'abc1234', platforms_version: 'b' } });
  await t.rejects(rt.reloadPlatforms({ middlewares_version: 'def5678' }), /cannot read/);
  t.equal(rt.current.versions.middlewares_version, 'abc1234', 'the failed reload\'s version is not kept');
  await rt.close();
});
