import { readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import t from 'tap';
import { platformsCacheDir, readConfig } from '../src/config.js';
import { StartError } from '../src/start-error.js';
import { defaultGeoipFile } from '../src/resources/geoip.js';
import { PROJECT_ROOT } from '../src/paths.js';
import { startApp, EZPROXY_DEFAULT } from './helpers/app.js';
import { post } from './helpers/http.js';

t.test('MAX_UPLOAD_BYTES: no upload limit unless one is set', async (t) => {
  t.equal(readConfig({}).limits.maxUploadBytes, 0, 'unset: 0, no limit');
  t.equal(readConfig({ MAX_UPLOAD_BYTES: '' }).limits.maxUploadBytes, 0, 'empty: the same');
  t.equal(readConfig({ MAX_UPLOAD_BYTES: '0' }).limits.maxUploadBytes, 0);
  t.equal(readConfig({ MAX_UPLOAD_BYTES: '1048576' }).limits.maxUploadBytes, 1_048_576);
  t.throws(() => readConfig({ MAX_UPLOAD_BYTES: '-1' }), /MAX_UPLOAD_BYTES must be 0 \(no limit\) or a whole number of at least 1, got "-1"/);
  t.throws(() => readConfig({ MAX_UPLOAD_BYTES: '10MB' }), /MAX_UPLOAD_BYTES must be 0 \(no limit\) or a whole number/);
});

t.test('MAX_INFLATE_RATIO: compressed data may expand 100 times unless set otherwise', async (t) => {
  t.equal(readConfig({}).limits.maxInflateRatio, 100);
  t.equal(readConfig({ MAX_INFLATE_RATIO: '0' }).limits.maxInflateRatio, 0, '0: no limit');
  t.equal(readConfig({ MAX_INFLATE_RATIO: '500' }).limits.maxInflateRatio, 500);
  t.throws(() => readConfig({ MAX_INFLATE_RATIO: '2.5' }), /MAX_INFLATE_RATIO must be 0 \(no limit\) or a whole number of at least 1, got "2.5"/);
});

t.test('limits a client cannot lift: a batch gets 10 s in a worker, a request body 30 s, a client 16 jobs at once', async (t) => {
  const c = readConfig({});
  t.equal(c.pool.batchTimeoutMs, 10_000, 'BATCH_TIMEOUT_MS: other jobs wait at most this long for a runaway batch');
  t.equal(c.limits.requestBodyMs, 30_000, 'REQUEST_BODY_MS');
  t.equal(c.limits.maxJobsPerClient, 16, 'MAX_JOBS_PER_CLIENT');
  t.equal(readConfig({ MAX_JOBS_PER_CLIENT: '0' }).limits.maxJobsPerClient, 0, '0: no limit');
});

t.test('DEFAULT_JOB_HEADERS: header names as HTTP writes them, one-line string values', async (t) => {
  t.same(readConfig({ DEFAULT_JOB_HEADERS: '{"Crypted-Fields":"none","X_y.z~":"1"}' }).defaultJobHeaders, { 'Crypted-Fields': 'none', 'X_y.z~': '1' });
  t.throws(() => readConfig({ DEFAULT_JOB_HEADERS: '{"Bad Header":"x"}' }), { name: 'StartError', message: /^DEFAULT_JOB_HEADERS: "Bad Header" is not a header name \(letters, digits and .* no spaces\)$/ });
  t.throws(() => readConfig({ DEFAULT_JOB_HEADERS: '{"Accept:":"text/csv"}' }), /"Accept:" is not a header name/);
  t.throws(() => readConfig({ DEFAULT_JOB_HEADERS: '{"":"x"}' }), /"" is not a header name/);
  t.throws(() => readConfig({ DEFAULT_JOB_HEADERS: '{"Traces-Level":"info\\r\\nX: y"}' }), /DEFAULT_JOB_HEADERS: the value of Traces-Level must be a one-line string/);
  t.throws(() => readConfig({ DEFAULT_JOB_HEADERS: '{"Traces-Level":3}' }), /the value of Traces-Level must be a one-line string/);
});

t.test('memory settings of the workers: WORKER_HEAP_MB, WORKER_YOUNG_MB', async (t) => {
  t.equal(readConfig({}).pool.workerHeapMb, 256);
  t.equal(readConfig({}).pool.workerYoungMb, 12);
  t.equal(readConfig({ WORKER_HEAP_MB: '512', WORKER_YOUNG_MB: '0' }).pool.workerHeapMb, 512);
  t.equal(readConfig({ WORKER_YOUNG_MB: '0' }).pool.workerYoungMb, 0, '0: V8\'s default');
  t.throws(() => readConfig({ WORKER_YOUNG_MB: 'big' }), /WORKER_YOUNG_MB must be 0 \(V8's default\) or a whole number/);
  t.throws(() => readConfig({ WORKER_HEAP_MB: '10' }), /WORKER_HEAP_MB must be 0 \(V8's default\) or a whole number of at least 64, got "10"/, 'a heap no worker fits in');
});

t.test('numeric settings: whole numbers in their range, 0 only where it means off', async (t) => {
  const refused: Array<[string, string, RegExp]> = [
    ['BATCHES_IN_FLIGHT', '0', /BATCHES_IN_FLIGHT must be a whole number from 1 to 1024, got "0"/],
    ['PORT', '1.5', /PORT must be a whole number from 0 to 65535, got "1.5"/],
    ['PORT', '70000', /PORT must be a whole number from 0 to 65535/],
    ['POOL_THREADS', '0', /POOL_THREADS must be a whole number from 1 to 1024, got "0"/],
    ['BATCH_BYTES', '0', /BATCH_BYTES must be a whole number of at least 1/],
    ['MAX_LINE_BYTES', '0', /MAX_LINE_BYTES must be a whole number of at least 1/],
    ['JOB_REPORT_INTERVAL_MS', '0', /JOB_REPORT_INTERVAL_MS must be a whole number from 1 to 2147483647/],
    // past Node's timer limit a delay fires after 1 ms
    ['JOB_SWEEP_INTERVAL_MS', '3000000000', /JOB_SWEEP_INTERVAL_MS must be 0 \(only at start\) or a whole number from 1 to 2147483647, got "3000000000"/],
    ['IDLE_UPLOAD_MS', '1e3', /IDLE_UPLOAD_MS must be/],
    ['MAX_CONCURRENT_JOBS', '-1', /MAX_CONCURRENT_JOBS must be/],
    ['MAX_HELD_EVENTS', '50k', /MAX_HELD_EVENTS must be 0 \(no limit\) or a whole number of at least 1, got "50k"/],
    ['AUTH_FAILURE_WINDOW_MS', '0x10', /AUTH_FAILURE_WINDOW_MS must be/],
    ['AUTH_FAILURE_WINDOW_MS', '99999999999', /AUTH_FAILURE_WINDOW_MS must be a whole number from 1 to 2147483647, got "99999999999"/],
    ['UPDATES_FETCH_INTERVAL_MS', '99999999999', /UPDATES_FETCH_INTERVAL_MS must be a whole number from 0 to 2147483647, got "99999999999"/],
  ];
  for (const [name, value, message] of refused) {
    t.throws(() => readConfig({ [name]: value }), message, `${name}=${value}`);
    t.throws(() => readConfig({ [name]: value }), StartError);
  }
  t.equal(readConfig({ AUTH_FAILURE_WINDOW_MS: '2147483647' }).auth.failureWindowMs, 2147483647, 'the largest delay a timer takes');
  t.equal(readConfig({ UPDATES_FETCH_INTERVAL_MS: '0' }).updates.fetchIntervalMs, 0, 'fetch at each status request');
  const zeroMeansOff = ['MAX_UPLOAD_BYTES', 'MAX_CONCURRENT_JOBS', 'MAX_HELD_EVENTS', 'IDLE_UPLOAD_MS', 'BATCH_TIMEOUT_MS', 'WORKER_HEAP_MB', 'WORKER_YOUNG_MB',
    'JOB_RETENTION_DAYS', 'JOB_SWEEP_INTERVAL_MS', 'FLUSH_AFTER_MS', 'FIRST_BATCH_BYTES', 'AUTH_MAX_FAILURES_PER_ADDRESS', 'AUTH_MAX_FAILURES_PER_ACCOUNT', 'PORT'];
  for (const name of zeroMeansOff) t.doesNotThrow(() => readConfig({ [name]: '0' }), `${name}=0`);
  const c = readConfig({ JOB_RETENTION_DAYS: '0', PORT: ' 8080 ', POOL_THREADS: '3' });
  t.equal(c.jobs.retentionDays, 0);
  t.equal(c.port, 8080, 'spaces around the digits are fine');
  t.equal(c.pool.threads, 3);
  t.equal(readConfig({}).limits.maxHeldEvents, 30_000, 'MAX_HELD_EVENTS: 30,000 unless set');
  t.equal(readConfig({ MAX_HELD_EVENTS: '2000' }).limits.maxHeldEvents, 2000);
});

t.test('DEFAULT_TIME_ZONE is checked by the date parser\'s zone reader at start', async (t) => {
  t.throws(() => readConfig({ DEFAULT_TIME_ZONE: 'Mars/Olympus' }), /DEFAULT_TIME_ZONE: unknown time zone "Mars\/Olympus": use an IANA name/);
  for (const zone of ['Europe/Paris', 'UTC', 'local', '+01:00', '-0330']) t.equal(readConfig({ DEFAULT_TIME_ZONE: zone }).defaultTimeZone, zone);
  // an offset no zone has would write dates such as 2016-01-06T16:23:38+100:39
  for (const zone of ['+99:99', '+25:00', '-15:00', '+01:60', '+14:59', '+14:01', '-12:30', '-14:00']) t.throws(() => readConfig({ DEFAULT_TIME_ZONE: zone }), /out of range \(from -12:00 to \+14:00\)/, zone);
  for (const zone of ['+14:00', '-12:00', '+05:45']) t.equal(readConfig({ DEFAULT_TIME_ZONE: zone }).defaultTimeZone, zone);
  t.equal(readConfig({}).defaultTimeZone, 'local');
});

t.test('folder settings name folders that exist', async (t) => {
  const here = t.testdir({ a: {}, file: 'x' });
  for (const name of ['EXCLUSIONS_DIRS', 'PKB_DIRS', 'EXTRA_PLATFORMS_DIRS', 'PREDEFINED_SETTINGS_DIR']) {
    t.throws(() => readConfig({ [name]: '/nonexistent/x' }), new RegExp(`^${name}: the folder /nonexistent/x does not exist: create it or correct ${name}$`), name);
    t.throws(() => readConfig({ [name]: join(here, 'file') }), new RegExp(`${name}: .*file is not a folder`), `${name}: a file`);
  }
  t.throws(() => readConfig({ PKB_DIRS: [join(here, 'a'), '/nonexistent/pkb'].join(delimiter) }), /PKB_DIRS: the folder \/nonexistent\/pkb does not exist/, 'each folder of a list');
  const c = readConfig({ PKB_DIRS: join(here, 'a'), EXCLUSIONS_DIRS: join(here, 'a'), EXTRA_PLATFORMS_DIRS: join(here, 'a'), PREDEFINED_SETTINGS_DIR: join(here, 'a') });
  t.same(c.pkbDirs, [join(here, 'a')]);
  t.equal(c.predefinedSettingsDir, join(here, 'a'));
});

t.test('the platforms folder, REPOS_DIR and APP_DIR must exist; VAR_DIR, the cache folders and REPOS_DIR\'s other parts may not yet', async (t) => {
  const here = t.testdir({ platforms: {}, repos: { platforms: {} }, 'repos-without-platforms': { resources: {} }, file: 'x' });
  t.throws(() => readConfig({ PLATFORMS_DIR: '/nonexistent/platforms' }), /^PLATFORMS_DIR: the folder \/nonexistent\/platforms does not exist: create it or correct PLATFORMS_DIR$/);
  t.throws(() => readConfig({ PLATFORMS_DIR: join(here, 'file') }), /^PLATFORMS_DIR: .*file is not a folder/);
  t.throws(() => readConfig({ REPOS_DIR: '/tmp/nonexistent-repos' }), /^REPOS_DIR: the folder \/tmp\/nonexistent-repos does not exist: create it or correct REPOS_DIR/);
  t.throws(() => readConfig({ REPOS_DIR: join(here, 'repos-without-platforms') }),
    new RegExp(`^REPOS_DIR: the folder ${join(here, 'repos-without-platforms', 'platforms')} does not exist: create it or correct REPOS_DIR \\(or set PLATFORMS_DIR\\)$`), 'its platforms folder');
  t.throws(() => readConfig({ APP_DIR: '/nonexistent/app' }), /^APP_DIR: the folder \/nonexistent\/app does not exist: create it or correct APP_DIR$/);
  for (const env of [{ PLATFORMS_DIR: '/x' }, { REPOS_DIR: '/x' }, { APP_DIR: '/x' }]) t.throws(() => readConfig(env), StartError);

  const c = readConfig({ REPOS_DIR: join(here, 'repos'), VAR_DIR: join(here, 'new', 'var'), GEOIP_CACHE_DIR: join(here, 'new', 'geoip'), PLATFORMS_CACHE_DIR: join(here, 'new', 'platforms'), APP_DIR: here });
  t.same([c.geoipCacheDir, c.platformsCacheDir], [join(here, 'new', 'geoip'), join(here, 'new', 'platforms')]);
  t.equal(readConfig({ REPOS_DIR: join(here, 'repos'), VAR_DIR: join(here, 'v') }).platformsCacheDir, join(here, 'v', 'cache', 'platforms'), 'by default under VAR_DIR');
  t.equal(c.platformsDir, join(here, 'repos', 'platforms'), 'an empty platforms folder, no middlewares/ nor resources/ (their first update makes them)');
  t.equal(c.varDir, join(here, 'new', 'var'), 'VAR_DIR is made at start');
  t.equal(c.updates.appDir, here);
  t.equal(readConfig({ REPOS_DIR: '/tmp/nonexistent-repos', PLATFORMS_DIR: join(here, 'platforms') }).reposDir, '/tmp/nonexistent-repos',
    'with PLATFORMS_DIR elsewhere, REPOS_DIR only holds parts an update makes');
});

t.test('a setting of spaces only counts as not set, HOST too', async (t) => {
  const here = t.testdir({ repos: { platforms: {} } });
  const c = readConfig({ REPOS_DIR: join(here, 'repos'), HOST: '  ', PORT: ' ', DEFAULT_TIME_ZONE: '  ' });
  t.same([c.host, c.port, c.defaultTimeZone], ['127.0.0.1', 59599, 'local']);
});

t.test('a folder, a branch or a choice of spaces only counts as not set too, not as a folder named by spaces', async (t) => {
  const spaces = Object.fromEntries(['VAR_DIR', 'REPOS_DIR', 'PLATFORMS_DIR', 'APP_DIR', 'PREDEFINED_SETTINGS_DIR', 'GEOIP_CACHE_DIR',
    'PLATFORMS_CACHE_DIR', 'PLATFORMS_BRANCH', 'AUTH_JOBS'].map((name) => [name, '  ']));
  const c = readConfig(spaces);
  t.equal(c.varDir, join(PROJECT_ROOT, 'var'));
  t.equal(c.reposDir, join(PROJECT_ROOT, 'repos'));
  t.equal(c.platformsDir, join(PROJECT_ROOT, 'repos', 'platforms'));
  t.equal(c.updates.appDir, PROJECT_ROOT);
  t.equal(c.predefinedSettingsDir, undefined);
  t.equal(c.geoipCacheDir, join(PROJECT_ROOT, 'var', 'cache', 'geoip'));
  t.equal(c.platformsCacheDir, join(PROJECT_ROOT, 'var', 'cache', 'platforms'));
  t.equal(c.updates.platforms.branch, 'master');
  t.equal(c.auth.jobs, 'when-users-exist');
  t.equal(readConfig({ AUTH_JOBS: ' never ' }).auth.jobs, 'never', 'spaces around a choice are fine, as around a number');
});

t.test('the tools that read the platforms alone (conformance, benchmarks) find the service\'s platforms cache', async (t) => {
  t.equal(platformsCacheDir({}), join(PROJECT_ROOT, 'var', 'cache', 'platforms'));
  t.equal(platformsCacheDir({ VAR_DIR: '/srv/logsift/var' }), '/srv/logsift/var/cache/platforms');
  t.equal(platformsCacheDir({ VAR_DIR: '/srv/logsift/var', PLATFORMS_CACHE_DIR: '/cache/p' }), '/cache/p');
  t.equal(platformsCacheDir({ PLATFORMS_CACHE_DIR: 'rel' }), join(process.cwd(), 'rel'), 'a relative path from the working folder, as the service reads it');
});

t.test('GEOIP_DB: a file it names must be a MaxMind database; the packaged ones, country and none as before', async (t) => {
  const country = defaultGeoipFile('country')!;
  const db = readFileSync(country);
  const here = t.testdir({ 'not.mmdb': 'network,country\n', folder: {}, 'truncated.mmdb': db.subarray(db.length - 64 * 1024) });
  for (const [file, said] of [
    ['/missing.mmdb', 'does not exist'],
    [join(here, 'folder'), 'is not a file'],
    [join(here, 'not.mmdb'), 'is not a MaxMind database \\(no metadata section\\)'],
    [join(here, 'truncated.mmdb'), 'is truncated'],
  ]) {
    t.throws(() => readConfig({ GEOIP_DB: file }), new RegExp(`^GEOIP_DB: ${file} ${said}.*: give a MaxMind \\.mmdb file, country \\(the packaged Country file\\) or none$`), file);
    t.throws(() => readConfig({ GEOIP_DB: file }), StartError);
  }
  t.equal(readConfig({ GEOIP_DB: country }).geoipDb, country, 'a MaxMind file');
  t.equal(readConfig({ GEOIP_DB: 'country' }).geoipDb, country);
  t.equal(readConfig({ GEOIP_DB: 'none' }).geoipDb, undefined);
  t.equal(readConfig({}).geoipDb, defaultGeoipFile('city'));
});

t.test('ON_CAMPUS_RANGES: a range that is not one stops the start', async (t) => {
  t.throws(() => readConfig({ ON_CAMPUS_RANGES: 'garbage' }), /^ON_CAMPUS_RANGES: "garbage" is not an address, prefix or range \(it takes .*e\.g\. 193\.50\.0\.0\/16;Library=10\.2\.0\.0\/16\)$/);
  t.throws(() => readConfig({ ON_CAMPUS_RANGES: '193.50.0.0/16;Library=10.2.0.0/33' }), /"10\.2\.0\.0\/33" is not/, 'each range of each group');
  t.throws(() => readConfig({ ON_CAMPUS_RANGES: 'garbage' }), StartError);
  t.equal(readConfig({ ON_CAMPUS_RANGES: ' 193.50.0.0/16; Library=10.2.0.0/16,10.3.0.1-10.3.0.9 ' }).onCampusRanges, '193.50.0.0/16; Library=10.2.0.0/16,10.3.0.1-10.3.0.9');
  t.equal(readConfig({}).onCampusRanges, undefined);
});

t.test('the parts\' origins (PLATFORMS_, MIDDLEWARES_, RESOURCES_, APP_ORIGIN) are http(s) URLs, checked at start', async (t) => {
  for (const name of ['PLATFORMS_ORIGIN', 'MIDDLEWARES_ORIGIN', 'RESOURCES_ORIGIN', 'APP_ORIGIN']) {
    for (const value of ['/srv/git/platforms.git', 'file:///srv/git/platforms.git', 'git@github.com:org/platforms.git', 'ssh://git@github.com/org/platforms.git', 'https://']) {
      t.throws(() => readConfig({ [name]: value }), new RegExp(`^${name} must be an absolute http:// or https:// URL of a git repository`), `${name}=${value}`);
      t.throws(() => readConfig({ [name]: value }), StartError);
    }
  }
  t.throws(() => readConfig({ PLATFORMS_ORIGIN: 'ftp://someone:s3cret@git.example.org/p.git' }), /got "ftp:\/\/\*\*\*@git\.example\.org\/p\.git"$/, 'a password is not repeated');
  for (const raw of ['ftp://u:pa/ss@git.example.org/p.git', 'ftp://u:p@ss@git.example.org/p.git', 'u:pa:ss@git.example.org:p.git']) {
    let message = '';
    try {
      readConfig({ PLATFORMS_ORIGIN: raw });
    } catch (err) {
      message = (err as Error).message;
    }
    t.match(message, /\*\*\*@/, 'refused, its credentials hidden');
    t.notMatch(message, /pa\/ss|p@ss|pa:ss|ss@/, `nor one holding / @ or : (${raw.replace(/:[^@]*@.*/, ':…')})`);
  }
  t.notMatch(String((() => { try { readConfig({ APP_ORIGIN: 'someone:s3cret@git.example.org/p.git' }); } catch (err) { return err; } })()), /s3cret/);
  const c = readConfig({ PLATFORMS_ORIGIN: 'https://someone:s3cret@git.example.org/platforms.git', APP_ORIGIN: 'http://git.example.org/logsift.git', RESOURCES_BRANCH: 'main' });
  t.equal(c.updates.platforms.origin, 'https://someone:s3cret@git.example.org/platforms.git', 'credentials in the URL are kept for the fetch');
  t.same(c.updates.app, { origin: 'http://git.example.org/logsift.git', branch: undefined });
  t.same(c.updates.resources, { origin: undefined, branch: 'main' });
});

t.test('PUBLIC_BASE_URL, TRUST_PROXY, LOG_LEVEL: only what they can use', async (t) => {
  for (const url of ['not-a-url', 'ftp://example.org', 'example.org:8080', 'https://example.org/?a=1']) {
    t.throws(() => readConfig({ PUBLIC_BASE_URL: url }), /PUBLIC_BASE_URL must be an absolute http:\/\/ or https:\/\/ URL/, url);
  }
  t.equal(readConfig({ PUBLIC_BASE_URL: 'https://logs.example.org/logsift/' }).publicBaseUrl, 'https://logs.example.org/logsift');
  // it is written into every job's headers and report
  for (const url of ['https://user:pw@x.org', 'https://user@x.org/logsift', 'http://:s3cr@t@x.org']) {
    const error = t.throws(() => readConfig({ PUBLIC_BASE_URL: url }), /^PUBLIC_BASE_URL must be an absolute http:\/\/ or https:\/\/ URL without user name, password, query or fragment .*got "https?:\/\/\*\*\*@x\.org(\/logsift)?"$/, url) as Error;
    t.notMatch(error?.message, /pw|s3cr|user[:@]/, 'the credentials are not repeated');
  }
  t.equal(readConfig({ PUBLIC_BASE_URL: 'https://x.org/a@b' }).publicBaseUrl, 'https://x.org/a@b', 'an @ in the path is no user name');
  for (const yes of ['TRUE', 'true', '1', 'yes', 'on']) t.equal(readConfig({ TRUST_PROXY: yes }).trustProxy, 1, `${yes}: one proxy in front`);
  for (const no of ['off', 'false', '0', 'no', '']) t.equal(readConfig({ TRUST_PROXY: no }).trustProxy, false, JSON.stringify(no));
  t.equal(readConfig({}).trustProxy, false);
  t.equal(readConfig({ TRUST_PROXY: ' 2 ' }).trustProxy, 2, 'a number of proxies');
  t.same(readConfig({ TRUST_PROXY: '10.0.0.5, 192.168.0.0/16,fd00::/8, ::1,loopback' }).trustProxy, ['10.0.0.5', '192.168.0.0/16', 'fd00::/8', '::1', 'loopback'], 'the proxies\' addresses');
  for (const bad of ['maybe', '33', '10.0.0.5,', '10.0.0.0/33', '10.0.0.0/0', '10.0.0.0/255.0.0.0', '10.1', 'fd00::/129', 'proxy.example.org', '-1', '1.5']) {
    const error = t.throws(() => readConfig({ TRUST_PROXY: bad }), /^TRUST_PROXY must be true, 1, yes, on \(one proxy\), false, 0, no, off, a number of proxies from 1 to 32, or a comma list of the proxies' addresses or CIDR ranges \(e\.g\. 10\.0\.0\.5,fd00::\/8\), got /, bad) as Error;
    t.notMatch(error?.message, /\n/, 'on one line');
  }
  t.throws(() => readConfig({ LOG_LEVEL: 'loud' }), /LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent, got "loud"/);
  t.equal(readConfig({ LOG_LEVEL: 'warn' }).logLevel, 'warn');
});

t.test('docker compose publishes the port on the loopback interface only', async (t) => {
  // the image listens on 0.0.0.0; until the founder account exists the service must not be on the network
  const compose = readFileSync(join(PROJECT_ROOT, 'docker-compose.yml'), 'utf8');
  const ports = [...compose.matchAll(/^\s*-\s*"([^"]+:\d+)"\s*$/gm)].map((m) => m[1]);
  t.same(ports, ['127.0.0.1:59599:59599']);
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
