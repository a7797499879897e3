import t, { type Test } from 'tap';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Value } from 'typebox/value';
import { Type } from '@fastify/type-provider-typebox';
import { registerAdmin, testApp } from '../helpers/accounts.js';
import { tempDir } from '../helpers/service.js';
import { applyChanges, demoPlatform } from '../helpers/git-fixtures.js';
import { AppInfoSchema, PredefinedSettingSchema, RejectInfoSchema, UsageSchema } from '../../src/routes/info-data.js';
import { PlatformInfoSchema } from '../../src/platforms/platform-info.js';
import { STATUS_CODES } from '../../src/status-codes.js';
import { changedByFolder } from '../../src/routes/info.js';
import { REJECT_CATEGORIES } from '../../src/pipeline/stages/types.js';
import { REJECT_COUNTERS } from '../../src/pipeline/job-report.js';

const VocabularyList = Type.Array(Type.Object({
  code: Type.String(), description: Type.String(), description_en: Type.String(), reference: Type.Boolean(), platforms: Type.Integer(),
}, { additionalProperties: false }));

/** A platforms folder with the demo platform (rtype ARTICLE, mime HTML) and one that emits codes the reference lacks. */
async function platformsDir(t: Test): Promise<string> {
  const dir = join(await tempDir(t), 'platforms');
  await applyChanges(dir, {
    ...demoPlatform('ARTICLE'),
    'odd/manifest.json': JSON.stringify({ name: 'odd', longname: 'Odd', domains: ['odd.example.org'] }),
    'odd/rules.yaml': [
      'format: 1',
      'rules:',
      '  - when: { path: "^/v/(?<id>[0-9]+)$" }',
      '    set:',
      '      rtype: { from: "{id}", map: { "1": HOLOGRAM }, default: ARTICLE }',
      '      mime: QT',
      '      doi: "10.1/{id}"',
      '',
    ].join('\n'),
  });
  return dir;
}

t.test('vocabulary: /info/rid, /rtype, /mime (and .json), /fields', async (t) => {
  const ta = await testApp(t, { PLATFORMS_DIR: await platformsDir(t) });
  for (const prefix of ['/info', '/api/info']) {
    for (const kind of ['rid', 'rtype', 'mime']) {
      for (const suffix of ['', '.json']) {
        const res = await ta.inject({ url: `${prefix}/${kind}${suffix}` });
        t.equal(res.statusCode, 200, `${prefix}/${kind}${suffix}`);
        t.match(res.headers['content-type'], /^application\/json/);
        t.ok(Value.Check(VocabularyList, res.json()), `${kind}: the list shape`);
      }
    }
  }
  const rtype = (await ta.inject({ url: '/info/rtype' })).json() as Array<{ code: string; reference: boolean; platforms: number; description: string }>;
  t.equal(rtype[0].code, 'ARTICLE', 'reference order without ?sort');
  t.match(rtype.find((i) => i.code === 'ARTICLE'), { reference: true, platforms: 2, description: 'full text of an article' });
  t.match(rtype.find((i) => i.code === 'HOLOGRAM'), { reference: false, platforms: 1 }, 'a mapped constant of a loaded rule is listed');
  t.ok(rtype.length >= 55, 'the whole reference vocabulary');
  const mime = (await ta.inject({ url: '/info/mime' })).json() as Array<{ code: string; reference: boolean; platforms: number }>;
  t.match(mime.find((i) => i.code === 'QT'), { reference: false, platforms: 1 });
  t.match(mime.find((i) => i.code === 'HTML'), { reference: true, platforms: 1 });
  const rid = (await ta.inject({ url: '/info/rid' })).json() as Array<{ code: string; platforms: number }>;
  t.same(rid.map((i) => i.code), ['title_id', 'print_identifier', 'online_identifier', 'doi', 'ark', 'pii', 'ppn', 'unitid', 'db_id']);
  t.equal(rid.find((i) => i.code === 'unitid')?.platforms, 1);
  t.equal(rid.find((i) => i.code === 'doi')?.platforms, 1);

  const asc = (await ta.inject({ url: '/info/mime?sort=asc' })).json() as Array<{ code: string }>;
  t.same(asc.map((i) => i.code), [...asc.map((i) => i.code)].sort());
  const desc = (await ta.inject({ url: '/info/mime?sort=desc' })).json() as Array<{ code: string }>;
  t.same(desc.map((i) => i.code), asc.map((i) => i.code).reverse());

  const unknown = await ta.inject({ url: '/info/nosuch' });
  t.equal(unknown.statusCode, 404, 'an unknown information route');
  t.match(unknown.json(), { message: 'Route GET:/info/nosuch not found' }, 'said as a route, not as a job');

  const fields = await ta.inject({ url: '/info/fields.json' });
  t.equal(fields.statusCode, 200);
  const all = fields.json() as Record<string, unknown>;
  t.same(Object.keys(all), ['rid', 'rtype', 'mime', 'other']);
  for (const list of Object.values(all)) t.ok(Value.Check(VocabularyList, list));
});

