import { copyFile, mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fs, git, http, resolveCommit, type Repo } from './git.js';
import { History } from './describe.js';
import { untilAborted } from '../until-aborted.js';

/** An update's refusal or failure: its HTTP status and the stable message code clients match. */
export class UpdateError extends Error {
  constructor(readonly http: number, readonly code: string, readonly detail?: string) {
    super(detail ? `${code}: ${detail}` : code);
  }
}

/** An origin silent for this long fails the fetch before its deadline. */
const IDLE_MS = 30_000;

/** A response body whose reads fail once `signal` aborts, however the bytes keep coming. */
function bodyUntil(body: AsyncIterableIterator<Uint8Array>, signal: AbortSignal): AsyncIterableIterator<Uint8Array> {
  const iterator: AsyncIterableIterator<Uint8Array> = {
    next: () => untilAborted(body.next(), signal),
    return: async (value?: unknown) => {
      await body.return?.(value);
      return { done: true, value: undefined };
    },
    [Symbol.asyncIterator]: () => iterator,
  };
  return iterator;
}

/**
 * isomorphic-git's Node client bounded twice: a socket timeout (an origin that accepts and then
 * hangs) and `signal`, the fetch's deadline, which ends the requests and the reads of their bodies
 * (an origin trickling a few bytes at a time never trips a socket timeout).
 */
function boundedHttp(idleMs: number, signal: AbortSignal): typeof http {
  return {
    request: async (req) => {
      signal.throwIfAborted();
      const fetchOptions = { ...(req as { fetchOptions?: object }).fetchOptions, timeout: idleMs };
      const res = await untilAborted(http.request({ ...req, signal, fetchOptions } as typeof req), signal);
      return res.body ? { ...res, body: bodyUntil(res.body, signal) } : res;
    },
  };
}

/**
 * Fetches the branches and tags of the remote named `remote` (`origin`, or CONFIGURED_REMOTE) into
 * `refs/remotes/<remote>/*` and `refs/tags/*`, in at most `deadlineMs` (then it fails, whatever the
 * origin still sends). Not `singleBranch`: isomorphic-git then writes the branch's ref only, never the tags.
 */
