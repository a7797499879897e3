import t from 'tap';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:http';
import { once } from 'node:events';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { openDatabase } from '../src/db/database.js';
import { JobStore } from '../src/db/jobs.js';
import { RESULT_FILE } from '../src/pipeline/job-files.js';
import { PROJECT_ROOT } from '../src/paths.js';
import { open, readFile, writeFile } from 'node:fs/promises';
import Database from 'better-sqlite3';
import { ADMIN, basic } from './helpers/accounts.js';
import { SHARED_GEOIP_CACHE, SHARED_PLATFORMS_CACHE } from './helpers/shared-caches.js';

/** Starts `src/server.ts` in its own process; resolves with its URL once it listens. */
async function startServer(varDir: string, env: Record<string, string> = {}): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  const child = spawn(process.execPath, ['--import=tsx', join(PROJECT_ROOT, 'src', 'server.ts')], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', VAR_DIR: varDir, GEOIP_CACHE_DIR: SHARED_GEOIP_CACHE, PLATFORMS_CACHE_DIR: SHARED_PLATFORMS_CACHE, POOL_THREADS: '1', LOG_LEVEL: 'info', ...env },
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
  t.equal(res.trailers['service-status-message'], 'The service is shutting down: send the job again once it is back up', 'said once, with what to do');
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
  await ok.text();
  // the job files hold the log's lines (addresses, logins): not for the machine's other users
  const written = [join(varDir, 'logsift.sqlite'), join(varDir, 'jobs', id), ...(await readdir(join(varDir, 'jobs', id))).map((f) => join(varDir, 'jobs', id, f))];
  for (const file of written) t.equal((await stat(file)).mode & 0o007, 0, `${file.slice(varDir.length)}: no access for others`);
  again.child.kill('SIGTERM');
  await once(again.child, 'exit');
});

t.test('SIGTERM with a client that reads nothing of its answer: the job ends (5003) and the process exits at once', async (t) => {
  const varDir = await mkdtemp(join(tmpdir(), 'logsift-server-'));
  t.teardown(() => rm(varDir, { recursive: true, force: true }));
  const { child, url } = await startServer(varDir);
  const port = Number(new URL(url).port);
  const body = Buffer.from(Array.from({ length: 40_000 }, (_, i) => LINE(i)).join(''));
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  socket.pause();
  socket.write(`POST / HTTP/1.1\r\nHost: x\r\nLog-Format-ezproxy: %h %l %u %t "%r" %s %b\r\nDouble-Click-Removal: false\r\nContent-Length: ${body.length}\r\n\r\n`);
  socket.write(body);
  await sleep(3000);
  const started = Date.now();
  child.kill('SIGTERM');
  const [code] = (await once(child, 'exit')) as [number];
  const seconds = (Date.now() - started) / 1000;
  t.equal(code, 0, 'a clean exit');
  t.ok(seconds < 15, `in ${seconds.toFixed(1)} s (the answer's connection is cut 5 s after the jobs are ended; it held the close 30 s)`);
  socket.destroy();
  const db = openDatabase(join(varDir, 'logsift.sqlite'));
  const rows = db.prepare('SELECT state, status_code FROM jobs').all() as Array<{ state: string; status_code: number }>;
  db.close();
  t.same(rows, [{ state: 'aborted', status_code: 5003 }], 'its job ended as the shutdown\'s');
});

t.test('SIGTERM while a client is still uploading: the close goes to its end (workers, database, lock) before the exit', async (t) => {
  const varDir = await mkdtemp(join(tmpdir(), 'logsift-server-'));
  t.teardown(() => rm(varDir, { recursive: true, force: true }));
  const { child, url, output } = await startServer(varDir);
  const port = Number(new URL(url).port);
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  socket.write(`POST / HTTP/1.1\r\nHost: x\r\nLog-Format-ezproxy: %h %l %u %t "%r" %s %b\r\nDouble-Click-Removal: false\r\nContent-Length: 100000000\r\n\r\n`);
  // an upload still coming when the signal arrives, a line at a time
  let i = 0;
  const sending = setInterval(() => socket.write(LINE(i++)), 20);
  await sleep(1500);
  t.ok(await stat(join(varDir, 'logsift.lock')).then(() => true, () => false), 'the lock is held while the service runs');
  child.kill('SIGTERM');
  const [code] = (await once(child, 'exit')) as [number];
  clearInterval(sending);
  socket.destroy();
  t.equal(code, 0, 'a clean exit');
  // Node left the close half done when nothing else kept its event loop: the lock stayed, and
  // the workers and the database were not closed.
  t.notOk(await stat(join(varDir, 'logsift.lock')).then(() => true, () => false), 'the lock is let go: the close reached its end');
  t.notOk(await stat(join(varDir, 'logsift.sqlite-wal')).then((s) => s.size > 0, () => false), 'the database closed (its write-ahead log emptied)');
  t.match(output(), /shutting down/);
});

