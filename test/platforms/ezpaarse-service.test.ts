import t from 'tap';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { startApp, EZPROXY_DEFAULT } from '../helpers/app.js';

// A folder laid out like the community's platform repository, given to the service as an extra
// platforms folder (EXTRA_PLATFORMS_DIRS): its parser.js files must run in the parsing workers.
const FIXTURE = fileURLToPath(new URL('./fixtures/ezpaarse', import.meta.url));

t.test('a job posted to the service is parsed by community parser.js platforms in the workers', async (t) => {
  const app = await startApp({}, { EXTRA_PLATFORMS_DIRS: FIXTURE });
  t.teardown(() => app.close());
  t.same(app.config.extraPlatformsDirs, [FIXTURE], 'EXTRA_PLATFORMS_DIRS is read by the configuration');
  t.ok(app.app.platforms.names.has('demojournal') && app.app.platforms.names.has('demobooks'), 'loaded beside the bundled platforms');
  t.ok(app.app.platforms.names.has('sd'), 'the bundled platforms are still there');

  const lines = [
    '10.0.0.1 - alice [15/Jan/2024:10:00:00 +0100] "GET https://journals.logsift-demo.org:443/journal/jama/article/123/pdf HTTP/1.1" 200 52000',
    '10.0.0.2 - bob [15/Jan/2024:10:05:00 +0100] "GET http://books.logsift-demo.org:80/book/9780000000001/chapter/3?format=pdf HTTP/1.1" 200 81000',
    '10.0.0.3 - carol [15/Jan/2024:10:06:00 +0100] "GET http://books.logsift-demo.org:80/book/9780000000001/chapter/4?format=pdf HTTP/1.1" 200 0',
    '10.0.0.4 - dave [15/Jan/2024:10:07:00 +0100] "GET https://journals.logsift-demo.org:443/static/logo.png HTTP/1.1" 200 1200',
  ];
  const res = await fetch(`${app.url}/`, {
    method: 'POST',
    headers: { 'Log-Format-EZproxy': EZPROXY_DEFAULT, Accept: 'application/json', 'Content-Type': 'text/plain' },
    body: lines.join('\n') + '\n',
  });
  t.equal(res.status, 200);
  const events = JSON.parse(await res.text()) as Array<Record<string, string>>;
  t.equal(events.length, 2, 'the 0-byte chapter and the logo are not consultations');
  t.match(events[0], {
    platform: 'demojournal', platform_name: 'Demo Journals', publisher_name: 'Demo Publisher',
    title_id: 'jama', unitid: 'jama.123', doi: '10.5555/jama.123', rtype: 'ARTICLE', mime: 'PDF',
  });
  t.match(events[1], { platform: 'demobooks', online_identifier: '9780000000001', unitid: '9780000000001/3', rtype: 'BOOK_SECTION', mime: 'PDF' });

  // The service's own thread never loaded the parsers: the events above came from the workers.
  const cache = createRequire(import.meta.url).cache;
  const loaded = () => Object.keys(cache).filter((k) => k.startsWith(FIXTURE));
  t.same(loaded(), [], 'no parser.js in the main thread');
  createRequire(import.meta.url)(`${FIXTURE}/demobooks/parser.js`);
  t.equal(loaded().length, 2, 'the check sees a parser (and its .lib helper) once the main thread loads it');
});
