import fp from 'fastify-plugin';
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { JobStore } from '../db/jobs.js';
import { isJobId, jobDir } from '../pipeline/job-files.js';
import type { RunningJobs } from './jobs.js';

const DAY_MS = 24 * 3600 * 1000;

export interface RetentionOptions {
  readonly varDir: string;
  readonly store: JobStore;
  readonly running: RunningJobs;
  /** jobs ended longer ago than this are removed; 0 keeps them for ever */
  readonly retentionMs: number;
}

/**
 * Removes whole jobs once they are old: the folder (report, traces, reject and denied files) and
 * the database row together. A job still running is never touched, whatever its age.
 */
export class RetentionSweeper {
  constructor(private readonly opts: RetentionOptions) {}

  /** One sweep; returns the ids removed. `now` lets a caller look ahead in time. */
  async sweep(now = new Date()): Promise<string[]> {
    const { store, running, varDir, retentionMs } = this.opts;
    if (retentionMs <= 0) return [];
    const cutoff = now.getTime() - retentionMs;
    const removed: string[] = [];
    for (const id of store.endedBefore(new Date(cutoff).toISOString())) {
      if (running.get(id)) continue;
      if (isJobId(id)) await rm(jobDir(varDir, id), { recursive: true, force: true });
      // (a lock held by another process: waited for without holding the service; past the wait,
      // the sweep fails, said in the log, and the next one takes the row)
      await store.whenFree(() => store.delete(id));
      removed.push(id);
    }
    // Folders without a row (a lost or reset database): aged by their last change.
    let names: string[] = [];
    try {
      names = await readdir(join(varDir, 'jobs'));
    } catch {
      return removed;
    }
    for (const name of names) {
      if (!isJobId(name) || running.get(name) || store.get(name)) continue;
      const dir = jobDir(varDir, name);
      const info = await stat(dir).catch(() => undefined);
      if (!info?.isDirectory() || info.mtimeMs >= cutoff) continue;
      await rm(dir, { recursive: true, force: true });
      removed.push(name);
    }
    return removed;
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    retention: RetentionSweeper;
  }
}

/** The periodic retention sweep (config.jobs.retentionDays, every config.jobs.sweepIntervalMs; also once at start). */
export default fp(async (app) => {
  const { retentionDays, sweepIntervalMs } = app.config.jobs;
  const sweeper = new RetentionSweeper({
    varDir: app.config.varDir,
    store: app.jobStore,
    running: app.runningJobs,
    retentionMs: retentionDays * DAY_MS,
  });
  app.decorate('retention', sweeper);
  let current: Promise<unknown> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  const run = () => {
    current = current.then(() => sweeper.sweep()).then(
      (ids) => { if (ids.length) app.log.info({ removed: ids.length }, 'old jobs removed'); },
      (err) => app.log.error({ err }, 'job retention sweep failed'),
    );
  };
  app.addHook('onReady', async () => {
    if (retentionDays <= 0) return;
    run();
    if (sweepIntervalMs > 0) {
      timer = setInterval(run, sweepIntervalMs);
      timer.unref();
    }
  });
  // Before the database closes: no sweep may be left half done.
  app.addHook('preClose', async () => {
    if (timer) clearInterval(timer);
    await current;
  });
}, { name: 'retention', dependencies: ['database', 'jobs'] });
