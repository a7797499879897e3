import t from 'tap';
import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { startApp } from '../helpers/app.js';
import { tempDir } from '../helpers/service.js';
import { openBrowser, writeLogs } from '../helpers/browser.js';
import { csvRows } from '../helpers/http.js';
import { SHARED_DIR, PROJECT_ROOT } from '../../src/paths.js';

// The functions given to page.evaluate and waitForFunction run in the page: the browser's names.
declare const document: { querySelector(selector: string): { textContent: string | null } | null };
declare const window: { getComputedStyle(el: unknown): { color: string } };
declare class DataTransfer {
  readonly items: { add(file: unknown): void };
}
declare class File {
  constructor(parts: string[], name: string, options: { type: string });
}

// A librarian's afternoon, in a real Chromium: the first page, a job submitted through the
// form (files dropped and chosen, gzip among them), its progress and result, then the
// administration pages. Nothing may leave the machine.

const began = Date.now();
const browser = await openBrowser(t);
if (browser) {
  const { page, screenshot } = browser;
  // The ScienceDirect platform only, from the bundled platforms; repos/ and the app checkout
  // are temporary (the update pages read them).
  const root = await tempDir(t, 'logsift-browser-');
  await cp(join(PROJECT_ROOT, 'repos', 'platforms', 'sd'), join(root, 'platforms', 'sd'), { recursive: true });
  await mkdir(join(root, 'repos'), { recursive: true });
  await mkdir(join(root, 'app'), { recursive: true });
  // an institution's setting written with the other yes/no words the service reads
  await mkdir(join(root, 'settings'), { recursive: true });
  await writeFile(join(root, 'settings', 'local.json'), JSON.stringify({
    'local-yes-words': { fullName: 'Yes/no words', country: 'FR', headers: { 'Log-Format-ezproxy': '%h %l %u %t "%r" %s %b', 'Clean-Only': 'Yes', 'Double-Click-Removal': 'off' } },
  }));
  const server = await startApp({}, {
    PREDEFINED_SETTINGS_DIR: join(root, 'settings'),
    POOL_THREADS: '2',
    PLATFORMS_DIR: join(root, 'platforms'),
    REPOS_DIR: join(root, 'repos'),
    APP_DIR: join(root, 'app'),
    EXCLUSIONS_DIRS: join(PROJECT_ROOT, 'repos', 'resources', 'exclusions'),
  });
  t.teardown(() => server.close());
  const base = server.url;
  const logs = await writeLogs(t);
  const sample = join(SHARED_DIR, 'datasets', 'sd.2012-11-30.300.log');
  const state: { jobId?: string } = {};

  /** Fills and sends the login box (open already). */
  const logIn = async (p: Page, username: string, password: string) => {
    await p.fill('#login-form [name="username"]', username);
    await p.fill('#login-form [name="password"]', password);
    await p.click('#login-form button[type="submit"]');
  };
  /** Upload speed of a page's requests, bytes per second (-1: no limit). */
  const throttle = async (p: Page, bytesPerSecond: number) => {
    const cdp = await browser.context.newCDPSession(p);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: bytesPerSecond });
  };
  const text = async (p: Page, selector: string) => ((await p.textContent(selector)) ?? '').trim();
  const number = async (p: Page, selector: string) => Number((await text(p, selector)).replace(/[^0-9]/g, ''));

  t.test('GET /: the administrator form while no account exists', async (t) => {
    await page.goto(`${base}/`);
    t.ok(await page.isVisible('form#register'), 'the register form');
    t.match(await text(page, 'main'), /no account yet/);
    await screenshot('01-setup');
  });

  t.test('the submission page: files dropped and chosen, a predefined setting, the format tester', async (t) => {
    await page.goto(`${base}/process`);
    await page.waitForSelector('#predefined optgroup', { state: 'attached' });
    // A real drop of one file on the zone, as a browser makes it.
    if (existsSync(sample)) {
      const content = await readFile(sample, 'utf8');
      const dataTransfer = await page.evaluateHandle((text) => {
        const dt = new DataTransfer();
        dt.items.add(new File([text], 'sd.2012-11-30.300.log', { type: 'text/plain' }));
        return dt;
      }, content);
      await page.dispatchEvent('#dropzone', 'dragenter', { dataTransfer });
      t.ok(await page.$('#dropzone.over'), 'the zone lights up under a file');
      await page.dispatchEvent('#dropzone', 'drop', { dataTransfer });
    } else {
      t.comment(`${sample} is missing: only the generated logs are sent`);
    }
    await page.setInputFiles('#file-input', [logs.gzipped, logs.plain]);
    const names = await page.$$eval('#file-list .name', (els) => els.map((e) => e.textContent));
    t.same(names, [...(existsSync(sample) ? ['sd.2012-11-30.300.log'] : []), 'x-proxy.log', 'y-proxy.log.gz'], 'listed in name order');
    t.equal(await page.textContent('#file-list li:last-child .badge'), 'gzip');
    // a file removed with the keyboard: the focus stays in the list, on its neighbour
    await page.setInputFiles('#file-input', [{ name: 'z-extra.log', mimeType: 'text/plain', buffer: Buffer.from('x\n') }]);
    await page.focus('#file-list li:last-child button');
    await page.keyboard.press('Enter');
    t.notMatch(await text(page, '#file-list'), /z-extra\.log/, 'removed');
    t.equal(await page.$eval(':focus', (e) => e.getAttribute('aria-label')), 'Remove y-proxy.log.gz', 'the focus on the file before it');

    // a proxy type without its format: the form says that the format will be recognised
    await page.selectOption('#proxy', 'squid');
    t.match(await text(page, '#format-note'), /^Empty: the format is recognised among the common ones \(the type alone is not sent\)/);
    await page.fill('#format', '%ts %>a');
    t.equal(await text(page, '#format-note'), '', 'a format typed: nothing to say');
    await page.fill('#format', '');
    await page.selectOption('#proxy', '');

    // the predefined settings searched by name, id or country, accents and case aside
    await page.fill('#predefined-search', 'YES/NO fr');
    t.match(await text(page, '#predefined-count'), /^1 of \d+ settings match\.$/);
    const visible = await page.$$eval('#predefined option', (os) => os.filter((o) => !(o as unknown as { hidden: boolean }).hidden).map((o) => (o as unknown as { value: string }).value));
    t.same(visible, ['', 'local-yes-words'], 'the matching setting, and "None" always');
    await page.fill('#predefined-search', 'GÉNÉRIC');
    t.match(await text(page, '#predefined-count'), /^6 of \d+ settings match\.$/, 'accents and case aside: logsift\'s six Generic formats');
    await page.fill('#predefined-search', '');
    t.equal(await text(page, '#predefined-count'), '', 'nothing typed: every setting, no count');

    // which predefined settings read the first file's lines: each with a button choosing it
    await page.click('#discover-format');
    await page.waitForSelector('#discover-verdict');
    t.match(await text(page, '#discover-verdict'), /^3 predefined setting\(s\) read these lines/);
    const found = await page.$$eval('#tester-out li', (lis) => lis.map((li) => (li as unknown as { dataset: { setting: string } }).dataset.setting));
    t.same([...found].sort(), ['local-yes-words', 'logsift-apache-common', 'logsift-ezproxy-standard'], 'the institution\'s and logsift\'s own with that format');
    t.notMatch(await text(page, '#tester-out'), /null|undefined/, 'nothing but the list');
    await screenshot('02-discover');
    await page.click('#tester-out li[data-setting="local-yes-words"] button');
    t.equal(await page.inputValue('#predefined'), 'local-yes-words', 'Use chooses the setting');
    t.equal(await page.inputValue('#format'), '%h %l %u %t "%r" %s %b', 'and fills the form with it');

    await page.selectOption('#predefined', 'logsift-ezproxy-standard');
    t.equal(await page.inputValue('#proxy'), 'ezproxy', 'the setting fills the form');
    t.equal(await page.inputValue('#format'), '%h %l %u %t "%r" %s %b');
    await page.click('#advanced summary');
    for (const category of ['unknown-formats', 'unknown-domains', 'unqualified-ecs']) await page.check(`#reject-choices input[value="${category}"]`);
    await page.click('#command-box summary');
    const command = await text(page, '#command');
    t.match(command, /ezPAARSE-Predefined-Settings: logsift-ezproxy-standard/, 'the setting is named: nothing it sets was changed');
    t.match(command, /Reject-Files: unknown-formats,unknown-domains,unqualified-ecs/);

    // a value the setting gave, changed: said under the selector, the name no longer sent; reset
    t.notOk(await page.isVisible('#predefined-reset'));
    await page.fill('#format', '%h %l %u %t "%r" %s %b %{ua}<.*>');
    t.match(await text(page, '#predefined-note'), /^Changed from EZproxy standard format.*without the setting's name/);
    const colour = (selector: string) => page.$eval(selector, (e) => window.getComputedStyle(e).color);
    t.ok(await page.$eval('#predefined-note', (e) => e.classList.contains('warn')), 'marked');
    t.not(await colour('#predefined-note'), await colour('#start-hint'), 'in the warning colour, not a hint\'s');
    t.notMatch(await text(page, '#command'), /ezPAARSE-Predefined-Settings/);
    await page.click('#predefined-reset');
    t.equal(await page.inputValue('#format'), '%h %l %u %t "%r" %s %b', 'back to the setting\'s values');
    for (const category of ['unknown-formats', 'unknown-domains', 'unqualified-ecs']) await page.check(`#reject-choices input[value="${category}"]`);
    t.match(await text(page, '#predefined-note'), /header\(s\) applied to the form/);
    t.match(await text(page, '#command'), /ezPAARSE-Predefined-Settings: logsift-ezproxy-standard/);
    t.notOk(await page.isVisible('#predefined-reset'));

    await page.click('#test-format');
    await page.waitForSelector('#tester-out .notice');
    t.match(await text(page, '#tester-out .notice'), /The format matches: ezproxy format/);
    t.match(await text(page, '#tester-out table'), /domain\s*pdn\.sciencedirect\.com|domain\s*www\.sciencedirect\.com/);
    await screenshot('02-submission');
  });

  t.test('the job: upload progress, live figures, then the result', async (t) => {
    // A slow upload (128 KiB/s), so that the job is seen while it runs.
    await throttle(page, 128 * 1024);
    await page.click('#start');
    await page.waitForSelector('#step-progress:not([hidden])');
    const id = await text(page, '#job-id');
    state.jobId = id;
    t.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, 'an id chosen by the page');
    await page.waitForFunction(() => /Sending the files: \d+ %/.test(document.querySelector('#status-line')?.textContent ?? ''), undefined, { timeout: 20_000 });
    t.pass('the upload’s progress is shown');
    await page.waitForFunction(() => Number(document.querySelector('#fig-lines')?.textContent?.replace(/[^0-9]/g, '')) > 0, undefined, { timeout: 20_000 });
    t.equal(await text(page, '#job-state'), 'running', 'figures move while the job runs');
    // the traces' last lines, while the job runs, once their box is open
    await page.click('#live-traces summary');
    await page.waitForFunction(() => /info: /.test(document.querySelector('#traces-tail')?.textContent ?? ''), undefined, { timeout: 20_000 });
    t.match(await text(page, '#traces-tail'), /Job [0-9a-f-]{36}|format|file/i, 'what the job says as it goes');
    await screenshot('03-progress');
    await throttle(page, -1);

    await page.waitForSelector('#job-state.ok, #job-state.bad', { timeout: 60_000 });
    t.equal(await text(page, '#job-state'), 'done');
    await page.waitForFunction(() => /lines read: \d+ events/.test(document.querySelector('#traces-tail')?.textContent ?? ''), undefined, { timeout: 20_000 });
    t.pass('and at the end, the counts line');
    t.ok((await text(page, '#traces-tail')).split('\n').length <= 30, 'the last 30 lines at most');
    await screenshot('04-result');

    const row = server.app.jobStore.get(id)!;
    const report = JSON.parse(row.report!) as { general: Record<string, unknown>; rejets: Record<string, number> };
    t.equal(report.general['predefined-settings'], 'logsift-ezproxy-standard', 'the report names the setting');
    t.equal(await number(page, '#fig-lines'), report.general['nb-lines-input'], 'lines read, as in the report');
    t.equal(await number(page, '#fig-events'), report.general['nb-ecs'], 'events, as in the report');
    t.equal(await number(page, '#fig-denied'), report.general['nb-denied-ecs']);
    t.ok(Number(report.general['nb-lines-input']) >= 4500, 'every file was read');
    for (const category of ['unknown-formats', 'unknown-domains', 'unqualified-ecs']) {
      const shown = await page.textContent(`#rejects-table tr[data-category="${category}"] td.num`);
      t.equal(Number((shown ?? '').replace(/[^0-9]/g, '')), row.rejects ? JSON.parse(row.rejects)[category] : undefined, `${category} as counted`);
    }

    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download-result')]);
    t.match(download.suggestedFilename(), new RegExp(`^${id.slice(0, 8)}_\\d{4}-\\d{2}-\\d{2}_\\d{2}h\\d{2}\\.job-ecs\\.csv$`));
    const csv = await readFile((await download.path())!, 'utf8');
    t.equal(csvRows(csv).length - 1, report.general['nb-ecs'], 'the downloaded result holds every event');
  });

  t.test('the report: what a person reads first, checked against the JSON report', async (t) => {
    const id = state.jobId!;
    const [report] = await Promise.all([browser.context.waitForEvent('page'), page.click('#open-report')]);
    await report.waitForLoadState();
    t.match(report.url(), new RegExp(`/${id}/job-report\\.html\\?lang=en$`), 'in the pages\' language');
    const json = await (await page.request.get(`${base}/${id}/job-report.json`)).json() as {
      general: Record<string, unknown>; rejets: Record<string, number>; stats: Record<string, number>;
    };
    const g = json.general;
    t.equal(await text(report, '#job-state'), 'done');
    t.equal(await number(report, '#fig-lines'), g['nb-lines-input'], 'lines read');
    t.equal(await number(report, '#fig-events'), g['nb-ecs'], 'events');
    t.equal(await text(report, '#fig-rejection-rate'), `${Number.parseFloat(String(g['Rejection-Rate']))}%`, 'rejection rate, written as English writes it');
    t.equal(await text(report, '#fig-duration'), String(g['Job-Duration']).trim(), 'duration');
    t.equal(await number(report, '#fig-platforms'), json.stats.platforms);
    t.match(await text(report, '#chart-platforms'), /Science Direct \(sd\)/, 'events by platform, with its name');
    t.ok(await report.$('#chart-rtype svg rect') && await report.$('#chart-mime svg rect'), 'by resource type and by format');
    t.match(await text(report, '#settings-table'), /logsift-ezproxy-standard/);
    t.ok(await report.$('#first-event-table'), 'the first event');
    for (const category of ['unknown-formats', 'unknown-domains', 'unqualified-ecs']) {
      const counter = { 'unknown-formats': 'nb-lines-unknown-formats', 'unknown-domains': 'nb-lines-unknown-domains', 'unqualified-ecs': 'nb-lines-unqualified-ecs' }[category]!;
      t.equal(await number(report, `#reject-${category} td.num`), json.rejets[counter], `${category}: as in the report`);
      const href = (await report.getAttribute(`a[data-reject-file="${category}"]`, 'href'))!;
      const lines = (await (await report.request.get(href)).text()).split('\n').filter(Boolean).length;
      t.equal(lines, json.rejets[counter], `${category}: its file holds its lines`);
    }
    t.equal(await report.$$eval('script', (s) => s.length), 0, 'no script');
    await screenshot('05-report', report);
    await report.close();
  });

  t.test('administration: the first administrator, users, running jobs, updates', async (t) => {
    await page.goto(`${base}/`);
    await page.fill('#register [name="userid"]', 'admin@example.org');
    await page.fill('#register [name="password"]', 'Correct-Horse-1');
    await page.fill('#register [name="confirm"]', 'Correct-Horse-1');
    await page.click('#register button[type="submit"]');
    await page.waitForFunction(() => /created/.test(document.querySelector('#result')?.textContent ?? ''));

    await page.goto(`${base}/admin`);
    t.ok(await page.isVisible('#gate'), 'a login first');
    await page.click('#gate-login');
    await logIn(page, 'admin@example.org', 'Wrong-Horse-1');
    await page.waitForFunction(() => (document.querySelector('#login-error')?.textContent ?? '') !== '');
    t.match(await text(page, '#login-error'), /Wrong address or password/, 'no browser dialog, the page says it');
    await logIn(page, 'admin@example.org', 'Correct-Horse-1');
    await page.waitForSelector('#admin:not([hidden])');
    await page.waitForSelector('#users-table tr[data-user="admin@example.org"]');

    await page.fill('#user-form [name="userid"]', 'librarian@example.org');
    await page.fill('#user-form [name="password"]', 'Reading-Room-2024');
    await page.click('#user-form button[type="submit"]');
    await page.waitForSelector('#users-table tr[data-user="librarian@example.org"]');
    t.match(await text(page, '#users-message'), /librarian@example\.org added/);
    await page.waitForSelector('#part-platforms .status table', { timeout: 60_000 });
    await page.waitForSelector('#part-app .status p');
    t.match(await text(page, '#part-app .status'), /not a git checkout/);
    t.match(await text(page, '#usage-figures'), /Jobs\s*1/, 'the job counted in the usage');
    await screenshot('06-admin');

    // A second tab submits a slow job as the librarian; the first one sees it running.
    const other = await browser.context.newPage();
    await other.goto(`${base}/process`);
    await other.waitForSelector('#login-needed:not([hidden])');
    await other.click('#login-needed-open');
    await logIn(other, 'librarian@example.org', 'Reading-Room-2024');
    await other.waitForSelector('#logged-user');
    await other.setInputFiles('#file-input', [logs.plain]);
    await throttle(other, 16 * 1024);
    await other.click('#start');
    await page.waitForSelector('#jobs-table tbody tr', { timeout: 20_000 });
    t.match(await text(page, '#jobs-table tbody'), /librarian@example\.org/, 'the running job and who sent it');
    const running = await other.request.get(`${base}/${await text(other, '#job-id')}/job-report.html`, {
      headers: { authorization: `Basic ${Buffer.from('admin@example.org:Correct-Horse-1').toString('base64')}` },
    });
    t.match(await running.text(), /<meta http-equiv="refresh" content="5">/, 'the report of a running job reloads itself');
    await screenshot('07-admin-jobs');
    await other.click('#cancel');
    await other.waitForSelector('#job-state.warn');
    t.equal(await text(other, '#job-state'), 'cancelled');
    // the figures shown are the job's last ones, once the service has recorded its end
    const cancelledId = await text(other, '#job-id');
    const ended = await (await other.request.get(`${base}/api/jobs/${cancelledId}/progress`, {
      headers: { authorization: `Basic ${Buffer.from('librarian@example.org:Reading-Room-2024').toString('base64')}` },
    })).json() as { running: boolean; linesRead: number; events: number };
    t.equal(ended.running, false);
    t.equal((await text(other, '#fig-lines')).replace(/\D/g, ''), String(ended.linesRead), `the lines read shown: ${ended.linesRead}`);
    t.equal(Boolean(await other.$('#download-result')), ended.events > 0, 'a partial result link when it holds events');
    await throttle(other, -1);

    // With a login, the result links carry a ticket: they open without the password.
    await other.$eval('#paste', (e) => { (e as unknown as { value: string }).value = 'a line pasted for the job before'; });
    await other.click('#again');
    t.equal(await other.inputValue('#paste'), '', 'nothing pasted is kept for the next job');
    t.equal(await text(other, '#start-hint'), 'Choose at least one file, or paste lines.');
    await other.setInputFiles('#file-input', [logs.gzipped]);
    await other.click('#start');
    await other.waitForSelector('#job-state.ok', { timeout: 60_000 });
    const href = (await other.getAttribute('#download-result', 'href'))!;
    t.match(href, /\?ticket=/);
    const bare = await other.request.get(`${base}${href.split('?')[0]}`, { headers: { 'X-Requested-With': 'XMLHttpRequest' } });
    t.equal(bare.status(), 401, 'the result needs a login');
    const ticketed = await other.request.get(`${base}${href}`);
    t.equal(ticketed.status(), 200, 'the ticket opens it');

    // The librarian's own recent jobs, under the form: the two above, newest first, never the administrator's.
    const doneId = await text(other, '#job-id');
    await other.waitForSelector(`#history-table tr[data-job="${doneId}"]`, { timeout: 20_000 });
    const rows = await other.$$eval('#history-table tbody tr', (trs) => trs.map((tr) => (tr as unknown as { dataset: { job: string } }).dataset.job));
    t.same(rows, [doneId, cancelledId], 'the librarian\'s jobs, newest first');
    t.match(await text(other, `#history-table tr[data-job="${cancelledId}"]`), /stopped/);
    const report = await other.request.get(`${base}${await other.getAttribute(`#history-table tr[data-job="${doneId}"] a`, 'href')}`);
    t.equal(report.status(), 200, 'its report link opens with the ticket');
    await screenshot('08-recent-jobs', other);
    await other.close();
  });

  t.test('a user changes their own password from the top bar, and the page goes on with it', async (t) => {
    const other = await browser.context.newPage();
    await other.goto(`${base}/process`);
    await other.click('#login-needed-open');
    await logIn(other, 'librarian@example.org', 'Reading-Room-2024');
    await other.waitForSelector('#password-open');
    await other.click('#password-open');
    await other.fill('#password-form [name="oldPassword"]', 'Not-my-password-1');
    await other.fill('#password-form [name="newPassword"]', 'Quiet-Stacks-2026');
    await other.fill('#password-form [name="confirm"]', 'Quiet-Stacks-2026');
    await other.click('#password-form button[type="submit"]');
    await other.waitForFunction(() => (document.querySelector('#password-error')?.textContent ?? '') !== '');
    t.equal(await text(other, '#password-error'), 'The current password is wrong.');
    t.ok(await other.isVisible('#logged-user'), 'a wrong current password does not log the page out');
    await other.waitForSelector('#history-table tbody tr', { timeout: 20_000 });
    // emptied here: the page fills it again with its next requests, which must carry the new password
    await other.evaluate(() => (document.querySelector('#history-table tbody') as unknown as { replaceChildren(): void }).replaceChildren());
    await other.fill('#password-form [name="oldPassword"]', 'Reading-Room-2024');
    await other.click('#password-form button[type="submit"]');
    await other.waitForFunction(() => (document.querySelector('#session-notice')?.textContent ?? '') === 'Password changed.');
    t.notOk(await other.isVisible('#password-dialog'), 'the dialog closed');
    t.ok(await other.isVisible('#logged-user'), 'still logged in');
    const basicOf = (password: string) => ({ authorization: `Basic ${Buffer.from(`librarian@example.org:${password}`).toString('base64')}`, 'X-Requested-With': 'XMLHttpRequest' });
    t.equal((await other.request.get(`${base}/api/auth/session`, { headers: basicOf('Reading-Room-2024') })).status(), 401, 'the old password no longer opens');
    t.equal((await other.request.get(`${base}/api/auth/session`, { headers: basicOf('Quiet-Stacks-2026') })).status(), 200, 'the new one does');
    await other.waitForSelector('#history-table tbody tr', { timeout: 20_000 });
    t.ok(await other.isVisible('#logged-user'), 'the page\'s requests after the change went with the new password (the old one would have logged it out)');
    await screenshot('09-password-changed', other);
    await other.close();
  });

  t.test('a setting saying yes and no with other words than true and false ticks the boxes', async (t) => {
    const other = await browser.context.newPage();
    await other.goto(`${base}/`);
    await other.waitForSelector('#predefined optgroup', { state: 'attached' });
    await other.selectOption('#predefined', 'local-yes-words');
    t.ok(await other.isChecked('#clean-only'), 'Clean-Only: Yes');
    t.ok(await other.isChecked('#dc-off'), 'Double-Click-Removal: off');
    await other.close();
  });

  t.test('nothing left the machine, and the pages reported no error', async (t) => {
    t.same(browser.outside, [], 'no request to anything but the loopback');
    t.same(browser.pageErrors, []);
    t.comment(`browser test: ${((Date.now() - began) / 1000).toFixed(1)} s`);
  });
}
