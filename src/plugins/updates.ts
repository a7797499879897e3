import fp from 'fastify-plugin';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { AppUpdater, npmBuild, npmInstall, RESTART_EXIT_CODE, type AppUpdateSteps } from '../updates/app-update.js';
import { UpdatableParts } from '../updates/parts.js';
import { checkUpdatedMiddlewares } from '../updates/middlewares-check.js';
import { checkUpdatedPlatforms } from '../updates/platforms-check.js';
import { BUILTIN_MIDDLEWARES } from '../pipeline/middlewares.js';
import { findGitdir, headCommit } from '../updates/git.js';
import { readPendingBuild } from '../updates/build-marker.js';
import { closeService } from '../close-service.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** status and update of app, platforms, middlewares, resources */
    updates: UpdatableParts;
    appUpdater: AppUpdater;
    /**
     * Closes the service (running jobs end with 5003), then exits with 75 for the supervisor to
     * start it again (POST /api/admin/restart).
     */
    restartService(): Promise<void>;
  }
}

export interface UpdatesPluginOptions {
  /** replaces steps of the app update (tests: recorders instead of npm and process.exit) */
  readonly appUpdateSteps?: Partial<AppUpdateSteps>;
  /** how the restart asked by an administrator ends the process (tests: a recorder) */
  readonly exitProcess?: (code: number) => void;
}

/** Running jobs get this long to end before an updated service exits (the rest end with 5003). */
const DRAIN_MS = 5 * 60_000;

/** The updatable parts; a platforms update swaps the parsing runtime for the next jobs. */
export default fp<UpdatesPluginOptions>(async (app, opts) => {
  const u = app.config.updates;
  const middlewaresGitdir = join(u.gitdirsDir, 'middlewares');
  const buildMarker = join(app.config.varDir, 'app-build-pending.json');
  /** Jobs carry the middlewares' commit and its date (the report's middlewares-version and -date). */
  const readMiddlewaresVersion = async (): Promise<Record<string, string>> => {
    try {
      const gitdir = await findGitdir(app.config.middlewaresDir, middlewaresGitdir);
      const head = gitdir ? await headCommit({ dir: app.config.middlewaresDir, gitdir }) : undefined;
      if (head) return { middlewares_version: head.oid.slice(0, 7), middlewares_date: head.date };
    } catch (err) {
      app.log.warn({ err }, 'the middlewares\' commit could not be read');
    }
    return {};
  };
  // from the start, not only after an update made by this process
  app.runtime.setVersions(await readMiddlewaresVersion());
  const parts = new UpdatableParts({
    parts: [
      { name: 'app', dir: u.appDir, buildMarker, ...u.app },
      { name: 'platforms', dir: app.config.platformsDir, gitdir: join(u.gitdirsDir, 'platforms'), ...u.platforms },
      { name: 'middlewares', dir: app.config.middlewaresDir, gitdir: middlewaresGitdir, ...u.middlewares },
      { name: 'resources', dir: app.config.resourcesDir, gitdir: join(u.gitdirsDir, 'resources'), ...u.resources },
    ],
    fetchIntervalMs: u.fetchIntervalMs,
    fetchTimeoutMs: u.fetchTimeoutMs,
    appVersion: app.appVersion,
    log: app.log,
    pathLabels: [[app.config.reposDir, 'REPOS_DIR'], [app.config.varDir, 'VAR_DIR']],
    onUpdated: async (part) => {
      // Checked before anything is swapped: a throw puts the files back, the loaded platforms stay.
      if (part === 'platforms') await checkUpdatedPlatforms(app.config.platformsDir, app.config.platformsCacheDir, app.platforms);
      if (part === 'middlewares') {
        const loaded = app.platforms.resources.data.middlewares.map((m) => m.name);
        await checkUpdatedMiddlewares(app.config.middlewaresDir, join(app.config.varDir, 'cache', 'middlewares'), new Set(BUILTIN_MIDDLEWARES), loaded);
      }
      // The new commit goes to the next jobs with the pool that runs it, or not at all: a reload
      // that throws rolls the files back, and the version must stay the one they are at.
      const versions = part === 'middlewares' ? await readMiddlewaresVersion() : {};
      // The pools hold the platforms and what the filters read (exclusion lists, knowledge bases,
      // extra middlewares): an update of any of them gives the next jobs a new pool.
      if (part === 'platforms' || part === 'middlewares' || part === 'resources') await app.runtime.reloadPlatforms(versions);
    },
  });

  // The commit each data part was read at by the plugins before this one: the record says when
  // HEAD moves away from it (another process), and an update reloads it then.
  for (const part of ['platforms', 'middlewares', 'resources'] as const) await parts.noteLoaded(part);

  /**
   * Closes the service (running jobs end with 5003) and exits with 75, once: an administrator's
   * restart may come while an installed app update waits for jobs to end before its own.
   */
  let restarting: Promise<void> | undefined;
  const restart = (why: string): Promise<void> => restarting ??= (async () => {
    parts.refuseUpdates('the service is restarting');
    app.log.info({ running: app.runningJobs.size }, `${why}: closing, then exiting with code ${RESTART_EXIT_CODE} for the supervisor`);
    try {
      await closeService(app);
    } catch (err) {
      app.log.error({ err }, 'error while closing for the restart');
    }
    (opts.exitProcess ?? process.exit)(RESTART_EXIT_CODE);
  })();

  const steps: AppUpdateSteps = {
    install: npmInstall,
    build: npmBuild,
    exit: async (_code, ctx) => {
      const deadline = Date.now() + DRAIN_MS;
      let shown = -1;
      while (app.runningJobs.size > 0 && Date.now() < deadline && !restarting) {
        if (app.runningJobs.size !== shown) ctx.log(`Waiting for ${(shown = app.runningJobs.size)} running job(s) to end`);
        await sleep(1000);
      }
      await restart('app update installed');
    },
    ...opts.appUpdateSteps,
  };
  const appUpdater = new AppUpdater(parts, steps, buildMarker, (text) => app.log.info({ part: 'app' }, text));
  const pending = await readPendingBuild(buildMarker);
  if (pending) {
    app.log.warn({ part: 'app', commit: pending.commit, since: pending.since }, 'an app update did not complete its install and build: this process may run an older dist/ than the checkout; PUT /api/admin/app/status runs them again');
  }
  app.decorate('updates', parts);
  app.decorate('appUpdater', appUpdater);
  app.decorate('restartService', () => restart('restart asked'));
}, { name: 'updates', dependencies: ['platforms', 'jobs'] });
