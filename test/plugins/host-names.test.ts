import t from 'tap';
import { request } from 'node:http';
import { once } from 'node:events';
import { allowedHostNames, hostAllowed } from '../../src/plugins/host-names.js';
import { startApp } from '../helpers/app.js';

/** A request with the Host header a rebinding page's browser would send. */
async function send(url: string, host: string, method: string, path: string, body = ''): Promise<{ status: number; json: Record<string, unknown> }> {
  const req = request(`${url}${path}`, { method, headers: { Host: host, 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': Buffer.byteLength(body) } });
  req.end(body);
  const [res] = (await once(req, 'response')) as [import('node:http').IncomingMessage];
  let text = '';
  for await (const chunk of res) text += chunk;
  return { status: res.statusCode!, json: JSON.parse(text) as Record<string, unknown> };
}

t.test('which Host names a service takes', async (t) => {
  const local = allowedHostNames({ host: '127.0.0.1', publicBaseUrl: undefined });
  for (const ok of ['127.0.0.1:59599', 'localhost:59599', 'LOCALHOST', '[::1]:59599', '10.1.2.3', 'logsift:59599', 'app.localhost:1', undefined]) t.ok(hostAllowed(ok, local), String(ok));
  for (const refused of ['attacker.example:59599', 'attacker.example.', '127.0.0.1.nip.io', '[not-an-ip]:1']) t.notOk(hostAllowed(refused, local), refused);
  const published = allowedHostNames({ host: '0.0.0.0', publicBaseUrl: 'https://Logs.Example.org/logsift' });
  t.ok(hostAllowed('logs.example.org', published), 'PUBLIC_BASE_URL\'s name');
  t.notOk(hostAllowed('other.example.org', published));
  t.equal(allowedHostNames({ host: '0.0.0.0', publicBaseUrl: undefined }), undefined, 'every interface, no public URL: any name');
  t.ok(allowedHostNames({ host: 'localhost', publicBaseUrl: undefined })?.has('localhost'));
});

t.test('DNS rebinding: a page of another site cannot register the founder of a fresh install', async (t) => {
  const app = await startApp();
  t.teardown(() => app.close());
  const port = new URL(app.url).port;
  const form = 'userid=mallory%40attacker.example&password=Xq7-zz-Rt-99%21k&confirm=Xq7-zz-Rt-99%21k';
  const refused = await send(app.url, `attacker.example:${port}`, 'POST', '/api/admin/register', form);
  t.equal(refused.status, 421);
  t.match(refused.json, { statusCode: 421, message: 'misdirectedRequest', detail: /not "attacker\.example:\d+".*PUBLIC_BASE_URL/ });
  t.equal((await send(app.url, `attacker.example:${port}`, 'GET', '/api/info/version')).status, 421, 'nor read anything');
  t.equal(app.app.userStore.count(), 0, 'no account made');
  const made = await send(app.url, `localhost:${port}`, 'POST', '/api/admin/register', form.replace('attacker.example', 'library.example'));
  t.equal(made.status, 201, 'the same request naming the service itself');
});
