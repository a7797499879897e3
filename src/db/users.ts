import type { Db } from './database.js';

export type UserGroup = 'user' | 'admin';
export const USER_GROUPS: readonly UserGroup[] = ['user', 'admin'];

interface UserRow {
  id: number;
  userid: string;
  password_hash: string;
  user_group: UserGroup;
  founder: 0 | 1;
  notifiate: 0 | 1;
  created_at: string;
  updated_at: string;
}

/**
 * A user as the rest of the service sees it: built field by field (an allow-list), so the
 * password hash, or any secret column added later, never reaches a response, a log or a trace.
 */
export interface User {
  readonly id: number;
  /** the lower-cased mail address, also the login */
  readonly username: string;
  readonly group: UserGroup;
  /** the administrator created by the registration: cannot be deleted or demoted */
  readonly founder: boolean;
  /** "mail me when my jobs end": kept for the reference's clients (the service sends no mail) */
  readonly notifiate: boolean;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export function toUser(row: UserRow): User {
  return {
    id: row.id,
    username: row.userid,
    group: row.user_group,
    founder: row.founder === 1,
    notifiate: row.notifiate === 1,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export type UserStoreErrorCode = 'userNotFound' | 'userAlreadyExists' | 'registrationClosed' | 'lastAdmin' | 'protectedAccount';

/** A rule of the user table refused a change; `code` is the machine code the routes answer. */
export class UserStoreError extends Error {
  constructor(readonly code: UserStoreErrorCode) {
    super(code);
    this.name = 'UserStoreError';
  }
}

function isUniqueViolation(err: unknown): boolean {
  return (err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE';
}

/**
 * The user table's statements, prepared once. Every change that depends on other rows (first
 * user, last administrator) runs in an IMMEDIATE transaction: the write lock is taken before
 * the rows are read, so two writers (even in two processes) cannot both pass the check.
 */
export class UserStore {
  private readonly countAll;
  private readonly countAdmins;
  private readonly all;
  private readonly byUserid;
  private readonly byId;
  private readonly insert;
  private readonly rename;
  private readonly regroup;
  private readonly setHash;
  private readonly setNotify;
  private readonly deleteById;

  constructor(private readonly db: Db) {
    this.countAll = db.prepare('SELECT count(*) FROM users').pluck();
    this.countAdmins = db.prepare(`SELECT count(*) FROM users WHERE user_group = 'admin'`).pluck();
    this.all = db.prepare('SELECT * FROM users ORDER BY userid');
    this.byUserid = db.prepare('SELECT * FROM users WHERE userid = ?');
    this.byId = db.prepare('SELECT * FROM users WHERE id = ?');
    this.insert = db.prepare(`INSERT INTO users (userid, password_hash, user_group, founder, created_at, updated_at)
      VALUES (@userid, @hash, @group, @founder, @now, @now) RETURNING *`);
    this.rename = db.prepare('UPDATE users SET userid = @userid, updated_at = @now WHERE id = @id');
    this.regroup = db.prepare('UPDATE users SET user_group = @group, updated_at = @now WHERE id = @id');
    this.setHash = db.prepare('UPDATE users SET password_hash = @hash, updated_at = @now WHERE userid = @userid');
    this.setNotify = db.prepare('UPDATE users SET notifiate = @notifiate, updated_at = @now WHERE userid = @userid');
    this.deleteById = db.prepare('DELETE FROM users WHERE id = ?');
  }

  count(): number {
    return this.countAll.get() as number;
  }

  list(): User[] {
    return (this.all.all() as UserRow[]).map(toUser);
  }

  get(username: string): User | undefined {
    const row = this.row(username);
    return row && toUser(row);
  }

  /** The account of an id (job tickets name accounts by id). */
  getById(id: number): User | undefined {
    const row = this.byId.get(id) as UserRow | undefined;
    return row && toUser(row);
  }

  /** The stored hash, for the password check only. */
  passwordHash(username: string): string | undefined {
    return this.row(username)?.password_hash;
  }

  /** The stored hash of an id's account: what a job ticket is bound to. */
  passwordHashById(id: number): string | undefined {
    return (this.byId.get(id) as UserRow | undefined)?.password_hash;
  }

  /** Creates the founding administrator, only while the table is empty. */
  createFirstAdmin(username: string, hash: string): User {
    return this.db.transaction(() => {
      if (this.count() > 0) throw new UserStoreError('registrationClosed');
      return this.add(username, hash, 'admin', true);
    }).immediate();
  }

  create(username: string, hash: string, group: UserGroup): User {
    return this.db.transaction(() => this.add(username, hash, group, false)).immediate();
  }

  /** Changes the address and/or the group of `username`. */
  update(username: string, changes: { username?: string; group?: UserGroup }): User {
    return this.db.transaction(() => {
      const row = this.existing(username);
      const now = new Date().toISOString();
      if (changes.group !== undefined && changes.group !== row.user_group) {
        if (row.founder === 1) throw new UserStoreError('protectedAccount');
        if (row.user_group === 'admin' && this.admins() <= 1) throw new UserStoreError('lastAdmin');
        this.regroup.run({ id: row.id, group: changes.group, now });
      }
      if (changes.username !== undefined && changes.username !== row.userid) {
        if (this.row(changes.username)) throw new UserStoreError('userAlreadyExists');
        this.rename.run({ id: row.id, userid: changes.username, now });
      }
      return toUser(this.row(changes.username ?? username) ?? row);
    }).immediate();
  }

  remove(username: string): void {
    this.db.transaction(() => {
      const row = this.existing(username);
      if (row.founder === 1) throw new UserStoreError('protectedAccount');
      if (row.user_group === 'admin' && this.admins() <= 1) throw new UserStoreError('lastAdmin');
      this.deleteById.run(row.id);
    }).immediate();
  }

  setPasswordHash(username: string, hash: string): void {
    if (this.setHash.run({ userid: username, hash, now: new Date().toISOString() }).changes === 0) {
      throw new UserStoreError('userNotFound');
    }
  }

  setNotifiate(username: string, notifiate: boolean): void {
    if (this.setNotify.run({ userid: username, notifiate: notifiate ? 1 : 0, now: new Date().toISOString() }).changes === 0) {
      throw new UserStoreError('userNotFound');
    }
  }

  private add(username: string, hash: string, group: UserGroup, founder: boolean): User {
    if (this.row(username)) throw new UserStoreError('userAlreadyExists');
    try {
      return toUser(this.insert.get({
        userid: username, hash, group, founder: founder ? 1 : 0, now: new Date().toISOString(),
      }) as UserRow);
    } catch (err) {
      // The founder index: another registration won (only reachable across processes).
      if (isUniqueViolation(err)) throw new UserStoreError(founder ? 'registrationClosed' : 'userAlreadyExists');
      throw err;
    }
  }

  private admins(): number {
    return this.countAdmins.get() as number;
  }

  private row(username: string): UserRow | undefined {
    return this.byUserid.get(username) as UserRow | undefined;
  }

  private existing(username: string): UserRow {
    const row = this.row(username);
    if (!row) throw new UserStoreError('userNotFound');
    return row;
  }
}
