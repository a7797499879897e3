import t from 'tap';
import { createHash } from 'node:crypto';
import { parse } from 'parse5';
import { barChart, escapeHtml, renderReportHtml, reportLanguage, REPORT_HTML_CSP, titleDate } from '../../src/pipeline/report-html.js';
import type { ReportData } from '../../src/pipeline/job-report.js';

t.test('every value is escaped; only http(s) URLs become links', async (t) => {
  const html = renderReportHtml({
    general: { 'Job-Date': '2026-06-24T14:25:00+02:00', 'Job-Done': true, evil: '<script>alert(1)</script>', quote: '"><img src=x onerror=alert(1)>', js: 'javascript:alert(1)', url: 'https://host/a?b=1&c="2"', none: null },
    '<section>': { '<key>': 1 },
  });
  t.notMatch(html, /<script>|<img|<section>|<key>/, 'no markup from values, keys or section names');
  t.match(html, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
  t.match(html, /<a href="https:\/\/host\/a\?b=1&amp;c=&quot;2&quot;" rel="noreferrer">/);
  t.notMatch(html, /href="javascript/);
  t.match(html, /<title>Execution report \(24-06-2026 14h25\) - logsift<\/title>/, '24-hour clock');
  const errors: string[] = [];
  parse(html, { onParseError: (e) => errors.push(e.code) });
  t.same(errors, [], 'well-formed HTML');
});

t.test('the Content-Security-Policy allows the inline style by its hash only', async (t) => {
  const html = renderReportHtml({ general: {} });
  const css = /<style>([\s\S]*?)<\/style>/.exec(html)![1];
  t.match(REPORT_HTML_CSP, `'sha256-${createHash('sha256').update(css).digest('base64')}'`);
  t.match(REPORT_HTML_CSP, /default-src 'none'/);
  t.notMatch(REPORT_HTML_CSP, /unsafe/);
});

t.test('repeated keys get unique row ids', async (t) => {
  const html = renderReportHtml({ general: { middlewares: 'a' }, first_event: { middlewares: 'b' } });
  t.match(html, /<tr id="middlewares">/);
  t.match(html, /<tr id="first_event\.middlewares">/);
});

t.test('language and helpers', async (t) => {
  t.equal(reportLanguage(undefined), 'en');
  t.equal(reportLanguage('fr-FR,fr;q=0.9,en;q=0.8'), 'fr');
  t.equal(reportLanguage('en-GB,fr;q=0.5'), 'en');
  t.equal(reportLanguage('de,fr;q=0.3'), 'fr');
  t.equal(titleDate('2013-06-25T23:25:07+02:00'), '25-06-2013 23h25');
  t.equal(titleDate(undefined), undefined);
  t.equal(escapeHtml(`<&>"'`), '&lt;&amp;&gt;&quot;&#39;');
  t.match(renderReportHtml({ general: { 'Job-Done': false } }, 'fr'), /Rapport d&#39;exécution/);
});

const REPORT: ReportData = {
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
  const html = renderReportHtml(REPORT, 'en', { running: false, platformName: (c) => (c === 'sd' ? 'ScienceDirect' : undefined), ticket: 'T.1' });
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
  const running = renderReportHtml({ ...REPORT, general: { ...REPORT.general, 'Job-Done': false } }, 'fr', { running: true });
  t.match(running, /<meta http-equiv="refresh" content="5">/);
  t.match(running, /<dd id="fig-lines">1\u202f000<\/dd>|<dd id="fig-lines">1 000<\/dd>/, 'French numbers');
  t.match(running, /Format inconnu/);
});

t.test('barChart: the longest first; beyond the limit, the rest summed', async (t) => {
  const items = Array.from({ length: 15 }, (_, i) => ({ label: `p${i}`, value: i + 1 }));
  const svg = barChart(items, String, 'others', 12);
  t.equal((svg.match(/<rect/g) ?? []).length, 12);
  t.match(svg, /others \(4\)/);
  t.match(svg, /<rect class="other"/);
  t.ok(svg.indexOf('>p14<') < svg.indexOf('>p13<'));
});
