import t from 'tap';
import { mkdtemp, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AUTO_FORMATS } from '../../src/pipeline/formats/auto-detect.js';
import { BIBLIOPAM_STANDARD_FORMAT } from '../../src/pipeline/formats/bibliopam.js';
import { compileFormat } from '../../src/pipeline/formats/compile.js';
import { builtinSettings, checkCustomSetting, formPredefinedView, mergeJobHeaders, PredefinedSettingsStore, SETTING_ID, type PredefinedSetting } from '../../src/settings/predefined.js';

t.test('logsift’s own settings: one per auto-detected format, each compiles', async (t) => {
  const settings = builtinSettings();
  const formats = Object.values(settings).map((s) => Object.entries(s.headers)[0]);
  t.equal(formats.length, AUTO_FORMATS.length);
  for (const auto of AUTO_FORMATS) {
    const bibliopam = auto.literal === BIBLIOPAM_STANDARD_FORMAT;
    t.ok(formats.some(([name, value]) => (bibliopam ? name === 'Log-Format-bibliopam' && value === 'standard' : name === `Log-Format-${auto.family}` && value === auto.literal)), auto.literal);
  }
  for (const [id, s] of Object.entries(settings)) {
    t.match(id, SETTING_ID);
    const [name, value] = Object.entries(s.headers)[0];
    t.doesNotThrow(() => compileFormat(name.slice('Log-Format-'.length) as 'ezproxy', value), id);
  }
});

t.test('mergeJobHeaders: request > setting > defaults; one log format whatever its family', async (t) => {
  const merged = mergeJobHeaders(
    { accept: 'text/csv', 'log-format-apache': '%h', 'ezpaarse-predefined-settings': 'x' },
    { Accept: 'application/json', 'Log-Format-ezproxy': '%h %u', 'Traces-Level': 'warn', Authorization: 'Basic eA==', 'Content-Encoding': 'gzip' },
    { 'Traces-Level': 'error', 'Crypted-Fields': 'none', 'Log-Format-squid': '%ts' },
  );
  t.same(merged, {
    accept: 'text/csv',
    'log-format-apache': '%h',
    'ezpaarse-predefined-settings': 'x',
    'traces-level': 'warn',
    'crypted-fields': 'none',
  });
  t.same(mergeJobHeaders({}, { 'Log-Format-Ezproxy': '%h' }, { 'Log-Format-apache': '%h %u' }), { 'log-format-ezproxy': '%h' }, 'names are lower-cased; the setting’s format wins over the defaults’');
  t.same(mergeJobHeaders({}, undefined, { 'Log-Format-apache': '%h' }), { 'log-format-apache': '%h' });
});

t.test('mergeJobHeaders: a header with an empty value counts as not given', async (t) => {
  const setting = { 'Log-Format-apache': '%h %t', 'Crypted-Fields': 'none' };
  t.same(mergeJobHeaders({ 'log-format-ezproxy': '', 'crypted-fields': '  ' }, setting, { 'Traces-Level': 'info' }),
    { 'log-format-apache': '%h %t', 'crypted-fields': 'none', 'traces-level': 'info' }, 'the setting\'s format and values apply');
  t.same(mergeJobHeaders({ 'log-format-ezproxy': ['', ' '] }, undefined, {}), {}, 'empty each time it is sent');
  t.same(mergeJobHeaders({ 'log-format-bibliopam': '' }, setting, {}), { 'log-format-bibliopam': '', 'crypted-fields': 'none' }, 'but Log-Format-bibliopam, whose empty value is its standard format');
  t.same(mergeJobHeaders({ 'output-fields': ['', '+x'] }, undefined, {}), { 'output-fields': ['', '+x'] }, 'an empty value beside another: left for the header\'s reader');
});

t.test('mergeJobHeaders: the Accept curl and fetch send on every request hides no setting\'s output format', async (t) => {
  const setting = { Accept: 'text/tab-separated-values' };
  for (const accept of ['*/*', ' */* ', '*/*;q=0.8']) t.same(mergeJobHeaders({ accept }, setting, {}), { accept: 'text/tab-separated-values' }, accept);
  t.same(mergeJobHeaders({ accept: '*/*' }, undefined, { Accept: 'application/jsonstream' }), { accept: 'application/jsonstream' }, 'the defaults\' too');
  t.same(mergeJobHeaders({ accept: 'application/json' }, setting, {}), { accept: 'application/json' }, 'an Accept that asks for a format wins');
  t.same(mergeJobHeaders({ accept: '*/*' }, {}, {}), {}, 'none anywhere: the default output (CSV)');
  for (const accept of ['*/*;q=0', '*/*; Q=0.000']) t.same(mergeJobHeaders({ accept }, setting, {}), { accept }, `${accept} refuses every format: kept, for negotiation to answer 4006`);
});

t.test('formPredefinedView: the 1.x shape', async (t) => {
  t.same(formPredefinedView({
    a: { fullName: 'A', country: 'FR', headers: { 'Log-Format-squid': '%ts', 'Output-Fields': '+x' } },
    b: { fullName: 'B', country: '', headers: {} },
  }), { 'FR - A': { 'Log-Type': 'Squid', 'Log-Format': '%ts', 'Output-Fields': '+x' }, B: {} });
});