t.test('/info/codes and /info/codes/{code}', async (t) => {
  const ta = await testApp(t);
  const codes = await ta.inject({ url: '/api/info/codes' });
  t.ok(Value.Check(Type.Record(Type.String({ pattern: '^[0-9]+$' }), Type.String()), codes.json()));
  t.equal(Object.keys(codes.json()).length, Object.keys(STATUS_CODES).length);
  const one = await ta.inject({ url: '/info/codes/4023' });
  t.equal(one.statusCode, 200);
  t.match(one.headers['content-type'], /^application\/json/);
  t.equal(one.json(), 'A job with the same ID already exists', 'a JSON string');
  t.equal(one.body, JSON.stringify('A job with the same ID already exists'), 'serialized once');
  for (const code of ['9999', 'abc']) {
    const res = await ta.inject({ url: `/info/codes/${code}` });
    t.equal(res.statusCode, 404, code);
    t.same(res.json(), { message: 'unknown_code' });
  }
  const version = await ta.inject({ url: '/info/version' });
  t.match(version.headers['content-type'], /^text\/plain/);
  t.equal(version.body, ta.app.appVersion);
});

t.test('/info/rejects: one entry per reject category, its counter, file and texts', async (t) => {
  const ta = await testApp(t);
  // Strict: a key added to the answer but not to the route's schema would be dropped by the serializer.
  const Strict = Type.Array(Type.Object({
    category: Type.String(), counter: Type.String(), file: Type.String(), label: Type.String({ minLength: 1 }),
    description: Type.String({ minLength: 1 }), inRejectionRate: Type.Boolean(), kept: Type.Boolean(),
  }, { additionalProperties: false }));
  for (const prefix of ['/info', '/api/info']) {
    const res = await ta.inject({ url: `${prefix}/rejects` });
    t.equal(res.statusCode, 200, prefix);
    t.match(res.headers['content-type'], /^application\/json/);
    const list = res.json() as Array<Record<string, unknown>>;
    t.ok(Value.Check(RejectInfoSchema, list), `${prefix}: the route's schema`);
    t.ok(Value.Check(Strict, list), `${prefix}: those keys and no other`);
    t.same(list.map((r) => r.category), [...REJECT_CATEGORIES], 'every category, in the report\'s order');
    for (const r of list) {
      const category = r.category as (typeof REJECT_CATEGORIES)[number];
      t.equal(r.counter, REJECT_COUNTERS[category], `${category}: the report's counter`);
      t.equal(r.file, `lines-${category}.log`, `${category}: its reject file`);
      t.equal(r.kept, category === 'pkb-miss-ecs', `${category}: kept`);
    }
    t.same(list.filter((r) => r.inRejectionRate).map((r) => r.category).sort(),
      ['duplicate-ecs', 'unknown-domains', 'unknown-errors', 'unknown-formats', 'unordered-ecs', 'unqualified-ecs'], 'the categories of the rejection rate');
  }
});

