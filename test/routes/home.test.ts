import t from 'tap';
import { registerAdmin, testApp } from '../helpers/accounts.js';

t.test('GET / and the files of public/', async (t) => {
  const ta = await testApp(t);
  const setup = await ta.inject({ method: 'GET', url: '/' });
  t.equal(setup.statusCode, 200);
  t.match(setup.headers['content-type'], /^text\/html/);
  t.match(setup.body, /<form id="register" method="post" action="\/api\/admin\/register">/);
  t.match(setup.body, /name="userid"[\s\S]*name="password"[\s\S]*name="confirm"/);
  t.equal(setup.headers['x-content-type-options'], 'nosniff');
  for (const [url, type] of [['/setup.js', /javascript/], ['/logsift.css', /text\/css/]] as const) {
    const res = await ta.inject({ method: 'GET', url });
    t.equal(res.statusCode, 200, url);
    t.match(res.headers['content-type'], type, url);
  }
  const missing = await ta.inject({ method: 'GET', url: '/nothing-here.html' });
  t.equal(missing.statusCode, 404);
  t.match(missing.headers['content-type'], /application\/json/);

  await registerAdmin(t, ta);
  const home = await ta.inject({ method: 'GET', url: '/' });
  t.match(home.body, /The service is running/);
  t.match(home.body, /<a href="\/info\/codes">/);
});
