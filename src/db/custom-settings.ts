import type { Db } from './database.js';
import type { PredefinedSetting } from '../settings/predefined.js';

interface CustomSettingRow {
  id: string;
  full_name: string;
  country: string;
  headers: string;
  created_by: string | null;
  created_at: string;
  updated_by: string | null;
  updated_at: string;
}

/** A custom predefined setting as stored: the setting, and who wrote it when. */
export interface CustomSetting extends PredefinedSetting {
  readonly id: string;
  /** the address of the account that created it (null: written without an account, by a script of the operator) */
  readonly createdBy: string | null;
  readonly createdAt: string;
  readonly updatedBy: string | null;
  readonly updatedAt: string;
}

export type CustomSettingInput = PredefinedSetting & { readonly id: string };

export type CustomSettingErrorCode = 'alreadyExists' | 'settingNotFound';

/** A rule of the table refused a write; `code` is what the routes answer, `detail` says which rule. */
export class CustomSettingError extends Error {
  constructor(readonly code: CustomSettingErrorCode, readonly detail: string) {
    super(detail);
    this.name = 'CustomSettingError';
  }
}

function toSetting(row: CustomSettingRow): CustomSetting {
  return Object.freeze({
    id: row.id,
    fullName: row.full_name,
    country: row.country,
    headers: Object.freeze(JSON.parse(row.headers) as Record<string, string>),
    createdBy: row.created_by,
    createdAt: row.created_at,
    updatedBy: row.updated_by,
    updatedAt: row.updated_at,
  });
}

const isUniqueViolation = (err: unknown) => /^SQLITE_CONSTRAINT_(UNIQUE|PRIMARYKEY)$/.test(String((err as { code?: unknown }).code));

/**
 * The custom predefined settings (migration 008). Ids and full names are unique whatever their
 * case; writes check both inside an IMMEDIATE transaction, so two concurrent writers cannot both
 * take a name. `revision()` changes with every write, this connection's or another's: the
 * settings store merges the table again only then, so a job asking for a setting costs no query.
 */
export class CustomSettingsStore {
  private readonly all;
  private readonly byId;
  private readonly byName;
  private readonly insert;
  private readonly update;
  private readonly deleteById;
  private writes = 0;
  private cached: { revision: string; list: readonly CustomSetting[] } | undefined;

  constructor(private readonly db: Db) {
    this.all = db.prepare('SELECT * FROM custom_settings ORDER BY id');
    this.byId = db.prepare('SELECT * FROM custom_settings WHERE id = ?');
    this.byName = db.prepare('SELECT * FROM custom_settings WHERE full_name = ?');
    this.insert = db.prepare(`INSERT INTO custom_settings (id, full_name, country, headers, created_by, created_at, updated_by, updated_at)
      VALUES (@id, @fullName, @country, @headers, @by, @now, @by, @now) RETURNING *`);
    this.update = db.prepare(`UPDATE custom_settings SET id = @id, full_name = @fullName, country = @country, headers = @headers,
      updated_by = @by, updated_at = @now WHERE id = @old RETURNING *`);
    this.deleteById = db.prepare('DELETE FROM custom_settings WHERE id = ?');
  }

  /** Changes with every committed write: this process's (counted) and other connections' (SQLite's data_version). */
  revision(): string {
    return `${this.writes}.${this.db.pragma('data_version', { simple: true }) as number}`;
  }

  list(): readonly CustomSetting[] {
    const revision = this.revision();
    if (this.cached?.revision !== revision) {
      this.cached = { revision, list: Object.freeze((this.all.all() as CustomSettingRow[]).map(toSetting)) };
    }
    return this.cached.list;
  }

  /** The setting of an id, whatever its case. */
  get(id: string): CustomSetting | undefined {
    const row = this.byId.get(id) as CustomSettingRow | undefined;
    return row && toSetting(row);
  }

  create(input: CustomSettingInput, by: string | null, now = new Date()): CustomSetting {
    return toSetting(this.write(() => {
      this.refuseClash(input, undefined);
      return this.insert.get(this.params(input, by, now)) as CustomSettingRow;
    }));
  }

  /** Replaces the setting `id` (its id may change: `input.id`). */
  replace(id: string, input: CustomSettingInput, by: string | null, now = new Date()): CustomSetting {
    return toSetting(this.write(() => {
      const old = this.byId.get(id) as CustomSettingRow | undefined;
      if (!old) throw new CustomSettingError('settingNotFound', `there is no custom setting ${JSON.stringify(id)}`);
      this.refuseClash(input, old.id);
      return this.update.get({ ...this.params(input, by, now), old: old.id }) as CustomSettingRow;
    }));
  }

  remove(id: string): void {
    this.write(() => {
      if (this.deleteById.run(id).changes === 0) throw new CustomSettingError('settingNotFound', `there is no custom setting ${JSON.stringify(id)}`);
    });
  }

  private write<T>(change: () => T): T {
    try {
      const result = this.db.transaction(change).immediate();
      this.writes++;
      return result;
    } catch (err) {
      // Another process took the name between the check and the write.
      if (isUniqueViolation(err)) throw new CustomSettingError('alreadyExists', 'a custom setting with this id or full name exists');
      throw err;
    }
  }

  /** Another custom setting (not `self`) with the id or the full name of `input`. */
  private refuseClash(input: CustomSettingInput, self: string | undefined): void {
    const sameId = this.byId.get(input.id) as CustomSettingRow | undefined;
    if (sameId && sameId.id !== self) throw new CustomSettingError('alreadyExists', `the custom setting ${JSON.stringify(sameId.id)} has this id`);
    const sameName = this.byName.get(input.fullName) as CustomSettingRow | undefined;
    if (sameName && sameName.id !== self) throw new CustomSettingError('alreadyExists', `the custom setting ${JSON.stringify(sameName.id)} is named ${JSON.stringify(sameName.full_name)}`);
  }

  private params(input: CustomSettingInput, by: string | null, now: Date) {
    return { id: input.id, fullName: input.fullName, country: input.country, headers: JSON.stringify(input.headers), by, now: now.toISOString() };
  }
}