t.test('/info/platforms: every entry matches the route\'s response schema, no key lost', async (t) => {
  const dir = await platformsDir(t);
  // Keys the service does not check, as community manifests have them: passed on as stored.
  await applyChanges(dir, {
    'odd/manifest.json': JSON.stringify({
      name: 'odd', longname: 'Odd', domains: ['odd.example.org'], version: '2024-01-15', status: 'beta', pkb: false,
      recognize: { rid: ['doi'], rtype: ['ARTICLE'], mime: ['HTML'] }, bacon: { provider: 'X', matches: [] }, 'pkb-domains': 'domain',
      trello: 'https://trello.example.org/c/1', publisher_name: 'Odd Publisher', 'kb-domains': ['kb.odd.example.org'], priority: 2,
      'host-priority': { 'odd.example.org': 3 }, 'x-unlisted': { kept: [1, 'a'] },
    }),
  });
  const ta = await testApp(t, { PLATFORMS_DIR: dir });
  for (const prefix of ['/info', '/api/info']) {
    const list = (await ta.inject({ url: `${prefix}/platforms` })).json() as Array<Record<string, unknown>>;
    t.equal(list.length, 2);
    for (const p of list) t.ok(Value.Check(PlatformInfoSchema, p), `${prefix}: ${String(p.name)}`);
    t.same(list.find((p) => p.name === 'odd'), {
      name: 'odd', longname: 'Odd', domains: ['odd.example.org'], version: '2024-01-15', status: 'beta', pkb: false,
      recognize: { rid: ['doi'], rtype: ['ARTICLE'], mime: ['HTML'] }, bacon: { provider: 'X', matches: [] }, 'pkb-domains': 'domain',
      trello: 'https://trello.example.org/c/1', publisher_name: 'Odd Publisher', 'kb-domains': ['kb.odd.example.org'], priority: 2,
      'host-priority': { 'odd.example.org': 3 }, 'x-unlisted': { kept: [1, 'a'] },
      'domains-count': 2, 'rule-count': 1, kind: 'rules', 'pkb-packages': [],
    }, 'the whole manifest as stored, plus the counts');
  }
  const count = await ta.inject({ url: '/info/platforms/count' });
  t.match(count.headers['content-type'], /^text\/plain/);
  t.equal(count.body, '2');
});

t.test('/info/app: the service and whether jobs need a login', async (t) => {
  const ta = await testApp(t);
  const res = await ta.inject({ url: '/api/info/app' });
  t.ok(Value.Check(AppInfoSchema, res.json()), 'shape');
  t.match(res.json(), { name: 'logsift', jobsNeedLogin: false, hasUsers: false, demo: false });
  t.equal(res.headers['cache-control'], 'no-store');
});

