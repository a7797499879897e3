import t from 'tap';
import { USER, form, FORM, testApp, withUsers } from '../helpers/accounts.js';
import { CONTENT_SECURITY_POLICY } from '../../src/plugins/security-headers.js';

/**
 * The security review of the routes (README, "Security"), against the reference's faults
 * (reference routes §7): static files, secrets, method override, job ids, admin rights,
 * security headers.
 */

t.test('static files: only public/, no way out of it', async (t) => {
  const ta = await testApp(t);
  t.equal((await ta.inject({ url: '/logsift.css' })).statusCode, 200, 'a file of public/');
  for (const url of [
    '/../package.json', '/%2e%2e/package.json', '/..%2fpackage.json', '/%2e%2e%2fpackage.json', '/..%5cpackage.json',
    '/public/../package.json', '/logsift.css/../../package.json', '/package.json', '/src/config.ts', '/var/logsift.sqlite',
    '/logsift.sqlite', '/.git/config', '/.env', '/node_modules/fastify/package.json', '/repos/platforms/README.md',
    '/jobs', '/dist/src/server.js', '/%00', '/setup.html%00.txt', '/..%c0%af..%c0%afetc/passwd', '//etc/passwd',
  ]) {
    const res = await ta.inject({ url });
    t.ok([400, 404].includes(res.statusCode), `${url}: ${res.statusCode}`);
    t.notMatch(res.body, /"dependencies"|readConfig|SQLite format|\[core\]/, `${url}: nothing of the server's files`);
  }
});

t.test('no secret in any response or log: password hashes, origin credentials', async (t) => {
  const ta = await testApp(t, { PLATFORMS_ORIGIN: 'https://someone:s3cret-token@git.example.invalid/platforms.git' });
  const { admin, user } = await withUsers(t, ta);
  await ta.inject({ url: '/api/admin/users', headers: { authorization: admin } });
  await ta.inject({ url: '/api/admin/users', headers: { authorization: user } });
  await ta.inject({ method: 'POST', url: `/api/admin/users/${USER.userid}`, headers: { authorization: admin, ...FORM }, payload: form({ group: 'user' }) });
  await ta.inject({ url: '/api/admin/jobs?details=1', headers: { authorization: admin } });
  await ta.inject({ url: '/api/admin/platforms/status', headers: { authorization: admin } });
  await ta.inject({ method: 'POST', url: '/api/admin/profile', headers: { authorization: user, ...FORM }, payload: form({ section: 'password', oldPassword: 'wrong-one-42', newPassword: 'Another-one-43', confirm: 'Another-one-43' }) });
  await ta.inject({ url: '/info/codes' });
  const all = [...ta.bodies, ...ta.logs].join('\n');
  t.notMatch(all, /\$argon2/, 'no password hash in any answer or log line');
  t.notMatch(all, /Correct-Horse-1|Secret-words-7/, 'no password in any answer or log line');
  t.notMatch(all, /s3cret-token/, 'no credential of an origin URL');
  t.notMatch(all, /password_hash/, 'no column name of the hash');
});

t.test('no method override: _method and X-HTTP-Method-Override change nothing', async (t) => {
  const ta = await testApp(t);
  const { admin } = await withUsers(t, ta);
  const target = `/api/admin/users/${USER.userid}`;
  const tries = [
    { method: 'GET' as const, url: `${target}?_method=DELETE` },
    { method: 'POST' as const, url: `${target}?_method=DELETE` },
    { method: 'POST' as const, url: target, headers: { 'x-http-method-override': 'DELETE' } },
    { method: 'POST' as const, url: target, headers: { 'x-method-override': 'DELETE' } },
    { method: 'POST' as const, url: target, headers: FORM, payload: form({ _method: 'DELETE' }) },
    { method: 'GET' as const, url: '/api/admin/platforms/status?_method=PUT' },
  ];
  for (const r of tries) {
    const res = await ta.inject({ ...r, headers: { authorization: admin, ...(r.headers ?? {}) } });
    t.not(res.statusCode, 204, `${r.method} ${r.url} ${JSON.stringify(r.headers ?? {})}: ${res.statusCode}, not a deletion`);
  }
  t.ok(ta.app.userStore.get(USER.userid), 'the user is still there');
});

t.test('every administrator route needs an administrator', async (t) => {
  const ta = await testApp(t);
  const { user } = await withUsers(t, ta);
  const open = new Set(['/api/admin/register', '/api/admin/profile']);
  const routes = ta.app.routeList.filter((r) => r.url.startsWith('/api/admin') && !open.has(r.url) && r.method !== 'HEAD');
  t.ok(routes.length >= 10, `${routes.length} administrator routes`);
  for (const r of routes) {
    const url = r.url.replace(':username', USER.userid).replace(':part', 'platforms').replace(/:[a-zA-Z]+/g, 'x');
    const anonymous = await ta.inject({ method: r.method as 'GET', url });
    t.equal(anonymous.statusCode, 401, `${r.method} ${r.url} anonymous: 401`);
    const logged = await ta.inject({ method: r.method as 'GET', url, headers: { authorization: user } });
    t.equal(logged.statusCode, 403, `${r.method} ${r.url} as a user: 403`);
  }
  t.ok(ta.app.userStore.get(USER.userid), 'nothing changed');
});

