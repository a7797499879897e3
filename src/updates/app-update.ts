import { spawn } from 'node:child_process';
import { History, latestTag, listTagInfos } from './describe.js';
import { changedFiles, fs, git, type Repo } from './git.js';
import { branchMove, currentPosition, detachedCommitsLost, divergedError, moveBranch, UpdateError, withRollback } from './operations.js';
import type { UpdatableParts } from './parts.js';
import { readPendingBuild, setPendingBuild, type PendingBuild } from './build-marker.js';

/** The exit code after a successful update: supervisors restart on it (EX_TEMPFAIL). */
export const RESTART_EXIT_CODE = 75;

export interface StepContext {
  /** the checkout */
  readonly dir: string;
  log(text: string): void;
}

/** The steps of an app update that touch more than git; tests replace them by recorders. */
export interface AppUpdateSteps {
  /** installs the dependencies of the checked-out version (`npm ci`) */
  install(ctx: StepContext): Promise<void>;
  /** builds it (`npm run build`) */
  build(ctx: StepContext): Promise<void>;
  /** ends the process so that the supervisor starts the new version */
  exit(code: number, ctx: StepContext): Promise<void>;
}

/** Runs a program with fixed arguments (never a shell, never request input), its output to the log. */
export function runProgram(command: string, args: readonly string[], ctx: StepContext): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ctx.dir, shell: false, stdio: ['ignore', 'pipe', 'pipe'] });
    let pending = '';
    const onData = (chunk: Buffer) => {
      const lines = (pending + chunk.toString('utf8')).split(/\r?\n/);
      pending = lines.pop() ?? '';
      for (const line of lines) if (line.trim()) ctx.log(line);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (pending.trim()) ctx.log(pending);
      if (code === 0) resolve();
      else reject(new Error(`${command} ${args.join(' ')} ended with ${signal ?? `code ${code}`}`));
    });
  });
}

const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

export const npmInstall = (ctx: StepContext) => runProgram(NPM, ['ci', '--no-audit', '--no-fund'], ctx);
export const npmBuild = (ctx: StepContext) => runProgram(NPM, ['run', 'build'], ctx);

export interface AppUpdateRequest {
  /** `stable`: the latest release tag (detached HEAD); `latest`: the branch's head */
  readonly version: 'stable' | 'latest';
  /** discard local changes and commits */
  readonly force: boolean;
  /** `false` (`rebuild=no`): only the checkout, no install nor build */
  readonly rebuild: boolean;
}

export type AppUpdateState = 'idle' | 'running' | 'failed' | 'done' | 'restarting';

export interface AppUpdateLog {
  state: AppUpdateState;
  request?: AppUpdateRequest;
  startedAt?: string;
  endedAt?: string;
  /** the tag or branch commit being installed */
  target?: string;
  error?: string;
  /** every line so far, oldest first (the first `offset` ones were dropped) */
  offset: number;
  lines: string[];
}

const MAX_LINES = 5000;

/**
 * Updates the service's own checkout: fetch, check out the release tag or the branch head,
 * install, build, then exit for the supervisor to restart it. Starts in the background once
 * the checks that need no network passed; progress goes to a log the admin reads.
 */
export class AppUpdater {
  private current: AppUpdateLog = { state: 'idle', offset: 0, lines: [] };
  private running: Promise<void> | undefined;

  /**
   * `buildMarker`: the file recording an install and build not completed (see PendingBuild), in
   * the service's var folder: the checkout's own files are what the update replaces.
   */
  constructor(
    private readonly parts: UpdatableParts,
    private readonly steps: AppUpdateSteps,
    private readonly buildMarker: string,
    private readonly echo: (text: string) => void = () => undefined,
  ) {}

  /** The log of the last update, from line `since` on (`offset`: where the lines given start, never past the end). */
  log(since = 0): AppUpdateLog {
    const { offset, lines } = this.current;
    const from = Math.min(Math.max(0, since - offset), lines.length);
    return { ...this.current, offset: offset + from, lines: lines.slice(from) };
  }

  /** `running` while it fetches, checks out, installs and builds: a restart then would cut it off. */
  get state(): AppUpdateState {
    return this.current.state;
  }