t.test('predefined settings: logsift’s own, the resources file, the institution’s folder', async (t) => {
  const root = await tempDir(t);
  const local = join(root, 'local-settings');
  await mkdir(join(root, 'repos', 'resources'), { recursive: true });
  await mkdir(local);
  await writeFile(join(root, 'repos', 'resources', 'predefined-settings.json'), JSON.stringify({
    '00-fr-demo': { fullName: 'Demo university', country: 'FR', headers: { 'Log-Format-Apache': '%h %l %u %t "%r" %>s %b', 'Crypted-Fields': 'none' } },
    'bad id!': { fullName: 'Refused' },
  }));
  await writeFile(join(local, 'ours.json'), JSON.stringify({ 'local-1': { fullName: 'Our proxy', country: 'BE', headers: { 'Traces-Level': 'warn' } } }));
  const ta = await testApp(t, { REPOS_DIR: join(root, 'repos'), PREDEFINED_SETTINGS_DIR: local });
  for (const prefix of ['/info', '/api/info']) {
    const res = await ta.inject({ url: `${prefix}/predefined-settings` });
    t.equal(res.statusCode, 200);
    t.ok(Value.Check(Type.Record(Type.String(), PredefinedSettingSchema), res.json()), 'the reference shape');
  }
  const settings = (await ta.inject({ url: '/info/predefined-settings' })).json() as Record<string, { headers: Record<string, string> }>;
  t.same(settings['logsift-ezproxy-standard'].headers, { 'Log-Format-ezproxy': '%h %l %u %t "%r" %s %b' });
  t.same(settings['logsift-bibliopam-standard'].headers, { 'Log-Format-bibliopam': 'standard' });
  t.ok(settings['logsift-squid-native'] && settings['logsift-apache-combined']);
  t.match(settings['00-fr-demo'], { fullName: 'Demo university', country: 'FR' });
  t.match(settings['local-1'], { fullName: 'Our proxy', country: 'BE' });
  t.notOk('bad id!' in settings, 'an unusable id is left out');
  t.ok(ta.logs.some((l) => l.includes('predefined settings') && l.includes('bad id!')), 'and logged');

  const form = await ta.inject({ url: '/info/form-predefined' });
  t.ok(Value.Check(Type.Record(Type.String(), Type.Record(Type.String(), Type.String())), form.json()));
  t.same(form.json()['FR - Demo university'], { 'Log-Type': 'Apache', 'Log-Format': '%h %l %u %t "%r" %>s %b', 'Crypted-Fields': 'none' });
  t.same(form.json()['Generic - EZproxy standard format'], { 'Log-Type': 'EZproxy', 'Log-Format': '%h %l %u %t "%r" %s %b' });

  // A file dropped in the folder is seen at the next request.
  await writeFile(join(local, 'zz-more.json'), JSON.stringify({ 'local-2': { fullName: 'Another', country: 'FR', headers: {} } }));
  const again = (await ta.inject({ url: '/info/predefined-settings' })).json() as Record<string, unknown>;
  t.ok(again['local-2'], 'new file read');

  // the reference's custom settings: the institution's folder (and the database's, none here), as an array
  for (const prefix of ['/info', '/api/info']) {
    const custom = await ta.inject({ url: `${prefix}/predefined-settings/custom` });
    t.equal(custom.statusCode, 200);
    t.same(custom.json(), [
      { id: 'local-1', fullName: 'Our proxy', country: 'BE', headers: { 'Traces-Level': 'warn' }, source: 'local' },
      { id: 'local-2', fullName: 'Another', country: 'FR', headers: {}, source: 'local' },
    ], `${prefix}: the folder's settings only, {id, fullName, country, headers}, and where they are kept`);
  }
});

t.test('/info/predefined-settings/custom without an institution folder: []', async (t) => {
  const ta = await testApp(t);
  const res = await ta.inject({ url: '/info/predefined-settings/custom' });
  t.equal(res.statusCode, 200);
  t.same(res.json(), []);
});

t.test('/info/countries.json: the resources part\'s file, else the packaged GeoLite2-Country names', async (t) => {
  const root = await tempDir(t);
  const ta = await testApp(t, { REPOS_DIR: join(root, 'repos') });
  for (const prefix of ['/info', '/api/info']) {
    const res = await ta.inject({ url: `${prefix}/countries.json` });
    t.equal(res.statusCode, 200, prefix);
    const list = res.json() as Array<{ code: string; fr: string; en: string }>;
    t.ok(list.length > 200, `${list.length} countries`);
    t.ok(list.every((c) => /^[A-Z]{2}$/.test(c.code) && c.fr !== '' && c.en !== ''), 'each: ISO code, French and English names');
    t.same(list.find((c) => c.code === 'DE'), { code: 'DE', fr: 'Allemagne', en: 'Germany' });
    t.equal(new Set(list.map((c) => c.code)).size, list.length, 'each country once');
    t.same(list.map((c) => c.en), [...list.map((c) => c.en)].sort((a, b) => a.localeCompare(b, 'en')), 'sorted by English name');
  }
  // once the resources part holds the reference's file, it is what is served
  await mkdir(join(root, 'repos', 'resources'), { recursive: true });
  const file = [{ fr: 'Afghanistan', en: 'Afghanistan' }, { fr: 'Afrique du Sud', en: 'South Africa' }];
  await writeFile(join(root, 'repos', 'resources', 'countries.json'), JSON.stringify(file));
  t.same((await ta.inject({ url: '/info/countries.json' })).json(), file, 'the file as it is');
});

