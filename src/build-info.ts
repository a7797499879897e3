import { describe, History, listTagInfos, tagsByCommit } from './updates/describe.js';
import { findGitdir, fs, git, resolveCommit } from './updates/git.js';

/** The service's own source revision, for the report's `git-*` keys (`N/A` when unknown). */
export interface BuildInfo {
  readonly branch: string;
  /** `git describe --tags` of HEAD (`v1.2.0`, `v1.2.0-3-gabc1234`), N/A without a tag */
  readonly tag: string;
  readonly commit: string;
  /** YYYY-MM-DD of the commit, in its own time zone */
  readonly date: string;
}

export const UNKNOWN_BUILD: BuildInfo = Object.freeze({ branch: 'N/A', tag: 'N/A', commit: 'N/A', date: 'N/A' });

/**
 * Reads the checkout's branch, commit, date and nearest tag, once at start. A deployment without
 * a readable .git (an image, an archive, a linked worktree) gets N/A.
 */
export async function readBuildInfo(root: string): Promise<BuildInfo> {
  try {
    const gitdir = await findGitdir(root);
    if (!gitdir) return UNKNOWN_BUILD;
    const repo = { dir: root, gitdir, cache: {} };
    const oid = await resolveCommit(repo, 'HEAD');
    if (!oid) return UNKNOWN_BUILD;
    const { commit } = await git.readCommit({ fs, gitdir, oid, cache: repo.cache });
    const local = commit.committer.timestamp - commit.committer.timezoneOffset * 60;
    const tags = await listTagInfos(repo);
    const described = tags.length > 0 ? await describe(new History(repo), oid, tagsByCommit(tags)) : undefined;
    return {
      branch: (await git.currentBranch({ fs, gitdir })) ?? 'N/A',
      tag: described?.tag ? described.text : 'N/A',
      commit: oid.slice(0, 7),
      date: new Date(local * 1000).toISOString().slice(0, 10),
    };
  } catch {
    return UNKNOWN_BUILD;
  }
}
