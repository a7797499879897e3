import t from 'tap';
import { testApp } from '../helpers/accounts.js';

t.test('GET /api/health and /health: 204 while the database answers, 503 JSON when it does not', async (t) => {
  const ta = await testApp(t);
  for (const url of ['/api/health', '/health']) {
    const res = await ta.inject({ url });
    t.equal(res.statusCode, 204, url);
    t.equal(res.body, '');
    t.equal(res.headers['cache-control'], 'no-store');
  }
  ta.app.db.close();
  for (const url of ['/api/health', '/health']) {
    const res = await ta.inject({ url });
    t.equal(res.statusCode, 503, url);
    t.match(res.headers['content-type'], /^application\/json/);
    t.match(res.json(), { status: 'unavailable', checks: { database: /not open/ } });
  }
});