t.test('/info/middlewares/headers: the job headers each extra step declares', async (t) => {
  const ta = await testApp(t);
  for (const prefix of ['/info', '/api/info']) {
    const res = await ta.inject({ url: `${prefix}/middlewares/headers` });
    t.equal(res.statusCode, 200);
    t.match(res.json(), [{ name: 'user-agent-parser', headers: [{ name: 'User-Agent-Parser-Field', description: String }] }], `${prefix}: the shipped step`);
  }
  const repos = join(await tempDir(t), 'repos');
  await applyChanges(join(repos, 'middlewares'), {
    'plain/index.mjs': 'export default () => () => undefined;\n',
    'tagger/index.mjs': "export const headers = [{ name: 'Tagger-Tag' }];\nexport default () => () => undefined;\n",
    'broken/index.mjs': "export const headers = ['Tagger-Tag'];\nexport default () => () => undefined;\n",
  });
  const other = await testApp(t, { REPOS_DIR: repos });
  t.same((await other.inject({ url: '/info/middlewares/headers' })).json(), [
    { name: 'plain', headers: [] },
    { name: 'tagger', headers: [{ name: 'Tagger-Tag' }] },
  ], 'a step without headers: []; one whose headers are not {name} objects is not loaded');
  t.ok(other.logs.some((l) => l.includes('middleware broken') && l.includes('headers')), 'and its problem is logged');
});

t.test('changed lists: by folder, top-level and dot paths left out', async (t) => {
  t.same(changedByFolder(['README.md', '.github/x.yml', 'acs/manifest.json', 'acs/pkb/acs_2024-01-01.txt', 'js-parser-skeleton/parser.js', 'sd/rules.yaml']), {
    acs: ['manifest.json', 'pkb/acs_2024-01-01.txt'],
    sd: ['rules.yaml'],
  });
});

