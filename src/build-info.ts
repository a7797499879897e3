import * as fs from 'node:fs';
import { readFile } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import git from 'isomorphic-git';

/** The service's own source revision, for the report's `git-*` keys (`N/A` when unknown). */
export interface BuildInfo {
  readonly branch: string;
  readonly tag: string;
  readonly commit: string;
  /** YYYY-MM-DD of the commit */
  readonly date: string;
}

export const UNKNOWN_BUILD: BuildInfo = Object.freeze({ branch: 'N/A', tag: 'N/A', commit: 'N/A', date: 'N/A' });

async function text(path: string): Promise<string | undefined> {
  try {
    return (await readFile(path, 'utf8')).trim();
  } catch {
    return undefined;
  }
}

/** The git folder of a checkout; a linked worktree's `.git` file points to its own, which names the common one. */
async function gitDirs(root: string): Promise<{ own: string; common: string } | undefined> {
  const dotGit = join(root, '.git');
  let own = dotGit;
  const pointer = await text(dotGit).catch(() => undefined);
  if (pointer?.startsWith('gitdir:')) {
    const target = pointer.slice('gitdir:'.length).trim();
    own = isAbsolute(target) ? target : resolve(root, target);
  } else if (!fs.existsSync(join(dotGit, 'HEAD'))) {
    return undefined;
  }
  const commondir = await text(join(own, 'commondir'));
  return { own, common: commondir ? resolve(own, commondir) : own };
}

/**
 * Reads the checkout's branch, commit (short), date and a tag pointing at it, once at start.
 * A deployment without a .git folder (an image, an archive) gets N/A.
 */
export async function readBuildInfo(root: string): Promise<BuildInfo> {
  try {
    const dirs = await gitDirs(root);
    if (!dirs) return UNKNOWN_BUILD;
    const head = await text(join(dirs.own, 'HEAD'));
    if (!head) return UNKNOWN_BUILD;
    const ref = head.startsWith('ref:') ? head.slice(4).trim() : undefined;
    const oid = ref ? await git.resolveRef({ fs, gitdir: dirs.common, ref }) : head;
    const { commit } = await git.readCommit({ fs, gitdir: dirs.common, oid });
    const seconds = commit.committer.timestamp - commit.committer.timezoneOffset * 60;
    let tag = 'N/A';
    for (const name of await git.listTags({ fs, gitdir: dirs.common })) {
      const target = await git.resolveRef({ fs, gitdir: dirs.common, ref: `refs/tags/${name}` }).catch(() => undefined);
      if (!target) continue;
      // An annotated tag points to a tag object that names the commit.
      const peeled = target === oid ? oid : await git.readTag({ fs, gitdir: dirs.common, oid: target }).then((t) => t.tag.object, () => target);
      if (peeled === oid) tag = name;
    }
    return {
      branch: ref?.replace(/^refs\/heads\//, '') ?? 'N/A',
      tag,
      commit: oid.slice(0, 7),
      date: new Date(seconds * 1000).toISOString().slice(0, 10),
    };
  } catch {
    return UNKNOWN_BUILD;
  }
}
