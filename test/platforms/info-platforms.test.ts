import t from 'tap';
import { fileURLToPath } from 'node:url';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApp } from '../helpers/app.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/ezpaarse', import.meta.url));

t.test('/info/platforms and /api/info/platforms: every loaded platform, its manifest and counts', async (t) => {
  const app = await startApp({}, { EXTRA_PLATFORMS_DIRS: FIXTURE });
  t.teardown(() => app.close());
  for (const prefix of ['/info', '/api/info']) {
    const res = await fetch(`${app.url}${prefix}/platforms`);
    t.equal(res.status, 200);
    t.match(res.headers.get('content-type'), /^application\/json/);
    const list = (await res.json()) as Array<Record<string, unknown>>;
    t.equal(list.length, app.app.platforms.sources.length, `${prefix}: one entry per loaded platform`);
    t.same(list.map((p) => p.name), [...list.map((p) => p.name as string)].sort(), 'sorted by name');
    let shapeOk = true;
    for (const p of list) {
      const ok = typeof p.name === 'string' && typeof p.longname === 'string' && typeof p.version === 'string'
        && Array.isArray(p.domains) && Number.isInteger(p['domains-count']) && (p['domains-count'] as number) >= 1
        && Number.isInteger(p['rule-count']) && (p['rule-count'] as number) >= 1
        && (p.kind === 'rules' || p.kind === 'ezpaarse')
        && (p.publisher_name === undefined || typeof p.publisher_name === 'string');
      if (!ok) { shapeOk = false; t.fail(`bad entry ${JSON.stringify(p).slice(0, 300)}`); }
    }
    t.ok(shapeOk, 'name, longname, version, domains, domains-count, rule-count, kind; publisher_name when known');
    const sd = list.find((p) => p.name === 'sd')!;
    t.match(sd, { longname: String, kind: 'rules', 'rule-count': Number });
    t.same(list.find((p) => p.name === 'demojournal'), {
      name: 'demojournal', longname: 'Demo Journals', publisher_name: 'Demo Publisher', version: '2024-01-15', status: 'beta',
      domains: ['journals.logsift-demo.org'], 'domains-count': 1, 'rule-count': 1, kind: 'ezpaarse', 'pkb-packages': [],
    }, 'a community platform: its manifest as stored, one parser, no knowledge base');
    t.notMatch(JSON.stringify(list), FIXTURE, 'no server paths');
  }
  const beta = (await (await fetch(`${app.url}/info/platforms?status=beta`)).json()) as Array<{ status: string }>;
  t.ok(beta.length > 0 && beta.every((p) => p.status === 'beta'), '?status= keeps one status');
  const count = await fetch(`${app.url}/api/info/platforms/count`);
  t.equal(await count.text(), String(app.app.platforms.sources.length));
});

t.test('/info/platforms: pkb-packages, the knowledge-base packages of each platform (newest file of each)', async (t) => {
  const kb = await mkdtemp(join(tmpdir(), 'logsift-pkb-dirs-'));
  t.teardown(() => rm(kb, { recursive: true, force: true }));
  const header = 'publication_title\tprint_identifier\tonline_identifier\ttitle_id';
  await mkdir(join(kb, 'sd'), { recursive: true });
  await mkdir(join(kb, 'wiley'), { recursive: true });
  // two files of one package: the newer one's rows only (ezPAARSE may add the older file's)
  await writeFile(join(kb, 'sd', 'sd_journals_2020-01-01.txt'), `${header}\nA\t\t\tT1\nB\t\t\tT2\nC\t\t\tT3\n`);
  await writeFile(join(kb, 'sd', 'sd_journals_2024-05-06.txt'), `${header}\nA\t\t\tT1\n\nB\t\t\tT2\n`);
  await writeFile(join(kb, 'sd', 'sd_books_2023-02-03.txt'), `${header}\nBook\t\t\tB1\n`);
  await writeFile(join(kb, 'sd', 'undated.txt'), `${header}\nX\t\t\tX1\n`);
  await writeFile(join(kb, 'wiley', 'WILEY_ALL_2022-12-31.txt'), `${header}\n`);
  const app = await startApp({}, { PKB_DIRS: kb });
  t.teardown(() => app.close());
  for (const prefix of ['/info', '/api/info']) {
    const list = (await (await fetch(`${app.url}${prefix}/platforms`)).json()) as Array<Record<string, unknown>>;
    const of = (name: string) => list.find((p) => p.name === name)?.['pkb-packages'];
    t.same(of('sd'), [
      { name: 'sd_books', date: '2023-02-03', entries: 1 },
      { name: 'sd_journals', date: '2024-05-06', entries: 2 },
    ], `${prefix}: sorted by name, newest date, rows of the newest file; an undated file is no package`);
    t.same(of('wiley'), [{ name: 'WILEY_ALL', date: '2022-12-31', entries: 0 }], 'a file with its header only');
    t.ok(list.every((p) => Array.isArray(p['pkb-packages'])), 'every entry has the key');
    t.same(of('acs'), [], 'no base: an empty array');
  }
  t.notMatch(JSON.stringify(await (await fetch(`${app.url}/info/platforms`)).json()), kb, 'no server paths');
});
