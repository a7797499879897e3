import t from 'tap';
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { listenStartError, StartError } from '../src/start-error.js';

/** The error a listen on `host`:`port` fails with. */
async function listenFailure(host: string, port: number): Promise<unknown> {
  const server = createServer();
  server.listen(port, host);
  const [err] = (await once(server, 'error')) as [unknown];
  return err;
}

t.test('a failed listen names the setting to fix: PORT or HOST', async (t) => {
  const taken = createServer();
  taken.listen(0, '127.0.0.1');
  await once(taken, 'listening');
  t.teardown(() => taken.close());
  const port = (taken.address() as AddressInfo).port;

  const inUse = listenStartError(await listenFailure('127.0.0.1', port), '127.0.0.1', port);
  t.type(inUse, StartError);
  t.equal(inUse?.message, `PORT: the port ${port} on 127.0.0.1 is used by another process: stop it or choose another PORT (0: any free port)`);
  t.match(listenStartError(await listenFailure('not-a-host.invalid', 0), 'not-a-host.invalid', 0)?.message, /^HOST: "not-a-host\.invalid" is not an address nor a host name that resolves: correct HOST/);
  // an address of another machine (TEST-NET-1, never assigned)
  t.match(listenStartError(await listenFailure('192.0.2.1', 0), '192.0.2.1', 0)?.message, /^HOST: 192\.0\.2\.1 is not an address of this machine: correct HOST/);
  // (the tests run as root, who may listen anywhere: the error as a user gets it)
  t.match(listenStartError(Object.assign(new Error('listen EACCES: permission denied 0.0.0.0:80'), { code: 'EACCES' }), '0.0.0.0', 80)?.message, /^PORT: listening on the port 80 is not allowed/);
  t.equal(listenStartError(new Error('something else'), '127.0.0.1', 0), undefined, 'another failure is logged whole');
});
