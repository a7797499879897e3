import t from 'tap';
import { randomUUID } from 'node:crypto';
import { allowedMethods, routeMatches } from '../src/allowed-methods.js';
import { isJobId } from '../src/pipeline/job-files.js';
import { testApp } from './helpers/accounts.js';

t.test('route patterns against paths', async (t) => {
  t.ok(routeMatches('/info/codes/:code', '/info/codes/4003'));
  t.notOk(routeMatches('/info/codes/:code', '/info/codes/'), 'a parameter is not empty');
  t.notOk(routeMatches('/info/codes/:code', '/info/codes/4003/x'));
  t.ok(routeMatches('/info/*', '/info/anything/below'));
  t.notOk(routeMatches('/:jobId', '/favicon.ico', { jobId: isJobId }), 'a checked parameter');
  const routes = [
    { method: 'GET', url: '/:jobId' }, { method: 'PUT', url: '/:jobId' }, { method: 'GET', url: '/' }, { method: 'POST', url: '/' },
    { method: 'OPTIONS', url: '/info/*' }, { method: 'GET', url: '/info/codes' },
  ];
  const id = randomUUID();
  t.same(allowedMethods(routes, `/${id}`, { jobId: isJobId }), ['GET', 'HEAD', 'PUT']);
  t.same(allowedMethods(routes, '/'), ['GET', 'HEAD', 'POST']);
  t.same(allowedMethods(routes, '/info/codes'), ['GET', 'HEAD']);
  t.same(allowedMethods(routes, '/info/nothing'), [], 'a preflight route alone does not make a path known');
});

t.test('a wrong method on a known path: 405 and Allow; on an unknown path: 404', async (t) => {
  const ta = await testApp(t);
  const id = randomUUID();
  for (const [method, url, allow] of [
    ['DELETE', `/${id}`, 'GET, HEAD, PUT'],
    ['POST', `/${id}/job-report.json`, 'GET, HEAD'],
    ['DELETE', `/${id}/lines-unknown-formats.log`, 'GET, HEAD'],
    ['POST', '/info/codes', 'GET, HEAD'],
    ['PATCH', '/', 'GET, HEAD, POST'],
  ] as const) {
    const res = await ta.inject({ method, url });
    t.equal(res.statusCode, 405, `${method} ${url}`);
    t.equal(res.headers.allow, allow);
    t.match(res.json(), { statusCode: 405, message: 'methodNotAllowed', detail: `${url} takes ${allow}, not ${method}` });
  }
  for (const [method, url] of [['DELETE', '/favicon.ico'], ['GET', '/info/nothing'], ['POST', '/no/such/path']] as const) {
    const res = await ta.inject({ method, url });
    t.equal(res.statusCode, 404, `${method} ${url}`);
    t.equal(res.headers.allow, undefined);
    t.equal(res.json().message, `Route ${method}:${url} not found`);
  }
});