  /** The update under way, if any (tests wait for it). */
  get settled(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  /** 409 `notAGitCheckout` / `updateInProgress` at once; otherwise the update runs in the background. */
  async start(request: AppUpdateRequest): Promise<void> {
    const repo = await this.parts.repository('app');
    if (!repo) throw new UpdateError(409, 'notAGitCheckout');
    const release = await this.parts.lock('app');
    this.current = { state: 'running', request, startedAt: new Date().toISOString(), offset: 0, lines: [] };
    this.running = this.run(repo, request, release);
  }

  private append(text: string): void {
    const c = this.current;
    c.lines.push(`${new Date().toISOString()} ${text}`);
    if (c.lines.length > MAX_LINES) {
      c.lines.shift();
      c.offset++;
    }
    this.echo(text);
  }

  /** Holds the lock to the end, exit included: no second update while the process winds down. */
  private async run(repo: Repo, request: AppUpdateRequest, release: () => Promise<void>): Promise<void> {
    const ctx: StepContext = { dir: repo.dir, log: (text) => this.append(text) };
    try {
      const restart = await this.perform(repo, request, ctx);
      this.current.state = restart ? 'restarting' : 'done';
      this.current.endedAt = new Date().toISOString();
      if (restart) {
        // No data-part update may start now, and one running ends first: the exit would cut it off.
        const allow = this.parts.refuseUpdates('the service restarts after its update');
        try {
          await this.parts.whenIdle('app');
          ctx.log(`Restarting: exiting with code ${RESTART_EXIT_CODE} for the supervisor`);
          await this.steps.exit(RESTART_EXIT_CODE, ctx);
        } finally {
          // reached only when the exit did not end the process (a test's)
          allow();
        }
      }
    } catch (err) {
      this.current.state = 'failed';
      this.current.endedAt = new Date().toISOString();
      this.current.error = err instanceof UpdateError ? err.message : `updateFailed: ${(err as Error).message}`;
      ctx.log(`Update failed: ${this.current.error}`);
    } finally {
      await release();
    }
  }

  /** Returns true when a new version is installed and the process should restart. */
  private async perform(repo: Repo, request: AppUpdateRequest, ctx: StepContext): Promise<boolean> {
    ctx.log(`Fetching the origin (${request.version}${request.force ? ', forced' : ''})`);
    const { branch, remoteOid } = await this.parts.fetchForUpdate('app', repo);
    const changed = await changedFiles(repo);
    this.parts.noteLocalChanges('app', changed.length > 0);
    if (changed.length > 0 && !request.force) throw new UpdateError(409, 'localChanges', changed.slice(0, 10).join(', '));
    const pos = await currentPosition(repo, branch);
    const history = new History(repo);
    const tags = await listTagInfos(repo);
    const onBranch = pos.headRef === `refs/heads/${branch}`;

    // An update cut off during its install or build (the process killed) left the checkout ahead
    // of node_modules and dist/: not up to date, whatever git says.
    const pending = await readPendingBuild(this.buildMarker);
    if (pending) ctx.log(`The install and build of ${pending.commit.slice(0, 7)} did not complete (an update cut off, or its rollback)`);

    let targetOid: string;
    let checkout: () => Promise<void>;
    /** why git has nothing to move, if so, and what the admin may do instead */
    let stay: string | undefined;
    let hint = '';
    if (request.version === 'stable') {
      const tag = latestTag(tags);
      if (!tag) throw new UpdateError(409, 'noReleaseTag', 'the origin has no tag');
      targetOid = tag.commitOid;
      this.current.target = tag.name;
      // a checkout that holds the release and later commits would be taken back to it
      if (!request.force && pos.headOid !== targetOid && (await history.contains(pos.headOid, targetOid))) {
        stay = `The checkout is ahead of the latest release ${tag.name} (it holds it and later commits)`;
        hint = `; version=latest follows the branch, force=yes goes back to ${tag.name}`;
      }
      checkout = () => git.checkout({ fs, dir: repo.dir, gitdir: repo.gitdir, cache: repo.cache, ref: `refs/tags/${tag.name}`, force: request.force });
    } else {
      targetOid = remoteOid;
      // The branch is what moves, wherever HEAD is (detached on a release after a stable update):
      // its local commits stay unless forced.
      if (!request.force) {
        const move = await branchMove(history, pos.branchOid, remoteOid);
        if (move === 'diverged') throw divergedError(`the branch ${branch}`, pos.branchOid!, remoteOid);
        if (move === 'ahead') {
          if (onBranch) stay = `The checkout already holds ${branch} of the origin (and local commits)`;
          // back on the branch, which stays where it is
          else targetOid = pos.branchOid!;
        }
      }
      this.current.target = `${branch} ${targetOid.slice(0, 7)}`;
      const to = targetOid;
      checkout = () => moveBranch(repo, branch, to, { force: request.force, discard: request.force });
    }
    if (!stay) {
      // Commits made on a detached HEAD are held by nothing once HEAD moves: they take force too.
      // (On the branch, a stable update leaves the branch where it is.)
      const tagged = new Set(tags.map((tag) => tag.commitOid));
      const holders = request.version === 'stable' ? [targetOid, pos.branchOid, remoteOid] : [targetOid, remoteOid];
      if (!request.force && (await detachedCommitsLost(history, pos, holders, tagged))) throw divergedError('the detached HEAD', pos.headOid, targetOid);
      const onTarget = request.version === 'stable' ? pos.headOid === targetOid : pos.headOid === targetOid && onBranch;
      if (onTarget && changed.length === 0) stay = `Already on ${this.current.target}`;
    }
    if (stay) {
      if (!pending || !request.rebuild) {
        ctx.log(`${stay}: nothing to do${hint}${pending ? '; rebuild=no leaves the install and build pending' : ''}`);
        return false;
      }
      if (pos.headOid !== targetOid) this.current.target = `${pos.headOid.slice(0, 7)} (the checkout as it is)`;
      ctx.log(`${stay}: installing and building it again`);
      return this.rebuildInPlace(pos.headOid, ctx);
    }

    const since = new Date().toISOString();
    // recorded before any file moves, removed once built: a kill in between leaves it
    if (request.rebuild) await setPendingBuild(this.buildMarker, { commit: targetOid, target: this.current.target, since });
    let built = false;
    try {
      await withRollback(repo, pos, async () => {
        await checkout();
        ctx.log(`Checked out ${this.current.target}`);
        if (!request.rebuild) return;
        built = true;
        ctx.log('Installing the dependencies (npm ci)');
        await this.steps.install(ctx);
        ctx.log('Building (npm run build)');
        await this.steps.build(ctx);
      });
    } catch (err) {
      if (built) {
        ctx.log(`${(err as Error).message}; back on ${pos.headOid.slice(0, 7)}, reinstalling and rebuilding it`);
        await setPendingBuild(this.buildMarker, { commit: pos.headOid, target: `back to ${pos.headOid.slice(0, 7)}`, since });
        try {
          await this.steps.install(ctx);
          await this.steps.build(ctx);
          await setPendingBuild(this.buildMarker, undefined);
        } catch (again) {
          ctx.log(`Rebuilding the previous version failed too: ${(again as Error).message}; run npm ci && npm run build by hand, or update again`);
        }
      } else if (request.rebuild) {
        // nothing was installed: the record is as it was
        await setPendingBuild(this.buildMarker, pending);
      }
      throw err;
    }
    if (request.rebuild) await setPendingBuild(this.buildMarker, undefined);
    ctx.log(`Installed ${this.current.target}`);
    return true;
  }

  /** Installs and builds the checkout as it is (its last install or build did not complete). */
  private async rebuildInPlace(headOid: string, ctx: StepContext): Promise<boolean> {
    await setPendingBuild(this.buildMarker, { commit: headOid, target: this.current.target, since: new Date().toISOString() });
    ctx.log('Installing the dependencies (npm ci)');
    await this.steps.install(ctx);
    ctx.log('Building (npm run build)');
    await this.steps.build(ctx);
    await setPendingBuild(this.buildMarker, undefined);
    ctx.log(`Installed ${this.current.target}`);
    return true;
  }
}
