import t from 'tap';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { registerAdmin, testApp } from '../helpers/accounts.js';
import { PROJECT_ROOT } from '../../src/paths.js';

t.test('GET / and the files of public/', async (t) => {
  const ta = await testApp(t);
  const setup = await ta.inject({ method: 'GET', url: '/' });
  t.equal(setup.statusCode, 200);
  t.match(setup.headers['content-type'], /^text\/html/);
  t.match(setup.body, /<form id="register" method="post" action="\/api\/admin\/register">/);
  t.match(setup.body, /name="userid"[\s\S]*name="password"[\s\S]*name="confirm"/);
  t.equal(setup.headers['x-content-type-options'], 'nosniff');
  t.match(setup.headers['content-security-policy'], /script-src 'self'/);
  t.equal(setup.headers['cache-control'], 'no-store');
  for (const [url, type] of [['/setup.js', /javascript/], ['/logsift.css', /text\/css/], ['/app.js', /javascript/], ['/favicon.svg', /svg/]] as const) {
    const res = await ta.inject({ method: 'GET', url });
    t.equal(res.statusCode, 200, url);
    t.match(res.headers['content-type'], type, url);
    t.equal(res.headers['x-content-type-options'], 'nosniff');
  }
  const missing = await ta.inject({ method: 'GET', url: '/nothing-here.html' });
  t.equal(missing.statusCode, 404);
  t.match(missing.headers['content-type'], /application\/json/);

  const process = await ta.inject({ method: 'GET', url: '/process' });
  t.match(process.body, /id="dropzone"/, 'the submission page, also before the administrator exists');
  await registerAdmin(t, ta);
  const home = await ta.inject({ method: 'GET', url: '/' });
  t.match(home.body, /id="dropzone"/, 'then the home page');
  t.match(home.body, /<script type="module" src="\/app\.js"><\/script>/);
  const admin = await ta.inject({ method: 'GET', url: '/admin' });
  t.match(admin.body, /src="\/admin\.js"/);
  t.match(admin.headers['content-security-policy'], /default-src 'none';script-src 'self'/);
});

t.test('the pages need no inline script or style (a strict CSP applies)', async (t) => {
  const dir = join(PROJECT_ROOT, 'public');
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.html'))) {
    const html = readFileSync(join(dir, file), 'utf8');
    t.notMatch(html, /<script(?![^>]*\ssrc=)[^>]*>/i, `${file}: every script is a file`);
    t.notMatch(html, /<style|\sstyle=/i, `${file}: no inline style`);
    t.notMatch(html, /\son[a-z]+=/i, `${file}: no inline handler`);
  }
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.js'))) {
    const js = readFileSync(join(dir, file), 'utf8');
    t.notMatch(js, /innerHTML|outerHTML|insertAdjacentHTML|document\.write/, `${file}: no HTML strings (values are text nodes)`);
  }
});
