import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { readConfig } from '../src/config.js';
import { PROJECT_ROOT } from '../src/paths.js';
import { startApp, EZPROXY_DEFAULT } from './helpers/app.js';
import { post } from './helpers/http.js';

t.test('MAX_UPLOAD_BYTES: no upload limit unless one is set', async (t) => {
  t.equal(readConfig({}).limits.maxUploadBytes, 0, 'unset: 0, no limit');
  t.equal(readConfig({ MAX_UPLOAD_BYTES: '' }).limits.maxUploadBytes, 0, 'empty: the same');
  t.equal(readConfig({ MAX_UPLOAD_BYTES: '0' }).limits.maxUploadBytes, 0);
  t.equal(readConfig({ MAX_UPLOAD_BYTES: '1048576' }).limits.maxUploadBytes, 1_048_576);
  t.throws(() => readConfig({ MAX_UPLOAD_BYTES: '-1' }), /MAX_UPLOAD_BYTES must be a non-negative number/);
  t.throws(() => readConfig({ MAX_UPLOAD_BYTES: '10MB' }), /MAX_UPLOAD_BYTES must be a non-negative number/);
});

t.test('memory settings of the workers: WORKER_HEAP_MB, WORKER_YOUNG_MB', async (t) => {
  t.equal(readConfig({}).pool.workerHeapMb, 256);
  t.equal(readConfig({}).pool.workerYoungMb, 12);
  t.equal(readConfig({ WORKER_HEAP_MB: '512', WORKER_YOUNG_MB: '0' }).pool.workerHeapMb, 512);
  t.equal(readConfig({ WORKER_YOUNG_MB: '0' }).pool.workerYoungMb, 0, '0: V8\'s default');
  t.throws(() => readConfig({ WORKER_YOUNG_MB: 'big' }), /WORKER_YOUNG_MB must be a non-negative number/);
});

t.test('the Docker image runs node with the heap flags of the start script', async (t) => {
  const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const startFlags = pkg.scripts.start.split(/\s+/).filter((a) => a.startsWith('--'));
  t.ok(startFlags.some((f) => f.startsWith('--max-semi-space-size=')), 'the start script has them');
  const cmd = /^CMD (\[.*\])$/m.exec(readFileSync(join(PROJECT_ROOT, 'Dockerfile'), 'utf8'));
  t.ok(cmd, 'the Dockerfile has an exec-form CMD');
  t.same((JSON.parse(cmd![1]) as string[]).filter((a) => a.startsWith('--')), startFlags);
});

t.test('the Docker image and the start script give glibc the same number of malloc arenas', async (t) => {
  const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const script = /(?:^|\s)MALLOC_ARENA_MAX=\$\{MALLOC_ARENA_MAX:-(\d+)\}\s+node\s/.exec(pkg.scripts.start);
  t.ok(script, 'the start script sets it before node, unless the shell has it');
  const image = /^ENV MALLOC_ARENA_MAX=(\d+)$/m.exec(readFileSync(join(PROJECT_ROOT, 'Dockerfile'), 'utf8'));
  t.ok(image, 'the Dockerfile sets it');
  t.equal(image?.[1], script?.[1]);
});

t.test('by default a large upload is read to its end (no 4034, no body limit of the framework)', async (t) => {
  const server = await startApp({}, { GEOIP_DB: 'none', POOL_THREADS: '1' });
  t.teardown(() => server.close());
  t.equal(server.config.limits.maxUploadBytes, 0);
  const info = await (await fetch(`${server.url}/info/app`)).json() as { maxUploadBytes: number };
  t.equal(info.maxUploadBytes, 0, '/info/app says there is no limit');
  // 12 MB: past Fastify's default bodyLimit (1 MB) and the usual proxy defaults.
  const line = '1.2.3.4 - JOHN [30/Nov/2012:00:14:18 +0100] "GET http://www.sciencedirect.com:80/science/article/pii/S0967064508000301 HTTP/1.1" 200 224846\n';
  const body = line.repeat(Math.ceil((12 << 20) / line.length));
  const res = await post(server.url, body, { 'Log-Format-ezproxy': EZPROXY_DEFAULT });
  t.equal(res.status, 200);
  t.equal(res.trailers['job-done'], 'true', 'the job completed');
  t.notOk(res.trailers['service-status'], 'with no error code');
  const report = await (await fetch(`${server.url}/${String(res.headers['job-id'])}/job-report.json`)).json() as { general: Record<string, unknown> };
  t.equal(report.general['nb-lines-input'], Math.ceil((12 << 20) / line.length), 'every line read');
});
