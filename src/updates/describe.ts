import { fs, git, type Repo } from './git.js';

/** A tag peeled to its commit. */
export interface TagInfo {
  readonly name: string;
  readonly commitOid: string;
  readonly annotated: boolean;
  /** committer time of the tagged commit (s) */
  readonly committerTime: number;
}

/** Every tag (annotated and lightweight) that leads to a commit. */
export async function listTagInfos(repo: Repo): Promise<TagInfo[]> {
  const out: TagInfo[] = [];
  for (const name of await git.listTags({ fs, gitdir: repo.gitdir })) {
    let oid = await git.resolveRef({ fs, gitdir: repo.gitdir, ref: `refs/tags/${name}` });
    let annotated = false;
    // Annotated tags may point to tags; only those ending at a commit describe anything.
    for (let depth = 0; depth < 10; depth++) {
      const obj = await git.readObject({ fs, gitdir: repo.gitdir, oid, cache: repo.cache, format: 'parsed' });
      if (obj.type === 'tag') {
        annotated = true;
        oid = (obj.object as { object: string }).object;
        continue;
      }
      if (obj.type === 'commit') {
        const committerTime = (obj.object as { committer: { timestamp: number } }).committer.timestamp;
        out.push({ name, commitOid: oid, annotated, committerTime });
      }
      break;
    }
  }
  return out;
}

/** Numeric-aware comparison, so that `3.10.0` comes after `3.9.2` (and `v10` after `v9`). */
export function compareVersions(a: string, b: string): number {
  return a.localeCompare(b, 'en', { numeric: true });
}

/**
 * The latest release: the tag whose commit was committed last (what `git describe --tags
 * $(git rev-list --tags -n1)` answers); ties by version order, then name.
 */
export function latestTag(tags: readonly TagInfo[]): TagInfo | undefined {
  let best: TagInfo | undefined;
  for (const t of tags) {
    if (!best || t.committerTime > best.committerTime || (t.committerTime === best.committerTime && compareVersions(t.name, best.name) > 0)) best = t;
  }
  return best;
}

/**
 * History walks of one computation: the commits reachable from a commit are read once and kept,
 * so that the several ancestry questions of a status record share them.
 */
export class History {
  private readonly reach = new Map<string, Promise<Map<string, number>>>();

  constructor(readonly repo: Repo) {}

  /** The commits reachable from `oid` (itself included), newest first, with their committer time. */
  reachable(oid: string): Promise<Map<string, number>> {
    let p = this.reach.get(oid);
    if (!p) {
      p = git.log({ fs, gitdir: this.repo.gitdir, ref: oid, cache: this.repo.cache })
        .then((commits) => new Map(commits.map((c) => [c.oid, c.commit.committer.timestamp])));
      this.reach.set(oid, p);
    }
    return p;
  }

  /** `git log from..to` is empty: `to` is `from` or one of its ancestors. */
  async contains(from: string, to: string): Promise<boolean> {
    return from === to || (await this.reachable(from)).has(to);
  }

  /** How many commits `git log from..to` lists. */
  async count(from: string, to: string): Promise<number> {
    if (from === to) return 0;
    const [a, b] = await Promise.all([this.reachable(from), this.reachable(to)]);
    let n = 0;
    for (const oid of b.keys()) if (!a.has(oid)) n++;
    return n;
  }

  async mergeBase(a: string, b: string): Promise<string | undefined> {
    if (a === b) return a;
    const bases = await git.findMergeBase({ fs, gitdir: this.repo.gitdir, oids: [a, b], cache: this.repo.cache });
    return bases[0];
  }
}

export interface Description {
  /** `v2`, `v2-3-g1a2b3c4`, or the 7-hex abbreviation when no tag is reachable */
  readonly text: string;
  /** the nearest tag, when one is reachable */
  readonly tag?: TagInfo;
}

/** Tags by commit; several tags on one commit: the highest version first. */
export function tagsByCommit(tags: readonly TagInfo[]): Map<string, TagInfo> {
  const map = new Map<string, TagInfo>();
  for (const t of tags) {
    const had = map.get(t.commitOid);
    if (!had || compareVersions(t.name, had.name) > 0) map.set(t.commitOid, t);
  }
  return map;
}

/**
 * `git describe --tags --always` with every tag, annotated or not: walking the history from
 * `oid` newest first, the first commit carrying a tag gives the nearest tag T; the answer is T
 * on it, `T-n-g<hex7>` n commits later (n = commits in T..oid), the bare abbreviation without tag.
 */
export async function describe(history: History, oid: string, byCommit: ReadonlyMap<string, TagInfo>): Promise<Description> {
  const short = oid.slice(0, 7);
  let nearest: TagInfo | undefined;
  if (byCommit.size > 0) {
    for (const commit of (await history.reachable(oid)).keys()) {
      nearest = byCommit.get(commit);
      if (nearest) break;
    }
  }
  if (!nearest) return { text: short };
  const n = await history.count(nearest.commitOid, oid);
  return { text: n === 0 ? nearest.name : `${nearest.name}-${n}-g${short}`, tag: nearest };
}
