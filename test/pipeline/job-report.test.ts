import t from 'tap';
import { accountedLines, formatDuration, JobReport, rejectionRate } from '../../src/pipeline/job-report.js';

t.test('sections come out in the documented order, whatever the order they are named in; stages add their own', async (t) => {
  const report = new JobReport({ 'Job-ID': 'x' });
  t.same(Object.keys(report.toJSON()), ['general', 'rejets', 'stats']);
  t.equal(report.general['Job-Done'], false);
  t.equal(report.rejets['nb-lines-unknown-formats'], 0);
  t.same(report.stats, { platforms: 0, 'mime-PDF': 0, 'mime-HTML': 0 });

  report.set('dedoublonnage', 'activated', true);
  t.equal(report.increment('dedoublonnage', 'removed'), 1);
  t.equal(report.increment('dedoublonnage', 'removed', 4), 5);
  report.replace('first_event', { url: 'http://a' });
  report.replace('first_event', { url: 'http://b', login: 'x' });
  t.same(Object.keys(report.toJSON()), ['general', 'rejets', 'stats', 'dedoublonnage', 'first_event']);
  t.same(report.toJSON().first_event, { url: 'http://b', login: 'x' });
  t.equal(report.get('dedoublonnage', 'removed'), 5);
  t.ok(report.has('dedoublonnage'));
  t.notOk(report.has('notifications'));

  let windows = 0;
  report.onRefresh((r) => r.set('dedoublonnage', 'windows', ++windows));
  report.refresh();
  report.refresh();
  t.equal(report.get('dedoublonnage', 'windows'), 2, 'contributors run at each refresh');
  t.same(JSON.parse(JSON.stringify(report)).dedoublonnage, { activated: true, removed: 5, windows: 2 });
});

t.test('report.json lists its sections in README\'s order, however the job named them', async (t) => {
  // The order a job with a multipart upload and notifications names them in.
  const report = new JobReport({ 'Job-ID': 'x' });
  report.replace('headers', { accept: 'text/csv' });
  report.replace('notifications', { mailto: 'a@example.org' });
  report.replace('dedoublonnage', { activated: true });
  report.set('a-stage', 'n', 1);
  report.set('files', '1', 'a.log');
  report.replace('first_event', { url: 'http://a' });
  report.set('platform-versions', 'sd', '1');
  report.replace('alerts', { 'active-alerts': 'unknown-domains' });
  const expected = ['general', 'rejets', 'stats', 'headers', 'dedoublonnage', 'first_event', 'platform-versions', 'alerts', 'files', 'notifications', 'a-stage'];
  t.same(Object.keys(report.toJSON()), expected);
  t.same(Object.keys(JSON.parse(JSON.stringify(report, null, 2)) as object), expected, 'as written');
  report.increment('files', 'n');
  t.equal(report.toJSON().files.n, 1, 'the sections themselves, not copies');
});

t.test('the rejection rate of the reference', async (t) => {
  // 100 lines, 10 filtered, 5 unknown domains, 3 unqualified, 2 duplicates → 10 / 90
  t.equal(rejectionRate(100, { 'filtered-ecs': 10, 'unknown-domains': 5, 'unqualified-ecs': 3, 'duplicate-ecs': 2 }), '11.11 %');
  t.equal(rejectionRate(0, {}), '0 %');
  t.equal(rejectionRate(10, { 'filtered-ecs': 10 }), '0 %', 'no relevant line');
  // robots, ignored hosts and domains are neither counted nor subtracted
  t.equal(rejectionRate(10, { 'robots-ecs': 5, 'ignored-domains': 2, 'ignored-hosts': 1, 'unknown-formats': 1 }), '10 %');
  t.equal(rejectionRate(3, { 'unknown-errors': 1, 'unordered-ecs': 1 }), '66.67 %');
});

t.test('durations as the reference writes them', async (t) => {
  t.equal(formatDuration(0), '0 s ');
  t.equal(formatDuration(65_000), '1 m 5 s ');
  t.equal(formatDuration(3_725_000), '1 h 2 m 5 s ');
});

t.test('accounted lines: events, denied and every reject but pkb-miss', async (t) => {
  const report = new JobReport({ 'nb-ecs': 3, 'nb-denied-ecs': 2 });
  report.rejets['nb-lines-ignored'] = 4;
  report.rejets['nb-lines-robots-ecs'] = 1;
  report.rejets['nb-lines-pkb-miss-ecs'] = 7;
  report.rejets['url-unknown-formats'] = 'http://x/lines-unknown-formats.log';
  t.equal(accountedLines(report.toJSON()), 10);
});
