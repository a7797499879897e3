import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import type { Test } from 'tap';
import { PROJECT_ROOT } from '../../src/paths.js';
import { tempDir } from './service.js';

/** Debian's chromium (`apt-get install chromium`); never a downloaded browser. */
export const CHROMIUM = '/usr/bin/chromium';
export const SCREENSHOTS = join(PROJECT_ROOT, 'test-output', 'screenshots');

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** A page's own route may have answered the request already (unrouted while it ran): nothing to do then. */
function settled(e: Error): void {
  if (!/already handled/.test(e.message)) throw e;
}

export interface Browser {
  readonly context: BrowserContext;
  readonly page: Page;
  /** every request that tried to leave the machine (each was aborted) */
  readonly outside: string[];
  /** problems the pages reported (uncaught errors, console errors) */
  readonly pageErrors: string[];
  screenshot(name: string, page?: Page): Promise<string>;
}

/**
 * Chromium, headless, on a fresh profile, closed at the end of the test; or undefined after a
 * visible skip when it is not installed. Requests to anything but the loopback are aborted and
 * recorded, so a test can assert that nothing left the machine. `locale`: the browser's language
 * (its default otherwise, English here).
 */
export async function openBrowser(t: Test, options: { locale?: string } = {}): Promise<Browser | undefined> {
  if (!existsSync(CHROMIUM)) {
    t.skip(`${CHROMIUM} is missing (apt-get install chromium): the browser tests are skipped`, () => undefined);
    return undefined;
  }
  const profile = await tempDir(t, 'logsift-chromium-');
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    viewport: { width: 1280, height: 900 },
    acceptDownloads: true,
    // the browser's preferred language (navigator.languages, Accept-Language): the pages' language follows it
    ...(options.locale ? { locale: options.locale } : {}),
  });
  t.teardown(() => context.close());
  const outside: string[] = [];
  await context.route('**/*', async (route) => {
    const url = new URL(route.request().url());
    if (LOOPBACK.has(url.hostname)) return route.continue().catch(settled);
    outside.push(url.href);
    return route.abort('blockedbyclient').catch(settled);
  });
  const pageErrors: string[] = [];
  const watch = (page: Page) => {
    page.on('pageerror', (err) => pageErrors.push(`${page.url()}: ${err.message}`));
    page.on('console', (m) => {
      // A refused request (401, 404 on purpose) is the test's business, not a page error.
      if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) pageErrors.push(`${page.url()}: ${m.text()}`);
    });
  };
  context.on('page', watch);
  const page = context.pages()[0] ?? (await context.newPage());
  watch(page);
  await mkdir(SCREENSHOTS, { recursive: true });
  return {
    context,
    page,
    outside,
    pageErrors,
    async screenshot(name, which = page) {
      const path = join(SCREENSHOTS, `${name}.png`);
      await which.screenshot({ path, fullPage: true });
      return path;
    },
  };
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/**
 * A ScienceDirect log in the default EZproxy format, one line per second from 30/Nov/2012
 * 12:00: mostly article pages and PDFs, with the lines a real log also has (other sites, failed
 * requests, page furniture, a malformed line now and then). `offset` shifts the clock.
 */
export function generatedLog(lines: number, offset = 0): string {
  const out: string[] = [];
  for (let i = 0; i < lines; i++) {
    const s = 12 * 3600 + offset + i;
    const time = `30/Nov/2012:${pad(Math.floor(s / 3600) % 24)}:${pad(Math.floor(s / 60) % 60)}:${pad(s % 60)} +0100`;
    const host = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
    const user = `READER${i % 97}`;
    const pii = `S0967064508${pad(i % 5000, 6)}`;
    const kind = i % 20;
    if (kind === 7 && i > 0) {
      out.push(`garbled line ${i} without any format`);
      continue;
    }
    const [url, status] =
      kind === 3 ? [`http://www.unknown-publisher.example/articles/${i}`, 200]
        : kind === 5 ? [`http://www.sciencedirect.com:80/science/article/pii/${pii}`, 404]
          : kind === 9 ? [`http://www.sciencedirect.com:80/static/images/logo-${i % 7}.gif`, 200]
            : kind % 2 === 0 ? [`http://www.sciencedirect.com:80/science/article/pii/${pii}/pdfft`, 200]
              : [`http://www.sciencedirect.com:80/science/article/pii/${pii}`, 200];
    out.push(`${host} - ${user} [${time}] "GET ${url} HTTP/1.1" ${status} ${1000 + (i % 9000)}`);
  }
  return `${out.join('\n')}\n`;
}

/**
 * Writes the generated logs the browser tests upload: one plain, one gzip, named to come after
 * the shared ScienceDirect sample (which ends at 10:59) in name order, as they do in time.
 */
export async function writeLogs(t: Test): Promise<{ plain: string; gzipped: string }> {
  const dir = await tempDir(t, 'logsift-logs-');
  const plain = join(dir, 'x-proxy.log');
  const gzipped = join(dir, 'y-proxy.log.gz');
  await writeFile(plain, generatedLog(3000));
  await writeFile(gzipped, gzipSync(generatedLog(1500, 3000)));
  return { plain, gzipped };
}
