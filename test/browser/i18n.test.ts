import t, { type Test } from 'tap';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { startApp } from '../helpers/app.js';
import { openBrowser } from '../helpers/browser.js';
import { tempDir } from '../helpers/service.js';

// The pages in French for a browser that prefers French, with a switch to English (and back)
// remembered across reloads; the API's errors said in French; English for an English browser.

// what the page functions read in the browser (the tests are type-checked without the DOM's types)
declare const document: { documentElement: { lang: string } };

const french = await openBrowser(t, { locale: 'fr-FR' });
const english = french ? await openBrowser(t, { locale: 'en-US' }) : undefined;
if (french && english) {
  const { page, screenshot } = french;
  const server = await startApp({}, { POOL_THREADS: '1' });
  t.teardown(() => server.close());
  const base = server.url;
  const text = async (p: Page, selector: string) => ((await p.textContent(selector)) ?? '').replace(/[ \t\r\n]+/g, ' ').trim();
  const lang = (p: Page) => p.evaluate(() => document.documentElement.lang);
  /** English words that no French text of these pages holds. */
  const ENGLISH = /\b(the|and|or|of|your|Log in|Log out|Password|Mail|Create|Start|Choose|Drop|Settings|Users|Jobs|Recent|Running|Updates|files?|lines)\b/;

  /** Each element's text: the expected French (a string: exactly; a RegExp: matched), and no English left. */
  async function expectTexts(t: Test, p: Page, expected: Record<string, string | RegExp>) {
    for (const [selector, want] of Object.entries(expected)) {
      const got = await text(p, selector);
      if (typeof want === 'string') t.equal(got, want, selector);
      else t.match(got, want, selector);
      t.notMatch(got, ENGLISH, `${selector}: no English left`);
    }
  }

  t.test('the setup page in French, its API error in French', async (t) => {
    await page.goto(`${base}/`);
    t.equal(await lang(page), 'fr', '<html lang="fr">');
    t.equal(await page.title(), 'logsift — créer l’administrateur');
    await expectTexts(t, page, {
      '#register label:has([name="userid"])': 'Adresse électronique',
      '#register label:has([name="password"])': 'Mot de passe',
      '#register label:has([name="confirm"])': 'Confirmer le mot de passe',
      '#register button[type="submit"]': 'Créer l’administrateur',
      '#register .hint': /^Au moins 10 caractères/,
      '#next': 'D’ici là, toute personne qui atteint ce service peut traiter des fichiers de logs.',
      'main > p': /^Cette installation n’a encore aucun compte/,
    });
    t.equal(await text(page, '#lang-switch'), 'EN', 'the switch offers English');
    t.equal(await page.getAttribute('#lang-switch', 'aria-label'), 'Show the pages in English');

    await page.fill('#register [name="userid"]', 'admin@example.org');
    await page.fill('#register [name="password"]', 'Correct-Horse-1');
    await page.fill('#register [name="confirm"]', 'Correct-Horse-2');
    await page.click('#register button[type="submit"]');
    await page.waitForSelector('#result:not(:empty)');
    t.equal(await text(page, '#result'), 'Les deux mots de passe diffèrent.', 'passwordDoesNotMatch in French');

    await page.fill('#register [name="confirm"]', 'Correct-Horse-1');
    await page.click('#register button[type="submit"]');
    await page.waitForSelector('#next-admin');
    t.equal(await text(page, '#result'), 'Administrateur admin@example.org créé.');
    t.match(await text(page, '#next'), /^C’est fait\u202f: ce service demande désormais une connexion\. Connectez-vous à l’administration/);
    await screenshot('i18n-01-setup-fr');
  });

  t.test('the submission page in French; the switch to English and back, kept across reloads, files kept', async (t) => {
    await page.goto(`${base}/process`);
    await page.waitForSelector('#predefined optgroup', { state: 'attached' });
    t.equal(await lang(page), 'fr');
    t.equal(await page.title(), 'logsift — traiter des fichiers de logs');
    await expectTexts(t, page, {
      'nav a[href="/process"]': 'Traiter des logs',
      'nav a[href="/info/codes"]': 'Codes d’état',
      '#login-open': 'Se connecter',
      '#login-needed': /^Ce service demande une connexion avant de traiter des fichiers\. Se connecter$/,
      '#files-title': '1Fichiers de logs',
      '#dropzone strong': 'Déposez ici les fichiers de logs',
      '#drop-hint': /^ou cliquez pour les choisir — texte brut ou gzip \(\.gz\), un ou plusieurs\u202f; ils sont lus dans l’ordre de leurs noms\.$/,
      '#settings-title': '2Paramètres',
      '#predefined-note': 'Un paramétrage prédéfini remplit le formulaire avec les réglages habituels d’un établissement.',
      '#test-format': 'Tester le format sur les premières lignes',
      '#start': 'Lancer le traitement',
      '#start-hint': 'Choisissez au moins un fichier, ou collez des lignes.',
      '#advanced > summary': 'Options avancées',
      '#predefined option[value=""]': 'Aucun : les réglages ci-dessous'.replace(' :', '\u202f:'),
    });
    t.equal(await page.getAttribute('#predefined-search', 'placeholder'), 'Chercher par nom, identifiant ou pays');
    t.equal(await page.getAttribute('#predefined-search', 'aria-label'), 'Chercher dans les paramètres prédéfinis');
    t.match(await text(page, 'label:has(#proxy)'), /^Type de proxy/, 'a label keeps its control, its text in French');
    t.ok(await page.$('label #proxy'), 'the select is still in its label');

    // a file chosen stays through the switch; its count follows the language
    const dir = await tempDir(t, 'logsift-i18n-');
    const file = join(dir, 'a.log');
    await writeFile(file, '1.2.3.4 - - [30/Nov/2012:00:14:18 +0100] "GET http://www.sciencedirect.com/science/article/pii/S0967064508000301 HTTP/1.1" 200 224846\n');
    await page.setInputFiles('#file-input', file);
    await page.waitForSelector('#file-list li');
    t.match(await text(page, '#file-total'), /^1 fichier, \d+ o$/);
    t.equal(await text(page, '#start-hint'), '1 entrée prête.');
    await screenshot('i18n-02-process-fr');

    await page.click('#lang-switch');
    t.equal(await lang(page), 'en', 'English after the switch');
    t.equal(await text(page, '#start'), 'Start processing');
    t.equal(await text(page, '#files-title'), '1Log files');
    t.equal(await text(page, '#predefined-note'), "A predefined setting fills the form with an institution's usual settings.");
    t.equal(await page.getAttribute('#predefined-search', 'placeholder'), 'Search by name, id or country');
    t.match(await text(page, '#file-total'), /^1 file, \d+ B$/, 'the file is still there, said in English');
    t.equal(await text(page, '#start-hint'), '1 input(s) ready.');
    t.equal(await text(page, '#login-open'), 'Log in');
    t.equal(await text(page, '#lang-switch'), 'FR');
    t.equal(await page.getAttribute('#lang-switch', 'aria-label'), 'Afficher les pages en français');

    await page.reload();
    await page.waitForSelector('#predefined optgroup', { state: 'attached' });
    t.equal(await lang(page), 'en', 'the choice survives a reload');
    t.equal(await text(page, '#start'), 'Start processing');

    await page.click('#lang-switch');
    t.equal(await lang(page), 'fr');
    t.equal(await text(page, '#start'), 'Lancer le traitement');
    await page.reload();
    await page.waitForSelector('#predefined optgroup', { state: 'attached' });
    t.equal(await lang(page), 'fr', 'French kept across a reload too');
    t.equal(await text(page, '#dropzone strong'), 'Déposez ici les fichiers de logs');
  });

  t.test('the administration in French: the gate, a wrong login said in French, the page', async (t) => {
    await page.goto(`${base}/admin`);
    t.equal(await lang(page), 'fr');
    await expectTexts(t, page, {
      '#gate h2': 'Administration',
      '#gate-text': 'Connectez-vous avec l’adresse et le mot de passe d’un administrateur.',
      '#gate-login': 'Se connecter',
      'nav a[href="/process"]': 'Traiter des logs',
    });
    await page.click('#gate-login');
    await expectTexts(t, page, {
      '#login-title': 'Connexion',
      '#login-reason': 'L’administration demande un administrateur.',
      '#login-form label:has([name="username"])': 'Adresse électronique',
      '#login-form button[type="submit"]': 'Se connecter',
      '#login-cancel': 'Annuler',
    });
    await page.fill('#login-form [name="username"]', 'admin@example.org');
    await page.fill('#login-form [name="password"]', 'Wrong-Horse-1');
    await page.click('#login-form button[type="submit"]');
    await page.waitForSelector('#login-error:not(:empty)');
    t.equal(await text(page, '#login-error'), 'Adresse ou mot de passe incorrect.', 'invalidCredentials in French');

    // (the modal dialog keeps the pointer from the top bar: a click from the script)
    const flip = () => page.$eval('#lang-switch', (b) => (b as unknown as { click(): void }).click());
    await flip();
    t.equal(await text(page, '#login-error'), 'Wrong address or password.', 'the error shown follows the switch');
    t.equal(await text(page, '#login-title'), 'Log in');
    await flip();
    t.equal(await text(page, '#login-error'), 'Adresse ou mot de passe incorrect.');

    await page.fill('#login-form [name="password"]', 'Correct-Horse-1');
    await page.click('#login-form button[type="submit"]');
    await page.waitForSelector('#admin:not([hidden])');
    await page.waitForSelector('#users-table tr[data-user]');
    await expectTexts(t, page, {
      '#logged-user': 'Connecté en tant que admin@example.org',
      '#logout': 'Se déconnecter',
      '#usage-title': 'Utilisation, 30 derniers jours',
      '#jobs-title': 'Traitements en cours',
      '#users-title': 'Utilisateurs',
      '#users-table thead': 'AdresseGroupeCréé leActions',
      '#users-table tr[data-user] td:nth-child(2)': 'Administrateur',
      '#user-form button[type="submit"]': 'Ajouter',
      '#updates-title': 'Mises à jour',
      '#part-app legend': 'Le service',
    });
    await screenshot('i18n-03-admin-fr');
  });

  t.test('a report opened from the pages is in their language, the one of the moment it is opened', async (t) => {
    // a job of the administrator's, then the administration page again: its recent jobs list it
    const posted = await fetch(`${base}/`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from('admin@example.org:Correct-Horse-1').toString('base64')}`, 'content-type': 'text/plain' },
      body: '1.2.3.4 - bob [10/Apr/2012:09:38:11 +0200] "GET http://x.com/ HTTP/1.1" 200 1234\n',
    });
    const id = posted.headers.get('job-id')!;
    await posted.text();
    await page.click('#logout');
    await page.click('#gate-login');
    await page.fill('#login-form [name="username"]', 'admin@example.org');
    await page.fill('#login-form [name="password"]', 'Correct-Horse-1');
    await page.click('#login-form button[type="submit"]');
    const link = `#history-table tr[data-job="${id}"] a`;
    await page.waitForSelector(link, { timeout: 20_000 });
    t.match(await page.getAttribute(link, 'href'), /[?&]lang=fr(&|$)/, 'the link asks for the French report');
    const [fr] = await Promise.all([french.context.waitForEvent('page'), page.click(link)]);
    await fr.waitForLoadState();
    t.match(await fr.textContent('h1'), /^Rapport d’exécution|^Rapport d'exécution/, 'the report in French');
    await fr.close();
    await page.click('#lang-switch');
    const [en] = await Promise.all([french.context.waitForEvent('page'), page.click(link)]);
    await en.waitForLoadState();
    t.match(await en.textContent('h1'), /^Execution report/, 'switched to English, the same link opens the English report');
    await en.close();
    await page.click('#lang-switch');
  });

  t.test('an English browser gets English, with the switch to French', async (t) => {
    const p = english.page;
    await p.goto(`${base}/process`);
    await p.waitForSelector('#predefined optgroup', { state: 'attached' });
    t.equal(await lang(p), 'en');
    t.equal(await text(p, '#start'), 'Start processing');
    t.equal(await text(p, '#lang-switch'), 'FR');
    t.equal(await p.getAttribute('#lang-switch', 'lang'), 'fr');
  });

  t.test('no page error, nothing outside', async (t) => {
    t.same(french.pageErrors, [], 'no error in the French pages');
    t.same(english.pageErrors, []);
    t.same(french.outside, []);
  });
}