t.test('kill -9 during a job: after a restart the database is intact, the job is interrupted, its files readable, new jobs run', async (t) => {
  const varDir = await mkdtemp(join(tmpdir(), 'logsift-kill-'));
  t.teardown(() => rm(varDir, { recursive: true, force: true }));
  const env = { AUTH_JOBS: 'never', FLUSH_AFTER_MS: '20' };
  const first = await startServer(varDir, env);
  t.teardown(() => { if (first.child.exitCode === null) first.child.kill('SIGKILL'); });
  const register = await fetch(`${first.url}/api/admin/register`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ userid: ADMIN.userid, password: ADMIN.password, confirm: ADMIN.password }),
  });
  t.equal(register.status, 201, 'an account written before the crash');

  const req = request(first.url, { method: 'POST', headers: { 'Transfer-Encoding': 'chunked', 'Log-Format-ezproxy': '%h %l %u %t "%r" %s %b', 'Double-Click-Removal': 'false', 'Reject-Files': 'all', TE: 'trailers' } });
  req.on('error', () => undefined);
  for (let i = 0; i < 200; i++) req.write(LINE(i));
  const [res] = (await once(req, 'response')) as [import('node:http').IncomingMessage];
  res.on('error', () => undefined);
  const id = res.headers['job-id'] as string;
  let received = 0;
  res.on('data', (c: Buffer) => { received += c.length; });
  // The job is well under way: events streamed, more lines still coming.
  while (received === 0) await sleep(20);
  for (let i = 200; i < 400; i++) req.write(LINE(i));
  // A deferred job too: its result file has events and is never closed.
  const deferredId = randomUUID();
  const put = request(`${first.url}/${deferredId}`, { method: 'PUT', headers: { 'Transfer-Encoding': 'chunked', 'Log-Format-ezproxy': '%h %l %u %t "%r" %s %b', 'Double-Click-Removal': 'false' } });
  put.on('error', () => undefined);
  for (let i = 0; i < 200; i++) put.write(LINE(i));
  // killed once its result file holds events (a busy machine takes its time)
  const resultBytes = async () => {
    const dir = join(varDir, 'jobs', deferredId);
    const name = (await readdir(dir).catch(() => [] as string[])).find((n) => RESULT_FILE.test(n));
    return name ? (await stat(join(dir, name))).size : 0;
  };
  for (let waited = 0; waited < 15_000 && (await resultBytes()) === 0; waited += 50) await sleep(50);
  first.child.kill('SIGKILL');
  await once(first.child, 'exit');
  req.destroy();
  put.destroy();

  const db = openDatabase(join(varDir, 'logsift.sqlite'));
  t.equal(db.pragma('integrity_check', { simple: true }), 'ok', 'the database file is intact after kill -9');
  t.equal(new JobStore(db).get(id)?.state, 'running', 'the row still says running before the restart');
  db.close();

  const again = await startServer(varDir, env);
  t.teardown(() => { if (again.child.exitCode === null) again.child.kill('SIGKILL'); });
  t.match(again.output(), /marked interrupted/);
  const db2 = openDatabase(join(varDir, 'logsift.sqlite'));
  const row = new JobStore(db2).get(id);
  db2.close();
  t.equal(row?.state, 'interrupted', 'the job is marked interrupted');
  t.equal(row?.status_code, 5003);
  t.ok((row?.lines_read ?? 0) >= 0 && row?.report, 'its progress and report stay in the row');
  t.ok(row?.progress_at && row.ended_at === row.progress_at, 'it ended at its last snapshot, not at the restart');
  const report = JSON.parse(await readFile(join(varDir, 'jobs', id, 'report.json'), 'utf8')) as { general: Record<string, unknown> };
  t.equal(report.general.status, 5003, 'report.json says the job was interrupted');
  t.equal(Date.parse(String(report.general['Job-Snapshot-Date'])), Math.floor(Date.parse(row!.ended_at!) / 1000) * 1000, 'and when its counts are from');
  t.equal(report.general['Job-Done'], false);
  t.match(await readFile(join(varDir, 'jobs', id, 'job-traces.log'), 'utf8'), new RegExp(`New job with ID: ${id}`), 'the traces are readable');
  await readFile(join(varDir, 'jobs', id, 'denied-ecs.csv'), 'utf8');
  const deferred = await fetch(`${again.url}/${deferredId}`);
  t.equal(deferred.status, 200, 'the deferred job\'s result is served');
  const result = await deferred.text();
  t.match(result, /^\S+;/, 'with the events written before the crash');
  t.match(result, /\n#logsift-error 5003 The service stopped while the job was running\n$/, 'and the error line a failure ends it with');
  t.match(await readFile(join(varDir, 'jobs', deferredId, 'job-traces.log'), 'utf8'), /error: Job interrupted: 5003 /, 'its traces say so');
  const users = await fetch(`${again.url}/api/admin/users`, { headers: { authorization: basic(ADMIN.userid, ADMIN.password) } });
  t.equal(users.status, 200, 'the account written before the crash logs in');

  const ok = await fetch(again.url, { method: 'POST', body: LINE(2), headers: { 'Log-Format-ezproxy': '%h %l %u %t "%r" %s %b', TE: 'trailers' } });
  t.equal(ok.status, 200, 'new jobs run');
  await ok.text();
  again.child.kill('SIGTERM');
  await once(again.child, 'exit');
});

