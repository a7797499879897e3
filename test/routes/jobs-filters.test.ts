/**
 * The reference's filter, double-click, chronology, campus, middleware, knowledge-base and
 * geolocation fixtures (shared/datasets, reference 9 and 9.1), posted over HTTP to the real
 * service started with the shared exclusion lists and knowledge bases.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { SHARED_DIR } from '../../src/paths.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { jobFile, jobReport, lines, postJob } from '../helpers/jobs.js';
import { shared } from '../helpers/shared.js';

const datasets = join(SHARED_DIR, 'datasets');
const data = (name: string) => readFileSync(join(datasets, name));
const inputLines = (name: string) => lines(data(name).toString('utf8'));
const json = (body: string) => (body === '' ? [] : (JSON.parse(body) as Array<Record<string, unknown>>));
const JSON_OUT = { Accept: 'application/json', 'Crypted-Fields': 'none' };

if (!shared(t, 'datasets') || !shared(t, 'exclusions') || !shared(t, 'pkb')) {
  t.end();
} else {
  let app: TestApp;
  t.before(async () => {
    app = await startApp({}, { EXCLUSIONS_DIRS: join(SHARED_DIR, 'exclusions'), PKB_DIRS: join(SHARED_DIR, 'pkb') });
  });
  t.teardown(() => app.close());
  const post = (file: string | Uint8Array, headers: Record<string, string> = {}) => postJob(app.url, typeof file === 'string' ? data(file) : file, headers);

  // job-logs @01–@16 (reject files, denied file, redirects) are in test/routes/job-logs.test.ts,
  // read through the job-file routes; @16's robot marking stays here.
  t.test('job-logs @16: Disable-Filters robots keeps the robot, marked', async (t) => {
    const res = await post('robot-ec.log', { ...JSON_OUT, 'Disable-Filters': 'robots' });
    const ecs = json(res.body);
    t.equal(ecs.length, 1);
    t.equal(ecs[0].robot, 'yes');
    const other = json((await post('sd.mini.log', JSON_OUT)).body);
    t.same(other.map((e) => e.robot), ['no', 'no']);
  });

  t.test('deduplication @01-@03: status filter', async (t) => {
    const statuses = async (headers: Record<string, string>) => json((await post('sd.multiple-status.log', { ...JSON_OUT, ...headers })).body).map((e) => e.status);
    t.same(await statuses({}), ['200', '304']);
    t.equal((await statuses({ 'ezPAARSE-Filter-Status': 'false' })).length, 16);
    t.same(await statuses({ 'ezPAARSE-Filter-Status': '206,403,503' }), ['206', '403', '503']);
  });

  t.test('clean-only: the lines that pass the validity and status filters', async (t) => {
    const res = await post('sd.multiple-status.log', { Accept: 'application/json', 'Clean-Only': 'true' });
    const input = inputLines('sd.multiple-status.log');
    t.same(lines(res.body), [input[0], input[6], input[8], input[9]]);
    const unordered = await post('unordered-ecs.log', { 'Clean-Only': 'true' });
    t.same(lines(unordered.body), inputLines('unordered-ecs.log'), 'no chronology check on lines');
  });

  t.test('deduplication @04-@09: the six double-click fixtures', async (t) => {
    const format = { 'Log-Format-ezproxy': '%h %u %{session}<[a-zA-Z0-9\\-]+> %t "%r" %s' };
    const windows = { 'Double-Click-HTML': '10', 'Double-Click-MISC': '20', 'Double-Click-PDF': '30', 'Double-Click-C-Field': 'session' };
    const cases: Array<[string, string, Record<string, string>]> = [
      ['sd.duplicates.log', 'sd.duplicates-session.result.json', { ...windows, 'Double-Click-Strategy': 'CLI' }],
      ['sd.duplicates.log', 'sd.duplicates-login.result.json', { ...windows, 'Double-Click-Strategy': 'LCI' }],
      ['sd.duplicates.log', 'sd.duplicates-ip.result.json', { ...windows, 'Double-Click-Strategy': 'ILC' }],
      ['sd.duplicates-manyclick.log', 'sd.duplicates-manyclick.result.json', { ...windows, 'Double-Click-Strategy': 'CLI' }],
      ['sd.duplicates-manyclick2.log', 'sd.duplicates-manyclick2.result.json', { ...windows, 'Double-Click-Strategy': 'CLI' }],
      ['sd.duplicates.log', 'sd.duplicates-mixed-login.result.json', { 'Double-Click-Strategy': 'LCI', 'Double-Click-MIXED': '10' }],
    ];
    for (const [log, expectedFile, headers] of cases) {
      const res = await post(log, { ...JSON_OUT, ...format, ...headers });
      const got = json(res.body);
      const expected = JSON.parse(data(expectedFile).toString('utf8')) as Array<Record<string, unknown>>;
      const pick = (e: Record<string, unknown>) => [Date.parse(String(e.datetime)) / 1000, e.rtype, e.mime, e.unitid];
      t.same(got.map(pick), expected.map(pick), `${expectedFile}: ${expected.length} events, same clicks kept`);
    }
  });

  t.test('double clicks: report section, bad settings refused', async (t) => {
    const res = await post('duplicate-ecs.log', { 'Double-Click-HTML': '5' });
    const report = await jobReport(app.varDir, res.id);
    t.match(report.dedoublonnage, { activated: true, strategy: 'CLI', 'fieldname-C': 'session', 'window-html': 5, 'window-pdf': 30, 'window-misc': 30 });
    t.equal(lines(res.body).length, 3, 'clicks 6 s apart with a 5 s window: both kept (CSV header + 2)');
    for (const [name, value] of [['Double-Click-Strategy', 'CLX'], ['Double-Click-Strategy', 'CC'], ['Double-Click-HTML', 'ten'], ['Double-Click-Mode', 'counter4']]) {
      const bad = await post('sd.mini.log', { [name]: value });
      t.equal(bad.status, 400, `${name}: ${value}`);
      t.equal(bad.headers.get('ezpaarse-status'), '4031');
    }
    const off = await post('duplicate-ecs.log', { 'Double-Click-Removal': 'false' });
    t.equal(lines(off.body).length, 3);
    t.same((await jobReport(app.varDir, off.id)).dedoublonnage, { activated: false });
  });

  t.test('double clicks: granted and denied are deduplicated apart', async (t) => {
    const [a, b] = inputLines('duplicate-ecs.log');
    const res = await post(Buffer.from(`${a}\n${b.replace(/ 200 /, ' 403 ')}\n`), { 'Reject-Files': 'duplicate-ecs' });
    t.equal(lines(res.body).length, 2, 'the granted click is kept');
    t.equal(lines(await jobFile(app.varDir, res.id, 'denied-ecs.csv')).length, 2, 'the denied one too');
  });

  t.test('double clicks: COUNTER 5 mode', async (t) => {
    const format = { 'Log-Format-ezproxy': '%h %u %{session}<[a-zA-Z0-9\\-]+> %t "%r" %s' };
    // seven HTML clicks 4-5 s apart: one kept (the last), as in the reference mode
    const many = json((await post('sd.duplicates-manyclick.log', { ...JSON_OUT, ...format, 'Double-Click-Mode': 'counter5' })).body);
    t.same(many.map((e) => String(e.datetime).slice(11, 19)), ['00:00:29']);
    // HTML views 12 s apart: two in the reference mode (10 s window), one in COUNTER 5 (30 s)
    const [first] = inputLines('duplicate-ecs.log');
    const later = first.replace('00:14:18', '00:14:30');
    const body = Buffer.from(`${first}\n${later}\n`);
    t.equal(json((await post(body, JSON_OUT)).body).length, 2);
    const counter = await post(body, { ...JSON_OUT, 'Double-Click-Mode': 'counter5' });
    t.equal(json(counter.body).length, 1);
    t.equal((await jobReport(app.varDir, counter.id)).dedoublonnage.mode, 'counter5');
  });

  t.test('chronology: tolerance re-orders instead of rejecting', async (t) => {
    const res = await post('unordered-ecs.log', { ...JSON_OUT, 'Chronology-Tolerance': '10', 'Double-Click-Removal': 'false' });
    t.same(json(res.body).map((e) => String(e.datetime).slice(11, 19)), ['00:00:20', '00:00:25']);
    const tight = await post('unordered-ecs.log', { ...JSON_OUT, 'Chronology-Tolerance': '2' });
    t.equal(json(tight.body).length, 1, '5 s late with 2 s of tolerance: unordered');
    t.equal((await post('sd.mini.log', { 'Chronology-Tolerance': 'soon' })).status, 400);
  });

  t.test('filter-platforms: only the listed platforms', async (t) => {
    const res = await post('multi-platforms.log', { ...JSON_OUT, 'Filter-Platforms': 'wiley,springer' });
    t.same(json(res.body).map((e) => e.platform), ['wiley', 'springer']);
    t.equal((await jobReport(app.varDir, res.id)).rejets['nb-lines-ignored'], 1);
  });

  t.test('oncampus: on_campus and the report counters', async (t) => {
    const res = await post('oncampus.log', JSON_OUT);
    t.same(json(res.body).map((e) => e.on_campus), ['N', 'Y']);
    const general = (await jobReport(app.varDir, res.id)).general;
    t.equal(general['on-campus-accesses'], 1);
    t.equal(general['off-campus-accesses'], 1);
  });

  t.test('middlewares: the chain a job asks for', async (t) => {
    const only = await post('sd.mini.log', { Accept: 'application/json', 'ezPAARSE-Middlewares': '(only) anonymizer, parser' });
    t.equal(json(only.body).length, 2);
    t.equal((await jobReport(app.varDir, only.id)).general.middlewares, 'anonymizer, parser');
    t.equal(json(only.body)[0].middlewares, 'anonymizer, parser');
    const mixed = await post('sd.mini.log', { Accept: 'application/json', 'ezPAARSE-Middlewares': '(only) anonymizer, parser | (before anonymizer) filter | (after parser) deduplicator' });
    t.equal(json(mixed.body).length, 2);
    t.equal((await jobReport(app.varDir, mixed.id)).general.middlewares, 'filter, anonymizer, parser, deduplicator');
    const bad = await post('sd.mini.log', { 'ezPAARSE-Middlewares': 'pars er' });
    t.equal(bad.headers.get('ezpaarse-status'), '4024');
    const unknown = await post('sd.mini.log', { 'ezPAARSE-Middlewares': 'crossref' });
    t.equal(unknown.headers.get('ezpaarse-status'), '4025');
  });

  t.test('middlewares: the shipped user-agent-parser', async (t) => {
    const format = { 'Log-Format-apache': '%h %l %u %t "%r" %>s %b "%{referer}<[^ "]+>" "%{user-agent}<[^"]+>"' };
    const [line] = inputLines('sd.mini.log');
    const firefox = `${line} "-" "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"`;
    const res = await post(Buffer.from(firefox + '\n'), { ...JSON_OUT, ...format, 'ezPAARSE-Middlewares': 'user-agent-parser' });
    const [ec] = json(res.body);
    t.match(ec, { ua: 'Firefox', ua_os: 'Linux', ua_device: 'desktop' });
    const csv = await post(Buffer.from(firefox + '\n'), { ...format, 'ezPAARSE-Middlewares': 'user-agent-parser' });
    t.match(lines(csv.body)[0], /;ua;ua_os;ua_device;/);
    // a crawler's user agent is a robot
    const bot = `${line} "-" "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"`;
    const robots = await post(Buffer.from(bot + '\n'), { ...format, 'Reject-Files': 'robots-ecs' });
    t.equal(robots.body, '');
    t.same(lines(await jobFile(app.varDir, robots.id, 'lines-robots-ecs.log')), [bot]);
  });

  t.test('knowledge bases: enrichment and pkb misses', async (t) => {
    const known = '1.2.3.4 - U1 [30/Nov/2012:00:14:17 +0100] "GET http://www.sciencedirect.com:80/science/journal/00207063 HTTP/1.1" 200 1000';
    const [unknownLine] = inputLines('sd.mini.log');
    const res = await post(Buffer.from(`${unknownLine}\n${known}\n`), { ...JSON_OUT, 'Reject-Files': 'pkb-miss-ecs' });
    const ecs = json(res.body);
    t.equal(ecs.length, 2);
    t.match(ecs[1], { title_id: '00207063', print_identifier: '0020-7063', publication_title: 'The International Journal of Accounting' });
    t.equal(ecs[0].publication_title, undefined);
    t.equal((await jobReport(app.varDir, res.id)).rejets['nb-lines-pkb-miss-ecs'], 1);
    t.same(lines(await jobFile(app.varDir, res.id, 'lines-pkb-miss-ecs.log')), [unknownLine]);
    const off = json((await post(Buffer.from(`${known}\n`), { ...JSON_OUT, 'ezPAARSE-Enrich': 'false' })).body);
    t.equal(off[0].publication_title, undefined);
    // the reference's enhancer comes after its deduplicator: a double click is no pkb miss
    const again = unknownLine.replace(':00:13:10 ', ':00:13:15 ');
    const twice = await post(Buffer.from(`${unknownLine}\n${again}\n`), { ...JSON_OUT, 'Double-Click-Removal': 'true', 'Reject-Files': 'pkb-miss-ecs,duplicate-ecs' });
    t.equal(json(twice.body).length, 1);
    const rejets = (await jobReport(app.varDir, twice.id)).rejets;
    t.equal(rejets['nb-lines-duplicate-ecs'], 1);
    t.equal(rejets['nb-lines-pkb-miss-ecs'], 1, 'the event kept is the only pkb miss');
    t.same(lines(await jobFile(app.varDir, twice.id, 'lines-pkb-miss-ecs.log')), [again]);
  });

  t.test('geolocalize: the client address located, Geoip none off', async (t) => {
    const res = await post('geolocalize.log', { ...JSON_OUT, Geoip: 'geoip-country' });
    const [ec] = json(res.body);
    t.match(ec, { 'geoip-country': 'US', 'geoip-region': 'NY' });
    t.ok(Number.isFinite(Number(ec['geoip-latitude'])));
    const none = json((await post('geolocalize.log', { ...JSON_OUT, Geoip: 'none' })).body);
    t.notOk('geoip-country' in none[0]);
    t.notOk('geoip-region' in none[0]);
    // a proxy chain: the client (first public address) is located
    const chain = readFileSync(join(datasets, 'geolocalize.log'), 'utf8').replace('66.65.65.107', '66.65.65.107, 10.1.2.3');
    t.equal(json((await post(Buffer.from(chain), JSON_OUT)).body)[0]['geoip-country'], 'US');
    const csv = await post('geolocalize.log', {});
    t.match(lines(csv.body)[0], /;middlewares;geoip-country;geoip-latitude;geoip-longitude;host;/);
    const crypted = json((await post('geolocalize.log', { Accept: 'application/json', Geoip: 'all' })).body)[0];
    t.match(crypted['geoip-host'], /^[0-9a-f]{40}$/, 'the address located is crypted with host, by default');
    t.equal(crypted['geoip-country'], 'US', 'and located before');
  });

  t.test('exclusions: each host of a proxy chain', async (t) => {
    const [line] = inputLines('robot-ec.log');
    const chained = line.replace('209.185.108.20', '10.0.0.1, 209.185.108.20');
    const res = await post(Buffer.from(chained + '\n'), { 'Reject-Files': 'robots-ecs' });
    t.equal(res.body, '');
    t.same(lines(await jobFile(app.varDir, res.id, 'lines-robots-ecs.log')), [chained]);
    t.equal((await post('sd.mini.log', { 'Disable-Filters': 'robot' })).headers.get('ezpaarse-status'), '4032');
  });
}
