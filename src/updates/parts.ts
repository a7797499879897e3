import { History, listTagInfos } from './describe.js';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { changedFiles, filesBetween, findGitdir, redactUrl, resolveCommit, fs, git, type Repo } from './git.js';
import { LockFile } from '../lock-file.js';
import {
  branchMove, bundledCommit, CONFIGURED_REMOTE, currentPosition, detachedCommitsLost, divergedError, ensureRemote, fetchOrigin,
  initFromContent, leftInRemovedFolders, moveBranch, originUrl, someFiles, UpdateError, withRollback, untrackedInTheWay,
} from './operations.js';
import { computeRecord, type StatusRecord } from './status.js';
import type { PathLabel } from './hide-paths.js';
import { readPendingBuild } from './build-marker.js';

export const PART_NAMES = ['app', 'platforms', 'middlewares', 'resources'] as const;
export type PartName = (typeof PART_NAMES)[number];

export interface PartSpec {
  readonly name: PartName;
  /** the work tree */
  readonly dir: string;
  /**
   * data parts: the metadata folder used when the work tree has no `.git` of its own; a folder
   * that is not a repository yet is made one from its content (one commit). Unset for `app`.
   */
  readonly gitdir?: string;
  readonly origin?: string;
  /** the branch followed; unset (app): the checked-out one */
  readonly branch?: string;
  /** app: the file recording an install and build not completed (see PendingBuild) */
  readonly buildMarker?: string;
}

export interface PartsLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface PartsOptions {
  readonly parts: readonly PartSpec[];
  readonly fetchIntervalMs: number;
  /** a fetch's deadline (ms), whatever the origin still sends */
  readonly fetchTimeoutMs?: number;
  readonly appVersion: string;
  /** reloads what depends on a data part once its files changed; a throw rolls the update back */
  readonly onUpdated?: (part: PartName, commit: string) => Promise<void>;
  readonly log?: PartsLog;
  readonly now?: () => number;
  /** other folders of the service and their names in answers (`VAR_DIR`…), besides the parts' own */
  readonly pathLabels?: readonly PathLabel[];
}

/** What the registry knows of one part between calls. */
class PartState {
  ready?: Promise<string | undefined>;
  /** last fetch attempt and local-changes check (ms); 0 = never */
  lastCheck = 0;
  fetchedAt?: string;
  fetchError?: string;
  localChanges = false;
  checking?: Promise<void>;
  updating = false;
  /**
   * The commit the service read the part at: unset when not known (not noted: the app part);
   * `oid` unset when the folder was read before it was a repository (its first commit is that).
   */
  loaded?: { oid?: string };

  constructor(readonly spec: PartSpec) {}
}

const silent: PartsLog = { info: () => undefined, warn: () => undefined };

/** The remote a part's origin is fetched as: its configured origin's, else the repository's `origin`. */
function remoteOf(spec: PartSpec): string {
  return spec.origin ? CONFIGURED_REMOTE : 'origin';
}

/**
 * The updatable parts (the service's checkout and the data repositories under `repos/`): their
 * status records and the updates of the data parts. Fetches at most once per interval per part;
 * one update at a time per part.
 */
export class UpdatableParts {
  private readonly states = new Map<PartName, PartState>();
  private readonly log: PartsLog;
  private readonly now: () => number;
  /** why updates are refused while the process is about to end (one entry per asker) */
  private readonly refusing = new Set<{ reason: string }>();

  constructor(private readonly opts: PartsOptions) {
    for (const spec of opts.parts) this.states.set(spec.name, new PartState(spec));
    this.log = opts.log ?? silent;
    this.now = opts.now ?? Date.now;
  }

  has(name: string): name is PartName {
    return this.states.has(name as PartName);
  }

  isUpdating(name: PartName): boolean {
    return this.state(name).updating;
  }