/** Runs `src/server.ts` expecting it to refuse to start: its exit code and output. */
async function failedStart(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['--import=tsx', join(PROJECT_ROOT, 'src', 'server.ts')], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', GEOIP_CACHE_DIR: SHARED_GEOIP_CACHE, PLATFORMS_CACHE_DIR: SHARED_PLATFORMS_CACHE, POOL_THREADS: '1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => { output += c.toString(); });
  child.stderr!.on('data', (c: Buffer) => { output += c.toString(); });
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const [code] = (await once(child, 'exit')) as [number | null];
  clearTimeout(timer);
  return { code, output };
}

t.test('a configuration mistake stops the start: exit code 1, one line naming the setting, no stack', async (t) => {
  const varDir = await mkdtemp(join(tmpdir(), 'logsift-start-'));
  t.teardown(() => rm(varDir, { recursive: true, force: true }));
  // mistakes found after the configuration is read (its own refusals: test/config.test.ts), on a
  // start kept short: no platforms, no geolocation
  const noPlatforms = await mkdtemp(join(tmpdir(), 'logsift-start-platforms-'));
  t.teardown(() => rm(noPlatforms, { recursive: true, force: true }));
  const quick = { PLATFORMS_DIR: noPlatforms, GEOIP_DB: 'none' };
  // a zone every job would fail on (5002), a setting every job would hang on
  for (const [env, said] of [
    [{ DEFAULT_TIME_ZONE: 'Mars/Olympus' }, /DEFAULT_TIME_ZONE: unknown time zone "Mars\/Olympus"/],
    [{ BATCHES_IN_FLIGHT: '0' }, /BATCHES_IN_FLIGHT must be a whole number from 1 to 1024, got "0"/],
    // a default header every job would be refused for, naming a header its client never sent
    [{ DEFAULT_JOB_HEADERS: '{"Accept":"text/csv","Force-Parser":"no-such-platform"}' }, /DEFAULT_JOB_HEADERS: .*Force-Parser: "no-such-platform" .*status 4033/],
    // checked when the resources are loaded: was an Error with its stack
    [{ MIDDLEWARES: 'bogus', ...quick }, /^cannot start: MIDDLEWARES names unknown middlewares: bogus \(built in: filter, .*anonymizer; in .*: user-agent-parser\)$/],
    // a listen error: was `getaddrinfo ENOTFOUND not-a-host.invalid` with its stack (the others: test/start-error.test.ts)
    [{ HOST: 'not-a-host.invalid', ...quick }, /^cannot start: HOST: "not-a-host\.invalid" is not an address nor a host name that resolves: correct HOST/],
  ] as const) {
    const { code, output } = await failedStart({ VAR_DIR: varDir, ...env });
    t.equal(code, 1, `${Object.keys(env)[0]}: exit code 1`);
    // (the start logs what it loaded before the job defaults are checked against it)
    const errors = output.trim().split('\n').map((l) => JSON.parse(l) as { level: number }).filter((l) => l.level >= 50);
    t.equal(errors.length, 1, 'one error line');
    t.match(errors[0], { level: 60, msg: said });
    // (a stack is written inside the JSON line, its line breaks escaped)
    t.notMatch(output, /\n\s+at |"stack":/, 'no stack');
  }
});

