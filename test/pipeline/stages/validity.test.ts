import t from 'tap';
import { isStaticResource, pathExtension, statusStage, validityStage, type StatusFilter } from '../../../src/pipeline/stages/validity.js';
import type { EventFlags } from '../../../src/pipeline/stages/types.js';
import type { AccessEvent } from '../../../src/pipeline/event.js';

const TS = Date.UTC(2024, 0, 1) / 1000;

function validity(ec: AccessEvent, forceParser = false) {
  return validityStage({ forceParser }).run(ec, { denied: false, pkbMiss: false });
}

t.test('the path extension: query string and fragment left out', async (t) => {
  t.equal(pathExtension('http://x.org/a/b.min.js?x=1'), 'js');
  t.equal(pathExtension('http://x.org/img/logo.PNG'), 'png', 'lower-cased');
  t.equal(pathExtension('http://x.org/page?next=a.png'), '');
  t.equal(pathExtension('http://x.org/page#a.css'), '');
  t.equal(pathExtension('http://www.jpeg.org/'), '', 'a dot in the host name is not an extension');
  t.equal(pathExtension('/a.b/c'), '', 'a dot in a folder name neither');
});

t.test('static resources are judged on the path, not the query (reference 3.3 step 3, better service)', async (t) => {
  t.equal(validity({ url: 'http://x.org/page?next=a.png', domain: 'x.org', timestamp: TS }), undefined, 'an image named in the query: kept');
  t.equal(validity({ url: 'http://x.org/style.css?v=1', domain: 'x.org', timestamp: TS }), 'filtered-ecs', 'a versioned style sheet: filtered');
  t.equal(validity({ url: 'http://x.org/img/logo.PNG', domain: 'x.org', timestamp: TS }), 'filtered-ecs', 'the extension in capitals: filtered');
  for (const path of ['/f.otf', '/a.gif', '/a.jpg', '/a.JPEG', '/app.js', '/lib/app.js.min', '/favicon.ico', '/f.woff2', '/a.js.map']) {
    t.ok(isStaticResource(`http://x.org${path}`), `${path} is static`);
  }
  for (const path of ['/gift', '/a.gift', '/doc.pdf', '/icon.ico', '/a.json', '/article.html', '/', '/search?q=style.css', '/read#page.png']) {
    t.notOk(isStaticResource(`http://x.org${path}`), `${path} is not static`);
  }
  t.notOk(isStaticResource('http://www.jpeg.org/'), 'the reference matched this one anywhere in the URL');
});

t.test('events without url, date or domain are filtered; a forced parser keeps domain-less ones', async (t) => {
  t.equal(validity({ url: 'http://x.org/a', domain: 'x.org', timestamp: TS }), undefined);
  t.equal(validity({ domain: 'x.org', timestamp: TS }), 'filtered-ecs', 'no url');
  t.equal(validity({ url: '', domain: 'x.org', timestamp: TS }), 'filtered-ecs', 'an empty url');
  t.equal(validity({ url: 'http://x.org/a', domain: 'x.org' }), 'filtered-ecs', 'no timestamp');
  t.equal(validity({ url: 'http://x.org/a', domain: 'x.org', timestamp: Number.NaN }), 'filtered-ecs', 'an unreadable date');
  t.equal(validity({ url: 'http://x.org/a', timestamp: TS }), 'filtered-ecs', 'no domain');
  t.equal(validity({ url: '/a', timestamp: TS }, true), undefined, 'no domain, Force-Parser');
  t.equal(validity({ url: '/a.css', timestamp: TS }, true), 'filtered-ecs', 'a forced parser still skips static resources');
});

function status(filter: StatusFilter, code: string | number | undefined): [string | undefined, boolean] {
  const flags: EventFlags = { denied: false, pkbMiss: false };
  const ec: AccessEvent = code === undefined ? {} : { status: code };
  return [statusStage(filter).run(ec, flags), flags.denied];
}

t.test('status filter, default mode (reference 3.3 step 4)', async (t) => {
  const keepRedirects: StatusFilter = { mode: 'default', redirects: false };
  const dropRedirects: StatusFilter = { mode: 'default', redirects: true };
  t.same(status(keepRedirects, '200'), [undefined, false]);
  t.same(status(keepRedirects, 304), [undefined, false], 'a numeric status');
  t.same(status(keepRedirects, '401'), [undefined, true], 'passes, marked denied');
  t.same(status(keepRedirects, '403'), [undefined, true]);
  t.same(status(keepRedirects, '301'), [undefined, false], 'redirects kept when not filtered');
  t.same(status(keepRedirects, '302'), [undefined, false]);
  t.same(status(dropRedirects, '301'), ['filtered-ecs', false], 'Filter-Redirects: true');
  t.same(status(dropRedirects, '302'), ['filtered-ecs', false]);
  t.same(status(dropRedirects, '200'), [undefined, false]);
  for (const code of ['404', '500', '206', '201', '-']) t.same(status(keepRedirects, code), ['filtered-ecs', false], `${code} filtered`);
  t.same(status(keepRedirects, undefined), [undefined, false], 'no status: passes');
});

t.test('status filter off, or a list of codes: nothing marked denied', async (t) => {
  const off: StatusFilter = { mode: 'off' };
  t.same(status(off, '500'), [undefined, false]);
  t.same(status(off, '403'), [undefined, false]);
  const list: StatusFilter = { mode: 'list', codes: new Set(['200', '201', '403']) };
  t.same(status(list, '201'), [undefined, false]);
  t.same(status(list, 403), [undefined, false], 'in the list: goes to the main output');
  t.same(status(list, '304'), ['filtered-ecs', false]);
  t.same(status(list, '401'), ['filtered-ecs', false]);
  t.same(status(list, undefined), [undefined, false]);
});
