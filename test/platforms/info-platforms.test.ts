import t from 'tap';
import { fileURLToPath } from 'node:url';
import { startApp } from '../helpers/app.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/ezpaarse', import.meta.url));

t.test('/info/platforms and /api/info/platforms: every loaded platform, its manifest and counts', async (t) => {
  const app = await startApp({}, { EXTRA_PLATFORMS_DIRS: FIXTURE });
  t.teardown(() => app.close());
  for (const prefix of ['/info', '/api/info']) {
    const res = await fetch(`${app.url}${prefix}/platforms`);
    t.equal(res.status, 200);
    t.match(res.headers.get('content-type'), /^application\/json/);
    const list = (await res.json()) as Array<Record<string, unknown>>;
    t.equal(list.length, app.app.platforms.sources.length, `${prefix}: one entry per loaded platform`);
    t.same(list.map((p) => p.name), [...list.map((p) => p.name as string)].sort(), 'sorted by name');
    let shapeOk = true;
    for (const p of list) {
      const ok = typeof p.name === 'string' && typeof p.longname === 'string' && typeof p.version === 'string'
        && Array.isArray(p.domains) && Number.isInteger(p['domains-count']) && (p['domains-count'] as number) >= 1
        && Number.isInteger(p['rule-count']) && (p['rule-count'] as number) >= 1
        && (p.kind === 'rules' || p.kind === 'ezpaarse')
        && (p.publisher_name === undefined || typeof p.publisher_name === 'string');
      if (!ok) { shapeOk = false; t.fail(`bad entry ${JSON.stringify(p).slice(0, 300)}`); }
    }
    t.ok(shapeOk, 'name, longname, version, domains, domains-count, rule-count, kind; publisher_name when known');
    const sd = list.find((p) => p.name === 'sd')!;
    t.match(sd, { longname: String, kind: 'rules', 'rule-count': Number });
    t.same(list.find((p) => p.name === 'demojournal'), {
      name: 'demojournal', longname: 'Demo Journals', publisher_name: 'Demo Publisher', version: '2024-01-15', status: 'beta',
      domains: ['journals.logsift-demo.org'], 'domains-count': 1, 'rule-count': 1, kind: 'ezpaarse',
    }, 'a community platform: its manifest as stored, one parser');
    t.notMatch(JSON.stringify(list), FIXTURE, 'no server paths');
  }
  const beta = (await (await fetch(`${app.url}/info/platforms?status=beta`)).json()) as Array<{ status: string }>;
  t.ok(beta.length > 0 && beta.every((p) => p.status === 'beta'), '?status= keeps one status');
  const count = await fetch(`${app.url}/api/info/platforms/count`);
  t.equal(await count.text(), String(app.app.platforms.sources.length));
});
