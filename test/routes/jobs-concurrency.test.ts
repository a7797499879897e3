import t, { type Test } from 'tap';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { open, readFile } from 'node:fs/promises';
import { request, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startApp, type TestApp } from '../helpers/app.js';
import { shared } from '../helpers/shared.js';
import { tempDir } from '../helpers/service.js';

/**
 * Many jobs at once on the bench log (a cut of `shared/bench/make-log.js --seed 42`): all of them
 * are held running together, and each ends with exactly the bytes of the same job run alone.
 * CONCURRENCY_LINES and CONCURRENCY_JOBS change the size (default 100 000 lines, 8 jobs).
 */
const LINES = Number(process.env.CONCURRENCY_LINES ?? 100_000);
const JOBS = Number(process.env.CONCURRENCY_JOBS ?? 8);
const HEADERS = { 'Log-Format-ezproxy': '%h %l %u %t "%r" %s %b', 'Crypting-Salt': 'concurrency', TE: 'trailers' };

interface Answer {
  readonly digest: string;
  readonly bytes: number;
  readonly rows: number;
  readonly done: string | undefined;
}

/** Starts a job: sends `first`, then the rest once `go` resolves; the answer is digested as it comes. */
function job(url: string, first: Buffer, rest: Buffer, go: Promise<void>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { ...HEADERS, 'Transfer-Encoding': 'chunked' } });
    req.on('error', reject);
    req.on('response', (res: IncomingMessage) => {
      const hash = createHash('sha256');
      let bytes = 0;
      let rows = 0;
      res.on('data', (c: Buffer) => {
        hash.update(c);
        bytes += c.length;
        for (let i = c.indexOf(10); i >= 0; i = c.indexOf(10, i + 1)) rows++;
      });
      res.on('end', () => resolve({ digest: hash.digest('hex'), bytes, rows, done: res.trailers['job-done'] }));
      res.on('error', reject);
    });
    req.write(first);
    void (async () => {
      await go;
      for (let off = 0; off < rest.length; off += 1 << 16) {
        if (!req.write(rest.subarray(off, off + (1 << 16)))) await once(req, 'drain');
      }
      req.end();
    })().catch(reject);
  });
}

async function benchLog(t: Test): Promise<Buffer | undefined> {
  const maker = shared(t, 'bench', 'make-log.js');
  const csvDir = shared(t, 'platforms');
  if (!maker || !csvDir) return undefined;
  const dir = await tempDir(t, 'logsift-bench-');
  const file = join(dir, 'bench.log');
  // Written straight to a file: a pipe of a few hundred megabytes is not what the tool expects.
  const out = await open(file, 'w');
  const child = spawn(process.execPath, [maker, '--csv-dir', csvDir, '--lines', String(LINES), '--seed', '42'], { stdio: ['ignore', out.fd, 'ignore'] });
  const [code] = (await once(child, 'exit')) as [number];
  await out.close();
  if (code !== 0) throw new Error(`make-log.js exited with ${code}`);
  return readFile(file);
}

t.test(`${JOBS} jobs at once on ${LINES} lines of the bench log: each gives the events it gives alone`, async (t) => {
  const log = await benchLog(t);
  if (!log) return;
  const server: TestApp = await startApp({}, { POOL_THREADS: '2' });
  t.teardown(() => server.close());
  const cut = log.indexOf(10, 1 << 16) + 1;
  const [first, rest] = [log.subarray(0, cut), log.subarray(cut)];

  const started = Date.now();
  const alone = await job(server.url, first, rest, Promise.resolve());
  const aloneMs = Date.now() - started;
  t.equal(alone.done, 'true', 'the job alone is complete');
  t.ok(alone.rows > LINES / 10, `alone: ${alone.rows} rows, ${alone.bytes} bytes in ${aloneMs} ms`);

  let release!: () => void;
  const go = new Promise<void>((resolve) => { release = resolve; });
  const answers = Array.from({ length: JOBS }, () => job(server.url, first, rest, go));
  let held = 0;
  for (let i = 0; i < 600 && held < JOBS; i++) {
    held = Math.max(held, server.app.runningJobs.size);
    if (held < JOBS) await sleep(50);
  }
  t.equal(held, JOBS, `${JOBS} jobs held running at once`);
  const before = Date.now();
  release();
  const results = await Promise.all(answers);
  const allMs = Date.now() - before;
  results.forEach((r, i) => {
    t.equal(r.done, 'true', `job ${i + 1}: complete`);
    t.equal(r.digest, alone.digest, `job ${i + 1}: the same ${r.rows} rows, byte for byte, as the job alone`);
  });
  t.comment(`concurrency: ${held} jobs held at once on ${LINES} lines each; alone ${aloneMs} ms, all ${JOBS} together ${allMs} ms`);
});
