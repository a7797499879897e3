import t from 'tap';
import { request as httpRequest, type ClientRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { fs, git, http } from '../../src/updates/git.js';
import { startGitServer } from '../helpers/git-server.js';
import { applyChanges, commitLocally, demoPlatform, Upstream } from '../helpers/git-fixtures.js';
import { adminHeaders, startService, tempDir } from '../helpers/service.js';
import { platformsClone } from '../helpers/platforms-part.js';

const FORMAT = '%h %l %u %t "%r" %s %b';

function put(app: FastifyInstance, part: string, query = '', body?: string, contentType?: string) {
  const headers: Record<string, string> = adminHeaders();
  if (contentType) headers['content-type'] = contentType;
  return app.inject({ method: 'PUT', url: `/api/admin/${part}/status${query}`, headers, payload: body });
}

const headOf = (gitdir: string) => git.resolveRef({ fs, gitdir, ref: 'HEAD' });

t.test('8. local changes refuse the update; force=yes discards them', async (t) => {
  const { app, up, dir, gitdir } = await platformsClone(t);
  const next = await up.commit(demoPlatform('BOOK'), 'books');
  const file = join(dir, 'demo', 'rules.yaml');
  const edited = `${await readFile(file, 'utf8')}# local edit\n`;
  await writeFile(file, edited);
  const before = await headOf(gitdir);

  const refused = await put(app, 'platforms');
  t.equal(refused.statusCode, 409);
  t.match(refused.json(), { message: 'localChanges', detail: /demo\/rules\.yaml/ });
  t.equal(await readFile(file, 'utf8'), edited, 'the edit is still there');
  t.equal(await headOf(gitdir), before, 'HEAD did not move');

  const forced = await put(app, 'platforms', '?force=yes');
  t.equal(forced.statusCode, 200);
  t.match(forced.json(), {
    'is-git-repo': true, 'from-head': 'uptodate', 'from-tag': 'uptodate', 'local-commits': false, 'local-changes': false, headOid: next,
  });
  t.match(await readFile(file, 'utf8'), /rtype: BOOK/);
});

t.test('9. two concurrent updates: one is refused with updateInProgress', async (t) => {
  const { app, up } = await platformsClone(t);
  await up.commit(demoPlatform('BOOK'), 'books');
  const answers = await Promise.all([put(app, 'platforms'), put(app, 'platforms')]);
  t.same(answers.map((a) => a.statusCode).sort(), [200, 409]);
  t.equal(answers.find((a) => a.statusCode === 409)?.json().message, 'updateInProgress');
  t.equal((await put(app, 'platforms')).statusCode, 200, 'the next update may run');
});

t.test('10. origin unreachable: PUT answers 502 fetchFailed with the reason and touches nothing', async (t) => {
  const { app, up, server, dir, gitdir } = await platformsClone(t);
  await up.commit(demoPlatform('BOOK'), 'books');
  const before = await headOf(gitdir);
  const rules = await readFile(join(dir, 'demo', 'rules.yaml'), 'utf8');
  await server.close();
  const res = await put(app, 'platforms');
  t.equal(res.statusCode, 502, 'the origin failed, not the service (reference 3.5, scenario 10)');
  t.match(res.json(), { statusCode: 502, error: 'Bad Gateway', message: 'fetchFailed', detail: String });
  t.ok(res.json().detail.length > 0, `the reason: ${res.json().detail}`);
  t.equal(await headOf(gitdir), before);
  t.equal(await readFile(join(dir, 'demo', 'rules.yaml'), 'utf8'), rules);
  t.notOk(await git.resolveRef({ fs, gitdir, ref: 'refs/remotes/origin/master' }).then((oid) => oid !== before), 'origin ref unchanged');
});

t.test('new platform rules that cannot be loaded: PUT answers 500 updateFailed and the part stays as it was', async (t) => {
  const { app, up, dir, gitdir } = await platformsClone(t);
  const file = join(dir, 'demo', 'rules.yaml');
  const before = { head: await headOf(gitdir), rules: await readFile(file, 'utf8'), version: app.platforms.version };
  const platforms = (await app.inject({ url: '/info/platforms' })).body;
  await up.commit({ 'demo/rules.yaml': 'format: 1\nrules: [ { when: \n' }, 'broken rules');

  const res = await put(app, 'platforms');
  t.equal(res.statusCode, 500);
  t.match(res.json(), { statusCode: 500, error: 'Internal Server Error', message: 'updateFailed', detail: /^platforms not loaded: demo: / });
  t.notOk(res.json().detail.includes(dir), 'the reason names the folder, not its path on the server');
  t.equal(await headOf(gitdir), before.head, 'HEAD did not move');
  t.equal(await readFile(file, 'utf8'), before.rules, 'the rules file is as it was');
  t.equal(app.platforms.version, before.version, 'the loaded platforms are the same');
  t.equal((await app.inject({ url: '/info/platforms' })).body, platforms, '/info/platforms unchanged');
  const status = (await app.inject({ url: '/api/admin/platforms/status', headers: adminHeaders() })).json();
  t.match(status, { 'local-changes': false, headOid: before.head, 'from-head': 'outdated' });
  t.notOk(status.updating, 'the lock is released');

  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  const job = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', headers: { 'Log-Format-ezproxy': FORMAT, Accept: 'application/jsonstream' }, body: line(1) });
  t.equal(job.status, 200);
  t.match(JSON.parse((await job.text()).trim().split('\n')[0]), { platform: 'demo', rtype: 'ARTICLE', unitid: '1' }, 'a job still works on the old rules');
});

t.test('new platform rules that parse but do not compile (an invalid regular expression): refused the same way', async (t) => {
  const { app, up, dir, gitdir } = await platformsClone(t);
  const before = { head: await headOf(gitdir), rules: await readFile(join(dir, 'demo', 'rules.yaml'), 'utf8') };
  await up.commit({ 'demo/rules.yaml': "format: 1\nrules:\n  - when: { path: '^/(unclosed' }\n    set: { rtype: BOOK }\n" }, 'a bad pattern');
  const res = await put(app, 'platforms');
  t.equal(res.statusCode, 500);
  t.match(res.json(), { message: 'updateFailed', detail: /^platforms not loaded: demo: rules\[0\]\.when\.path: invalid regular expression/ });
  t.equal(await headOf(gitdir), before.head, 'HEAD did not move');
  t.equal(await readFile(join(dir, 'demo', 'rules.yaml'), 'utf8'), before.rules, 'the rules file is as it was');
});

t.test('untracked files an update would replace: kept unless forced, and put back when a forced update fails', async (t) => {
  const { app, up, dir, gitdir } = await platformsClone(t);
  const mine = join(dir, 'extra', 'notes.txt');
  await mkdir(dirname(mine), { recursive: true });
  await writeFile(mine, 'mine\n');
  const before = await headOf(gitdir);
  await up.commit({ 'extra/notes.txt': 'theirs\n', 'demo/rules.yaml': "format: 1\nrules:\n  - when: { path: '^/(unclosed' }\n    set: { rtype: BOOK }\n" }, 'their notes, a bad pattern');

  const refused = await put(app, 'platforms');
  t.equal(refused.statusCode, 409, 'refused as local changes are, not a 500');
  t.match(refused.json(), { message: 'localChanges', detail: /extra\/notes\.txt/ });
  t.equal(await readFile(mine, 'utf8'), 'mine\n');
  t.equal(await headOf(gitdir), before, 'HEAD did not move');

  const forced = await put(app, 'platforms', '?force=yes');
  t.equal(forced.statusCode, 500);
  t.match(forced.json(), { message: 'updateFailed', detail: /^platforms not loaded: demo: / });
  t.equal(await readFile(mine, 'utf8'), 'mine\n', 'the untracked file is back as it was (the rollback deleted it)');
  t.equal(await headOf(gitdir), before, 'HEAD is back');
  t.match((await app.inject({ url: '/api/admin/platforms/status', headers: adminHeaders() })).json(), { 'local-changes': false, headOid: before });
});

t.test('a diverged history is refused unless forced', async (t) => {
  const { app, up, dir, gitdir } = await platformsClone(t);
  const theirs = await up.commit({ 'demo/notes.txt': 'theirs' }, 'on the origin');
  await commitLocally(dir, gitdir, { 'demo/mine.txt': 'mine' }, 'here only');
  const refused = await put(app, 'platforms');
  t.equal(refused.statusCode, 409);
  t.equal(refused.json().message, 'diverged');
  const forced = await put(app, 'platforms', '?force=yes');
  t.equal(forced.statusCode, 200);
  t.match(forced.json(), { headOid: theirs, 'local-commits': false, 'from-head': 'uptodate' });
});

t.test('a branch with local commits while HEAD is detached on the origin\'s commit: not moved without force', async (t) => {
  const { app, up, dir, gitdir } = await platformsClone(t);
  const first = await headOf(gitdir);
  const mine = await commitLocally(dir, gitdir, { 'demo/mine.txt': 'mine' }, 'here only');
  await git.checkout({ fs, dir, gitdir, ref: first });
  const theirs = await up.commit({ 'demo/notes.txt': 'theirs' }, 'on the origin');
  const master = () => git.resolveRef({ fs, gitdir, ref: 'refs/heads/master' });
  const refused = await put(app, 'platforms');
  t.equal(refused.statusCode, 409);
  t.match(refused.json(), { message: 'diverged', detail: /^the branch master [0-9a-f]{7} has commits/ });
  t.equal(await master(), mine, 'the local commit is still on master');
  t.equal(await headOf(gitdir), first, 'HEAD did not move');
  const forced = await put(app, 'platforms', '?force=yes');
  t.equal(forced.statusCode, 200);
  t.equal(await master(), theirs, 'force=yes discards it');
});

t.test('local commits ahead of the origin: nothing to update, they stay', async (t) => {
  const { app, dir, gitdir } = await platformsClone(t);
  const mine = await commitLocally(dir, gitdir, { 'demo/mine.txt': 'mine' }, 'here only');
  const res = await put(app, 'platforms');
  t.equal(res.statusCode, 200);
  t.match(res.json(), { headOid: mine, 'local-commits': true, 'from-head': 'uptodate' });
});

t.test('the body: none, "uptodate" or {"to":"uptodate"}; anything else is 400', async (t) => {
  const { app } = await platformsClone(t);
  t.equal((await put(app, 'platforms', '', 'platforms', 'text/plain')).statusCode, 400, 'the 3.x client body');
  t.equal((await put(app, 'platforms', '', 'platforms', 'text/plain')).json().message, 'invalidBody');
  t.equal((await put(app, 'platforms', '', '{"to":"latest"}', 'application/json')).statusCode, 400);
  t.equal((await put(app, 'platforms', '', 'uptodate', 'text/plain')).statusCode, 200);
  t.equal((await put(app, 'platforms', '', ' uptodate\n')).statusCode, 200);
  t.equal((await put(app, 'platforms', '', '{"to":"uptodate"}', 'application/json')).statusCode, 200);
  t.equal((await put(app, 'platforms', '', '', 'application/json')).statusCode, 200, 'an empty JSON body');
  const maybe = await put(app, 'platforms', '?force=maybe');
  t.equal(maybe.statusCode, 400);
  t.equal(maybe.json().detail, 'querystring/force must be one of "yes", "no"', 'the values allowed, once');
  t.equal((await put(app, 'nothing')).statusCode, 404);
});

t.test('a fresh install: the bundled snapshot gives way to the origin without force', async (t) => {
  const root = await tempDir(t);
  const server = await startGitServer(join(root, 'served'));
  t.teardown(() => server.close());
  const up = new Upstream(server.root, server.url, 'platforms');
  const tip = await up.init(demoPlatform('BOOK', 'Demo from the origin'));
  await applyChanges(join(root, 'repos', 'platforms'), demoPlatform('ARTICLE'));
  const { app } = await startService(t, root, { env: { PLATFORMS_ORIGIN: up.url } });
  const first = (await app.inject({ method: 'GET', url: '/api/admin/platforms/status', headers: adminHeaders() })).json();
  t.match(first, { bundled: true, 'local-commits': false, 'from-head': 'outdated' });
  t.equal(first.loadedOid, first.headOid, 'read before it was a repository: its first commit is what the service runs');
  t.notOk('reloadNeeded' in first);
  const res = await put(app, 'platforms');
  t.equal(res.statusCode, 200);
  t.match(res.json(), { headOid: tip, 'from-head': 'uptodate', 'local-commits': false });
  t.notOk('bundled' in res.json());
  t.equal((await app.inject({ url: '/info/platforms' })).json()[0].longname, 'Demo from the origin');
});

t.test('refused and failed updates leave a warning in the service log: the part, the code, the cause', async (t) => {
  const logs: string[] = [];
  const { app, up, dir, server } = await platformsClone(t, {}, logs);
  const warnings = () => logs.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.level === 40 && l.part === 'platforms');
  const file = join(dir, 'demo', 'rules.yaml');
  const rules = await readFile(file, 'utf8');

  await writeFile(file, `${rules}# local edit\n`);
  t.equal((await put(app, 'platforms')).statusCode, 409);
  t.match(warnings().at(-1), { msg: 'part update refused', code: 'localChanges', cause: /demo\/rules\.yaml/, force: false });
  await writeFile(file, rules);

  await up.commit({ 'demo/rules.yaml': 'format: 1\nrules: [ { when: \n' }, 'broken rules');
  t.equal((await put(app, 'platforms')).statusCode, 500);
  t.match(warnings().at(-1), { msg: 'part update failed', code: 'updateFailed', cause: /^platforms not loaded: demo: / });

  await server.close();
  t.equal((await put(app, 'platforms', '?force=yes')).statusCode, 502);
  t.match(warnings().at(-1), { msg: 'part update failed', code: 'fetchFailed', cause: String, force: true });
  t.equal(warnings().length, 3, 'one line each');
});