  /** The parts whose update is running in this process. */
  updatingParts(): PartName[] {
    return [...this.states.values()].filter((st) => st.updating).map((st) => st.spec.name);
  }

  /**
   * From now on every update is refused (409 `serviceRestarting`, `reason` in the detail): the
   * process is about to end, and would cut an update off half-way. Returns what lifts it (a
   * process that did not end after all).
   */
  refuseUpdates(reason: string): () => void {
    const entry = { reason };
    this.refusing.add(entry);
    return () => void this.refusing.delete(entry);
  }

  /** Resolves once no part but `except` is being updated (polled: updates are few and short). */
  async whenIdle(except: PartName, pollMs = 200): Promise<void> {
    while (this.updatingParts().some((name) => name !== except)) await sleep(pollMs);
  }

  /**
   * The service's folders and what answers call them: each part's work tree by the part's name,
   * its git metadata under `REPOS_DIR/.gitdirs/<part>` by that (see hidePaths).
   */
  pathLabels(): PathLabel[] {
    const labels: PathLabel[] = [...(this.opts.pathLabels ?? [])];
    for (const { spec } of this.states.values()) {
      labels.push([spec.dir, spec.name]);
      if (spec.gitdir) labels.push([spec.gitdir, `REPOS_DIR/.gitdirs/${spec.name}`]);
    }
    return labels;
  }

  private state(name: string): PartState {
    const st = this.states.get(name as PartName);
    if (!st) throw new UpdateError(404, 'unknownRepository', `known: ${[...this.states.keys()].join(', ')}`);
    return st;
  }

  /** The part's repository (with a fresh object cache), or undefined when it is not one. */
  async repository(name: PartName): Promise<Repo | undefined> {
    const st = this.state(name);
    st.ready ??= this.findOrInit(st.spec).catch((err: unknown) => {
      st.ready = undefined;
      throw err;
    });
    const gitdir = await st.ready;
    return gitdir ? { dir: st.spec.dir, gitdir, cache: {} } : undefined;
  }

  private async findOrInit(spec: PartSpec): Promise<string | undefined> {
    const found = await findGitdir(spec.dir, spec.gitdir);
    if (found || !spec.gitdir) return found;
    const started = this.now();
    try {
      const oid = await initFromContent(spec.dir, spec.gitdir, spec.branch ?? 'master', `Bundled content of logsift ${this.opts.appVersion}`);
      // what the service read is what this commit holds
      const st = this.state(spec.name);
      if (st.loaded && !st.loaded.oid) st.loaded = { oid };
    } catch (err) {
      // Another process may have made it at the same moment.
      const made = await findGitdir(spec.dir, spec.gitdir);
      if (made) return made;
      throw err;
    }
    this.log.info({ part: spec.name, ms: this.now() - started }, 'part made a repository from its bundled content');
    return spec.gitdir;
  }

  /**
   * The files an update would change: those that differ between HEAD and the origin's branch as
   * last fetched (nothing is fetched here). Empty when the part is not a repository yet (it is
   * not made one by this question) or nothing has been fetched.
   */
  async filesBehindOrigin(name: PartName): Promise<string[]> {
    const st = this.state(name);
    const gitdir = (await st.ready?.catch(() => undefined)) ?? (await findGitdir(st.spec.dir, st.spec.gitdir).catch(() => undefined));
    if (!gitdir) return [];
    const repo: Repo = { dir: st.spec.dir, gitdir, cache: {} };
    const head = await resolveCommit(repo, 'HEAD');
    const remote = await resolveCommit(repo, `refs/remotes/${remoteOf(st.spec)}/${await this.branchOf(st.spec, repo)}`);
    return head && remote ? filesBetween(repo, head, remote) : [];
  }

