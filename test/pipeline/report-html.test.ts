import t from 'tap';
import { createHash } from 'node:crypto';
import { parse } from 'parse5';
import { barChart, escapeHtml, fitLabel, jobDateText, renderReportHtml, reportLanguage, REPORT_HTML_CSP, textWidthEm } from '../../src/pipeline/report-html.js';
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
  t.match(html, /<title>Execution report \(24 Jun 2026, 14:25\) - logsift<\/title>/, '24-hour clock, at the time the job wrote');
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
  t.equal(jobDateText('2013-06-25T23:25:07+02:00', 'en'), '25 Jun 2013, 23:25', 'the wall-clock time of the offset written');
  t.equal(jobDateText('2013-06-25T23:25:07+02:00', 'fr'), '25 juin 2013, 23:25');
  t.equal(jobDateText(undefined, 'en'), undefined);
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
  t.match(html, /<dd id="fig-rejection-rate">12.5%<\/dd>/);
  t.match(html, /<dd id="fig-speed">900 lines\/s<\/dd>/);
  t.match(html, /<title>Execution report \(22 Nov 2026, 14:05\) - logsift<\/title>/);
  t.match(html, />ScienceDirect \(sd\)<\/text>/, 'platform names in the chart');
  t.match(html, /<tr id="reject-unknown-formats"><td>Unknown format<\/td><td class="num">100<\/td><td class="num">10%<\/td>/);
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

t.test('French and English reports write numbers, percentages, dates and colons as their language does', async (t) => {
  const report: ReportData = {
    ...REPORT,
    general: { ...REPORT.general, 'Rejection-Rate': '34.22 %', 'process-speed': '4626 lignes/s', 'nb-lines-input': 6250 },
    rejets: { 'nb-lines-unknown-formats': 100 },
    files: { 1: 'a.log' },
  };
  const fr = renderReportHtml(report, 'fr', { running: false });
  t.match(fr, /<dd id="fig-rejection-rate">34,22[\u00a0\u202f]%<\/dd>/, 'the rate with a decimal comma');
  t.match(fr, /<tr id="reject-unknown-formats">.*?<td class="num">1,6[\u00a0\u202f]%<\/td>/, 'the share likewise');
  t.match(fr, /<dd id="fig-speed">4\u202f626 lignes\/s<\/dd>/, 'the speed with its thousands separator');
  t.match(fr, /Fichiers\u202f: a\.log/, 'a narrow no-break space before the colon');
  t.match(fr, /commencé le 22 nov\. 2026, 14:05/);
  const en = renderReportHtml(report, 'en', { running: false });
  t.match(en, /<dd id="fig-rejection-rate">34.22%<\/dd>/);
  t.match(en, /<td class="num">1.6%<\/td>/);
  t.match(en, /<dd id="fig-speed">4,626 lines\/s<\/dd>/);
  t.match(en, /Files: a\.log/);
  t.match(en, /started 22 Nov 2026, 14:05/, 'an English date, not 22-11-2026 14h05');
  t.notMatch(en, /\d{2}-\d{2}-\d{4} \d{2}h\d{2}/);
});

t.test('chart labels: cut to what the label area holds, the ellipsis at the end, the full name in a title', async (t) => {
  const name = 'Nature Publishing Group (npg)';
  const svg = barChart([{ label: name, value: 5 }, { label: 'sd', value: 3 }], String, 'others');
  const label = /<text x="152" y="16" text-anchor="end"><title>([^<]*)<\/title>([^<]*)<\/text>/.exec(svg);
  t.ok(label, 'the label text, with its title');
  t.equal(label![1], `${name}: 5`, 'the full name in the title');
  t.ok(label![2].endsWith('…') && name.startsWith(label![2].slice(0, -1)), `cut at the end: ${label![2]}`);
  t.ok(textWidthEm(label![2]) * 12 <= 152, 'fits the 152 units left of the bars at 12px');
  t.match(svg, /<text x="152" y="40" text-anchor="end"><title>sd: 3<\/title>sd<\/text>/, 'a short label whole');
  t.equal(fitLabel('WWWWWWWWWWWWWWWWWWWW', 152, 12).length, 13, 'wide letters: fewer of them');
  t.equal(fitLabel('abc', 152, 12), 'abc');
});

t.test('result-file-ecs is a link only when the result file is there (a deferred job)', async (t) => {
  const posted = renderReportHtml(REPORT, 'en', { running: false });
  t.match(posted, /<td class="key">result-file-ecs<\/td><td class="value">http:\/\/x\.test\/abc<\/td>/, 'a POST / job: the URL as text (GET answers 404)');
  t.notMatch(posted, /href="http:\/\/x\.test\/abc"/);
  const deferred = renderReportHtml(REPORT, 'en', { running: false, result: true });
  t.match(deferred, /<td class="key">result-file-ecs<\/td><td class="value"><a href="http:\/\/x\.test\/abc"/, 'a deferred job: a link');
});

t.test('a job stopped from outside (its client gone, the service stopping) is "stopped", not "failed"', async (t) => {
  const ended = (status: number, message: string) => renderReportHtml({ ...REPORT, general: { ...REPORT.general, 'Job-Done': false, status, 'status-message': message } }, 'en');
  for (const status of [4039, 4040, 5003]) {
    const html = ended(status, 'The client closed the connection');
    t.match(html, /class="state stopped"[^>]*>stopped</, `${status}: stopped`);
    t.match(html, new RegExp(`<p class="notice" id="job-status">Status ${status}: `), `${status}: said, not as an error`);
    t.notMatch(html, /http-equiv="refresh"/);
  }
  t.match(ended(4039, 'gone'), /<p class="meta" id="rate-note">The rejection rate \(12\.5%\) is the reference(?:&#39;|')s: .* out of the lines read less the filtered ones\.<\/p>/, 'the rate explained under the rejects');
  const failed = ended(4022, 'a line over MAX_LINE_BYTES');
  t.match(failed, /class="state failed"[^>]*>failed</);
  t.match(failed, /<p class="notice bad" id="job-status">Status 4022: /);
});