t.test('a VAR_DIR whose database cannot be opened: a start error naming VAR_DIR and the file', async (t) => {
  const varDir = await mkdtemp(join(tmpdir(), 'logsift-start-'));
  t.teardown(() => rm(varDir, { recursive: true, force: true }));
  // (the tests run as root, for whom no permission is missing: the database's name is taken by a folder)
  await mkdir(join(varDir, 'logsift.sqlite'));
  const { code, output } = await failedStart({ VAR_DIR: varDir });
  t.equal(code, 1);
  t.equal(output.trim().split('\n').length, 1, 'one line');
  t.match(output, `cannot start: VAR_DIR: cannot open the database ${join(varDir, 'logsift.sqlite')}`);
  t.notMatch(output, /SqliteError|\n\s+at /, 'no stack');
  await writeFile(join(varDir, 'file'), '');
  const made = await failedStart({ VAR_DIR: join(varDir, 'file', 'var') });
  t.equal(made.code, 1, 'nor one that cannot be made');
  t.match(made.output, `cannot start: VAR_DIR: cannot create the folder ${join(varDir, 'file', 'var')} (ENOTDIR)`);
});

t.test('one service per VAR_DIR: a second refuses to start and leaves the first\'s jobs alone; a lock left by kill -9 does not stop a restart', { timeout: 90_000 }, async (t) => {
  const varDir = await mkdtemp(join(tmpdir(), 'logsift-lock-'));
  t.teardown(() => rm(varDir, { recursive: true, force: true }));
  const first = await startServer(varDir, { FLUSH_AFTER_MS: '20' });
  t.teardown(() => { if (first.child.exitCode === null) first.child.kill('SIGKILL'); });

  // a running job of the first service
  const req = request(first.url, { method: 'POST', headers: { 'Transfer-Encoding': 'chunked', 'Log-Format-ezproxy': '%h %l %u %t "%r" %s %b', 'Double-Click-Removal': 'false', TE: 'trailers' } });
  req.on('error', () => undefined);
  req.write(LINE(1));
  const [res] = (await once(req, 'response')) as [import('node:http').IncomingMessage];
  res.on('error', () => undefined);
  res.resume();
  const id = res.headers['job-id'] as string;

  const second = await failedStart({ VAR_DIR: varDir });
  t.equal(second.code, 1, 'the second service exits with code 1');
  t.match(second.output, `VAR_DIR ${varDir} is used by another logsift process (pid ${first.child.pid})`);
  t.match(second.output, /stop that service, or give this one its own VAR_DIR/);
  t.notMatch(second.output, /marked interrupted/);
  const db = openDatabase(join(varDir, 'logsift.sqlite'));
  t.equal(new JobStore(db).get(id)?.state, 'running', 'the first service\'s job still runs');
  db.close();
  req.end(LINE(2));
  await once(res, 'end');
  t.equal(res.trailers['job-done'], 'true', 'and ends well');

  first.child.kill('SIGKILL');
  await once(first.child, 'exit');
  t.equal(await readFile(join(varDir, 'logsift.lock'), 'utf8'), String(first.child.pid), 'kill -9 leaves its lock');
  const again = await startServer(varDir);
  t.teardown(() => { if (again.child.exitCode === null) again.child.kill('SIGKILL'); });
  t.equal(await readFile(join(varDir, 'logsift.lock'), 'utf8'), String(again.child.pid), 'a restart takes it over');
  again.child.kill('SIGTERM');
  await once(again.child, 'exit');
  await t.rejects(readFile(join(varDir, 'logsift.lock')), { code: 'ENOENT' }, 'a clean stop removes it');
});

