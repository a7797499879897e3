import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { buildPkb, PkbReader } from '../../src/resources/pkb.js';

const COLUMNS = ['publication_title', 'print_identifier', 'online_identifier', 'date_first_issue_online', 'num_first_vol_online',
  'num_first_issue_online', 'date_last_issue_online', 'num_last_vol_online', 'num_last_issue_online', 'title_url', 'first_author',
  'title_id', 'embargo_info', 'coverage_depth', 'coverage_notes', 'publisher_name', 'publication_type'];

/** A 17-column KBART file of `rows` rows, written as a stream (the test itself holds none of it). */
async function writeBigKbart(path: string, rows: number): Promise<void> {
  const out = createWriteStream(path);
  out.write(`${COLUMNS.join('\t')}\n`);
  for (let i = 0; i < rows; i++) {
    const id = String(i).padStart(7, '0');
    const line = `Ouvrage numéro ${i}\t978-2-${id}-1\t\t2001\t1\t1\t2020\t20\t4\thttps://www.cairn.info/o-${i}.htm\tDupont\tOUV_${id}\t\tfulltext\t\tLa Découverte\tmonograph\n`;
    if (!out.write(line)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  }
  // a newer record of the first title at the end of the same file: the last one wins
  out.end(`Ouvrage zéro, 2e édition\t978-2-0000000-9\t\t2001\t1\t1\t2020\t20\t4\t\t\tOUV_0000000\t\tfulltext\t\tLa Découverte\tmonograph\n`);
  await new Promise<void>((resolve, reject) => out.on('finish', () => resolve()).on('error', reject));
}

t.test('a large KBART file is built streaming: the heap does not grow with its size', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'logsift-pkb-'));
  t.teardown(() => rm(root, { recursive: true, force: true }));
  await mkdir(join(root, 'kb', 'cairn'), { recursive: true });
  const rows = 300_000;
  await writeBigKbart(join(root, 'kb', 'cairn', 'CAIRN_BIG_2025-01-01.txt'), rows);
  const before = process.memoryUsage().heapUsed;
  let peak = before;
  const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage().heapUsed); }, 5);
  const started = Date.now();
  let data;
  try {
    data = await buildPkb(join(root, 'none'), [join(root, 'kb')], join(root, 'cache'));
  } finally {
    clearInterval(sampler);
  }
  peak = Math.max(peak, process.memoryUsage().heapUsed);
  const growth = (peak - before) / 2 ** 20;
  t.comment(`${rows} rows (17 columns) built in ${Date.now() - started} ms, heap peak +${growth.toFixed(1)} MB`);
  t.equal(data.titles, rows, 'one title per title_id');
  // the file is about 40 MB; holding its text, lines or rows took several times that
  t.ok(growth < 32, `heap growth ${growth.toFixed(1)} MB stays under 32 MB`);
  const r = new PkbReader(data);
  t.teardown(() => r.close());
  t.match(r.find('cairn', { title_id: 'OUV_0000000' }), { publication_title: 'Ouvrage zéro, 2e édition' }, 'the later row of a title_id wins');
  t.equal(r.find('cairn', { print_identifier: '978-2-0000000-1' }), undefined, 'the replaced row is gone');
  t.match(r.find('cairn', { title_id: `OUV_${String(rows - 1).padStart(7, '0')}` }), { publisher_name: 'La Découverte' });
});
