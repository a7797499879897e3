import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { buildPkb, kbartEncoding, latestPackages, normaliseId, packageOfFile, parseKbart, PkbReader } from '../../src/resources/pkb.js';
import { enhancerStage } from '../../src/pipeline/stages/enhancer.js';
import type { EventFlags } from '../../src/pipeline/stages/types.js';
import type { AccessEvent } from '../../src/pipeline/event.js';
import { shared } from '../helpers/shared.js';
import { testApp } from '../helpers/accounts.js';

const HEADER = 'publication_title\tprint_identifier\tonline_identifier\ttitle_id\tdoi\tpublisher_name';

t.test('KBART rows: header row, empty cells left out', async (t) => {
  t.same(parseKbart(`\uFEFF${HEADER}\nA\t1234-5678\t\tT1\t\tP\n\n`), [{ publication_title: 'A', print_identifier: '1234-5678', title_id: 'T1', publisher_name: 'P' }]);
});

t.test('KBART cells a spreadsheet quoted are read as the values they hold', async (t) => {
  // As in ../shared/pkb's Sage and Cairn files: a cell holding a quote mark saved between quotes.
  t.same(parseKbart(`${HEADER}\n"Le ""tiers"" : protecteur"\t\t\t"T1"\t\t"SAGE Publications, Inc"\n`),
    [{ publication_title: 'Le "tiers" : protecteur', title_id: 'T1', publisher_name: 'SAGE Publications, Inc' }]);
  t.same(parseKbart(`${HEADER}\nThe "Review"\t\t\tT2\t\t"\n`), [{ publication_title: 'The "Review"', title_id: 'T2', publisher_name: '"' }],
    'quotes inside an unquoted cell, and a lone quote, are the value\'s own');
  t.same(parseKbart(`${HEADER}\n""\t\t\tT3\t\t\n`), [{ title_id: 'T3' }], 'a quoted empty cell is empty');
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
  t.same(await buildPkb(join(root, 'none'), [], cache), { platforms: [], titles: 0, files: 0, packages: {} });
});

t.test('packages: <name>_<YYYY-MM-DD>.txt, each described by its newest file', async (t) => {
  t.same(packageOfFile('CAIRN_GLOBAL_ALLEBOOKS_2025-05-20.txt'), { name: 'CAIRN_GLOBAL_ALLEBOOKS', date: '2025-05-20' });
  t.equal(packageOfFile('notes.txt'), undefined);
  t.equal(packageOfFile('_2025-05-20.txt'), undefined, 'a package needs a name');
  const rows: Record<string, number> = { '/a/x_2021-01-01.txt': 5, '/a/x_2020-01-01.txt': 9, '/b/x_2020-06-01.txt': 7, '/a/y_2019-01-01.txt': 1 };
  t.same(latestPackages([
    { platform: 'p', path: '/a/x_2020-01-01.txt' },
    { platform: 'p', path: '/a/x_2021-01-01.txt' },
    { platform: 'p', path: '/b/x_2020-06-01.txt' },
    { platform: 'p', path: '/a/y_2019-01-01.txt' },
    { platform: 'q', path: '/a/other.txt' },
  ], (path) => rows[path]), { p: [{ name: 'x', date: '2021-01-01', entries: 5 }, { name: 'y', date: '2019-01-01', entries: 1 }] },
  'the newest file of x across folders, its rows alone; q has no dated file');

  const root = await mkdtemp(join(tmpdir(), 'logsift-pkb-'));
  t.teardown(() => rm(root, { recursive: true, force: true }));
  await mkdir(join(root, 'platforms', 'alpha', 'pkb'), { recursive: true });
  await writeFile(join(root, 'platforms', 'alpha', 'pkb', 'alpha_all_2020-01-01.txt'), `${HEADER}\nA\t\t\tT1\t\t\nB\t\t\tT2\t\t\n`);
  await writeFile(join(root, 'platforms', 'alpha', 'pkb', 'alpha_all_2024-06-01.txt'), `${HEADER}\nA\t\t\tT1\t\t\n\n`);
  const cache = join(root, 'cache');
  const built = await buildPkb(join(root, 'platforms'), [], cache);
  t.same(built.packages, { alpha: [{ name: 'alpha_all', date: '2024-06-01', entries: 1 }] });
  const reused = await buildPkb(join(root, 'platforms'), [], cache);
  t.equal(reused.file, built.file);
  t.same(reused.packages, built.packages, 'a reused build reads its packages from the SQLite file');
});

