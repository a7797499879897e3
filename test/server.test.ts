import t from 'tap';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:http';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { openDatabase } from '../src/db/database.js';
import { JobStore } from '../src/db/jobs.js';
import { PROJECT_ROOT } from '../src/paths.js';

/** Starts `src/server.ts` in its own process; resolves with its URL once it listens. */
async function startServer(varDir: string): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  const child = spawn(process.execPath, ['--import=tsx', join(PROJECT_ROOT, 'src', 'server.ts')], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', VAR_DIR: varDir, POOL_THREADS: '1', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => { out += c.toString(); });
  child.stderr!.on('data', (c: Buffer) => { out += c.toString(); });
  for (let i = 0; i < 300; i++) {
    const m = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
    if (m) return { child, url: m[1], output: () => out };
    if (child.exitCode !== null) break;
    await sleep(100);
  }
  throw new Error(`the server did not start:\n${out}`);
}

const LINE = (i: number) => `1.2.3.${i % 250} - U${i} [30/Nov/2012:00:14:18 +0100] "GET http://www.sciencedirect.com:80/science/article/pii/S09670645080${String(i).padStart(5, '0')} HTTP/1.1" 200 2248\n`;

t.test('SIGTERM ends a running job cleanly, then the pool and the database; a restart marks cut-off jobs interrupted', async (t) => {
  const varDir = await mkdtemp(join(tmpdir(), 'logsift-server-'));
  t.teardown(() => rm(varDir, { recursive: true, force: true }));
  const { child, url, output } = await startServer(varDir);

  const req = request(url, { method: 'POST', headers: { 'Transfer-Encoding': 'chunked', 'Log-Format-ezproxy': '%h %l %u %t "%r" %s %b', 'Double-Click-Removal': 'false', TE: 'trailers' } });
  req.on('error', () => undefined);
  req.write(LINE(1));
  const [res] = (await once(req, 'response')) as [import('node:http').IncomingMessage];
  const id = res.headers['job-id'] as string;
  let body = '';
  res.on('data', (c: Buffer) => { body += c.toString(); });
  while (!body.includes('\n', body.indexOf('\n') + 1)) await sleep(20);

  child.kill('SIGTERM');
  await once(res, 'end');
  t.match(body, /#logsift-error 5003 /, 'the running job ends with the shutdown marker');
  t.equal(res.trailers['service-status'], '5003');
  const [code] = (await once(child, 'exit')) as [number];
  t.equal(code, 0, 'the process exits cleanly');
  t.match(output(), /shutting down/);

  const db = openDatabase(join(varDir, 'logsift.sqlite'));
  const row = new JobStore(db).get(id);
  t.equal(row?.state, 'aborted', 'the job row is closed');
  t.equal(row?.status_code, 5003);
  db.prepare("UPDATE jobs SET state = 'running', ended_at = NULL WHERE id = ?").run(id);
  db.close();

  const again = await startServer(varDir);
  t.match(again.output(), /marked interrupted/);
  const db2 = openDatabase(join(varDir, 'logsift.sqlite'));
  t.equal(new JobStore(db2).get(id)?.state, 'interrupted', 'a job left running by a previous process is interrupted');
  db2.close();
  const ok = await fetch(again.url, { method: 'POST', body: LINE(2), headers: { 'Log-Format-ezproxy': '%h %l %u %t "%r" %s %b' } });
  t.equal(ok.status, 200, 'new jobs run');
  again.child.kill('SIGTERM');
  await once(again.child, 'exit');
});