t.test('no origin configured: PUT says so', async (t) => {
  const root = await tempDir(t);
  await applyChanges(join(root, 'repos', 'platforms'), demoPlatform('ARTICLE'));
  const { app } = await startService(t, root);
  const res = await put(app, 'resources');
  t.equal(res.statusCode, 409);
  t.match(res.json(), { message: 'noOrigin', detail: /RESOURCES_ORIGIN/ });
});

// -- Hot reload -------------------------------------------------------------------------------

function line(n: number): string {
  return `127.0.0.1 - - [10/Jan/2024:10:00:0${n} +0100] "GET http://www.demo.org/article/${n} HTTP/1.1" 200 1234\n`;
}

/** A job whose upload stays open: lines are sent one by one and events read as they come back. */
class StreamingJob {
  readonly events: Array<Record<string, string>> = [];
  jobId = '';
  readonly ended: Promise<void>;
  private readonly req: ClientRequest;

  constructor(port: number) {
    this.req = httpRequest({
      host: '127.0.0.1', port, method: 'POST', path: '/',
      headers: { 'Log-Format-ezproxy': FORMAT, Accept: 'application/jsonstream', 'Transfer-Encoding': 'chunked', 'Double-Click-Removal': 'false' },
    });
    this.ended = new Promise((resolve, reject) => {
      this.req.on('error', reject);
      this.req.on('response', (res) => {
        this.jobId = String(res.headers['job-id']);
        let pending = '';
        res.setEncoding('utf8');
        // jsonstream writes the separator before the next event: an object is complete when it parses.
        res.on('data', (chunk: string) => {
          const parts = (pending + chunk).split('\n');
          pending = parts.pop() ?? '';
          for (const p of parts) if (p.trim()) this.events.push(JSON.parse(p));
          try {
            this.events.push(JSON.parse(pending));
            pending = '';
          } catch {
            // not complete yet
          }
        });
        res.on('end', () => resolve());
        res.on('error', reject);
      });
    });
  }