t.test('enrichment fills only the fields the event lacks', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'logsift-pkb-'));
  t.teardown(() => rm(root, { recursive: true, force: true }));
  await mkdir(join(root, 'platforms', 'alpha', 'pkb'), { recursive: true });
  await writeFile(join(root, 'platforms', 'alpha', 'pkb', 'alpha_all_2024-01-01.txt'), `${HEADER}\nBase title\t1111-2222\t3333-4444\tT1\t10.1/base\tBase publisher\n`);
  const r = new PkbReader(await buildPkb(join(root, 'platforms'), [], join(root, 'cache')));
  t.teardown(() => r.close());
  const stage = enhancerStage(r);
  const run = (ec: AccessEvent) => {
    const flags: EventFlags = { denied: false, pkbMiss: false };
    t.equal(stage.run(ec, flags), undefined, 'never rejects');
    return flags.pkbMiss;
  };

  const ec: AccessEvent = { platform: 'alpha', title_id: 'T1', publication_title: 'Parsed title', doi: '10.1/parsed', publisher_name: '' };
  t.equal(run(ec), false);
  t.equal(ec.publication_title, 'Parsed title', 'a title the platform gave is not overwritten');
  t.equal(ec.doi, '10.1/parsed', 'nor an identifier');
  t.equal(ec.publisher_name, 'Base publisher', 'an empty field is filled');
  t.equal(ec.print_identifier, '1111-2222', 'an absent field is filled');
  t.equal(ec.online_identifier, '3333-4444');
  t.equal(ec.title_id, 'T1');

  const byIssn: AccessEvent = { platform: 'alpha', print_identifier: '3333-4444', publication_title: 'Mine' };
  run(byIssn);
  t.same(byIssn, {
    platform: 'alpha', print_identifier: '3333-4444', publication_title: 'Mine',
    online_identifier: '3333-4444', title_id: 'T1', doi: '10.1/base', publisher_name: 'Base publisher',
  }, 'found through the other ISSN column; the print ISSN the event has is kept');

  const unknown: AccessEvent = { platform: 'alpha', title_id: 'T9', publication_title: 'Mine' };
  t.equal(run(unknown), true, 'a title the base does not know: a pkb miss');
  t.same(unknown, { platform: 'alpha', title_id: 'T9', publication_title: 'Mine' }, 'left as it was');
  const other: AccessEvent = { platform: 'beta', title_id: 'T1' };
  t.equal(run(other), false, 'a platform without a base: no miss');
  t.same(other, { platform: 'beta', title_id: 'T1' });
  const article: AccessEvent = { platform: 'alpha', doi: '10.1/article.5', rtype: 'ARTICLE' };
  t.equal(run(article), false, 'an article\'s DOI alone, unknown to the title list: not a miss (reference 3.2 counts titles not found)');
  const byDoi: AccessEvent = { platform: 'alpha', doi: '10.1/BASE' };
  t.equal(run(byDoi), false);
  t.equal(byDoi.title_id, 'T1', 'a DOI the base holds still finds its title');
  const issnMiss: AccessEvent = { platform: 'alpha', online_identifier: '9999-0000', doi: '10.1/x' };
  t.equal(run(issnMiss), true, 'a title identifier the base does not know: a miss');
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
  t.match(r.find('sk', { title_id: '14-19-education' }), { publication_title: 'Lumby - 14-19 Education: Policy, Leadership and Learning' },
    'a title the Sage file quoted, read without its quotes');
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

