import t from 'tap';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { startApp } from '../helpers/app.js';
import { tempDir } from '../helpers/service.js';
import { openBrowser } from '../helpers/browser.js';
import { ADMIN, basic } from '../helpers/accounts.js';

// what the page functions read in the browser (the tests are type-checked without the DOM's types)
declare const document: { querySelector(selector: string): { value?: string; textContent: string | null } | null };

// An administrator saves the submission form's settings as a custom predefined setting, finds it
// in the selector, replaces it, and deletes it; a person without the rights sees no such control.

const browser = await openBrowser(t);
if (browser) {
  const { page, screenshot, outside, pageErrors } = browser;
  const root = await tempDir(t, 'logsift-custom-settings-');
  await mkdir(join(root, 'no-platforms'));
  const server = await startApp({}, { POOL_THREADS: '1', PLATFORMS_DIR: join(root, 'no-platforms') });
  t.teardown(() => server.close());
  const base = server.url;
  const register = await fetch(`${base}/api/admin/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ userid: ADMIN.userid, password: ADMIN.password, confirm: ADMIN.password }) });
  t.equal(register.status, 201, 'administrator registered');
  const text = async (p: Page, selector: string) => ((await p.textContent(selector)) ?? '').trim();
  const stored = async (id: string) => {
    const list = await (await fetch(`${base}/info/predefined-settings/custom`)).json() as Array<{ id: string; fullName: string; headers: Record<string, string> }>;
    return list.find((s) => s.id === id);
  };
  const customOptions = (p: Page) => p.$$eval('#predefined optgroup[label="Custom settings"] option', (os) => os.map((o) => (o as unknown as { value: string }).value));

  t.test('anonymous: no control to save settings', async (t) => {
    await page.goto(`${base}/process`);
    await page.waitForSelector('#predefined optgroup', { state: 'attached' });
    t.notOk(await page.isVisible('#setting-admin'));
  });

  t.test('an administrator saves the form as a setting; it is chosen in the selector and applies as it was saved', async (t) => {
    await page.click('#login-open');
    await page.fill('#login-form [name="username"]', ADMIN.userid);
    await page.fill('#login-form [name="password"]', ADMIN.password);
    await page.click('#login-form button[type="submit"]');
    await page.waitForSelector('#setting-admin:not([hidden])');
    t.notOk(await page.isVisible('#setting-delete'), 'nothing to delete while no custom setting is chosen');

    await page.selectOption('#proxy', 'ezproxy');
    await page.fill('#format', '%h %u %t "%r"');
    await page.fill('#date-format', 'DD/MMM/YYYY:HH:mm:ss Z');
    await page.click('#setting-save-open');
    await page.fill('#setting-form [name="id"]', 'be-our-library');
    await page.fill('#setting-form [name="fullName"]', 'Our library');
    await page.fill('#setting-form [name="country"]', 'BE');
    await page.click('#setting-form button[type="submit"]');
    await page.waitForFunction(() => document.querySelector('#predefined')?.value === 'be-our-library');
    t.notOk(await page.isVisible('#setting-dialog'), 'the dialog closed');
    t.same(await customOptions(page), ['be-our-library'], 'in the selector\'s custom group');
    t.match(await text(page, '#setting-admin-note'), /^Saved: Our library \(be-our-library\)\.$/);
    t.same((await stored('be-our-library'))?.headers, { 'Log-Format-ezproxy': '%h %u %t "%r"', 'Date-Format': 'DD/MMM/YYYY:HH:mm:ss Z' }, 'the form\'s headers, stored');
    t.ok(await page.isVisible('#setting-delete'), 'a custom setting chosen: it may be deleted');
    t.notOk(await page.isVisible('#predefined-reset'), 'the form is the setting: unchanged');
    t.match(await text(page, '#command'), /ezPAARSE-Predefined-Settings: be-our-library/, 'a job names it');
    await page.fill('#predefined-search', 'BE library');
    t.match(await text(page, '#predefined-count'), /^1 of \d+ settings match\.$/, 'found by country and name');
    await page.fill('#predefined-search', '');

    // A file's id: the service's refusal, said in the dialog.
    await page.click('#setting-save-open');
    t.equal(await page.inputValue('#setting-form [name="id"]'), 'be-our-library', 'the chosen custom setting fills the dialog');
    await page.fill('#setting-form [name="id"]', 'logsift-ezproxy-standard');
    await page.fill('#setting-form [name="fullName"]', 'Taken');
    await page.click('#setting-form button[type="submit"]');
    await page.waitForFunction(() => (document.querySelector('#setting-error')?.textContent ?? '') !== '');
    t.match(await text(page, '#setting-error'), /already has this id or this name\. "logsift-ezproxy-standard" is a setting of logsift's own settings/);
    await screenshot('custom-setting-refused');
    await page.click('#setting-cancel');
  });

  t.test('saved again under its id once confirmed: replaced; then deleted', async (t) => {
    await page.fill('#format', '%h %u %t "%r" %s');
    await page.click('#setting-save-open');
    const asked: string[] = [];
    page.once('dialog', (d) => {
      asked.push(d.message());
      void d.dismiss();
    });
    await page.click('#setting-form button[type="submit"]');
    await page.waitForTimeout(200);
    t.match(asked[0], /^Replace the custom setting be-our-library \(Our library\)/);
    t.equal((await stored('be-our-library'))?.headers['Log-Format-ezproxy'], '%h %u %t "%r"', 'not confirmed: unchanged');
    page.once('dialog', (d) => void d.accept());
    await page.click('#setting-form button[type="submit"]');
    await page.waitForFunction(() => (document.querySelector('#setting-admin-note')?.textContent ?? '').startsWith('Replaced'));
    t.equal((await stored('be-our-library'))?.headers['Log-Format-ezproxy'], '%h %u %t "%r" %s', 'confirmed: replaced (PUT)');
    t.equal(await page.inputValue('#predefined'), 'be-our-library');

    page.once('dialog', (d) => void d.accept());
    await page.click('#setting-delete');
    await page.waitForFunction(() => (document.querySelector('#setting-admin-note')?.textContent ?? '').startsWith('Deleted'));
    t.equal(await stored('be-our-library'), undefined, 'gone from the service');
    t.same(await customOptions(page), [], 'and from the selector');
    t.equal(await page.inputValue('#predefined'), '', 'no setting chosen');
    t.equal(await page.inputValue('#format'), '%h %u %t "%r" %s', 'the form keeps its values');
    t.notOk(await page.isVisible('#setting-delete'));
  });

  t.test('import a settings file, then export the custom settings', async (t) => {
    const file = join(root, 'institutions.json');
    await writeFile(file, JSON.stringify({
      'fr-univ-a': { fullName: 'Université A', country: 'FR', headers: { 'Log-Format-ezproxy': '%h %l %u %t "%r" %s %b', 'Crypted-Fields': 'none' } },
      'be-univ-b': { fullName: 'Université B', country: 'BE', headers: { 'Log-Format-ezproxy': '%h %u %t "%r"' } },
      'logsift-ezproxy-standard': { fullName: 'A clash with a file setting', country: 'FR', headers: {} },
    }));
    await page.setInputFiles('#settings-import', file);
    await page.waitForFunction(() => (document.querySelector('#setting-admin-note')?.textContent ?? '').startsWith('Imported'));
    t.match(await text(page, '#setting-admin-note'), /^Imported: 2 new, 0 replaced, 1 refused \(logsift-ezproxy-standard: .+\)\.$/, 'the file setting\'s id refused, with the reason');
    t.same((await customOptions(page)).sort(), ['be-univ-b', 'fr-univ-a'], 'the imported settings in the selector');
    t.equal((await stored('fr-univ-a'))?.headers['Crypted-Fields'], 'none');

    // imported again, changed: replaced once the administrator confirms
    await writeFile(file, JSON.stringify({ 'fr-univ-a': { fullName: 'Université A', country: 'FR', headers: { 'Log-Format-ezproxy': '%h %u %t "%r" %s' } } }));
    const asked: string[] = [];
    page.once('dialog', (d) => { asked.push(d.message()); void d.accept(); });
    await page.setInputFiles('#settings-import', file);
    await page.waitForFunction(() => /^Imported: 0 new, 1 replaced/.test(document.querySelector('#setting-admin-note')?.textContent ?? ''));
    t.match(asked[0], /^1 of these setting exists already as custom setting \(fr-univ-a\)\. Replace it\?$/);
    t.same((await stored('fr-univ-a'))?.headers, { 'Log-Format-ezproxy': '%h %u %t "%r" %s' }, 'replaced');

    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#settings-export')]);
    t.equal(download.suggestedFilename(), 'custom-predefined-settings.json');
    const exported = JSON.parse(await readFile((await download.path())!, 'utf8')) as Record<string, unknown>;
    t.same(exported, {
      'be-univ-b': { fullName: 'Université B', country: 'BE', headers: { 'Log-Format-ezproxy': '%h %u %t "%r"' } },
      'fr-univ-a': { fullName: 'Université A', country: 'FR', headers: { 'Log-Format-ezproxy': '%h %u %t "%r" %s' } },
    }, 'the custom settings in the shape of a predefined-settings.json, which the import reads back');
    t.match(await text(page, '#setting-admin-note'), /^Exported: 2 custom settings/);
  });

  t.test('a user who is no administrator sees no control', async (t) => {
    const created = await fetch(`${base}/api/admin/users`, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: basic(ADMIN.userid, ADMIN.password) },
      body: JSON.stringify({ userid: 'reader@example.org', password: 'Reading-Room-2024' }),
    });
    t.equal(created.status, 201);
    await page.click('#logout');
    t.notOk(await page.isVisible('#setting-admin'), 'logged out: hidden');
    await page.click('#login-open');
    await page.fill('#login-form [name="username"]', 'reader@example.org');
    await page.fill('#login-form [name="password"]', 'Reading-Room-2024');
    await page.click('#login-form button[type="submit"]');
    await page.waitForSelector('#logged-user');
    t.notOk(await page.isVisible('#setting-admin'), 'a user: hidden');
  });

  t.test('nothing left the machine, and the page reported no error', async (t) => {
    t.same(outside, []);
    t.same(pageErrors, []);
  });
}