t.test('job ids are random (UUID v4), made by the service', async (t) => {
  const ta = await testApp(t, { AUTH_JOBS: 'never' });
  const url = await ta.listen();
  const ids = new Set<string>();
  for (let i = 0; i < 20; i++) {
    const res = await fetch(`${url}/`, { method: 'POST', body: '', headers: { 'Job-ID': '00000000-0000-4000-8000-000000000000' } });
    await res.text();
    const id = res.headers.get('job-id') ?? '';
    t.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, 'a version 4 UUID');
    ids.add(id);
  }
  t.equal(ids.size, 20, 'all different, none taken from the request');
});

t.test('HTML pages carry a strict Content-Security-Policy and the other security headers', async (t) => {
  const ta = await testApp(t);
  for (const url of ['/', '/setup.html', '/index.html']) {
    const res = await ta.inject({ url });
    t.equal(res.statusCode, 200, url);
    const csp = String(res.headers['content-security-policy']);
    for (const [directive, values] of Object.entries(CONTENT_SECURITY_POLICY)) t.ok(csp.includes(`${directive} ${values.join(' ')}`), `${url}: ${directive}`);
    t.notMatch(csp, /unsafe-inline|unsafe-eval|\*/, `${url}: no inline script, no eval, no wildcard`);
    t.equal(res.headers['x-content-type-options'], 'nosniff');
    t.equal(res.headers['x-frame-options'], 'SAMEORIGIN');
    t.equal(res.headers['referrer-policy'], 'no-referrer');
    t.notOk(res.headers['access-control-allow-origin'], 'no CORS opening');
    t.match(String(res.headers['content-type']), /^text\/html/);
    // Every script of the page is a file of its own (the policy refuses inline ones).
    t.notMatch(res.body, /<script(?![^>]*\bsrc=)[^>]*>/, `${url}: no inline script`);
    t.notMatch(res.body, /\son[a-z]+=/i, `${url}: no inline event handler`);
  }
  const json = await ta.inject({ url: '/info/codes' });
  t.ok(json.headers['content-security-policy'], 'JSON answers too');
});

t.test('logins from another site cannot act as the administrator', async (t) => {
  const ta = await testApp(t);
  const { admin } = await withUsers(t, ta);
  const res = await ta.inject({ method: 'DELETE', url: `/api/admin/users/${USER.userid}`, headers: { authorization: admin, origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' } });
  t.equal(res.statusCode, 403);
  t.ok(ta.app.userStore.get(USER.userid));
});

t.test('job files: credentials and the salt are never recorded; the HTML report has a strict policy', async (t) => {
  const ta = await testApp(t);
  const { admin, user } = await withUsers(t, ta);
  const url = await ta.listen();
  const line = '1.2.3.4 - JOHN [30/Nov/2012:00:14:18 +0100] "GET http://www.sciencedirect.com/science/article/pii/S0967064508000301 HTTP/1.1" 200 224846\n';
  const res = await fetch(`${url}/`, {
    method: 'POST', body: line.repeat(5),
    headers: { authorization: admin, 'Crypting-Salt': 'the-secret-salt-42', 'Log-Format-ezproxy': '%h %l %u %t "%r" %s %b', 'Reject-Files': 'all' },
  });
  await res.text();
  const id = res.headers.get('job-id')!;
  const texts: string[] = [];
  for (const file of ['job-report.json', 'job-report.html', 'job-traces.log']) {
    const r = await fetch(`${url}/${id}/${file}`, { headers: { authorization: admin } });
    t.equal(r.status, 200, file);
    texts.push(await r.text());
    if (file === 'job-report.html') {
      const csp = r.headers.get('content-security-policy') ?? '';
      t.match(csp, /default-src 'none'/, 'the HTML report: nothing loads but what the policy names');
      t.notMatch(csp, /unsafe-eval|script-src[^;]*unsafe-inline/, 'the HTML report runs no inline script');
    }
  }
  texts.push(JSON.stringify(ta.app.jobStore.get(id)), ...ta.logs);
  const all = texts.join('\n');
  t.notMatch(all, /the-secret-salt-42/, 'the salt is in no job file, row or log');
  t.notMatch(all, new RegExp(admin.slice(6)), 'the credentials are in no job file, row or log');
  const other = await fetch(`${url}/${id}/job-report.json`, { headers: { authorization: user } });
  t.equal(other.status, 403, 'another user cannot read the job');
  t.equal((await fetch(`${url}/${id}/job-report.json`)).status, 401, 'nor an anonymous client');
  t.notMatch(ta.logs.join('\n'), /ALREADY_SENT|"level":50/, 'each refusal answered once, no error logged');
});