t.test('files the service cannot use as they are: decoded, read case-blind, or skipped with a notice', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'logsift-pkb-'));
  t.teardown(() => rm(root, { recursive: true, force: true }));
  const kb = join(root, 'kb');
  for (const p of ['u16le', 'u16be', 'u8bom', 'latin', 'upper', 'csv', 'empty', 'nokey', 'noid', 'stranger']) await mkdir(join(kb, p), { recursive: true });
  const text = `${HEADER}\r\nRevue déjà vue\t1234-5678\t\tT1\t\tÉditions\r\n`;
  await writeFile(join(kb, 'u16le', 'u16le_2024-01-01.txt'), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]));
  await writeFile(join(kb, 'u16be', 'u16be_2024-01-01.txt'), Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, 'utf16le').swap16()]));
  await writeFile(join(kb, 'u8bom', 'u8bom_2024-01-01.TXT'), `\uFEFF${text}`);
  await writeFile(join(kb, 'latin', 'latin_2024-01-01.txt'), Buffer.from(text, 'latin1'));
  await writeFile(join(kb, 'upper', 'upper_2024-01-01.txt'), `${HEADER.toUpperCase()}\nRevue déjà vue\t1234-5678\t\tT1\t\t\n`);
  await writeFile(join(kb, 'csv', 'csv_2024-01-01.txt'), `${HEADER.replaceAll('\t', ',')}\nRevue,1234-5678,,T1,,\n`);
  await writeFile(join(kb, 'empty', 'empty_2024-01-01.txt'), '');
  await writeFile(join(kb, 'empty', 'header_2024-01-01.txt'), `${HEADER}\n\n`);
  await writeFile(join(kb, 'nokey', 'nokey_2024-01-01.txt'), `publication_title\tpublisher_name\nRevue\tP\n`);
  await writeFile(join(kb, 'noid', 'noid_2024-01-01.txt'), 'publication_title\tprint_identifier\tpublisher_name\nRevue\t1234-5678\t\nSans rien\t\tP\n');
  await writeFile(join(kb, 'noid', 'notes.csv'), 'x');
  await writeFile(join(kb, 'stranger', 'stranger_2024-01-01.txt'), text);
  const known = new Set(['u16le', 'u16be', 'u8bom', 'latin', 'upper', 'csv', 'empty', 'nokey', 'noid']);
  const build = async () => {
    const notices: string[] = [];
    const data = await buildPkb(join(root, 'none'), [kb], join(root, 'cache'), { platforms: known, notify: (n) => notices.push(`${n.what}: ${n.message}`) });
    return { data, notices };
  };
  const { data, notices } = await build();
  t.same(data.platforms, ['latin', 'noid', 'stranger', 'u16be', 'u16le', 'u8bom', 'upper'], 'only the files with usable rows make a base');
  t.equal(data.titles, 7);
  t.equal(data.files, 7);
  const r = new PkbReader(data);
  t.teardown(() => r.close());
  for (const p of ['u16le', 'u16be', 'u8bom', 'latin']) {
    t.same(r.find(p, { title_id: 'T1' }), { publication_title: 'Revue déjà vue', print_identifier: '1234-5678', title_id: 'T1', publisher_name: 'Éditions' }, `${p}: decoded`);
  }
  t.match(r.find('upper', { title_id: 'T1' }), { publication_title: 'Revue déjà vue', title_id: 'T1' }, 'an upper-case header is read as lower case');
  t.match(r.find('noid', { print_identifier: '1234-5678' }), { publication_title: 'Revue' });
  t.notOk(r.has('empty'), 'an empty or header-only file is no base: its events are no pkb misses');
  t.notOk(r.has('csv'));
  t.ok(r.has('stranger'), 'a folder named for no platform is read all the same');
  const says = (file: string, re: RegExp) => t.ok(notices.some((n) => n.includes(file) && re.test(n)), `${file}: ${re}`);
  says('latin_2024-01-01.txt', /not valid UTF-8: read as Windows-1252/);
  says('csv_2024-01-01.txt', /skipped: not tab-separated/);
  says('empty_2024-01-01.txt', /skipped: empty/);
  says('header_2024-01-01.txt', /skipped: no rows/);
  says('nokey_2024-01-01.txt', /skipped: no title_id, print_identifier, online_identifier or doi column/);
  says('noid_2024-01-01.txt', /no title_id column/);
  says('noid_2024-01-01.txt', /1 of 2 rows have no/);
  says('notes.csv', /skipped: not a \.txt file/);
  says(join(kb, 'stranger'), /no platform is named stranger: no event will use its 1 file/);
  t.notOk(notices.some((n) => /u16|u8bom|upper/.test(n)), 'nothing said of the files read as they should be');
  const again = await build();
  t.equal(again.data.file, data.file, 'the build is reused');
  t.same(again.notices, notices, 'and says the same at each start');
});

t.test('the service log names each file skipped, as a warning', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'logsift-pkb-'));
  t.teardown(() => rm(root, { recursive: true, force: true }));
  await mkdir(join(root, 'kb', 'alpha'), { recursive: true });
  await writeFile(join(root, 'kb', 'alpha', 'alpha_2024-01-01.txt'), `${HEADER}\n`);
  const ta = await testApp(t, { PKB_DIRS: join(root, 'kb') });
  const lines = ta.logs.join('').split('\n').filter((l) => l.includes('knowledge-base')).map((l) => JSON.parse(l) as { level: number; msg: string });
  t.ok(lines.some((l) => l.level === 40 && l.msg === `knowledge-base file ${join(root, 'kb', 'alpha', 'alpha_2024-01-01.txt')}: skipped: no rows (header only)`), 'the file and why');
  t.ok(lines.some((l) => l.level === 40 && /knowledge-base folder .*alpha: no platform is named alpha/.test(l.msg)), 'the folder named for no platform');
  t.equal((await ta.inject({ url: '/castor/status' })).json().state, 'idle', 'no base');
});

