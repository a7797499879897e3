import Database from 'better-sqlite3';
import { setTimeout as sleep } from 'node:timers/promises';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PROJECT_ROOT } from '../paths.js';

export type Db = Database.Database;

const MIGRATIONS_DIR = join(PROJECT_ROOT, 'src', 'db', 'migrations');

/**
 * Opens (creating if needed) the service's SQLite file and applies the migrations not yet applied,
 * each in its own transaction, in file-name order.
 */
export function openDatabase(file: string, migrationsDir = MIGRATIONS_DIR): Db {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  // NORMAL keeps WAL durable across a process crash (kill -9); only an OS crash may lose the last commits.
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  migrate(db, migrationsDir);
  return db;
}

/** How long a statement waits for another process's lock on the file before SQLITE_BUSY. */
export const BUSY_TIMEOUT_MS = 5000;

/** SQLITE_BUSY and its extended codes: another connection holds the lock. */
export function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && (code === 'SQLITE_BUSY' || code.startsWith('SQLITE_BUSY_'));
}

/**
 * Runs a write without SQLite's own wait for a lock, which holds the whole process (better-sqlite3
 * is synchronous): while another process holds the file, every job's stream and every request
 * would stop for the busy timeout. Tries again every `stepMs` on SQLITE_BUSY for up to `waitMs`,
 * the event loop free meanwhile, then throws the last SQLITE_BUSY. `waitMs` 0: one try.
 */
export async function writeWhenFree<T>(db: Db, write: () => T, waitMs = BUSY_TIMEOUT_MS, stepMs = 50): Promise<T> {
  const until = Date.now() + waitMs;
  for (;;) {
    try {
      return withoutWaiting(db, write);
    } catch (err) {
      if (!isBusy(err) || Date.now() + stepMs > until) throw err;
    }
    await sleep(stepMs);
  }
}

/** `write` with a busy timeout of 0, the connection's own restored after it. */
function withoutWaiting<T>(db: Db, write: () => T): T {
  db.pragma('busy_timeout = 0');
  try {
    return write();
  } finally {
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  }
}

export function migrate(db: Db, migrationsDir = MIGRATIONS_DIR): string[] {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version TEXT PRIMARY KEY, applied_at TEXT NOT NULL)');
  const applied = new Set(db.prepare('SELECT version FROM schema_migrations').pluck().all() as string[]);
  const done: string[] = [];
  for (const file of readdirSync(migrationsDir).filter((f) => f.endsWith('.sql')).sort()) {
    const version = file.replace(/\.sql$/, '');
    if (applied.has(version)) continue;
    const sql = readFileSync(join(migrationsDir, file), 'utf8');
    db.transaction(() => {
      db.exec(sql);
      db.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)').run(version, new Date().toISOString());
    })();
    done.push(version);
  }
  return done;
}
