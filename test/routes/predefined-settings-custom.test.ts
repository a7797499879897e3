import t, { type Test } from 'tap';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testApp, withUsers, USER } from '../helpers/accounts.js';

// Custom predefined settings (routes.md 6.3): written by administrators through
// POST/PUT/DELETE /info/predefined-settings/custom, kept in SQLite, merged after the files.

const MINE = { id: 'be-ulb', fullName: 'ULB Brussels', country: 'BE', headers: { 'Log-Format-ezproxy': '%h %u %t "%r"', 'Crypted-Fields': 'none' } };
const JSON_BODY = { 'content-type': 'application/json' };

async function setup(t: Test) {
  const local = await mkdtemp(join(tmpdir(), 'logsift-local-settings-'));
  t.teardown(() => rm(local, { recursive: true, force: true }));
  await writeFile(join(local, 'ours.json'), JSON.stringify({ 'local-1': { fullName: 'Our proxy', country: 'BE', headers: { 'Traces-Level': 'warn' } } }));
  const ta = await testApp(t, { PREDEFINED_SETTINGS_DIR: local });
  const { admin, user } = await withUsers(t, ta);
  const send = (method: 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown, authorization = admin, headers: Record<string, string> = {}) =>
    ta.inject({ method, url, headers: { authorization, ...(payload === undefined ? {} : JSON_BODY), ...headers }, payload: payload === undefined ? undefined : JSON.stringify(payload) });
  return { ta, admin, user, send, local };
}

t.test('writes are for administrators: anonymous 401, a user 403, another site 403, nothing stored', async (t) => {
  const { ta, user, send } = await setup(t);
  const url = '/info/predefined-settings/custom';
  const anonymous = await ta.inject({ method: 'POST', url, headers: JSON_BODY, payload: JSON.stringify({ settings: MINE }) });
  t.equal(anonymous.statusCode, 401);
  t.equal(anonymous.json().message, 'authenticationRequired');
  const asUser = await send('POST', url, { settings: MINE }, user);
  t.equal(asUser.statusCode, 403, `${USER.userid} is no administrator`);
  t.equal(asUser.json().message, 'forbidden');
  t.equal((await send('PUT', `${url}/local-1`, { settings: MINE }, user)).statusCode, 403);
  t.equal((await send('DELETE', `${url}/local-1`, undefined, user)).statusCode, 403);
  const crossSite = await send('POST', url, { settings: MINE }, undefined, { 'sec-fetch-site': 'cross-site' });
  t.equal(crossSite.statusCode, 403, 'a page of another site with the browser\'s cached credentials');
  t.equal(crossSite.json().message, 'crossSiteRequest');
  t.same(ta.app.customSettings.list(), [], 'nothing stored');
});

t.test('created (201), listed with the files\' settings, found by the settings of a job; both prefixes', async (t) => {
  const { ta, send } = await setup(t);
  const res = await send('POST', '/info/predefined-settings/custom', { settings: MINE });
  t.equal(res.statusCode, 201);
  const record = res.json();
  t.match(record, { ...MINE, createdBy: 'admin@example.org', updatedBy: 'admin@example.org' });
  t.match(record.createdAt, /^\d{4}-\d\d-\d\dT/);

  for (const prefix of ['/info', '/api/info']) {
    const all = (await ta.inject({ url: `${prefix}/predefined-settings` })).json();
    t.same(all['be-ulb'], { fullName: MINE.fullName, country: 'BE', headers: MINE.headers }, `${prefix}/predefined-settings: the reference's shape`);
    t.ok(all['local-1'] && all['logsift-ezproxy-standard'], 'beside the files\' ones');
    const custom = (await ta.inject({ url: `${prefix}/predefined-settings/custom` })).json();
    t.same(custom, [
      { ...MINE, source: 'custom', updatedAt: record.updatedAt },
      { id: 'local-1', fullName: 'Our proxy', country: 'BE', headers: { 'Traces-Level': 'warn' }, source: 'local' },
    ], `${prefix}/predefined-settings/custom: the database's and the folder's, no author (public)`);
  }
  t.ok((await ta.inject({ url: '/info/form-predefined' })).json()['BE - ULB Brussels'], 'the 1.x view too');
  t.same(await ta.app.predefinedSettings.get('be-ulb'), { fullName: MINE.fullName, country: 'BE', headers: MINE.headers }, 'what a job naming it gets');

  const viaApi = await send('POST', '/api/info/predefined-settings/custom', { settings: { ...MINE, id: 'be-ulb-2', fullName: 'ULB 2' } });
  t.equal(viaApi.statusCode, 201, 'the 3.x prefix writes too');
});

