import fs from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import * as git from 'isomorphic-git';
import http from 'isomorphic-git/http/node';

export { fs, git, http };

/** A work tree and its git metadata, which may live elsewhere (isomorphic-git's `dir`/`gitdir`). */
export interface Repo {
  readonly dir: string;
  readonly gitdir: string;
  /** isomorphic-git's object cache, shared by the calls of one computation */
  readonly cache?: object;
}

async function isDirectory(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isDirectory() ?? false;
}

export class UnsupportedCheckout extends Error {}

/**
 * Where the metadata of the work tree `dir` is: its own `.git` folder (a plain clone), the folder a
 * `.git` file points to, else `fallback` (a data part's folder under `repos/.gitdirs`). Undefined
 * when none is a repository. A linked worktree (`git worktree add`) keeps its objects in another
 * folder, which isomorphic-git cannot read: that is refused rather than misreported.
 */
export async function findGitdir(dir: string, fallback?: string): Promise<string | undefined> {
  const dotgit = join(dir, '.git');
  const info = await stat(dotgit).catch(() => undefined);
  let gitdir: string | undefined;
  if (info?.isDirectory()) gitdir = dotgit;
  else if (info?.isFile()) {
    const line = (await readFile(dotgit, 'utf8')).trim();
    const target = line.startsWith('gitdir:') ? line.slice(7).trim() : '';
    if (!target) throw new UnsupportedCheckout(`${dotgit}: not a gitdir link`);
    gitdir = isAbsolute(target) ? target : resolve(dir, target);
    if (await stat(join(gitdir, 'commondir')).catch(() => undefined)) {
      throw new UnsupportedCheckout(`${dir} is a linked git worktree, which isomorphic-git cannot read; use a plain clone`);
    }
  } else if (fallback) gitdir = fallback;
  if (!gitdir || !(await isDirectory(join(gitdir, 'objects')))) return undefined;
  return gitdir;
}

/** The commit a ref points to, or undefined when the ref does not exist. */
export async function resolveCommit(repo: Repo, ref: string): Promise<string | undefined> {
  try {
    return await git.resolveRef({ fs, gitdir: repo.gitdir, ref });
  } catch (err) {
    if ((err as { code?: string }).code === 'NotFoundError') return undefined;
    throw err;
  }
}

/** The commit a repository's HEAD is on and its date (YYYY-MM-DD, UTC), or undefined when it has none. */
export async function headCommit(repo: Repo): Promise<{ oid: string; date: string } | undefined> {
  const oid = await resolveCommit(repo, 'HEAD');
  if (!oid) return undefined;
  const { commit } = await git.readCommit({ fs, gitdir: repo.gitdir, oid, cache: repo.cache });
  return { oid, date: new Date(commit.committer.timestamp * 1000).toISOString().slice(0, 10) };
}

/** `https://user:secret@host/x.git` → `https://host/x.git`: origins are shown to admins and logged. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (!u.username && !u.password) return url;
    u.username = '';
    u.password = '';
    return u.href;
  } catch {
    return url;
  }
}

/** The files that count as local changes (`git diff HEAD --name-only`: untracked files do not). */
export async function changedFiles(repo: Repo): Promise<string[]> {
  const rows = await git.statusMatrix({ fs, dir: repo.dir, gitdir: repo.gitdir, cache: repo.cache });
  return rows
    .filter(([, head, workdir, stage]) => (head === 1 && !(workdir === 1 && stage === 1)) || (head === 0 && stage !== 0))
    .map(([file]) => file);
}

/**
 * The files that differ between two commits (`git diff --name-only A B`): added, deleted or
 * changed, in path order. Subtrees with the same id are not descended into.
 */
export async function filesBetween(repo: Repo, fromOid: string, toOid: string): Promise<string[]> {
  if (fromOid === toOid) return [];
  const files = (await git.walk({
    fs,
    gitdir: repo.gitdir,
    cache: repo.cache,
    trees: [git.TREE({ ref: fromOid }), git.TREE({ ref: toOid })],
    map: async (path, [a, b]) => {
      if (path === '.') return undefined;
      if ((await a?.oid()) === (await b?.oid())) return null;
      const blob = (await a?.type()) === 'blob' || (await b?.type()) === 'blob';
      return blob ? path : undefined;
    },
  })) as Array<string | undefined>;
  return files.filter((f): f is string => typeof f === 'string').sort();
}
