import { describe, History, latestTag, listTagInfos, tagsByCommit } from './describe.js';
import { resolveCommit, type Repo } from './git.js';

/**
 * The status record of an updatable part (reference 3.1): the keys ezPAARSE's `bin/git-status`
 * prints, in its order, then logsift's extras.
 */
export interface StatusRecord {
  'is-git-repo': boolean;
  current?: string;
  head?: string;
  tag?: string;
  'from-head'?: 'uptodate' | 'outdated';
  'from-tag'?: 'uptodate' | 'outdated' | 'upward';
  'local-commits'?: boolean;
  'local-changes'?: boolean;
  branch?: string;
  headOid?: string;
  remoteOid?: string;
  /** the origin's URL (credentials removed), or null when none is configured */
  origin?: string | null;
  /** last successful fetch (ISO), or null when never fetched by this process */
  fetchedAt?: string | null;
  /** why the record may be stale: no origin, last fetch failed… */
  error?: string;
  /** HEAD is still the snapshot made from the bundled content at first start */
  bundled?: boolean;
  /** an update of this part is running */
  updating?: boolean;
  /** app: the commit whose install and build did not complete (an update cut off): re-run by the next update */
  buildPending?: string;
  /** data parts: the commit the running service read the part at (at start, or its last update) */
  loadedOid?: string;
  /** HEAD is not `loadedOid` (the folder changed under the service): an update reloads it */
  reloadNeeded?: boolean;
}

export interface RecordInput {
  readonly repo: Repo;
  readonly branch: string;
  /** the remote whose `refs/remotes/<remote>/<branch>` is the origin's branch */
  readonly remote: string;
  /** from the last check, which is only as frequent as fetches (the walk of a big tree is slow) */
  readonly localChanges: boolean;
  /** the root commit made from the bundled content, if HEAD may still be it */
  readonly bundledOid?: string;
}

/**
 * Computes the record from the local refs (HEAD, `refs/remotes/<remote>/<branch>`, tags), without
 * network. With no remote-tracking ref (no origin, never fetched) the part compares with itself.
 */
export async function computeRecord(input: RecordInput): Promise<StatusRecord> {
  const { repo, branch } = input;
  const headOid = await resolveCommit(repo, 'HEAD');
  if (!headOid) throw new Error(`${repo.dir}: the repository has no commit`);
  const remoteOid = await resolveCommit(repo, `refs/remotes/${input.remote}/${branch}`);
  const history = new History(repo);
  const tags = await listTagInfos(repo);
  const byCommit = tagsByCommit(tags);
  const latest = latestTag(tags);

  const current = await describe(history, headOid, byCommit);
  const target = remoteOid ?? headOid;
  const head = remoteOid ? (await describe(history, remoteOid, byCommit)).text : current.text;
  const bundled = input.bundledOid !== undefined && headOid === input.bundledOid;

  const fromHead = (await history.contains(headOid, target)) ? 'uptodate' : 'outdated';
  // The bundled snapshot is not an admin's work: an update replaces it without force.
  const localCommits = !bundled && !(await history.contains(target, headOid));

  let fromTag: StatusRecord['from-tag'] = fromHead;
  if (latest) {
    if (current.tag?.name !== latest.name) fromTag = 'outdated';
    else {
      const base = (await history.mergeBase(headOid, target)) ?? headOid;
      fromTag = (await history.count(current.tag.commitOid, base)) === 0 ? 'uptodate' : 'upward';
    }
  }

  const record: StatusRecord = {
    'is-git-repo': true,
    current: current.text,
    head,
    tag: latest?.name ?? '',
    'from-head': fromHead,
    'from-tag': fromTag,
    'local-commits': localCommits,
    'local-changes': input.localChanges,
    branch,
    headOid,
  };
  if (remoteOid) record.remoteOid = remoteOid;
  if (bundled) record.bundled = true;
  return record;
}
