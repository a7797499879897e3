import t from 'tap';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AddressInfo } from 'node:net';
import { fs, git } from '../../src/updates/git.js';
import type { AppUpdateSteps } from '../../src/updates/app-update.js';
import { openBrowser } from '../helpers/browser.js';
import { startGitServer } from '../helpers/git-server.js';
import { cloneInto, commitLocally, Upstream } from '../helpers/git-fixtures.js';
import { startService, tempDir } from '../helpers/service.js';
import { ADMIN } from '../helpers/accounts.js';

// what the page functions read in the browser (the tests are type-checked without the DOM's types)
declare const document: { querySelector(selector: string): { textContent: string | null } | null };

// The administration page's updates in a real Chromium: an app checkout with a release to go to,
// served by git http-backend on the loopback; the install step writes its log over a few seconds.

const browser = await openBrowser(t);
if (browser) {
  const { page } = browser;
  const root = await tempDir(t, 'logsift-admin-updates-');
  const server = await startGitServer(join(root, 'served'));
  t.teardown(() => server.close());
  const up = new Upstream(server.root, server.url, 'app');
  await up.init({ 'package.json': JSON.stringify({ name: 'logsift', version: '1.0.0' }), '.gitignore': 'node_modules/\n' });
  await up.tag('v1');
  await up.commit({ 'package.json': JSON.stringify({ name: 'logsift', version: '2.0.0' }) }, 'release 2');
  await up.tag('v2');
  const appDir = join(root, 'app');
  await cloneInto(up.url, appDir);
  await git.checkout({ fs, dir: appDir, ref: 'v1' });
  await mkdir(join(appDir, 'node_modules'), { recursive: true });
  await mkdir(join(root, 'repos', 'platforms'), { recursive: true });
  const steps: Partial<AppUpdateSteps> = {
    install: async (ctx) => {
      for (const n of [1, 2, 3, 4]) {
        ctx.log(`install: step ${n} of 4`);
        await sleep(800);
      }
    },
    build: async (ctx) => ctx.log('build: done'),
    exit: async () => undefined,
  };
  const { app } = await startService(t, root, { env: { APP_DIR: appDir }, build: { updates: { appUpdateSteps: steps } } });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const text = async (selector: string) => ((await page.textContent(selector)) ?? '').trim();

  t.test('the parts\' status, then an update of the service followed line by line', async (t) => {
    await page.goto(`${base}/admin`);
    await page.click('#gate-login');
    await page.fill('#login-form [name="username"]', ADMIN.userid);
    await page.fill('#login-form [name="password"]', ADMIN.password);
    await page.click('#login-form button[type="submit"]');
    await page.waitForSelector('#admin:not([hidden])');
    for (const part of ['app', 'platforms', 'middlewares', 'resources']) {
      await page.waitForSelector(`#part-${part} .status table, #part-${part} .status p:not(.hint)`, { timeout: 60_000 });
      t.notMatch(await text(`#part-${part} .status`), /null/, `${part}: nothing the page did not mean to write`);
    }
    page.once('dialog', (dialog) => void dialog.accept());
    await page.click('#part-app button.primary');
    await page.waitForFunction(() => /Update: \w+/.test(document.querySelector('#updates-message')?.textContent ?? ''), undefined, { timeout: 60_000 });
    t.match(await text('#updates-message'), /Update: restarting/);
    const lines = (await text('#update-log')).split('\n').filter((l) => l !== '');
    for (const n of [1, 2, 3, 4]) t.equal(lines.filter((l) => l.includes(`install: step ${n} of 4`)).length, 1, `install step ${n} shown once`);
    t.same(lines, [...new Set(lines)], 'no line of the log twice');
  });

  t.test('a build left pending and a folder changed under the service are said', async (t) => {
    await writeFile(join(root, 'var', 'app-build-pending.json'), JSON.stringify({ commit: 'abcdef0123456789', target: 'v2' }));
    const moved = await commitLocally(join(root, 'repos', 'platforms'), join(root, 'repos', '.gitdirs', 'platforms'), { 'notes.txt': 'by hand\n' }, 'by hand');
    await page.goto(`${base}/admin`);
    await page.click('#gate-login');
    await page.fill('#login-form [name="username"]', ADMIN.userid);
    await page.fill('#login-form [name="password"]', ADMIN.password);
    await page.click('#login-form button[type="submit"]');
    await page.waitForSelector('#part-app .status .notice.warn', { timeout: 60_000 });
    t.match(await text('#part-app .status'), /The install and build of abcdef0 did not complete/);
    await page.waitForSelector('#part-platforms .status .notice.warn', { timeout: 60_000 });
    t.match(await text('#part-platforms .status'), new RegExp(`the folder is at ${moved.slice(0, 7)}\\): update to read it again`));
  });

  t.test('the page reported no error', async (t) => {
    t.same(browser.outside, []);
    t.same(browser.pageErrors, []);
  });
}