t.test('/info/usage: jobs, lines and events per day and per platform', async (t) => {
  const ta = await testApp(t);
  const insert = ta.app.db.prepare(`INSERT INTO jobs (id, state, created_at, request_headers) VALUES (?, 'running', ?, '{}')`);
  const end = ta.app.db.prepare(`UPDATE jobs SET state = ?, ended_at = ?, lines_read = ?, events = ?, bytes_read = ?, rejects = ?, report = ? WHERE id = ?`);
  const today = new Date().toISOString().slice(0, 10);
  const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
  const old = new Date(Date.now() - 100 * 86_400_000).toISOString().slice(0, 10);
  const report = (stats: Record<string, number>) => JSON.stringify({ general: {}, stats });
  insert.run('a', `${today}T01:00:00.000Z`);
  end.run('done', `${today}T01:00:02.000Z`, 100, 40, 5000, '{"unqualified-ecs":20,"filtered-ecs":40}', report({ 'platform-sd': 30, 'platform-wiley': 10 }), 'a');
  insert.run('b', `${yesterday}T01:00:00.000Z`);
  end.run('failed', `${yesterday}T01:00:01.000Z`, 10, 0, 700, '{"unknown-formats":10}', report({}), 'b');
  insert.run('c', `${old}T01:00:00.000Z`);
  end.run('done', `${old}T01:00:01.000Z`, 7, 7, 70, '{}', report({ 'platform-acs': 7 }), 'c');
  insert.run('d', `${today}T02:00:00.000Z`); // still running: not counted

  for (const url of ['/info/usage', '/info/usage.json', '/api/info/usage']) {
    const res = await ta.inject({ url });
    t.equal(res.statusCode, 200, url);
    t.ok(Value.Check(UsageSchema, res.json()), `${url}: shape`);
  }
  const usage = (await ta.inject({ url: '/info/usage?days=30' })).json();
  t.match(usage.general, {
    'Job-IDs': 2, 'failed-jobs': 1, 'nb-lines-input-total': 110, 'nb-ecs-total': 40, 'bytes-total': 5700,
    'nb-lines-rejected-total': 30, 'nb-lines-filtered-total': 40, 'Rejection-Rate-average': 42.86,
    'Job-Duration-average': 1.5, 'process-speed-average': 37, 'Job-Date-start': yesterday, 'Job-Date-end': today,
  });
  t.same(usage.days.map((d: { day: string; jobs: number }) => [d.day, d.jobs]), [[yesterday, 1], [today, 1]]);
  t.same(usage.platforms, [{ platform: 'sd', jobs: 1, events: 30 }, { platform: 'wiley', jobs: 1, events: 10 }]);
  t.equal(usage.stats.platforms, 2);
  const top = (await ta.inject({ url: '/info/usage?days=365&top=1' })).json();
  t.equal(top.general['Job-IDs'], 3);
  t.same(top.platforms, [{ platform: 'sd', jobs: 1, events: 30 }]);
  t.equal((await ta.inject({ url: '/info/usage?days=0' })).statusCode, 400);

  // Retention removes rows: the counters stay.
  ta.app.db.prepare('DELETE FROM jobs').run();
  t.equal((await ta.inject({ url: '/info/usage' })).json().general['Job-IDs'], 2);
});