export async function fetchOrigin(repo: Repo, remote: string, branch: string, deadlineMs: number): Promise<void> {
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new Error(`the fetch did not end within ${deadlineMs} ms (UPDATES_FETCH_TIMEOUT_MS)`)), deadlineMs);
  try {
    await git.fetch({
      fs, http: boundedHttp(Math.min(IDLE_MS, deadlineMs), deadline.signal), dir: repo.dir, gitdir: repo.gitdir, cache: repo.cache,
      remote, ref: branch, singleBranch: false, tags: true,
    });
  } catch (err) {
    // what stopped it, rather than how isomorphic-git's reader reported the cut
    if (deadline.signal.aborted) throw deadline.signal.reason;
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

/** Where HEAD and the part's branch are, to put them back when an update fails half-way. */
export interface Position {
  /** `refs/heads/x` when HEAD is on a branch, undefined when detached */
  readonly headRef?: string;
  readonly headOid: string;
  readonly branch: string;
  readonly branchOid?: string;
}

export async function currentPosition(repo: Repo, branch: string): Promise<Position> {
  const headRef = await git.currentBranch({ fs, gitdir: repo.gitdir, fullname: true }) ?? undefined;
  const headOid = await resolveCommit(repo, 'HEAD');
  if (!headOid) throw new Error(`${repo.dir}: the repository has no commit`);
  return { headRef, headOid, branch, branchOid: await resolveCommit(repo, `refs/heads/${branch}`) };
}

/** Puts the refs back where `pos` found them and the tracked files as they were at that commit. */
export async function restorePosition(repo: Repo, pos: Position): Promise<void> {
  const branchRef = `refs/heads/${pos.branch}`;
  if (pos.branchOid) await git.writeRef({ fs, gitdir: repo.gitdir, ref: branchRef, value: pos.branchOid, force: true });
  else await git.deleteRef({ fs, gitdir: repo.gitdir, ref: branchRef }).catch(() => undefined);
  const ref = pos.headRef ? pos.headRef.replace(/^refs\/heads\//, '') : pos.headOid;
  await git.checkout({ fs, dir: repo.dir, gitdir: repo.gitdir, cache: repo.cache, ref, force: true });
}

/**
 * Files that `toOid` tracks and `fromOid` does not, and that are in the folder already (untracked):
 * checking `toOid` out replaces them, and going back to `fromOid` would delete them.
 */
export async function untrackedInTheWay(repo: Repo, fromOid: string, toOid: string): Promise<string[]> {
  const before = new Set(await git.listFiles({ fs, gitdir: repo.gitdir, cache: repo.cache, ref: fromOid }));
  const found: string[] = [];
  for (const file of await git.listFiles({ fs, gitdir: repo.gitdir, cache: repo.cache, ref: toOid })) {
    if (before.has(file)) continue;
    if (await stat(join(repo.dir, file)).then((s) => s.isFile(), () => false)) found.push(file);
  }
  return found;
}

/** The folders holding the files of `files` (`a/b/c.txt` → `a`, `a/b`). */
function foldersOf(files: readonly string[]): Set<string> {
  const folders = new Set<string>();
  for (const f of files) for (let i = f.indexOf('/'); i >= 0; i = f.indexOf('/', i + 1)) folders.add(f.slice(0, i));
  return folders;
}

/**
 * The folders `fromOid` has files in and `toOid` has none in (a platform removed upstream), with
 * the files in them that `fromOid` does not track (an admin's notes, an editor's backup, ignored
 * files): the checkout leaves these behind, and the folder with them. Outermost folders only.
 */
export async function leftInRemovedFolders(repo: Repo, fromOid: string, toOid: string): Promise<{ folders: string[]; files: string[] }> {
  if (fromOid === toOid) return { folders: [], files: [] };
  const from = await git.listFiles({ fs, gitdir: repo.gitdir, cache: repo.cache, ref: fromOid });
  const kept = foldersOf(await git.listFiles({ fs, gitdir: repo.gitdir, cache: repo.cache, ref: toOid }));
  const removed = new Set<string>();
  for (const f of from) {
    for (let i = f.indexOf('/'); i >= 0; i = f.indexOf('/', i + 1)) {
      if (kept.has(f.slice(0, i))) continue;
      removed.add(f.slice(0, i));
      break;
    }
  }
  const tracked = new Set(from);
  const folders: string[] = [];
  const files: string[] = [];
  for (const folder of [...removed].sort()) {
    const entries = await readdir(join(repo.dir, folder), { recursive: true, withFileTypes: true }).catch(() => []);
    const left = entries
      .filter((e) => !e.isDirectory())
      .map((e) => relative(repo.dir, join(e.parentPath ?? e.path, e.name)))
      .filter((file) => !tracked.has(file));
    if (left.length === 0) continue;
    folders.push(folder);
    files.push(...left.sort());
  }
  return { folders, files };
}

/** `a, b, c` with at most `max` names, then how many more. */
export function someFiles(files: readonly string[], max = 10): string {
  const shown = files.slice(0, max).join(', ');
  return files.length > max ? `${shown} and ${files.length - max} more` : shown;
}

/**
 * Runs `change` (which moves refs and files); when it throws, the refs and the tracked files go
 * back to `pos` before the error goes on, and so do the untracked files `keep` names (copied aside
 * first: the change may replace them): a failed update leaves the part as it was.
 */
export async function withRollback<T>(repo: Repo, pos: Position, change: () => Promise<T>, keep: readonly string[] = []): Promise<T> {
  const aside = `${repo.gitdir}.rollback-${process.pid}`;
  await rm(aside, { recursive: true, force: true });
  try {
    for (const file of keep) await copyInto(repo.dir, aside, file);
    return await change();
  } catch (err) {
    await restorePosition(repo, pos)
      .then(async () => { for (const file of keep) await copyInto(aside, repo.dir, file); })
      .catch((restoreErr: unknown) => {
        (err as Error).message += ` (and restoring ${pos.headOid.slice(0, 7)} failed: ${(restoreErr as Error).message})`;
      });
    throw err;
  } finally {
    await rm(aside, { recursive: true, force: true });
  }
}

async function copyInto(fromDir: string, toDir: string, file: string): Promise<void> {
  await mkdir(dirname(join(toDir, file)), { recursive: true });
  await copyFile(join(fromDir, file), join(toDir, file));
}

/**
 * How the part's branch may follow `target` without losing a commit: `move` when it is an ancestor
 * of the target (or does not exist yet), `ahead` when it holds the target and more (local commits:
 * it stays where it is), `diverged` when each has commits the other lacks.
 */
export async function branchMove(history: History, branchOid: string | undefined, target: string): Promise<'move' | 'ahead' | 'diverged'> {
  if (!branchOid || (await history.contains(target, branchOid))) return 'move';
  return (await history.contains(branchOid, target)) ? 'ahead' : 'diverged';
}

/**
 * A detached HEAD on commits that nothing would hold once HEAD moves (made on no branch): not in
 * the history of any of `holders` (the branch, the origin's branch, the target), nor tagged.
 * Losing them takes force, as losing a branch's does. HEAD on a branch: false (the branch holds it).
 */
export async function detachedCommitsLost(history: History, pos: Position, holders: ReadonlyArray<string | undefined>, tagged: ReadonlySet<string>): Promise<boolean> {
  if (pos.headRef || tagged.has(pos.headOid)) return false;
  for (const holder of holders) if (holder && (await history.contains(holder, pos.headOid))) return false;
  return true;
}

export function divergedError(what: string, localOid: string, otherOid: string): UpdateError {
  return new UpdateError(409, 'diverged', `${what} ${localOid.slice(0, 7)} has commits ${otherOid.slice(0, 7)} lacks: they would be lost (force=yes discards them)`);
}

/**
 * Points `branch` at `oid` and checks it out: a fast-forward, or with `force` a hard reset. The
 * branch is moved only onto a commit that holds it unless `discard` (force, or the bundled snapshot):
 * whatever the caller checked, no local commit is dropped without being asked.
 */
export async function moveBranch(repo: Repo, branch: string, oid: string, opts: { force: boolean; discard: boolean }): Promise<void> {
  const ref = `refs/heads/${branch}`;
  const had = await resolveCommit(repo, ref);
  if (!opts.discard && had && !(await new History(repo).contains(oid, had))) throw divergedError(`the branch ${branch}`, had, oid);
  await git.writeRef({ fs, gitdir: repo.gitdir, ref, value: oid, force: true });
  try {
    await git.checkout({ fs, dir: repo.dir, gitdir: repo.gitdir, cache: repo.cache, ref: branch, force: opts.force });
  } catch (err) {
    // untracked files in the way: the admin's, kept unless forced, as tracked changes are
    const e = err as { code?: string; data?: { filepaths?: string[] } };
    if (e.code === 'CheckoutConflictError') {
      throw new UpdateError(409, 'localChanges', `files the update would replace: ${(e.data?.filepaths ?? []).slice(0, 10).join(', ')}`);
    }
    throw err;
  }
}

const BUNDLED_KEY = 'logsift.bundledcommit';

/** The commit made from the bundled content at first start, if this repository has one. */
export async function bundledCommit(repo: Repo): Promise<string | undefined> {
  const value: unknown = await git.getConfig({ fs, gitdir: repo.gitdir, path: BUNDLED_KEY });
  return typeof value === 'string' && value ? value : undefined;
}

/**
 * Makes `dir` a repository whose metadata is in `gitdir`, with one commit holding what the folder
 * contains (files its own .gitignore names excepted). Built in a temporary folder renamed at the
 * end, so that a crash half-way leaves no half-made repository behind. Returns the commit.
 */
export async function initFromContent(dir: string, gitdir: string, branch: string, message: string): Promise<string> {
  const tmp = `${gitdir}.init-${process.pid}`;
  await rm(tmp, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  await mkdir(dirname(gitdir), { recursive: true });
  try {
    await git.init({ fs, dir, gitdir: tmp, defaultBranch: branch });
    await git.add({ fs, dir, gitdir: tmp, filepath: '.', parallel: true });
    const author = { name: 'logsift', email: 'logsift@localhost' };
    const oid = await git.commit({ fs, dir, gitdir: tmp, message, author });
    await git.setConfig({ fs, gitdir: tmp, path: BUNDLED_KEY, value: oid });
    await rename(tmp, gitdir);
    return oid;
  } catch (err) {
    await rm(tmp, { recursive: true, force: true });
    throw err;
  }
}

/**
 * The remote a configured origin (`<PART>_ORIGIN`) is fetched as: the repository's own `origin`
 * stays as its owner set it, and serves again once the setting is gone. (isomorphic-git fetches
 * into `refs/remotes/<name>/` only for a remote written in the config.)
 */
export const CONFIGURED_REMOTE = 'logsift-origin';

/** Writes the remote `remote` with `url` in the repository's config when it differs. */
export async function ensureRemote(repo: Repo, remote: string, url: string): Promise<void> {
  const had: unknown = await git.getConfig({ fs, gitdir: repo.gitdir, path: `remote.${remote}.url` });
  if (had !== url) await git.addRemote({ fs, gitdir: repo.gitdir, remote, url, force: true });
}

export async function originUrl(repo: Repo): Promise<string | undefined> {
  const value: unknown = await git.getConfig({ fs, gitdir: repo.gitdir, path: 'remote.origin.url' });
  return typeof value === 'string' && value ? value : undefined;
}