t.test('a settings file broken since it was last read keeps its last readable content (a torn write dropped all its settings)', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'logsift-settings-'));
  const file = join(dir, 'predefined-settings.json');
  await writeFile(file, JSON.stringify({ 'fr-inist': { fullName: 'INIST', country: 'FR', headers: { 'Log-Format-ezproxy': '%h %u %t "%r" %s %b' } } }));
  const problems: string[] = [];
  const store = new PredefinedSettingsStore({ resourcesFile: file }, (p) => problems.push(p.message));
  t.ok(await store.get('fr-inist'), 'read');
  await writeFile(file, '{"fr-inist": {"fullName": "INI');
  const later = new Date(Date.now() + 5000);
  await utimes(file, later, later);
  t.ok(await store.get('fr-inist'), 'still there once the file is broken');
  t.match((await store.problems())[0]?.message, /cannot be read as JSON: .*; its last readable content is kept/);
  t.match(problems.at(-1), /last readable content is kept/, 'and said');
  const fresh = new PredefinedSettingsStore({ resourcesFile: file });
  t.equal(await fresh.get('fr-inist'), undefined, 'a service that never read it has nothing to keep');
});

t.test('custom settings come after the files, read again only when their revision changes', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'logsift-settings-'));
  const file = join(dir, 'predefined-settings.json');
  await writeFile(file, JSON.stringify({ 'fr-inist': { fullName: 'INIST', country: 'FR', headers: { 'Crypted-Fields': 'none' } } }));
  let revision = 1;
  let listed = 0;
  let list: Array<PredefinedSetting & { id: string }> = [{ id: 'mine', fullName: 'Mine', country: 'BE', headers: { 'Traces-Level': 'warn' } }];
  const problems: string[] = [];
  const store = new PredefinedSettingsStore({ resourcesFile: file }, (p) => problems.push(p.message), {
    revision: () => String(revision),
    list: () => {
      listed++;
      return list;
    },
  });
  t.same(await store.get('mine'), { fullName: 'Mine', country: 'BE', headers: { 'Traces-Level': 'warn' } });
  t.equal((await store.sources()).mine, 'custom');
  t.equal((await store.sources())['fr-inist'], 'resources');
  await store.all();
  await store.get('fr-inist');
  t.equal(listed, 1, 'one read while the revision stays');

  list = [...list, { id: 'other', fullName: 'Other', country: '', headers: {} }];
  revision++;
  t.ok(await store.get('other'), 'a write is seen at the next call');
  t.equal(listed, 2);
  t.same(Object.keys(await store.all()).filter((id) => !id.startsWith('logsift-')), ['fr-inist', 'mine', 'other'], 'sorted by id with the others');

  // A file that later defines a custom setting's id: the custom one stays in force, and it is said.
  await writeFile(file, JSON.stringify({ mine: { fullName: 'The file', country: 'FR', headers: {} } }));
  const later = new Date(Date.now() + 5000);
  await utimes(file, later, later);
  t.equal((await store.get('mine'))?.fullName, 'Mine');
  t.match(problems.at(-1), /mine: replaced by the custom setting of the same id/);
  t.same(await store.fileSetting('MINE'), { id: 'mine', source: 'resources' }, 'the files\' ids, whatever the case, custom ones aside');
  t.same(await store.fileSetting('logsift-ezproxy-standard'), { id: 'logsift-ezproxy-standard', source: 'logsift' });
  t.equal(await store.fileSetting('other'), undefined);
});

t.test('checkCustomSetting: the checks of the files\' settings, strictly', async (t) => {
  t.same(checkCustomSetting({ _id: 'x', id: 'a.b_c-1', fullName: ' Name ', country: 'FR', headers: { 'Log-Format-ezproxy': '%h' } }),
    { id: 'a.b_c-1', fullName: 'Name', country: 'FR', headers: { 'Log-Format-ezproxy': '%h' } }, 'the reference\'s _id ignored, the name trimmed');
  t.same(checkCustomSetting({ id: 'a', fullName: 'A', headers: {} }), { id: 'a', fullName: 'A', country: '', headers: {} }, 'no country: none');
  const refused: Array<[unknown, RegExp]> = [
    [null, /must be an object/],
    [[], /must be an object/],
    [{ fullName: 'A', headers: {} }, /id is missing/],
    [{ id: '-a', fullName: 'A', headers: {} }, /letters, digits/],
    [{ id: 'a'.repeat(65), fullName: 'A', headers: {} }, /letters, digits/],
    [{ id: 'a', headers: {} }, /fullName must be a text of 1 to 200/],
    [{ id: 'a', fullName: '  ', headers: {} }, /fullName/],
    [{ id: 'a', fullName: 'x'.repeat(201), headers: {} }, /fullName/],
    [{ id: 'a', fullName: 'A', country: 3, headers: {} }, /country/],
    [{ id: 'a', fullName: 'A' }, /headers are missing/],
    [{ id: 'a', fullName: 'A', headers: [] }, /headers must be an object/],
    [{ id: 'a', fullName: 'A', headers: { 'Bad Name': 'x' } }, /is not a header name/],
    [{ id: 'a', fullName: 'A', headers: { Accept: 1 } }, /one-line string/],
    [{ id: 'a', fullName: 'A', headers: { Accept: 'a\nb' } }, /one-line string/],
    [{ id: 'a', fullName: 'A', headers: { Authorization: 'Basic eA==' } }, /Authorization cannot come from a predefined setting/],
    [{ id: 'a', fullName: 'A', headers: { 'ezPAARSE-Predefined-Settings': 'b' } }, /cannot come from a predefined setting/],
  ];
  for (const [raw, message] of refused) t.match(checkCustomSetting(raw), message, JSON.stringify(raw).slice(0, 60));
});
