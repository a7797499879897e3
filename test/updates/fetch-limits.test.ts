import t from 'tap';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Test } from 'tap';
import { fs, git } from '../../src/updates/git.js';
import { startGitServer } from '../helpers/git-server.js';
import { cloneInto, demoPlatform, Upstream } from '../helpers/git-fixtures.js';
import { adminHeaders, startService, tempDir } from '../helpers/service.js';

/**
 * An HTTP proxy in front of a git server that can turn into a trickling origin: it then answers
 * 200 and a pkt-line announcing 65520 bytes, and sends 64 of them every 200 ms (for 10 s at most),
 * so that no socket timeout ever fires.
 */
async function tricklingProxy(t: Test, target: string) {
  let trickling = false;
  const server = createServer((req, res) => {
    if (!trickling) {
      const upstream = httpRequest(`${target}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
      return;
    }
    res.writeHead(200, { 'content-type': 'application/x-git-upload-pack-advertisement' });
    res.write('fff0');
    const every = setInterval(() => res.write('a'.repeat(64)), 200);
    const stop = setTimeout(() => res.end(), 10_000);
    res.on('close', () => {
      clearInterval(every);
      clearTimeout(stop);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  }));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    trickle: (on: boolean) => {
      trickling = on;
    },
  };
}

async function platformsBehindProxy(t: Test, env: Record<string, string>) {
  const root = await tempDir(t);
  const server = await startGitServer(join(root, 'served'));
  t.teardown(() => server.close());
  const proxy = await tricklingProxy(t, server.url);
  const up = new Upstream(server.root, proxy.url, 'platforms');
  await up.init(demoPlatform('ARTICLE'));
  const dir = join(root, 'repos', 'platforms');
  const gitdir = join(root, 'repos', '.gitdirs', 'platforms');
  await cloneInto(up.url, dir, gitdir);
  const { app } = await startService(t, root, { env: { PLATFORMS_ORIGIN: up.url, ...env } });
  return { app, up, proxy, gitdir };
}

t.test('a fetch from an origin that keeps trickling bytes ends at UPDATES_FETCH_TIMEOUT_MS: 502 fetchFailed, then the part is free', async (t) => {
  const { app, up, proxy, gitdir } = await platformsBehindProxy(t, { UPDATES_FETCH_TIMEOUT_MS: '1500' });
  const before = await git.resolveRef({ fs, gitdir, ref: 'HEAD' });
  const tip = await up.commit(demoPlatform('BOOK'), 'books');
  proxy.trickle(true);
  const started = Date.now();
  const res = await app.inject({ method: 'PUT', url: '/api/admin/platforms/status', headers: adminHeaders() });
  const took = Date.now() - started;
  t.equal(res.statusCode, 502, res.body);
  t.match(res.json(), { message: 'fetchFailed', detail: /did not end within 1500 ms/ });
  t.ok(took < 5000, `ended by the deadline (${took} ms), not by the origin`);
  t.equal(await git.resolveRef({ fs, gitdir, ref: 'HEAD' }), before, 'nothing moved');

  proxy.trickle(false);
  const next = await app.inject({ method: 'PUT', url: '/api/admin/platforms/status', headers: adminHeaders() });
  t.equal(next.statusCode, 200, 'the lock was released');
  t.equal(next.json().headOid, tip);
});

t.test('a plain status answers from the local refs at once while someone else\'s ?refresh=1 fetch runs', async (t) => {
  const { app, proxy } = await platformsBehindProxy(t, { UPDATES_FETCH_INTERVAL_MS: '3600000', UPDATES_FETCH_TIMEOUT_MS: '4000' });
  const status = (query = '') => app.inject({ url: `/api/admin/platforms/status${query}`, headers: adminHeaders() });
  const first = (await status()).json();
  t.type(first.fetchedAt, 'string', 'a first fetch worked');

  proxy.trickle(true);
  const refreshing = status('?refresh=1');
  await new Promise((resolve) => setTimeout(resolve, 300));
  const started = Date.now();
  const plain = await status();
  const took = Date.now() - started;
  t.equal(plain.statusCode, 200);
  t.ok(took < 1000, `answered in ${took} ms, not after the running fetch`);
  t.match(plain.json(), { 'from-head': 'uptodate', fetchedAt: first.fetchedAt });
  t.notOk('error' in plain.json());

  const refreshed = (await refreshing).json();
  t.match(refreshed, { error: /^fetch failed: .*did not end within 4000 ms/, fetchedAt: first.fetchedAt }, 'the refresh waited for its fetch');
});