  /** The branch followed: the configured one, else the checked-out one, else origin's default. */
  private async branchOf(spec: PartSpec, repo: Repo): Promise<string> {
    if (spec.branch) return spec.branch;
    const current = await git.currentBranch({ fs, gitdir: repo.gitdir });
    if (current) return current;
    const prefix = `refs/remotes/${remoteOf(spec)}/`;
    const remoteHead = await git.resolveRef({ fs, gitdir: repo.gitdir, ref: `${prefix}HEAD`, depth: 2 }).catch(() => undefined);
    return remoteHead?.startsWith(prefix) ? remoteHead.slice(prefix.length) : 'master';
  }

  /** The origin's URL: the configured one, else the repository's own `origin` remote's (nothing is written). */
  private async originOf(spec: PartSpec, repo: Repo): Promise<string | undefined> {
    return spec.origin ?? originUrl(repo);
  }

  /** Fetches the part's origin: a configured one as its own remote, never by rewriting `origin`. */
  private async fetch(spec: PartSpec, repo: Repo, branch: string): Promise<void> {
    if (spec.origin) await ensureRemote(repo, CONFIGURED_REMOTE, spec.origin);
    await fetchOrigin(repo, remoteOf(spec), branch, this.opts.fetchTimeoutMs ?? 120_000);
  }

  /**
   * Fetches (when an origin is known) and looks for local changes, at most once per interval.
   * A check already running is waited for by a `refresh` only: the others answer from the local
   * refs at once rather than for as long as someone else's fetch takes.
   */
  private async check(st: PartState, repo: Repo, refresh: boolean): Promise<void> {
    if (st.updating) return;
    if (st.checking) {
      if (refresh) await st.checking;
      return;
    }
    const due = refresh || st.lastCheck === 0 || this.now() - st.lastCheck >= this.opts.fetchIntervalMs;
    if (!due) return;
    st.checking = this.runCheck(st, repo).finally(() => {
      st.checking = undefined;
    });
    await st.checking;
  }

  private async runCheck(st: PartState, repo: Repo): Promise<void> {
    st.lastCheck = this.now();
    if (await this.originOf(st.spec, repo)) {
      try {
        await this.fetch(st.spec, repo, await this.branchOf(st.spec, repo));
        st.fetchedAt = new Date(this.now()).toISOString();
        st.fetchError = undefined;
      } catch (err) {
        st.fetchError = `fetch failed: ${(err as Error).message}`;
        this.log.warn({ part: st.spec.name, err: st.fetchError }, 'fetch failed');
      }
    }
    st.localChanges = (await changedFiles(repo)).length > 0;
  }

  /** The status record; fetches first when the last fetch is older than the interval, or with `refresh`. */
  async status(name: PartName, opts: { refresh?: boolean } = {}): Promise<StatusRecord> {
    const st = this.state(name);
    const repo = await this.repository(name);
    if (!repo) return name === 'app' ? { 'is-git-repo': false, current: this.opts.appVersion } : { 'is-git-repo': false };
    await this.check(st, repo, opts.refresh ?? false);
    return this.record(st, repo);
  }

  private async record(st: PartState, repo: Repo): Promise<StatusRecord> {
    const record = await computeRecord({
      repo,
      branch: await this.branchOf(st.spec, repo),
      remote: remoteOf(st.spec),
      localChanges: st.localChanges,
      bundledOid: await bundledCommit(repo),
    });
    const origin = await this.originOf(st.spec, repo);
    record.origin = origin ? redactUrl(origin) : null;
    record.fetchedAt = st.fetchedAt ?? null;
    const error = origin ? st.fetchError : `no origin configured: set ${st.spec.name.toUpperCase()}_ORIGIN`;
    if (error) record.error = error;
    if (st.updating) record.updating = true;
    // the checkout is ahead of what runs until its install and build complete: not up to date
    const pending = st.spec.buildMarker ? await readPendingBuild(st.spec.buildMarker) : undefined;
    if (pending) {
      record.buildPending = pending.commit;
      record['from-head'] = 'outdated';
      record['from-tag'] = 'outdated';
    }
    const loaded = st.loaded?.oid;
    if (loaded) {
      record.loadedOid = loaded;
      if (loaded !== record.headOid) record.reloadNeeded = true;
    }
    return record;
  }