  send(text: string): void {
    this.req.write(text);
  }

  end(): void {
    this.req.end();
  }

  async waitForEvents(n: number): Promise<void> {
    for (let i = 0; i < 500 && this.events.length < n; i++) await sleep(20);
    if (this.events.length < n) throw new Error(`only ${this.events.length} events came back`);
  }
}

async function readReport(varDir: string, jobId: string): Promise<Record<string, Record<string, unknown>>> {
  return JSON.parse(await readFile(join(varDir, 'jobs', jobId, 'report.json'), 'utf8'));
}

t.test('an update changes the rules for the next job, not for a job still running', async (t) => {
  // One line per batch, so that the running job's lines go to its pool one at a time.
  const { app, up, varDir } = await platformsClone(t, { BATCH_BYTES: '1' });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  const oldVersion = app.platforms.version;

  const running = new StreamingJob(port);
  running.send(line(1));
  await running.waitForEvents(1);
  t.equal(running.events[0].rtype, 'ARTICLE', 'the running job started on the old rules');

  await up.commit(demoPlatform('BOOK', 'Demo platform, second edition'), 'article pages are books now');
  const res = await put(app, 'platforms');
  t.equal(res.statusCode, 200);
  t.not(app.platforms.version, oldVersion, 'new platforms loaded');
  t.equal((await app.inject({ url: '/info/platforms' })).json()[0].longname, 'Demo platform, second edition', '/info/platforms changed at once');

  const next = await fetch(`http://127.0.0.1:${port}/`, {
    method: 'POST', headers: { 'Log-Format-ezproxy': FORMAT, Accept: 'application/jsonstream' }, body: line(2),
  });
  const nextEvents = (await next.text()).trim().split('\n').map((l) => JSON.parse(l) as Record<string, string>);
  t.equal(nextEvents[0].rtype, 'BOOK', 'a new job uses the new rules');
  const nextReport = await readReport(varDir, String(next.headers.get('job-id')));
  t.equal(nextReport.general['platforms-version'], app.platforms.version);

  t.equal(app.runtime.retiringPools, 1, 'the old pool still serves the running job');
  running.send(line(3));
  await running.waitForEvents(2);
  running.end();
  await running.ended;
  t.equal(running.events[1].unitid, '3');
  t.equal(running.events[1].rtype, 'ARTICLE', 'the running job keeps the old rules to its end');
  const report = await readReport(varDir, running.jobId);
  t.equal(report.general['platforms-version'], oldVersion, 'its report names the version it used');

  for (let i = 0; i < 100 && app.runtime.retiringPools > 0; i++) await sleep(20);
  t.equal(app.runtime.retiringPools, 0, 'the old pool closed once its job ended');
});

