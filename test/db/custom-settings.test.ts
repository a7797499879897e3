import t, { type Test } from 'tap';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrate, openDatabase } from '../../src/db/database.js';
import { PROJECT_ROOT } from '../../src/paths.js';
import { CustomSettingError, CustomSettingsStore } from '../../src/db/custom-settings.js';

const MIGRATIONS = join(PROJECT_ROOT, 'src', 'db', 'migrations');

function store(t: Test) {
  const dir = mkdtempSync(join(tmpdir(), 'logsift-custom-settings-'));
  const file = join(dir, 'logsift.sqlite');
  const db = openDatabase(file);
  t.teardown(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { db, file, settings: new CustomSettingsStore(db) };
}

function refusal(fn: () => unknown): { code: string; detail: string } | undefined {
  try {
    fn();
  } catch (err) {
    if (err instanceof CustomSettingError) return { code: err.code, detail: err.detail };
    throw err;
  }
  return undefined;
}

const INIST = { id: '00-fr-inist', fullName: 'INIST-CNRS', country: 'FR', headers: { 'Crypted-Fields': 'none' } };

t.test('008: the table of custom settings, on a database of 007', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'logsift-migrations-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const before = join(dir, 'before');
  mkdirSync(before);
  for (const f of readdirSync(MIGRATIONS).filter((f) => f < '008')) copyFileSync(join(MIGRATIONS, f), join(before, f));
  const db = openDatabase(join(dir, 'logsift.sqlite'), before);
  t.teardown(() => db.close());
  t.notOk(db.prepare(`SELECT name FROM sqlite_master WHERE name = 'custom_settings'`).get(), 'not there before');
  t.same(migrate(db, MIGRATIONS), ['008-custom-settings'], 'applied alone');
  const now = new Date().toISOString();
  const insert = db.prepare('INSERT INTO custom_settings (id, full_name, country, headers, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)');
  insert.run('a', 'A', 'FR', '{}', now, now);
  t.throws(() => insert.run('A', 'other', 'FR', '{}', now, now), /UNIQUE|PRIMARY/, 'ids unique whatever their case');
  t.throws(() => insert.run('b', 'a', 'FR', '{}', now, now), /UNIQUE/, 'names unique whatever their case');
  t.throws(() => insert.run('c', 'C', 'FR', '[]', now, now), /CHECK/, 'headers: a JSON object only');
  t.throws(() => insert.run('d', 'D', 'FR', 'not json', now, now), /CHECK|JSON/);
});

t.test('create, list, replace (also renamed), remove; who and when recorded', async (t) => {
  const { settings } = store(t);
  t.same(settings.list(), []);
  const r0 = settings.revision();
  const created = settings.create(INIST, 'admin@example.org', new Date('2026-01-02T03:04:05Z'));
  t.same(created, { ...INIST, createdBy: 'admin@example.org', createdAt: '2026-01-02T03:04:05.000Z', updatedBy: 'admin@example.org', updatedAt: '2026-01-02T03:04:05.000Z' });
  t.not(settings.revision(), r0, 'a write changes the revision');
  t.same(settings.list().map((s) => s.id), ['00-fr-inist']);
  t.equal(settings.list(), settings.list(), 'the list is read once per revision');
  t.equal(settings.get('00-FR-INIST')?.id, '00-fr-inist', 'found whatever the case');

  const replaced = settings.replace('00-fr-inist', { ...INIST, id: '00-fr-inist-2', fullName: 'INIST again', headers: {} }, 'other@example.org', new Date('2026-02-01T00:00:00Z'));
  t.match(replaced, { id: '00-fr-inist-2', fullName: 'INIST again', headers: {}, createdBy: 'admin@example.org', createdAt: '2026-01-02T03:04:05.000Z', updatedBy: 'other@example.org', updatedAt: '2026-02-01T00:00:00.000Z' });
  t.notOk(settings.get('00-fr-inist'), 'the old id is gone');
  t.same(settings.list().map((s) => s.id), ['00-fr-inist-2']);

  settings.remove('00-fr-inist-2');
  t.same(settings.list(), []);
  t.match(refusal(() => settings.remove('00-fr-inist-2')), { code: 'settingNotFound' });
  t.match(refusal(() => settings.replace('nope', INIST, null)), { code: 'settingNotFound' });
});

t.test('an id or a full name another custom setting has, whatever the case: alreadyExists saying which', async (t) => {
  const { settings } = store(t);
  settings.create(INIST, null);
  settings.create({ id: 'b', fullName: 'B', country: '', headers: {} }, null);
  t.match(refusal(() => settings.create({ ...INIST, fullName: 'Other' }, null)), { code: 'alreadyExists', detail: /"00-fr-inist" has this id/ });
  t.match(refusal(() => settings.create({ ...INIST, id: 'c', fullName: 'inist-cnrs' }, null)), { code: 'alreadyExists', detail: /is named "INIST-CNRS"/ });
  t.match(refusal(() => settings.replace('b', { ...INIST, fullName: 'B' }, null)), { code: 'alreadyExists', detail: /has this id/ }, 'renamed to a taken id');
  t.match(refusal(() => settings.replace('b', { id: 'b', fullName: 'INIST-CNRS', country: '', headers: {} }, null)), { code: 'alreadyExists', detail: /is named/ });
  t.equal(settings.replace('b', { id: 'B', fullName: 'b', country: 'FR', headers: {} }, null).id, 'B', 'its own id and name, in another case: not a clash');
  t.equal(settings.list().length, 2);
});

t.test('a write of another connection (another process on the file) changes the revision too', async (t) => {
  const { file, settings } = store(t);
  const r0 = settings.revision();
  t.same(settings.list(), []);
  const other = openDatabase(file);
  new CustomSettingsStore(other).create(INIST, null);
  other.close();
  t.not(settings.revision(), r0);
  t.same(settings.list().map((s) => s.id), ['00-fr-inist'], 'seen without a restart');
});
