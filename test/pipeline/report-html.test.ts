import t from 'tap';
import { createHash } from 'node:crypto';
import { parse } from 'parse5';
import { escapeHtml, renderReportHtml, reportLanguage, REPORT_HTML_CSP, titleDate } from '../../src/pipeline/report-html.js';

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