  /**
   * Takes the part's update lock (in this process, and a lock file for other processes sharing the
   * folder); 409 `updateInProgress` when it is held. Returns the release function.
   */
  async lock(name: PartName): Promise<() => Promise<void>> {
    const st = this.state(name);
    if (st.updating) throw new UpdateError(409, 'updateInProgress');
    const [refusal] = this.refusing;
    if (refusal) throw new UpdateError(409, 'serviceRestarting', refusal.reason);
    st.updating = true;
    let file: LockFile | undefined;
    try {
      const gitdir = (await this.repository(name))?.gitdir;
      if (gitdir) {
        file = new LockFile(`${gitdir}/logsift-update.lock`);
        if (!(await file.acquire())) throw new UpdateError(409, 'updateInProgress', 'another process is updating this part');
      }
    } catch (err) {
      st.updating = false;
      throw err;
    }
    return async () => {
      await file?.release();
      st.updating = false;
    };
  }

  /**
   * Fetches for an update: waits for a status fetch under way, then fetches again. A failure is
   * 502 `fetchFailed` with the reason (the origin failed, not the service: reference 3.5, scenario
   * 10) and leaves the repository untouched.
   * Returns the branch and origin's commit.
   */
  async fetchForUpdate(name: PartName, repo: Repo): Promise<{ branch: string; remoteOid: string }> {
    const st = this.state(name);
    if (!(await this.originOf(st.spec, repo))) {
      throw new UpdateError(409, 'noOrigin', `no origin configured: set ${name.toUpperCase()}_ORIGIN`);
    }
    await st.checking?.catch(() => undefined);
    const branch = await this.branchOf(st.spec, repo);
    try {
      await this.fetch(st.spec, repo, branch);
    } catch (err) {
      st.fetchError = `fetch failed: ${(err as Error).message}`;
      throw new UpdateError(502, 'fetchFailed', (err as Error).message);
    }
    st.fetchedAt = new Date(this.now()).toISOString();
    st.fetchError = undefined;
    const remoteOid = await resolveCommit(repo, `refs/remotes/${remoteOf(st.spec)}/${branch}`);
    if (!remoteOid) throw new UpdateError(502, 'fetchFailed', `origin has no branch ${branch}`);
    return { branch, remoteOid };
  }

  /**
   * Records the commit the service has just read the part at (at start: HEAD as it is, without
   * making the folder a repository), which the record compares with HEAD (`reloadNeeded`).
   */
  async noteLoaded(name: PartName): Promise<void> {
    const st = this.state(name);
    try {
      const gitdir = await findGitdir(st.spec.dir, st.spec.gitdir);
      st.loaded = { oid: gitdir ? await resolveCommit({ dir: st.spec.dir, gitdir }, 'HEAD') : undefined };
    } catch (err) {
      st.loaded = undefined;
      this.log.warn({ part: name, err: (err as Error).message }, 'the commit the part was read at is not known');
    }
  }

  /** Records a local-changes check made during an update (it counts as the part's check). */
  noteLocalChanges(name: PartName, changed: boolean): void {
    const st = this.state(name);
    st.localChanges = changed;
    st.lastCheck = this.now();
  }

  /**
   * Brings a data part to its origin's branch: refused (409) with local changes or a diverged
   * history unless `force`; a fast-forward, or a hard reset with `force`. Once the files are in
   * place the part's dependants reload; any failure puts refs and files back. Answers the new record.
   */
  async update(name: Exclude<PartName, 'app'>, opts: { force?: boolean } = {}): Promise<StatusRecord> {
    const st = this.state(name);
    const force = opts.force ?? false;
    let repo: Repo | undefined;
    try {
      const release = await this.lock(name);
      try {
        repo = await this.repository(name);
        if (!repo) throw new UpdateError(409, 'notAGitRepository');
        await this.bringUpToDate(name, repo, force);
      } finally {
        await release();
      }
    } catch (err) {
      // the answer goes to one admin: the service's log keeps what was refused or undone, and why
      const e = err instanceof UpdateError ? err : undefined;
      const refused = e !== undefined && e.http < 500;
      this.log.warn({ part: name, code: e?.code ?? 'updateFailed', cause: e?.detail ?? (err as Error).message, force }, refused ? 'part update refused' : 'part update failed');
      throw err;
    }
    return this.record(st, repo);
  }