t.test('platforms moved on disk by another process: the record says reloadNeeded, and PUT reloads them', async (t) => {
  const logs: string[] = [];
  const { app, up, dir, gitdir } = await platformsClone(t, {}, logs);
  const loaded = await headOf(gitdir);
  const version = app.platforms.version;
  t.match((await app.inject({ url: '/api/admin/platforms/status', headers: adminHeaders() })).json(), { loadedOid: loaded, headOid: loaded });
  const pulled = await up.commit(demoPlatform('BOOK', 'Demo platform, pulled by hand'), 'books');
  // a `git pull` by hand, outside the service
  await git.fetch({ fs, http, dir, gitdir, remote: 'origin', ref: 'master', singleBranch: true });
  await git.writeRef({ fs, gitdir, ref: 'refs/heads/master', value: pulled, force: true });
  await git.checkout({ fs, dir, gitdir, ref: 'master', force: true });

  const status = (await app.inject({ url: '/api/admin/platforms/status?refresh=1', headers: adminHeaders() })).json();
  t.match(status, { headOid: pulled, remoteOid: pulled, 'from-head': 'uptodate', loadedOid: loaded, reloadNeeded: true }, 'up to date with the origin, but not what the service runs');
  t.equal(app.platforms.version, version, 'nothing reloaded by itself');

  const res = await put(app, 'platforms', '?force=yes');
  t.equal(res.statusCode, 200, res.body);
  t.match(res.json(), { headOid: pulled, loadedOid: pulled });
  t.notOk('reloadNeeded' in res.json());
  t.not(app.platforms.version, version, 'the platforms were read again');
  t.equal((await app.inject({ url: '/info/platforms' })).json()[0].longname, 'Demo platform, pulled by hand');
  t.ok(logs.some((l) => l.includes('part reloaded')), 'the log says so');
  const again = app.platforms.version;
  t.equal((await put(app, 'platforms')).statusCode, 200);
  t.equal(app.platforms.version, again, 'once reloaded, nothing more to do');
});

