import t from 'tap';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { startApp } from '../helpers/app.js';
import { tempDir } from '../helpers/service.js';
import { openBrowser } from '../helpers/browser.js';

// what the page functions read in the browser (the tests are type-checked without the DOM's types)
declare const document: { querySelector(selector: string): { textContent: string | null } | null };

// The submission page when things go wrong: a job that fails while its files are still being
// sent, the format tester on a wrong date format and on a .gz that is not gzip.

const browser = await openBrowser(t);
if (browser) {
  const { page, screenshot } = browser;
  const root = await tempDir(t, 'logsift-process-errors-');
  await mkdir(join(root, 'no-platforms'));
  const server = await startApp({}, { POOL_THREADS: '1', PLATFORMS_DIR: join(root, 'no-platforms'), AUTH_JOBS: 'never' });
  t.teardown(() => server.close());
  const base = server.url;
  const text = async (p: Page, selector: string) => ((await p.textContent(selector)) ?? '').trim();
  const SD = '247.63.228.176 - X [30/Nov/2012:00:14:17 +0100] "GET http://www.sciencedirect.com:80/science/journal/00121606 HTTP/1.1" 200 224846';

  t.test('a job that fails during the upload: the upload stops and the error shows at once', async (t) => {
    // 4 MiB of lines no format knows, sent at 256 KiB/s: 16 s to send it all; the job fails on
    // its first lines (4003, Max-Parse-Attempts).
    const file = join(root, 'garbage.log');
    const line = 'this is not a log line of any format, only words and more words to fill the file\n';
    await writeFile(file, line.repeat(Math.ceil((4 * 1024 * 1024) / line.length)));
    await page.goto(`${base}/process`);
    await page.waitForSelector('#predefined optgroup, #start-hint', { state: 'attached' });
    await page.setInputFiles('#file-input', [file]);
    const cdp = await browser.context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 256 * 1024 });
    const started = Date.now();
    await page.click('#start');
    await page.waitForSelector('#job-state.bad', { timeout: 30_000 });
    const took = Date.now() - started;
    t.ok(took < 10_000, `failed shown after ${took} ms, not once the 16 s upload is over`);
    t.equal(await text(page, '#job-state'), 'failed');
    t.match(await text(page, '#job-error'), /^4003: /, 'the job\'s error');
    t.notMatch(await text(page, '#status-line'), /Sending the files/, 'no longer says it is sending');
    const sent = Number((await text(page, '#fig-sent')).split(' ')[0]);
    t.ok(!/MiB/.test(await text(page, '#fig-sent')) || sent < 4, `the upload stopped: ${await text(page, '#fig-sent')} sent`);
    // What a failed job offers: its report, which says why, not "Download the result (0 events)".
    t.notOk(await page.$('#download-result.primary'), 'the result is not the main action');
    t.notOk(await page.$('#download-result'), 'nor offered at all with no event');
    t.equal(await page.getAttribute('#open-report', 'class'), 'primary', 'the report is');
    t.match(await text(page, '#open-report'), /report/i);
    await screenshot('process-failed-during-upload');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    await cdp.detach();
  });

  t.test('the format tester: a wrong date format is not "matches"', async (t) => {
    await page.goto(`${base}/process`);
    await page.click('#paste-box summary');
    await page.fill('#paste', `${SD}\n${SD}\n`);
    await page.fill('#date-format', 'YYYY-MM-DD');
    await page.click('#test-format');
    await page.waitForSelector('#tester-verdict');
    t.equal(await page.getAttribute('#tester-verdict', 'class'), 'notice bad');
    const verdict = await text(page, '#tester-verdict');
    t.match(verdict, /^Not recognised/);
    t.match(verdict, /date does not read with the date format YYYY-MM-DD/, 'the reason');
    t.match(verdict, /0 of the 2 first lines/);
    t.notMatch(await text(page, '#tester-out'), /The format matches|Recognised:/);

    await page.fill('#date-format', '');
    await page.click('#test-format');
    await page.waitForFunction(() => /^Recognised/.test(document.querySelector('#tester-verdict')?.textContent ?? ''));
    t.match(await text(page, '#tester-verdict'), /2 of the 2 first lines match/, 'the default date format reads them');
  });

  t.test('the format tester on a .gz that is not gzip: the error, not "Testing…" for ever', async (t) => {
    await page.goto(`${base}/process`);
    await page.setInputFiles('#file-input', [{ name: 'not-gzip.log.gz', mimeType: 'application/gzip', buffer: Buffer.from(`${SD}\n`) }]);
    await page.click('#test-format');
    await page.waitForSelector('#tester-out .notice.bad', { timeout: 10_000 });
    t.match(await text(page, '#tester-out'), /not-gzip\.log\.gz could not be read as gzip/);
    t.notMatch(await text(page, '#tester-out'), /Testing…/);
  });

  t.test('the pages reported no error', async (t) => {
    t.same(browser.outside, []);
    t.same(browser.pageErrors, [], browser.pageErrors.join('\n'));
  });
}
