import t from 'tap';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startApp, EZPROXY_DEFAULT } from '../helpers/app.js';
import { post, csvRows } from '../helpers/http.js';
import { tempDir } from '../helpers/service.js';
import { ADMIN, basic } from '../helpers/accounts.js';

const LINE = '1.2.3.4 - JOHN [30/Nov/2012:00:14:18 +0100] "GET http://www.sciencedirect.com:80/science/article/pii/S0967064508000301 HTTP/1.1" 200 2248\n';

t.test('a predefined setting naming middlewares or platforms this service lacks: left out with a warning, the job runs', async (t) => {
  const root = await tempDir(t);
  const dir = join(root, 'settings');
  await mkdir(dir);
  // as the community's settings do: the reference's network middlewares, a platform of its own
  await writeFile(join(dir, 'community.json'), JSON.stringify({
    'with-network': { fullName: 'Network enrichments', country: 'FR', headers: { 'Log-Format-ezproxy': EZPROXY_DEFAULT, 'ezPAARSE-Middlewares': 'ezunpaywall, crossref | (after qualifier) panist', 'Force-Parser': 'oatao', 'Filter-Platforms': 'sd, nope' } },
    'only-missing': { fullName: 'Only missing', country: 'FR', headers: { 'Log-Format-ezproxy': EZPROXY_DEFAULT, 'ezPAARSE-Middlewares': '(only) ezunpaywall' } },
    'filter-missing': { fullName: 'Filter missing', country: 'FR', headers: { 'Log-Format-ezproxy': EZPROXY_DEFAULT, 'Filter-Platforms': 'nope' } },
  }));
  const server = await startApp({}, { POOL_THREADS: '1', PREDEFINED_SETTINGS_DIR: dir });
  t.teardown(() => server.close());

  const res = await post(server.url, LINE, { 'ezPAARSE-Predefined-Settings': 'with-network', Accept: 'text/csv' });
  t.equal(res.status, 200);
  t.equal(csvRows(res.text).length, 2, 'the event');
  const traces = await (await fetch(`${server.url}/${res.headers['job-id']}/job-traces.log`)).text();
  for (const name of ['ezunpaywall', 'crossref', 'panist']) t.match(traces, new RegExp(`ezPAARSE-Middlewares of the predefined setting: "${name}" is not a middleware of this service .*left out`));
  t.match(traces, /Force-Parser of the predefined setting: "oatao" is not a platform of this service/);
  t.match(traces, /Filter-Platforms of the predefined setting: "nope"/);

  const only = await post(server.url, LINE, { 'ezPAARSE-Predefined-Settings': 'only-missing', Accept: 'text/csv' });
  t.equal(csvRows(only.text).length, 2, '(only) of nothing known: the chain stays whole');
  const filtered = await post(server.url, LINE, { 'ezPAARSE-Predefined-Settings': 'filter-missing', Accept: 'text/csv' });
  t.equal(filtered.status, 200);
  t.equal(filtered.text, '', 'a filter of platforms this service lacks keeps none, not all');

  // the same names sent by the client itself are still refused: a script's mistake is told
  const own = await post(server.url, LINE, { 'ezPAARSE-Predefined-Settings': 'with-network', 'ezPAARSE-Middlewares': 'ezunpaywall' });
  t.equal(own.headers['service-status'], '4025');
  const parser = await post(server.url, LINE, { 'ezPAARSE-Predefined-Settings': 'with-network', 'Force-Parser': 'oatao' });
  t.equal(parser.headers['service-status'], '4033');
});

t.test('a custom setting an administrator wrote applies to the next job by its id, the request\'s headers winning; changed and deleted without a restart', async (t) => {
  const server = await startApp({}, { POOL_THREADS: '1' });
  t.teardown(() => server.close());
  const register = await fetch(`${server.url}/api/admin/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ userid: ADMIN.userid, password: ADMIN.password, confirm: ADMIN.password }) });
  t.equal(register.status, 201);
  const authorization = basic(ADMIN.userid, ADMIN.password);
  const write = (method: string, path: string, settings?: unknown) => fetch(`${server.url}/info/predefined-settings/custom${path}`, {
    method, headers: { authorization, ...(settings ? { 'content-type': 'application/json' } : {}) }, body: settings ? JSON.stringify({ settings }) : undefined,
  });
  const headers = { 'Log-Format-ezproxy': EZPROXY_DEFAULT, Accept: 'application/json', 'Crypted-Fields': 'none' };
  t.equal((await write('POST', '', { id: 'our-library', fullName: 'Our library', country: 'FR', headers })).status, 201);

  const job = (extra: Record<string, string> = {}) => post(server.url, LINE, { authorization, 'ezPAARSE-Predefined-Settings': 'our-library', ...extra });
  const res = await job();
  t.equal(res.status, 200);
  t.match(res.headers['content-type'], /^application\/json/, 'the setting\'s output format');
  const events = res.json<Array<Record<string, string>>>();
  t.equal(events.length, 1);
  t.equal(events[0].host, '1.2.3.4', 'its Crypted-Fields: none');
  const general = JSON.parse(server.app.jobStore.get(res.headers['job-id'] as string)!.report!).general;
  t.equal(general['predefined-settings'], 'our-library', 'the report names it');

  const requestWins = await job({ Accept: 'text/csv' });
  t.match(requestWins.headers['content-type'], /^text\/csv/, 'the request\'s own header wins');

  t.equal((await write('PUT', '/our-library', { fullName: 'Our library', country: 'FR', headers: { ...headers, Accept: 'text/tab-separated-values' } })).status, 200);
  t.match((await job()).headers['content-type'], /^text\/tab-separated-values/, 'the change applies to the next job');

  t.equal((await write('DELETE', '/our-library')).status, 204);
  const gone = await job();
  t.equal(gone.status, 400);
  t.equal(gone.headers['service-status'], '4026', 'deleted: an unknown setting');
});
