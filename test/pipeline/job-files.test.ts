import t from 'tap';
import { deniedFileName, isJobId, isServedFileName, jobDir, jobUrls } from '../../src/pipeline/job-files.js';

t.test('only job ids and the closed list of file names', async (t) => {
  t.ok(isJobId('6f601540-f555-11e3-b477-758199fa5dc1'));
  for (const bad of ['6F601540-F555-11E3-B477-758199FA5DC1', '../6f601540-f555-11e3-b477-758199fa5dc1', '6f601540-f555-11e3-b477-758199fa5dc1/..', '', 'x']) {
    t.notOk(isJobId(bad), JSON.stringify(bad));
  }
  t.throws(() => jobDir('/var', '../etc'));
  for (const good of ['job-traces.log', 'lines-unknown-formats.log', 'lines-pkb-miss-ecs.log', 'denied-ecs.csv', 'denied-ecs.txt', 'denied-ecs.json', 'denied-ecs.log', 'denied-ecs.csv.gz', 'denied-ecs.json.zz']) {
    t.ok(isServedFileName(good), good);
  }
  for (const bad of ['report.json', 'lines-other.log', '../job-traces.log', 'job-traces.log\0', 'denied-ecs.csv.tmp', 'denied-ecs.exe', '.job-traces.log', 'job-traces.log/']) {
    t.notOk(isServedFileName(bad), JSON.stringify(bad));
  }
});

t.test('denied file names and URLs', async (t) => {
  t.equal(deniedFileName('csv', { compression: undefined }), 'denied-ecs.csv');
  t.equal(deniedFileName('json', { compression: 'gzip' }), 'denied-ecs.json.gz');
  t.equal(deniedFileName('txt', { compression: 'deflate' }), 'denied-ecs.txt.zz');
  const urls = jobUrls('https://h/base', 'id', 'denied-ecs.csv');
  t.equal(urls.report, 'https://h/base/id/job-report.json');
  t.equal(urls.traces, 'https://h/base/id/job-traces.log');
  t.equal(urls.denied, 'https://h/base/id/denied-ecs.csv');
  t.equal(urls.rejects['unordered-ecs'], 'https://h/base/id/lines-unordered-ecs.log');
  t.equal(urls.result, 'https://h/base/id');
});