t.test('jobs carry the middlewares\' commit from the start, not only after an update made since', async (t) => {
  const root = await tempDir(t);
  await mkdir(join(root, 'repos', 'platforms'), { recursive: true });
  const dir = join(root, 'repos', 'middlewares');
  // where the service keeps a data part's git metadata (README, Updating)
  const gitdir = join(root, 'repos', '.gitdirs', 'middlewares');
  await mkdir(dir, { recursive: true });
  await git.init({ fs, dir, gitdir, defaultBranch: 'master' });
  const oid = await commitLocally(dir, gitdir, { 'README.md': 'the institution\'s middlewares\n' }, 'middlewares');
  const { app } = await startService(t, root);
  t.equal(app.versions.middlewares_version, oid.slice(0, 7));
  t.equal(app.versions.middlewares_date, '2027-01-15', 'the commit\'s date, as the platforms\' would be');
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  const job = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', headers: { 'Log-Format-ezproxy': FORMAT }, body: '1.2.3.4 - - [30/Nov/2012:00:14:18 +0100] "GET http://www.demo.org/x HTTP/1.1" 200 1\n' });
  await job.text();
  const report = JSON.parse(await readFile(join(root, 'var', 'jobs', String(job.headers.get('job-id')), 'report.json'), 'utf8')) as { general: Record<string, unknown> };
  t.equal(report.general['middlewares-version'], oid.slice(0, 7), 'and the report');
});
