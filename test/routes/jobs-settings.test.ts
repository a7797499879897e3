import t from 'tap';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startApp, EZPROXY_DEFAULT } from '../helpers/app.js';
import { post, csvRows } from '../helpers/http.js';
import { tempDir } from '../helpers/service.js';

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