t.test('encoding: a character across two read chunks is still UTF-8; a cut or Latin-1 one is not', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'logsift-pkb-'));
  t.teardown(() => rm(root, { recursive: true, force: true }));
  const at = (name: string) => join(root, name);
  const ascii = Buffer.alloc((1 << 20) - 1, 'a');
  await writeFile(at('across.txt'), Buffer.concat([ascii, Buffer.from('é€\n')]));
  await writeFile(at('cut.txt'), Buffer.concat([ascii, Buffer.from('é').subarray(0, 1)]));
  await writeFile(at('latin.txt'), Buffer.concat([ascii, Buffer.from('é\n', 'latin1')]));
  t.equal(await kbartEncoding(at('across.txt')), 'utf-8');
  t.equal(await kbartEncoding(at('cut.txt')), 'windows-1252');
  t.equal(await kbartEncoding(at('latin.txt')), 'windows-1252');
});

t.test('the temporary files of builds whose process ended are removed', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'logsift-pkb-'));
  t.teardown(() => rm(root, { recursive: true, force: true }));
  await mkdir(join(root, 'kb', 'alpha'), { recursive: true });
  await writeFile(join(root, 'kb', 'alpha', 'alpha_2024-01-01.txt'), `${HEADER}\nA\t\t\tT1\t\t\n`);
  const cache = join(root, 'cache');
  await mkdir(cache);
  const ended = spawnSync(process.execPath, ['-e', '0']).pid!;
  const temp = (pid: number, n: number) => `pkb-${String(n).repeat(16)}.sqlite.${pid}.tmp`;
  await writeFile(join(cache, temp(ended, 1)), 'crashed build');
  await writeFile(join(cache, temp(process.ppid, 2)), 'a build under way in another process');
  await writeFile(join(cache, temp(process.pid, 3)), 'an earlier process with this id');
  await utimes(join(cache, temp(process.pid, 3)), new Date('2020-01-01'), new Date('2020-01-01'));
  await writeFile(join(cache, temp(process.pid, 4)), 'a build under way here');
  await writeFile(join(cache, 'other.tmp'), 'not a build');
  const data = await buildPkb(join(root, 'none'), [join(root, 'kb')], cache);
  t.same((await readdir(cache)).sort(), [data.file!.slice(cache.length + 1), temp(process.ppid, 2), temp(process.pid, 4), 'other.tmp'].sort());
  await buildPkb(join(root, 'none'), [], cache);
  t.same((await readdir(cache)).sort(), [temp(process.ppid, 2), temp(process.pid, 4), 'other.tmp'].sort(), 'also when no base is left');
});

t.test('identifiers: ISSNs and ISBNs with or without hyphens; title_id as it is', async (t) => {
  t.equal(normaliseId('print_identifier', ' 0962-8436 '), normaliseId('print_identifier', '09628436'));
  t.equal(normaliseId('online_identifier', '1234-567x'), normaliseId('online_identifier', '1234567X'));
  t.equal(normaliseId('print_identifier', '978-1-4462-7028-8'), normaliseId('print_identifier', '9781446270288'));
  t.equal(normaliseId('print_identifier', '2-7071-1234-X'), normaliseId('print_identifier', '270711234x'));
  t.not(normaliseId('print_identifier', '978-1'), normaliseId('print_identifier', '9781'), 'not an ISBN: left as it is');
  t.not(normaliseId('doi', '10.1/a-b'), normaliseId('doi', '10.1/ab'), 'a DOI keeps its hyphens');
  t.not(normaliseId('title_id', 'abc'), normaliseId('title_id', 'ABC'), 'title_id compares with case');

  const root = await mkdtemp(join(tmpdir(), 'logsift-pkb-'));
  t.teardown(() => rm(root, { recursive: true, force: true }));
  await mkdir(join(root, 'kb', 'jstor'), { recursive: true });
  await writeFile(join(root, 'kb', 'jstor', 'jstor_2024-01-01.txt'),
    `${HEADER}\nPhilosophical Transactions\t0962-8436\t1471-2970\tphiltransbiol\t\t\nA book\t978-1-4462-7028-8\t\tbook1\t\t\n`);
  const r = new PkbReader(await buildPkb(join(root, 'none'), [join(root, 'kb')], join(root, 'cache')));
  t.teardown(() => r.close());
  t.match(r.find('jstor', { print_identifier: '09628436' }), { title_id: 'philtransbiol' }, 'an ISSN without hyphen');
  t.match(r.find('jstor', { online_identifier: '14712970' }), { title_id: 'philtransbiol' });
  t.match(r.find('jstor', { print_identifier: '9781446270288' }), { title_id: 'book1' }, 'an ISBN without hyphens');
  t.equal(r.find('jstor', { title_id: 'PHILTRANSBIOL' }), undefined, 'title_id: with case');
});