t.test('pages of other sites may read the information routes: CORS and its preflight', async (t) => {
  const ta = await testApp(t);
  for (const url of ['/info/platforms/count', '/api/info/codes/4003']) {
    const res = await ta.inject({ url, headers: { origin: 'https://library.example' } });
    t.equal(res.statusCode, 200, url);
    t.equal(res.headers['access-control-allow-origin'], '*', url);
    t.equal(res.headers['access-control-allow-credentials'], undefined, 'never with credentials');
  }
  const preflight = await ta.inject({
    method: 'OPTIONS', url: '/info/platforms',
    headers: { origin: 'https://library.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'accept-language, x-requested-with' },
  });
  t.equal(preflight.statusCode, 204);
  t.equal(preflight.headers['access-control-allow-origin'], '*');
  t.equal(preflight.headers['access-control-allow-methods'], 'GET, HEAD, OPTIONS');
  t.equal(preflight.headers['access-control-allow-headers'], 'accept-language, x-requested-with');
  t.equal(preflight.headers.allow, 'GET, HEAD, OPTIONS', 'a plain OPTIONS says the methods too');
  const odd = await ta.inject({ method: 'OPTIONS', url: '/api/info/codes', headers: { 'access-control-request-headers': 'a b\tc' } });
  t.equal(odd.headers['access-control-allow-headers'], undefined, 'what is not a list of header names is not echoed');
  const admin = await ta.inject({ url: '/api/admin/users', headers: { origin: 'https://library.example' } });
  t.equal(admin.headers['access-control-allow-origin'], undefined, 'not on the other routes');
});

t.test('unknown information paths answer a JSON 404', async (t) => {
  const ta = await testApp(t);
  for (const url of ['/info/nothing', '/api/info/nothing']) {
    const res = await ta.inject({ url });
    t.equal(res.statusCode, 404, url);
    t.match(res.headers['content-type'], /^application\/json/);
  }
});

t.test('the reference\'s other information routes: uuid, config, domains, middlewares', async (t) => {
  const exclusions = join(await tempDir(t), 'exclusions');
  await mkdir(exclusions, { recursive: true });
  await writeFile(join(exclusions, 'domains.txt'), '# ignored sites\nWWW.Bing.com\n');
  const ta = await testApp(t, { PLATFORMS_DIR: await platformsDir(t), EXCLUSIONS_DIRS: exclusions });
  for (const prefix of ['/info', '/api/info']) {
    const uuid = await ta.inject({ url: `${prefix}/uuid` });
    t.equal(uuid.statusCode, 200);
    t.match(uuid.headers['content-type'], /^text\/plain/);
    t.match(uuid.body, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, 'a version-4 UUID');
    t.not(uuid.body, (await ta.inject({ url: `${prefix}/uuid` })).body, 'a new one each time');

    const config = (await ta.inject({ url: `${prefix}/config` })).json() as { EZPAARSE_IGNORED_DOMAINS: string[] };
    t.same(Object.keys(config), ['EZPAARSE_IGNORED_DOMAINS'], 'nothing else of the configuration');
    t.ok(config.EZPAARSE_IGNORED_DOMAINS.includes('www.bing.com'), 'the ignored domains, the added folder\'s too');

    const odd = (await ta.inject({ url: `${prefix}/domains/ODD.example.org` })).json() as Array<Record<string, unknown>>;
    t.match(odd, [{ platform: 'odd', platformName: 'Odd', manifest: { name: 'odd', domains: ['odd.example.org'] } }], 'the platform of a host');
    t.notMatch(JSON.stringify(odd), /\/(tmp|work|var)\//, 'no server path');
    t.same((await ta.inject({ url: `${prefix}/domains/nowhere.example.org` })).json(), [], 'none: []');
    t.same((await ta.inject({ url: `${prefix}/domains/a%20b` })).json(), [], 'not a host name: []');

    const mw = (await ta.inject({ url: `${prefix}/middlewares` })).json() as { config: string[]; enabled: string[]; available: string[] };
    t.same(mw.config, ['filter', 'parser', 'deduplicator', 'enhancer', 'geolocalizer', 'cut', 'on-campus-counter', 'qualifier', 'anonymizer'], 'the default chain');
    t.same(mw.enabled, mw.config);
    t.ok(mw.available.every((name) => !mw.config.includes(name)), 'available: what the chain leaves out');
  }
});

t.test('numbers a query coerces to Infinity are a 400 naming the field, not a 500', async (t) => {
  const ta = await testApp(t);
  for (const query of ['days=1e400', 'top=1e400', 'days=Infinity', 'top=-1e400']) {
    for (const prefix of ['/info', '/api/info']) {
      const res = await ta.inject({ url: `${prefix}/usage?${query}` });
      t.equal(res.statusCode, 400, `${prefix}/usage?${query}`);
      t.match(res.json().message, new RegExp(`^querystring/${query.split('=')[0]} must be a finite number$`));
    }
  }
  t.equal((await ta.inject({ url: '/info/usage?days=36600&top=1000' })).statusCode, 200, 'the largest values allowed');
  // an administrator's route with a numeric query, behind its own error handler
  const admin = await registerAdmin(t, ta);
  const log = await ta.inject({ url: '/api/admin/app/update-log?since=1e400', headers: { authorization: admin } });
  t.equal(log.statusCode, 400);
  t.match(log.json(), { message: 'invalidRequest' });
  t.notMatch(ta.bodies.join('\n'), /Invalid time value|SQLITE/);
});

t.test('a 5xx on the information routes answers a generic message', async (t) => {
  const ta = await testApp(t);
  const secret = `ENOENT: no such file, open '${ta.app.config.varDir}/settings/x.json'`;
  ta.app.predefinedSettings.all = async () => { throw new Error(secret); };
  for (const url of ['/info/predefined-settings', '/api/info/form-predefined', '/info/predefined-settings/custom']) {
    const res = await ta.inject({ url });
    t.equal(res.statusCode, 500, url);
    t.same(res.json(), { statusCode: 500, error: 'Internal Server Error', message: 'internalError' });
  }
  t.match(ta.logs.join(''), /no such file/, 'the cause is logged');
});
