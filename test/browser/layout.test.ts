import t from 'tap';
import { cp, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { Test } from 'tap';
import { startApp } from '../helpers/app.js';
import { tempDir } from '../helpers/service.js';
import { generatedLog, openBrowser } from '../helpers/browser.js';
import { postJob } from '../helpers/jobs.js';
import { PROJECT_ROOT } from '../../src/paths.js';
import { renderReportHtml } from '../../src/pipeline/report-html.js';
import type { ReportData } from '../../src/pipeline/job-report.js';

// What the page functions read in the browser (the tests are type-checked without the DOM's types).
interface Box { x: number; y: number; width: number; height: number; right: number }
interface El {
  readonly tagName: string; readonly id: string; readonly className: unknown; readonly textContent: string | null;
  getBoundingClientRect(): Box; getBBox(): Box; querySelector(s: string): El | null; querySelectorAll(s: string): Iterable<El>; append(...n: unknown[]): void;
  readonly style: { width: string };
}
declare const document: {
  documentElement: { scrollWidth: number }; body: El;
  querySelectorAll(selector: string): Iterable<El>; createElement(tag: string): El & { className: string; textContent: string };
};
declare const window: { innerWidth: number; getComputedStyle(el: El): { color: string; backgroundColor: string } };

// The pages and the HTML report on a phone (375 px): nothing wider than the screen; chart labels
// inside their chart; text colours at WCAG AA contrast in light and dark mode.

const browser = await openBrowser(t);
if (browser) {
  const { page, screenshot } = browser;
  const root = await tempDir(t, 'logsift-layout-');
  await cp(join(PROJECT_ROOT, 'repos', 'platforms', 'sd'), join(root, 'platforms', 'sd'), { recursive: true });
  await mkdir(join(root, 'repos'), { recursive: true });
  await mkdir(join(root, 'app'), { recursive: true });
  const server = await startApp({}, {
    POOL_THREADS: '1',
    PLATFORMS_DIR: join(root, 'platforms'),
    REPOS_DIR: join(root, 'repos'),
    APP_DIR: join(root, 'app'),
    AUTH_JOBS: 'never',
  });
  t.teardown(() => server.close());
  const base = server.url;

  /** The document's width against the window's, and the widest elements when it overflows. */
  const overflow = (p: Page) => p.evaluate(() => {
    const wide = [...document.querySelectorAll('body *')]
      .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 0.5)
      .slice(0, 5)
      .map((e) => `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}.${String(e.className)} → ${Math.round(e.getBoundingClientRect().right)}`);
    return { scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth, wide };
  });
  const fits = async (t: Test, p: Page, what: string) => {
    const o = await overflow(p);
    t.ok(o.scrollWidth <= o.innerWidth, `${what}: ${o.scrollWidth} px wide in ${o.innerWidth} px${o.wide.length ? ` (${o.wide.join('; ')})` : ''}`);
  };

  t.test('375 px: the pages and a job report fit without horizontal scrolling', async (t) => {
    await page.setViewportSize({ width: 375, height: 800 });
    await page.goto(`${base}/`);
    await fits(t, page, '/ (the administrator form)');
    await screenshot('narrow-01-setup');

    const job = await postJob(base, generatedLog(400), { 'Log-Format-ezproxy': '%h %l %u %t "%r" %s %b', 'Reject-Files': 'all' });
    t.equal(job.status, 200, 'a job with rejects of every kind to show');

    const register = await page.request.post(`${base}/api/admin/register`, { data: { userid: 'admin@example.org', password: 'Correct-Horse-1', confirm: 'Correct-Horse-1' } });
    t.equal(register.status(), 201);

    await page.goto(`${base}/process`);
    await page.waitForSelector('#predefined optgroup', { state: 'attached' });
    t.ok(await page.isVisible('#login-open'), 'the Log in button is on the screen');
    const login = await page.$eval('#login-open', (e) => (e as unknown as El).getBoundingClientRect().right);
    t.ok(login <= 375, `Log in within the screen (right edge ${login})`);
    await fits(t, page, '/process');
    await screenshot('narrow-02-process');

    await page.goto(`${base}/admin`);
    await page.click('#gate-login');
    await page.fill('#login-form [name="username"]', 'admin@example.org');
    await page.fill('#login-form [name="password"]', 'Correct-Horse-1');
    await page.click('#login-form button[type="submit"]');
    await page.waitForSelector('#admin:not([hidden])');
    await page.waitForSelector('#users-table tr[data-user]');
    await page.waitForSelector('#part-platforms .status :is(table, p:not(.hint))', { timeout: 60_000 });
    const logout = await page.$eval('#logout', (e) => (e as unknown as El).getBoundingClientRect().right);
    t.ok(logout <= 375, `Log out within the screen (right edge ${logout})`);
    await fits(t, page, '/admin, logged in');
    await screenshot('narrow-03-admin');

    for (const lang of ['en-GB', 'fr-FR']) {
      await page.setExtraHTTPHeaders({ 'Accept-Language': lang });
      await page.goto(`${base}/${job.id}/job-report.html`);
      t.ok(await page.$('#rejects tr'), 'the report has its table of what was thrown away');
      await fits(t, page, `job-report.html (${lang})`);
      const file = await page.$eval('#rejects a[data-reject-file]', (e) => (e as unknown as El).getBoundingClientRect().right);
      t.ok(file <= 375, `the File column's links on the screen (right edge ${file})`);
    }
    await page.setExtraHTTPHeaders({});
    await screenshot('narrow-04-report');
  });

  t.test('the report\'s figures stay in their boxes at desktop width', async (t) => {
    await page.setViewportSize({ width: 1280, height: 900 });
    const report: ReportData = {
      general: { 'Job-ID': 'x', 'Job-Done': true, 'nb-lines-input': 123_456_789, 'nb-ecs': 45_678_901, 'process-speed': '115733 lignes/s', 'Rejection-Rate': '34.22 %', 'Job-Duration': '1 h 46 m 27 s ' },
    };
    for (const width of [1280, 375]) {
      await page.setViewportSize({ width, height: 900 });
      await page.setContent(renderReportHtml(report, 'fr'));
      const boxes = await page.evaluate(() => [...document.querySelectorAll('.figures dd')].map((dd) => ({
        text: dd.textContent, height: dd.getBoundingClientRect().height,
        spills: (dd as unknown as { scrollWidth: number }).scrollWidth > (dd as unknown as { clientWidth: number }).clientWidth,
      })));
      t.same(boxes.filter((b) => b.spills).map((b) => b.text), [], `${width} px: no figure runs into the next box`);
      const line = Math.min(...boxes.map((b) => b.height));
      t.same(boxes.filter((b) => b.height > line * 1.5).map((b) => b.text), [], `${width} px: each figure on one line, no number broken`);
    }
  });

  t.test('the form\'s progress figures each on one line at desktop width', async (t) => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${base}/process`);
    await page.waitForSelector('#predefined optgroup', { state: 'attached' });
    // The figures of a large job, as the page writes them (public/app.js).
    const heights = await page.evaluate(() => {
      const values: Record<string, string> = {
        'fig-sent': '1,023.5 MiB', 'fig-lines': '12,345,678', 'fig-events': '4,567,890', 'fig-rejected': '7,654,321',
        'fig-denied': '123,456', 'fig-speed': '115,733 lines/s', 'fig-elapsed': '1 h 46 min',
      };
      for (const s of document.querySelectorAll('#step-progress')) (s as unknown as { hidden: boolean }).hidden = false;
      const out: Array<[string, number]> = [];
      for (const [id, value] of Object.entries(values)) {
        const dd = [...document.querySelectorAll(`#${id}`)][0];
        (dd as unknown as { textContent: string }).textContent = value;
        out.push([value, dd.getBoundingClientRect().height]);
      }
      const tiles = [...document.querySelectorAll('.figures .figure')].map((e) => e.getBoundingClientRect().height);
      return { out, tiles };
    });
    const lineHeight = Math.min(...heights.out.map(([, h]) => h));
    for (const [value, h] of heights.out) t.ok(h < lineHeight * 1.5, `"${value}" on one line (${h.toFixed(0)} px high, one line ${lineHeight.toFixed(0)})`);
    t.ok(Math.max(...heights.tiles) - Math.min(...heights.tiles) < 1, `the tiles of one height (${heights.tiles.map((h) => h.toFixed(0)).join(', ')} px)`);
    await screenshot('wide-progress-figures');
    await page.goto('about:blank'); // the next tests' setContent would keep this page's CSP
  });

  t.test('chart labels: inside the chart, cut at the end, whole in a title', async (t) => {
    const long = 'Nature Publishing Group (npg)';
    const wide = 'WWW MMMMM WWWWWW MMMMMMMMM';
    const report: ReportData = {
      general: { 'Job-ID': 'x', 'Job-Done': true, 'nb-lines-input': 10, 'nb-ecs': 10 },
      stats: { platforms: 3, 'platform-npg': 5, 'platform-wide': 3, 'platform-sd': 2, 'rtype-ARTICLE': 10, 'mime-PDF': 10 },
    };
    const names: Record<string, string> = { npg: 'Nature Publishing Group', wide, sd: 'ScienceDirect' };
    const labels = (p: Page) => p.evaluate(() => [...document.querySelectorAll('svg.chart text[text-anchor="end"]')].map((e) => ({
      x: e.getBBox().x, text: [...(e as unknown as { childNodes: Iterable<{ nodeType: number; textContent: string }> }).childNodes].filter((n) => n.nodeType === 3).map((n) => n.textContent).join(''),
      title: e.querySelector('title')?.textContent ?? '',
    })));
    for (const width of [1280, 375]) {
      await page.setViewportSize({ width, height: 900 });
      await page.setContent(renderReportHtml(report, 'en', { platformName: (c) => names[c] }));
      const shown = await labels(page);
      t.ok(shown.length >= 3, 'the labels of the report\'s charts');
      for (const l of shown) t.ok(l.x >= 0, `report, ${width} px: "${l.text}" starts inside its chart (x ${l.x.toFixed(1)})`);
      const npg = shown.find((l) => l.title.startsWith(long))!;
      t.ok(npg.text.endsWith('…') && long.startsWith(npg.text.slice(0, -1)), `cut at the end: "${npg.text}"`);
    }

    // The administration page's charts (public/charts.js), drawn in a served page.
    await page.goto(`${base}/process`);
    await page.evaluate(async ([a, b]) => {
      const { barChart } = await import('/charts.js' as string) as { barChart: (items: Array<{ label: string; value: number }>) => unknown };
      const box = document.createElement('div');
      box.style.width = '340px'; // through the CSSOM: a style attribute would break the page's CSP
      box.append(barChart([{ label: a, value: 5 }, { label: b, value: 3 }, { label: 'sd', value: 1 }]));
      document.body.append(box);
    }, [long, wide]);
    const shown = await labels(page);
    t.equal(shown.length, 3);
    for (const l of shown) t.ok(l.x >= 0, `charts.js: "${l.text}" starts inside its chart (x ${l.x.toFixed(1)})`);
    t.ok(shown[0].text.endsWith('…') && long.startsWith(shown[0].text.slice(0, -1)), `cut at the end: "${shown[0].text}"`);
    t.match(shown[0].title, long, 'the whole name in its title');
    t.equal(shown[2].text, 'sd', 'a short label whole');

    // Columns and bars drawn at their values' sizes: the page's CSS (the progress bar's .bar) once
    // drew every column 0.6 rem high whatever its value.
    const drawn = await page.evaluate(async () => {
      const { barChart, columnChart } = await import('/charts.js' as string) as Record<string, (items: Array<{ label: string; value: number }>) => El>;
      const box = document.createElement('div');
      box.style.width = '520px';
      const columns = columnChart([{ label: 'a', value: 100 }, { label: 'b', value: 50 }, { label: 'c', value: 10 }]);
      const bars = barChart([{ label: 'a', value: 100 }, { label: 'b', value: 50 }]);
      box.append(columns, bars);
      document.body.append(box);
      // (no named function in here: the test's transpiler would wrap it in a helper the page lacks)
      const columnBoxes = [...columns.querySelectorAll('rect')].map((r) => r.getBoundingClientRect());
      const barBoxes = [...bars.querySelectorAll('rect')].map((r) => r.getBoundingClientRect());
      return { columns: columnBoxes.map((b) => b.height), bars: barBoxes.map((b) => b.width), barHeights: barBoxes.map((b) => b.height) };
    });
    t.ok(Math.abs(drawn.columns[0] / drawn.columns[1] - 2) < 0.05 && Math.abs(drawn.columns[0] / drawn.columns[2] - 10) < 0.5, `columns as high as their values: ${drawn.columns.map((n) => n.toFixed(1)).join(', ')} px`);
    t.ok(drawn.columns[0] > 100, 'the highest column fills the chart\'s height');
    t.ok(Math.abs(drawn.bars[0] / drawn.bars[1] - 2) < 0.05, `bars as long as their values: ${drawn.bars.map((n) => n.toFixed(1)).join(', ')} px`);
    t.ok(drawn.barHeights[0] > 12, `bars of the row's height (${drawn.barHeights[0].toFixed(1)} px)`);
  });

  /** WCAG's contrast ratio of two `rgb(r, g, b)` colours. */
  const contrast = (a: string, b: string) => {
    const luminance = (c: string) => {
      const [r, g, bl] = (c.match(/[\d.]+/g) ?? []).slice(0, 3).map((v) => {
        const x = Number(v) / 255;
        return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
    };
    const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
    return (hi + 0.05) / (lo + 0.05);
  };

  t.test('contrast: text at 4.5:1 at least (WCAG AA), light and dark', async (t) => {
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.goto(`${base}/process`);
      // Computed colours of samples of each kind in the page (no helper functions in the page: the
      // test runner's transpiler would name them with a function the page lacks).
      const samples: Array<[tag: string, cls: string, inside: string]> = [
        ['button', 'primary', ''], ['a', 'primary', 'links'], ['span', 'badge', ''], ['span', 'badge ok', ''], ['span', 'badge warn', ''],
        ['span', 'badge bad', ''], ['p', 'notice bad', ''], ['p', 'notice warn', ''], ['p', 'notice ok', ''], ['span', 'step', ''],
      ];
      const colours = await page.evaluate((list) => list.map(([tag, cls, inside]) => {
        const el = document.createElement(tag);
        el.className = cls;
        el.textContent = 'Sample 123';
        const box = document.createElement('div');
        box.className = inside;
        box.append(el);
        document.body.querySelector('main')!.append(box);
        const style = window.getComputedStyle(el);
        return { name: `${tag}.${cls.replace(/ /g, '.')}`, color: style.color, background: style.backgroundColor };
      }), samples);
      const ratios = colours.map((c) => ({ ...c, ratio: contrast(c.color, c.background) }));
      for (const r of ratios) t.ok(r.ratio >= 4.5, `${scheme}: ${r.name} ${r.ratio.toFixed(2)}:1 (${r.color} on ${r.background})`);
    }
    await page.emulateMedia({ colorScheme: 'light' });
  });

  t.test('nothing left the machine, and the pages reported no error', async (t) => {
    t.same(browser.outside, []);
    t.same(browser.pageErrors, [], browser.pageErrors.join('\n'));
  });
}