t.test('a database locked by another process fails the jobs that need it then, alone: the service and its other jobs go on', { timeout: 120_000 }, async (t) => {
  const varDir = await mkdtemp(join(tmpdir(), 'logsift-storage-'));
  t.teardown(() => rm(varDir, { recursive: true, force: true }));
  const { child, url, output } = await startServer(varDir, { JOB_REPORT_INTERVAL_MS: '60000' });
  t.teardown(() => { if (child.exitCode === null) child.kill('SIGKILL'); });
  const file = join(varDir, 'logsift.sqlite');

  /** A job whose upload stays open; its answer has begun (first event sent). */
  async function streaming() {
    const req = request(url, { method: 'POST', headers: { 'Transfer-Encoding': 'chunked', 'Log-Format-ezproxy': '%h %l %u %t "%r" %s %b', 'Double-Click-Removal': 'false', TE: 'trailers' } });
    req.on('error', () => undefined);
    req.write(LINE(1));
    const [res] = (await once(req, 'response')) as [import('node:http').IncomingMessage];
    let body = '';
    res.on('data', (c: Buffer) => { body += c.toString(); });
    const ended = once(res, 'end').then(() => ({ body, trailers: res.trailers }));
    return { req, res, ended };
  }
  const ending = await streaming();
  const going = await streaming();

  // another process holds the database's write lock for longer than busy_timeout (5 s)
  const other = new Database(file);
  other.exec('BEGIN EXCLUSIVE');
  const refusing = fetch(url, { method: 'POST', body: LINE(3), headers: { 'Log-Format-ezproxy': '%h %l %u %t "%r" %s %b' } });
  // the new job waits for its row without holding the process (SQLite's own wait stopped every
  // job and request for the 5 s)
  await sleep(500);
  const asked = Date.now();
  t.ok((await fetch(`${url}/health`)).ok);
  const took = Date.now() - asked;
  t.ok(took < 2500, `the service answers while a job waits for the lock (${took} ms)`);
  const refused = await refusing;
  t.equal(refused.status, 503, 'a job that cannot get its row: 503');
  t.equal(refused.headers.get('service-status'), '5005');
  const said = `The service cannot write its storage: the database ${file} is locked by another process (SQLITE_BUSY)`;
  t.match(refused.headers.get('service-status-message'), said, 'naming the file and the other process');
  t.match(await refused.json(), { code: 5005, message: said }, 'the body says the same');

  // a job that ends while the lock is held: its row cannot be closed, it fails, said in its answer
  ending.req.end(LINE(4));
  const ended = await ending.ended;
  t.match(ended.body, `#logsift-error 5005 ${said}`, 'the error line');
  t.equal(ended.trailers['job-done'], 'false');
  t.equal(ended.trailers['service-status'], '5005', 'and the trailers');
  const endedId = String(ending.res.headers['job-id']);
  t.match(other.prepare('SELECT state FROM jobs WHERE id = ?').get(endedId), { state: 'running' }, 'its row could not be closed');
  other.exec('COMMIT');
  other.close();
  // closed once the lock is gone, rather than left running until the next start
  const reader = new Database(file, { readonly: true });
  t.teardown(() => reader.close());
  const rowOf = () => reader.prepare('SELECT state, status_code FROM jobs WHERE id = ?').get(endedId) as { state: string; status_code: number | null };
  for (let waited = 0; waited < 10_000 && rowOf().state === 'running'; waited += 100) await sleep(100);
  t.same(rowOf(), { state: 'failed', status_code: 5005 }, 'the row closed as the job ended: failed, 5005');

  going.req.end(LINE(5));
  const went = await going.ended;
  t.equal(went.trailers['job-done'], 'true', 'a job running meanwhile ends well');
  t.notMatch(went.body, /#logsift-error/);
  t.equal(child.exitCode, null, 'the service runs on');
  t.ok((await fetch(`${url}/health`)).ok, 'and answers');
  const errors = output().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { level: number; msg: string }).filter((l) => l.level >= 50);
  t.match(errors.map((e) => e.msg), [/^the job row could not be made: .*locked by another process/, /^the job row could not be closed \(done\): .*locked by another process/], 'each failure said at error level');
  t.match(output(), /"the job row is closed at last \(failed, 5005\)"/, 'and its late closing said');
  t.notMatch(output(), /job crashed|triggerUncaughtException/);
  child.kill('SIGTERM');
  await once(child, 'exit');
});

t.test('a damaged or locked database at start: the start error says so, and what to do', { timeout: 60_000 }, async (t) => {
  const varDir = await mkdtemp(join(tmpdir(), 'logsift-start-'));
  t.teardown(() => rm(varDir, { recursive: true, force: true }));
  const file = join(varDir, 'logsift.sqlite');
  openDatabase(file).close();

  const other = new Database(file);
  other.exec('BEGIN EXCLUSIVE');
  const locked = await failedStart({ VAR_DIR: varDir });
  other.exec('ROLLBACK');
  other.close();
  t.equal(locked.code, 1);
  t.match(locked.output, `cannot start: VAR_DIR: the database ${file} is locked by another process (SQLITE_BUSY)`);
  t.notMatch(locked.output, /SqliteError|\n\s+at /, 'no stack');

  const handle = await open(file, 'r+');
  await handle.write(Buffer.alloc(100, 'x'), 0, 100, 0);
  await handle.close();
  const damaged = await failedStart({ VAR_DIR: varDir });
  t.equal(damaged.code, 1);
  t.match(damaged.output, `cannot start: VAR_DIR: the database ${file} is damaged (SQLITE_NOTADB`);
  t.match(damaged.output, /restore the file from a backup, or move it aside/);
  t.notMatch(damaged.output, /give the service write access/, 'not the advice for a folder it cannot write');
});