t.test('409 alreadyExists: a custom setting\'s id or name (whatever the case), a file\'s id', async (t) => {
  const { ta, send } = await setup(t);
  t.equal((await send('POST', '/info/predefined-settings/custom', { settings: MINE })).statusCode, 201);
  const clashes: Array<[unknown, RegExp]> = [
    [{ ...MINE, fullName: 'Another name' }, /"be-ulb" has this id/],
    [{ ...MINE, id: 'BE-ULB', fullName: 'Another name' }, /"be-ulb" has this id/],
    [{ ...MINE, id: 'other', fullName: 'ulb brussels' }, /"be-ulb" is named "ULB Brussels"/],
    [{ ...MINE, id: 'logsift-ezproxy-standard', fullName: 'Mine' }, /"logsift-ezproxy-standard" is a setting of logsift's own settings/],
    [{ ...MINE, id: 'LOCAL-1', fullName: 'Mine' }, /"local-1" is a setting of the files of PREDEFINED_SETTINGS_DIR/],
  ];
  for (const [settings, detail] of clashes) {
    const res = await send('POST', '/info/predefined-settings/custom', { settings });
    t.equal(res.statusCode, 409, JSON.stringify(settings).slice(0, 60));
    t.match(res.json(), { statusCode: 409, message: 'alreadyExists', detail });
  }
  t.equal(ta.app.customSettings.list().length, 1);
});

t.test('400 invalidParameter with a detail for a bad body (the reference left one without settings hanging)', async (t) => {
  const { ta, admin, send } = await setup(t);
  const url = '/info/predefined-settings/custom';
  const bad: Array<[unknown, RegExp]> = [
    [MINE, /\{ "settings": \{/],
    [{}, /\{ "settings": \{/],
    [[], /\{ "settings": \{/],
    [{ settings: 'x' }, /settings must be an object/],
    [{ settings: { ...MINE, id: 'bad id!' } }, /id "bad id!": 1 to 64 letters/],
    [{ settings: { ...MINE, fullName: '' } }, /fullName must be a text of 1 to 200 characters/],
    [{ settings: { ...MINE, fullName: 'x'.repeat(201) } }, /fullName/],
    [{ settings: { ...MINE, country: ['FR'] } }, /country/],
    [{ settings: { ...MINE, headers: { Accept: ['text/csv'] } } }, /the value of Accept must be a one-line string/],
    [{ settings: { ...MINE, headers: { 'Traces-Level': 'warn\r\nX: y' } } }, /one-line string/],
    [{ settings: { ...MINE, headers: { 'a b': 'c' } } }, /is not a header name/],
    [{ settings: { ...MINE, headers: { Cookie: 'x=y' } } }, /Cookie cannot come from a predefined setting/],
  ];
  for (const [body, detail] of bad) {
    const res = await send('POST', url, body);
    t.equal(res.statusCode, 400, JSON.stringify(body).slice(0, 60));
    t.match(res.json(), { message: 'invalidParameter', detail });
  }
  const empty = await ta.inject({ method: 'POST', url, headers: { authorization: admin } });
  t.match(empty.json(), { statusCode: 400, message: 'invalidParameter' }, 'no body at all');
  const broken = await ta.inject({ method: 'POST', url, headers: { authorization: admin, ...JSON_BODY }, payload: '{"settings": ' });
  t.match(broken.json(), { statusCode: 400, message: 'invalidBody' }, 'not JSON');
  t.same(ta.app.customSettings.list(), []);
});

t.test('PUT replaces (also under another id), 404 on an unknown or a file\'s id; DELETE 204 then 404', async (t) => {
  const { ta, send } = await setup(t);
  const url = '/info/predefined-settings/custom';
  t.equal((await send('POST', url, { settings: MINE })).statusCode, 201);
  t.equal((await send('POST', url, { settings: { id: 'other', fullName: 'Other', country: '', headers: {} } })).statusCode, 201);

  const unknown = await send('PUT', `${url}/nope`, { settings: MINE });
  t.match(unknown.json(), { statusCode: 404, message: 'settingNotFound', detail: /no custom setting "nope"/ });
  const fileOne = await send('PUT', `${url}/local-1`, { settings: MINE });
  t.match(fileOne.json(), { statusCode: 404, message: 'settingNotFound', detail: /"local-1" is a setting of the files of PREDEFINED_SETTINGS_DIR: only custom settings are changed here/ });

  // the id may be left out of the body: the path's
  const { id: _id, ...withoutId } = MINE;
  const replaced = await send('PUT', `${url}/be-ulb`, { settings: { ...withoutId, headers: { 'Traces-Level': 'error' } } });
  t.equal(replaced.statusCode, 200);
  t.match(replaced.json(), { id: 'be-ulb', headers: { 'Traces-Level': 'error' }, updatedBy: 'admin@example.org' });
  t.same((await ta.app.predefinedSettings.get('be-ulb'))?.headers, { 'Traces-Level': 'error' }, 'the next job gets the new headers');

  t.match((await send('PUT', `${url}/be-ulb`, { settings: { ...MINE, id: 'other' } })).json(), { statusCode: 409, message: 'alreadyExists' }, 'renamed to another custom id');
  t.match((await send('PUT', `${url}/be-ulb`, { settings: { ...MINE, fullName: 'other' } })).json(), { statusCode: 409, message: 'alreadyExists' }, 'renamed to another custom name');
  t.match((await send('PUT', `${url}/be-ulb`, { settings: { ...MINE, id: 'logsift-squid-native' } })).json(), { statusCode: 409, detail: /logsift's own settings/ }, 'renamed to a file\'s id');
  t.match((await send('PUT', `${url}/be-ulb`, { settings: { fullName: 'x' } })).json(), { statusCode: 400, message: 'invalidParameter', detail: /headers are missing/ });

  const renamed = await send('PUT', `${url}/be-ulb`, { settings: { ...MINE, id: 'be-ulb-new' } });
  t.equal(renamed.statusCode, 200);
  t.equal(await ta.app.predefinedSettings.get('be-ulb'), undefined, 'the old id is gone');
  t.ok(await ta.app.predefinedSettings.get('be-ulb-new'));

  const deleted = await send('DELETE', `${url}/be-ulb-new`);
  t.equal(deleted.statusCode, 204);
  t.equal(deleted.body, '');
  t.equal(await ta.app.predefinedSettings.get('be-ulb-new'), undefined, 'no longer applied');
  t.same((await ta.inject({ url })).json().map((s: { id: string }) => s.id), ['local-1', 'other']);
  t.match((await send('DELETE', `${url}/be-ulb-new`)).json(), { statusCode: 404, message: 'settingNotFound' });
  t.match((await send('DELETE', `${url}/local-1`)).json(), { statusCode: 404, message: 'settingNotFound' }, 'a file\'s setting is not deleted here');
  t.ok(ta.logs.some((l) => l.includes('custom predefined setting deleted') && l.includes('admin@example.org')), 'who did it is logged');
});

t.test('kept in the database, with who wrote it', async (t) => {
  const { ta, send } = await setup(t);
  t.equal((await send('POST', '/info/predefined-settings/custom', { settings: MINE })).statusCode, 201);
  const row = ta.app.db.prepare('SELECT id, full_name, created_by FROM custom_settings').get();
  t.same(row, { id: 'be-ulb', full_name: 'ULB Brussels', created_by: 'admin@example.org' });
});

t.test('the public list says nothing of a database failure\'s cause; a write tells the administrator', async (t) => {
  const { ta, send } = await setup(t);
  const fail = () => { throw Object.assign(new Error('database disk image is malformed'), { code: 'SQLITE_CORRUPT' }); };
  ta.app.customSettings.list = fail;
  ta.app.customSettings.create = fail;
  const res = await ta.inject({ url: '/info/predefined-settings/custom' });
  t.equal(res.statusCode, 500);
  t.same(res.json(), { statusCode: 500, error: 'Internal Server Error', message: 'internalError' });
  t.notMatch(res.body, /sqlite/i);
  const write = await send('POST', '/info/predefined-settings/custom', { settings: { ...MINE, id: 'x', fullName: 'X' } });
  t.equal(write.statusCode, 503);
  t.match(write.json(), { message: 'storageFailed' });
});
