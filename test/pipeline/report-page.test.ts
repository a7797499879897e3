import t from 'tap';
import { createHash } from 'node:crypto';
import { barChart, renderReportPage, reportPageCsp, type ReportSections } from '../../src/pipeline/report-page.js';

const REPORT: ReportSections = {
  general: {
    'Job-ID': 'abc', 'Job-Date': '2026-11-22T14:05:09+01:00', 'Job-Done': true, 'nb-lines-input': 1000, 'nb-ecs': 600, 'nb-denied-ecs': 3,
    'Rejection-Rate': '12.5 %', 'Job-Duration': '1 m 5 s ', 'process-speed': '900 lignes/s', 'predefined-settings': 'logsift-ezproxy-standard',
    'input-format-proxy': 'ezproxy', 'input-format-literal': '%h %l %u %t "%r" %s %b', 'URL-Report': 'http://x.test/abc/job-report.json',
    'URL-Traces': 'http://x.test/abc/job-traces.log', 'url-denied-ecs': 'http://x.test/abc/denied-ecs.csv', 'result-file-ecs': 'http://x.test/abc',
  },
  rejets: { 'nb-lines-unknown-formats': 100, 'nb-lines-ignored': 297, 'url-unknown-formats': 'http://x.test/abc/lines-unknown-formats.log' },
  stats: { platforms: 2, 'platform-sd': 500, 'platform-<evil>': 100, 'mime-PDF': 400, 'mime-HTML': 200, 'rtype-ARTICLE': 600 },
  headers: { 'log-format-ezproxy': '%h <script>alert(1)</script>' },
  first_event: { url: 'http://www.sciencedirect.com/"><img src=x>' },
};

t.test('the summary, the charts, the rejects with their files, everything escaped', async (t) => {
  const html = renderReportPage(REPORT, { lang: 'en', running: false, platformName: (c) => (c === 'sd' ? 'ScienceDirect' : undefined), ticket: 'T.1' });
  t.match(html, /<dd id="fig-lines">1,000<\/dd>/);
  t.match(html, /<dd id="fig-events">600<\/dd>/);
  t.match(html, /<dd id="fig-rejection-rate">12.5 %<\/dd>/);
  t.match(html, /<dd id="fig-speed">900 lines\/s<\/dd>/);
  t.match(html, /<title>Execution report \(22-11-2026 14h05\) - logsift<\/title>/);
  t.match(html, />ScienceDirect \(sd\)<\/text>/, 'platform names in the chart');
  t.match(html, /<tr id="reject-unknown-formats"><td>Unknown format<\/td><td class="num">100<\/td><td class="num">10 %<\/td>/);
  t.match(html, /href="http:\/\/x\.test\/abc\/lines-unknown-formats\.log\?ticket=T\.1"/, 'the ticket kept on links');
  t.match(html, /id="reject-denied"/);
  t.notMatch(html, /<script|<img|<evil>/, 'no value reaches the page as markup');
  t.match(html, /&lt;evil&gt;/);
  t.notMatch(html, /http-equiv="refresh"/, 'a finished job does not reload');
  t.match(html, /<link rel="stylesheet" href="\/report.css">/);
  const running = renderReportPage({ ...REPORT, general: { ...REPORT.general, 'Job-Done': false } }, { lang: 'fr', running: true });
  t.match(running, /<meta http-equiv="refresh" content="5">/);
  t.match(running, /<dd id="fig-lines">1\u202f000<\/dd>|<dd id="fig-lines">1 000<\/dd>/, 'French numbers');
  t.match(running, /Format inconnu/);
});

t.test('standalone: the stylesheet inlined and allowed by its hash', async (t) => {
  const css = 'body{color:red}';
  const html = renderReportPage(REPORT, { lang: 'en', running: false, inlineCss: css });
  t.match(html, '<style>body{color:red}</style>');
  t.notMatch(html, /<link rel="stylesheet"/);
  t.match(reportPageCsp(css), `style-src 'sha256-${createHash('sha256').update(css).digest('base64')}'`);
  t.match(reportPageCsp(), "style-src 'self'");
  t.notMatch(reportPageCsp(), /script-src/);
});

t.test('barChart: the longest first; beyond the limit, the rest summed', async (t) => {
  const items = Array.from({ length: 15 }, (_, i) => ({ label: `p${i}`, value: i + 1 }));
  const svg = barChart(items, String, 'others', 12);
  t.equal((svg.match(/<rect/g) ?? []).length, 12);
  t.match(svg, /others \(4\)/);
  t.match(svg, /<rect class="other"/);
  t.ok(svg.indexOf('>p14<') < svg.indexOf('>p13<'));
});
