import { access, constants, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { StatusError } from './status-codes.js';
import { isBusy } from './db/database.js';

/**
 * The service's own storage failing (VAR_DIR's disk full or not writable, its SQLite file locked
 * by another process or damaged) as what to fix, for the one who runs the service: a job gets it
 * as 5005, the start as its message. Node and SQLite say only `ENOSPC` or `database is locked`.
 */

/** `the folder /var/logsift/jobs/<id>`, `the database /var/logsift/logsift.sqlite`… */
export type StorageTarget = { readonly folder: string } | { readonly file: string } | { readonly database: string };

const NO_SPACE = new Set(['ENOSPC', 'EDQUOT', 'SQLITE_FULL']);
const NOT_WRITABLE = new Set(['EROFS', 'EACCES', 'EPERM']);

function codeOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

function named(target: StorageTarget): string {
  if ('folder' in target) return `the folder ${target.folder}`;
  if ('file' in target) return `the file ${target.file}`;
  return `the database ${target.database}`;
}

/** What failed and what to fix, or undefined when the error is not a storage failure (a bug). */
export function storageDetail(err: unknown, target: StorageTarget): string | undefined {
  const code = codeOf(err);
  if (code === undefined) return undefined;
  const what = named(target);
  const cause = `${code}: ${(err as Error).message}`.slice(0, 200);
  if (NO_SPACE.has(code)) return `no space left on the disk of ${what} (${code}): free space there`;
  if (NOT_WRITABLE.has(code)) return `${what} cannot be written (${code}${code === 'EROFS' ? ', a read-only file system' : ''}): give the service write access to it, or set VAR_DIR to a writable folder`;
  if (code === 'ENOTDIR' || code === 'EEXIST') return `${what}: a file stands where a folder is expected (${code}): move that file away`;
  if (isBusy(err) || code === 'SQLITE_LOCKED') {
    return `${what} is locked by another process (${code}): end that process's transaction (another logsift, a sqlite3 shell or a backup on the same file)`;
  }
  if (code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT_')) {
    return `${what} is damaged (${cause}): stop the service and restore the file from a backup, or move it aside with its -wal and -shm files (an empty one is made at start)`;
  }
  if (code.startsWith('SQLITE_READONLY') || code.startsWith('SQLITE_CANTOPEN') || code === 'SQLITE_PERM') {
    return `${what} cannot be written (${code}): give the service write access to it and its folder`;
  }
  if (code.startsWith('SQLITE_IOERR') || code === 'EIO') return `${what} could not be written (${cause}): check its disk (free space, errors)`;
  return undefined;
}

/** A job's storage failure as 5005; another error (a bug) as 5000 with its message. */
export function storageError(err: unknown, target: StorageTarget): StatusError {
  const detail = storageDetail(err, target);
  return detail !== undefined ? new StatusError(5005, detail) : new StatusError(5000, (err as Error)?.message ?? String(err));
}

/**
 * A failed `mkdir(dir, { recursive: true })`: Node answers ENOENT when a folder on the way is
 * read-only (EROFS) or not writable, so the nearest existing folder above is asked whether it
 * can be written, and the error says that instead.
 */
export async function folderError(err: unknown, dir: string): Promise<StatusError> {
  const code = codeOf(err);
  if (code === 'ENOTDIR' || code === 'EEXIST') {
    // the file in the way is named, not the folder that could not be made under it
    for (let path = dir; path !== dirname(path); path = dirname(path)) {
      const info = await stat(path).catch(() => undefined);
      if (info && !info.isDirectory()) return new StatusError(5005, `the file ${path} stands where a folder is expected (${code}): move it away`);
    }
  }
  if (code !== 'ENOENT') return storageError(err, { folder: dir });
  for (let parent = dirname(dir), child = dir; parent !== child; child = parent, parent = dirname(parent)) {
    try {
      await access(parent, constants.F_OK);
    } catch {
      continue;
    }
    try {
      await access(parent, constants.W_OK);
    } catch (denied) {
      return storageError(denied, { folder: parent });
    }
    break;
  }
  return storageError(err, { folder: dir });
}
