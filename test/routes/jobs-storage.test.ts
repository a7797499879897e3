import t from 'tap';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startApp, type TestApp, EZPROXY_DEFAULT } from '../helpers/app.js';
import { postJob } from '../helpers/jobs.js';

const LINE = (i: number) => `1.2.3.${i % 250} - U${i} [30/Nov/2012:00:14:${String(i % 60).padStart(2, '0')} +0100] "GET http://www.sciencedirect.com:80/science/article/pii/S09670645080${String(i).padStart(5, '0')} HTTP/1.1" 200 2248\n`;
const FORMAT = { 'Log-Format-ezproxy': EZPROXY_DEFAULT, 'Double-Click-Removal': 'false' };

let app: TestApp;
t.before(async () => {
  app = await startApp();
});
t.teardown(() => app.close());

t.test('a jobs folder that cannot be made: 503 5005 naming the file in the way, the service goes on', async (t) => {
  const jobs = join(app.varDir, 'jobs');
  await rm(jobs, { recursive: true, force: true });
  await writeFile(jobs, '');
  const refused = await postJob(app.url, LINE(1), FORMAT);
  t.equal(refused.status, 503);
  t.equal(refused.headers.get('service-status'), '5005');
  const said = `The service cannot write its storage: the file ${jobs} stands where a folder is expected (ENOTDIR): move it away`;
  t.equal(refused.headers.get('service-status-message'), said);
  t.match(JSON.parse(refused.body), { code: 5005, message: said }, 'the body says the same as the header');
  const deferred = await fetch(`${app.url}/${crypto.randomUUID()}`, { method: 'PUT', body: LINE(1), headers: FORMAT });
  t.equal(deferred.status, 503, 'a deferred job too');
  // (mkdir says EEXIST there)
  t.match(deferred.headers.get('service-status-message'), `The service cannot write its storage: the file ${jobs} stands where a folder is expected`);
  await rm(jobs);
  const ok = await postJob(app.url, LINE(2), FORMAT);
  t.equal(ok.status, 200, 'jobs run again once it is fixed');
});
