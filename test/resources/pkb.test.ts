import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { buildPkb, parseKbart, PkbReader } from '../../src/resources/pkb.js';
import { shared } from '../helpers/shared.js';

const HEADER = 'publication_title\tprint_identifier\tonline_identifier\ttitle_id\tdoi\tpublisher_name';

t.test('KBART rows: header row, empty cells left out', async (t) => {
  t.same(parseKbart(`\uFEFF${HEADER}\nA\t1234-5678\t\tT1\t\tP\n\n`), [{ publication_title: 'A', print_identifier: '1234-5678', title_id: 'T1', publisher_name: 'P' }]);
});

t.test('a base: newer files win per title_id, lookups by each identifier, rebuilt on change', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'logsift-pkb-'));
  t.teardown(() => rm(root, { recursive: true, force: true }));
  const platforms = join(root, 'platforms');
  const extra = join(root, 'extra');
  await mkdir(join(platforms, 'alpha', 'pkb'), { recursive: true });
  await mkdir(join(extra, 'beta'), { recursive: true });
  await writeFile(join(platforms, 'alpha', 'pkb', 'alpha_all_2020-01-01.txt'), `${HEADER}\nOld title\t1111-2222\t\tT1\t\tOld\nOther\t\t3333-444x\tT2\t10.1/ABC\t\n`);
  await writeFile(join(platforms, 'alpha', 'pkb', 'alpha_all_2024-06-01.txt'), `${HEADER}\nNew title\t1111-2222\t\tT1\t\tNew\n`);
  await writeFile(join(extra, 'beta', 'BETA_2021-02-02.txt'), `${HEADER}\nBeta book\t978-1\t\tB1\t\t\n`);
  const cache = join(root, 'cache');
  const data = await buildPkb(platforms, [extra], cache);
  t.same(data.platforms, ['alpha', 'beta']);
  t.equal(data.titles, 3);
  const r = new PkbReader(data);
  t.teardown(() => r.close());
  t.match(r.find('alpha', { title_id: 'T1' }), { publication_title: 'New title', publisher_name: 'New' }, 'the 2024 file wins');
  t.match(r.find('alpha', { print_identifier: '1111-2222' }), { publication_title: 'New title' });
  t.match(r.find('alpha', { print_identifier: '3333-444X' }), { title_id: 'T2' }, 'a print identifier filed as online; case of the check digit');
  t.match(r.find('alpha', { doi: '10.1/abc' }), { title_id: 'T2' });
  t.equal(r.find('alpha', { title_id: 'T9' }), undefined);
  t.equal(r.find('beta', { title_id: 'T1' }), undefined, 'per platform');
  t.ok(r.has('beta'));
  t.notOk(r.has('gamma'));
  const again = await buildPkb(platforms, [extra], cache);
  t.equal(again.file, data.file, 'unchanged files: the build is reused');
  await writeFile(join(extra, 'beta', 'BETA_2022-02-02.txt'), `${HEADER}\nBeta 2\t978-2\t\tB2\t\t\n`);
  const changed = await buildPkb(platforms, [extra], cache);
  t.not(changed.file, data.file, 'a new file: rebuilt');
  t.equal(changed.titles, 4);
  t.same(await buildPkb(join(root, 'none'), [], cache), { platforms: [], titles: 0, files: 0 });
});

t.test('the ten shared bases: size and cost per lookup', async (t) => {
  const dir = shared(t, 'pkb');
  if (!dir) return;
  const root = await mkdtemp(join(tmpdir(), 'logsift-pkb-'));
  t.teardown(() => rm(root, { recursive: true, force: true }));
  const started = process.hrtime.bigint();
  const data = await buildPkb(join(root, 'no-platforms'), [dir], join(root, 'cache'));
  const buildMs = Number(process.hrtime.bigint() - started) / 1e6;
  t.equal(data.platforms.length, 10);
  const r = new PkbReader(data);
  t.teardown(() => r.close());
  t.match(r.find('sd', { title_id: '00207063' }), { publication_title: 'The International Journal of Accounting' });
  const { size } = await import('node:fs/promises').then((fs) => fs.stat(data.file!));
  // distinct keys, so that the result cache does not answer: the cost of the SQLite lookups
  const n = 20_000;
  const heapBefore = process.memoryUsage().heapUsed;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) r.find('springer', { title_id: `missing-${i}`, print_identifier: `0000-${i}` });
  const missNs = Number(process.hrtime.bigint() - t0) / n;
  const t1 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) r.find('sd', { title_id: '00207063', doi: String(i) });
  const hitNs = Number(process.hrtime.bigint() - t1) / n;
  t.comment(`${data.files} files, ${data.titles} titles, SQLite file ${(size / 2 ** 20).toFixed(1)} MB built in ${buildMs.toFixed(0)} ms; lookup ${(hitNs / 1000).toFixed(1)} µs (hit), ${(missNs / 1000).toFixed(1)} µs (miss, 3 queries); heap +${((process.memoryUsage().heapUsed - heapBefore) / 2 ** 20).toFixed(1)} MB (result cache)`);
  t.ok(hitNs < 200_000);
});
