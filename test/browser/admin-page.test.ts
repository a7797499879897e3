import t from 'tap';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Page } from 'playwright-core';
import { startApp } from '../helpers/app.js';
import { tempDir } from '../helpers/service.js';
import { openBrowser } from '../helpers/browser.js';
import { heldPost } from '../helpers/http.js';

// what the page functions read in the browser (the tests are type-checked without the DOM's types)
declare const document: { querySelector(selector: string): { textContent: string | null } | null };

// The first administrator's page once it has done its work, and the administration's messages:
// sentences rather than the API's codes, a busy button while a request runs, and an update
// check that failed never shown as "up to date".

const browser = await openBrowser(t);
if (browser) {
  const { page, screenshot } = browser;
  const root = await tempDir(t, 'logsift-admin-page-');
  await mkdir(join(root, 'no-platforms'));
  await mkdir(join(root, 'repos'));
  await mkdir(join(root, 'app'));
  const server = await startApp({}, { POOL_THREADS: '1', PLATFORMS_DIR: join(root, 'no-platforms'), REPOS_DIR: join(root, 'repos'), APP_DIR: join(root, 'app') });
  t.teardown(() => server.close());
  const base = server.url;
  const text = async (p: Page, selector: string) => ((await p.textContent(selector)) ?? '').trim();
  const message = (p: Page, pattern: RegExp) => p.waitForFunction((source) => new RegExp(source).test(document.querySelector('#users-message')?.textContent ?? ''), pattern.source, { timeout: 20_000 });

  t.test('the setup page, once the administrator exists: done, and where to go next', async (t) => {
    await page.goto(`${base}/`);
    t.match(await text(page, '#next'), /Until then anyone reaching this service may process log files/);
    await page.fill('#register [name="userid"]', 'admin@example.org');
    await page.fill('#register [name="password"]', 'Correct-Horse-1');
    await page.fill('#register [name="confirm"]', 'Correct-Horse-1');
    await page.click('#register button[type="submit"]');
    await page.waitForFunction(() => /created/.test(document.querySelector('#result')?.textContent ?? ''));
    const next = await text(page, '#next');
    t.notMatch(next, /anyone reaching this service may/, 'no longer says anyone may process files');
    t.match(next, /^Done/);
    t.equal(await page.getAttribute('#next-admin', 'href'), '/admin', 'a link to log in');
    t.equal(await page.getAttribute('#next-process', 'href'), '/process', 'and one to process files');
    await screenshot('setup-done');
  });

  t.test('users: the API\'s codes as sentences, the button busy while the request runs', async (t) => {
    await page.goto(`${base}/admin`);
    await page.click('#gate-login');
    await page.fill('#login-form [name="username"]', 'admin@example.org');
    await page.fill('#login-form [name="password"]', 'Correct-Horse-1');
    await page.click('#login-form button[type="submit"]');
    await page.waitForSelector('#users-table tr[data-user="admin@example.org"]');

    // Hold the answers to account changes a while, as argon2 does on a slow machine.
    await page.route('**/api/admin/users', async (route) => {
      await sleep(800);
      // (the page may have moved on meanwhile: the request is then no longer this handler's)
      await route.continue().catch(() => undefined);
    });
    // waiting for a held request's handler: unrouted while it sleeps, the request would go on to
    // the context's route too, and the second answer to one request throws
    t.teardown(() => page.unrouteAll({ behavior: 'wait' }));
    const submit = '#user-form button[type="submit"]';
    await page.fill('#user-form [name="userid"]', 'librarian@example.org');
    await page.fill('#user-form [name="password"]', 'short');
    // minlength would stop the browser before the service: the service's own check is wanted here
    await page.$eval('#user-form [name="password"]', (e) => (e as unknown as { removeAttribute(n: string): void }).removeAttribute('minlength'));
    await page.click(submit);
    t.ok(await page.isDisabled(submit), 'the button is disabled while the request runs');
    t.match(await text(page, '#users-message'), /Adding librarian@example\.org…/, 'and the message says what is under way');
    await message(page, /too weak/);
    t.notMatch(await text(page, '#users-message'), /weakPassword/, 'no bare code');
    t.match(await text(page, '#users-message'), /at least 10 characters/);
    t.notOk(await page.isDisabled(submit), 'the button is back once answered');

    await page.fill('#user-form [name="userid"]', 'admin@example.org');
    await page.fill('#user-form [name="password"]', 'Reading-Room-2024');
    await page.click(submit);
    t.match(await text(page, '#users-message'), /Adding admin@example\.org…/, 'the new request, not the last answer');
    await message(page, /already exists/);
    t.notMatch(await text(page, '#users-message'), /userAlreadyExists/);

    await page.fill('#user-form [name="userid"]', 'librarian@example.org');
    await page.fill('#user-form [name="password"]', 'Reading-Room-2024');
    await page.click(submit);
    await message(page, /librarian@example\.org added/);
    await page.unrouteAll({ behavior: 'wait' });
    await screenshot('admin-users-messages');
  });

  t.test('updates: a check whose fetch failed is not "up to date"', async (t) => {
    const failed = {
      'is-git-repo': true, current: 'v1-0-gabc1234', head: 'v1-0-gabc1234', tag: 'v1', 'from-head': 'uptodate', 'from-tag': 'uptodate',
      'local-commits': false, 'local-changes': false, branch: 'master', origin: 'https://git.example.org/platforms.git',
      fetchedAt: null, error: 'fetch failed: Cannot parse remote URL',
    };
    await page.route('**/api/admin/platforms/status?refresh=1', (route) => route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(failed) }));
    await page.click('#part-platforms button:has-text("Check")');
    await page.waitForFunction(() => /Cannot parse remote URL/.test(document.querySelector('#part-platforms .status')?.textContent ?? ''));
    const badge = await text(page, '#part-platforms .status .badge');
    t.notMatch(badge, /up to date/, `the badge: ${badge}`);
    t.match(badge, /could not check/);
    t.equal(await page.getAttribute('#part-platforms .status .badge', 'class'), 'badge bad');
    t.match(await text(page, '#part-platforms .status'), /Last check\s*never/);

    // Without an error, but never fetched: not "up to date" either.
    await page.unroute('**/api/admin/platforms/status?refresh=1');
    await page.route('**/api/admin/platforms/status?refresh=1', (route) => route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ ...failed, error: undefined }) }));
    await page.click('#part-platforms button:has-text("Check")');
    await page.waitForFunction(() => /not checked yet/.test(document.querySelector('#part-platforms .status .badge')?.textContent ?? ''));
    t.pass('never fetched: "not checked yet"');
    await page.unroute('**/api/admin/platforms/status?refresh=1');
  });

  t.test('running jobs: Stop ends one job, its client told (5006)', async (t) => {
    // a job held open by its client, which sends nothing more
    const auth = `Basic ${Buffer.from('admin@example.org:Correct-Horse-1').toString('base64')}`;
    const { push, response: answer } = heldPost(`${base}/`, { authorization: auth, 'Log-Format-ezproxy': '%h %l %u %t "%r" %s %b', 'ezPAARSE-Response-Timeout': '0' });
    push('1.2.3.4 - bob [10/Apr/2012:09:38:11 +0200] "GET http://x.com/ HTTP/1.1" 200 1234\n');
    for (let i = 0; i < 200 && server.app.runningJobs.size === 0; i++) await sleep(10);
    const [id] = server.app.runningJobs.list().map((j) => j.id);
    await page.waitForSelector(`#jobs-table tr[data-job="${id}"] button`, { timeout: 20_000 });
    page.once('dialog', (d) => void d.accept());
    await page.click(`#jobs-table tr[data-job="${id}"] button`);
    await page.waitForFunction((short) => new RegExp(`Job ${short} stopped`).test(document.querySelector('#jobs-message')?.textContent ?? ''), id.slice(0, 8), { timeout: 20_000 });
    const res = await answer;
    t.equal(res.headers.get('service-status'), '5006', 'its client is told');
    await res.text();
    push(null);
    await page.waitForFunction((jobId) => !document.querySelector(`#jobs-table tr[data-job="${jobId}"]`), id, { timeout: 20_000 });
    t.pass('the job left the list');
    await screenshot('admin-job-stopped');
  });

  t.test('recent jobs: the last jobs of every user, each with a link to its report', async (t) => {
    const [row] = server.app.jobStore.history({ limit: 1 });
    const selector = `#history-table tr[data-job="${row.id}"]`;
    await page.waitForSelector(selector, { timeout: 20_000 });
    const cells = await page.$$eval(`${selector} td`, (tds) => tds.map((td) => ((td as unknown as { textContent: string }).textContent ?? '').trim()));
    t.same([cells[0], cells[1], cells[3], cells[4]], [row.id.slice(0, 8), 'admin@example.org', 'stopped', '1'], 'the job stopped above, its user, state and lines');
    const href = await page.getAttribute(`${selector} a`, 'href');
    t.match(href, new RegExp(`^/${row.id}/job-report\\.html\\?ticket=`), 'the link carries a ticket, not the password');
    const report = await page.goto(`${base}${href}`);
    t.equal(report?.status(), 200, 'and opens the report');
    await page.goto(`${base}/admin`);
  });

  t.test('the pages reported no error', async (t) => {
    t.same(browser.outside, []);
    t.same(browser.pageErrors, [], browser.pageErrors.join('\n'));
  });
}