  /**
   * Nothing to move, but HEAD is not the commit the service read (another process moved it: a
   * `git pull` by hand, a second service on the folder): the part is read again as it is, the
   * same checks applying (a failure keeps what the service had).
   */
  private async reloadIfMoved(name: PartName, headOid: string): Promise<void> {
    const st = this.state(name);
    if (!st.loaded?.oid || st.loaded.oid === headOid) return;
    await this.opts.onUpdated?.(name, headOid);
    this.log.info({ part: name, from: st.loaded.oid.slice(0, 7), to: headOid.slice(0, 7) }, 'part reloaded: its HEAD had moved under the service');
    st.loaded = { oid: headOid };
  }

  private async bringUpToDate(name: PartName, repo: Repo, force: boolean): Promise<void> {
    const { branch, remoteOid } = await this.fetchForUpdate(name, repo);
    const pos = await currentPosition(repo, branch);
    const changed = await changedFiles(repo);
    this.noteLocalChanges(name, changed.length > 0);
    if (changed.length > 0 && !force) throw new UpdateError(409, 'localChanges', changed.slice(0, 10).join(', '));
    const history = new History(repo);
    // The bundled snapshot is not an admin's work: the origin replaces it without force.
    const discard = force || pos.headOid === (await bundledCommit(repo));
    // The branch is what moves (HEAD may be detached elsewhere): its commits decide.
    let target = remoteOid;
    if (!discard) {
      const move = await branchMove(history, pos.branchOid, remoteOid);
      if (move === 'diverged') throw divergedError(`the branch ${branch}`, pos.branchOid!, remoteOid);
      // Origin has nothing the branch lacks: only local commits, which stay.
      if (move === 'ahead') target = pos.branchOid!;
      const tagged = new Set((await listTagInfos(repo)).map((tag) => tag.commitOid));
      if (await detachedCommitsLost(history, pos, [target, remoteOid], tagged)) throw divergedError('the detached HEAD', pos.headOid, target);
    }
    const onBranch = pos.headRef === `refs/heads/${branch}`;
    if (pos.headOid === target && onBranch && changed.length === 0) {
      await this.reloadIfMoved(name, pos.headOid);
      return;
    }
    // Files git does not track would keep a folder the origin removed (a platform without its
    // manifest then fails the update): named, and removed with the folder when forced.
    const left = await leftInRemovedFolders(repo, pos.headOid, target);
    if (left.files.length > 0 && !force) {
      throw new UpdateError(409, 'localChanges', `files git does not track, in folders the update removes: ${someFiles(left.files)} (remove them, or force=yes removes them)`);
    }
    await withRollback(repo, pos, async () => {
      await moveBranch(repo, branch, target, { force, discard });
      for (const folder of left.folders) await rm(join(repo.dir, folder), { recursive: true, force: true });
      if (left.files.length > 0) this.log.info({ part: name, files: left.files }, 'forced update: removed the files git did not track in folders the origin removed');
      await this.opts.onUpdated?.(name, target);
    }, [...(await untrackedInTheWay(repo, pos.headOid, target)), ...left.files]);
    this.state(name).loaded = { oid: target };
    this.noteLocalChanges(name, false);
    this.log.info({ part: name, from: pos.headOid.slice(0, 7), to: target.slice(0, 7), force }, 'part updated');
  }
}
