import fp from 'fastify-plugin';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { AppUpdater, npmBuild, npmInstall, type AppUpdateSteps } from '../updates/app-update.js';
import { UpdatableParts } from '../updates/parts.js';
import { checkUpdatedPlatforms } from '../updates/platforms-check.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** status and update of app, platforms, middlewares, resources */
    updates: UpdatableParts;
    appUpdater: AppUpdater;
  }
}

export interface UpdatesPluginOptions {
  /** replaces steps of the app update (tests: recorders instead of npm and process.exit) */
  readonly appUpdateSteps?: Partial<AppUpdateSteps>;
}

/** Running jobs get this long to end before an updated service exits (the rest end with 5003). */
const DRAIN_MS = 5 * 60_000;

/** The updatable parts; a platforms update swaps the parsing runtime for the next jobs. */
export default fp<UpdatesPluginOptions>(async (app, opts) => {
  const u = app.config.updates;
  const parts = new UpdatableParts({
    parts: [
      { name: 'app', dir: u.appDir, ...u.app },
      { name: 'platforms', dir: app.config.platformsDir, gitdir: join(u.gitdirsDir, 'platforms'), ...u.platforms },
      { name: 'middlewares', dir: app.config.middlewaresDir, gitdir: join(u.gitdirsDir, 'middlewares'), ...u.middlewares },
      { name: 'resources', dir: app.config.resourcesDir, gitdir: join(u.gitdirsDir, 'resources'), ...u.resources },
    ],
    fetchIntervalMs: u.fetchIntervalMs,
    appVersion: app.appVersion,
    log: app.log,
    onUpdated: async (part, commit) => {
      if (part === 'middlewares') {
        app.runtime.setVersions({ middlewares_version: commit.slice(0, 7), middlewares_date: new Date().toISOString().slice(0, 10) });
      }
      // Checked before anything is swapped: a throw puts the files back, the loaded platforms stay.
      if (part === 'platforms') await checkUpdatedPlatforms(app.config.platformsDir, join(app.config.varDir, 'cache', 'hooks'), app.platforms.problems);
      // The pools hold the platforms and what the filters read (exclusion lists, knowledge bases,
      // extra middlewares): an update of any of them gives the next jobs a new pool.
      if (part === 'platforms' || part === 'middlewares' || part === 'resources') await app.runtime.reloadPlatforms();
    },
  });

  const steps: AppUpdateSteps = {
    install: npmInstall,
    build: npmBuild,
    exit: async (code, ctx) => {
      const deadline = Date.now() + DRAIN_MS;
      let shown = -1;
      while (app.runningJobs.size > 0 && Date.now() < deadline) {
        if (app.runningJobs.size !== shown) ctx.log(`Waiting for ${(shown = app.runningJobs.size)} running job(s) to end`);
        await sleep(1000);
      }
      await app.close();
      process.exit(code);
    },
    ...opts.appUpdateSteps,
  };
  const appUpdater = new AppUpdater(parts, steps, (text) => app.log.info({ part: 'app' }, text));
  app.decorate('updates', parts);
  app.decorate('appUpdater', appUpdater);
}, { name: 'updates', dependencies: ['platforms', 'jobs'] });
