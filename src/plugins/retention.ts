import fp from 'fastify-plugin';
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { JobStore } from '../db/jobs.js';
import { isJobId, jobDir } from '../pipeline/job-files.js';
import type { RunningJobs } from './jobs.js';
import { storageDetail } from '../storage-errors.js';

const DAY_MS = 24 * 3600 * 1000;

export interface RetentionOptions {
  readonly varDir: string;
  readonly store: JobStore;
  readonly running: RunningJobs;
  /** jobs ended longer ago than this are removed; 0 keeps them for ever */
  readonly retentionMs: number;
}

/** A job that could not be removed, and why (what to fix when the storage says it). */
export interface RetentionFailure {
  readonly id: string;
  readonly message: string;
}

/**
 * Removes whole jobs once they are old: the folder (report, traces, reject and denied files) and
 * the database row together. A job still running is never touched, whatever its age. A job that
 * cannot be removed is left for the next sweep; the others go on.
 */
export class RetentionSweeper {
  constructor(private readonly opts: RetentionOptions) {}

  /** One sweep: the ids removed, and those that failed. `now` lets a caller look ahead in time. */
  async sweep(now = new Date()): Promise<{ removed: string[]; failed: RetentionFailure[] }> {
    const { store, running, varDir, retentionMs } = this.opts;
    const removed: string[] = [];
    const failed: RetentionFailure[] = [];
    if (retentionMs <= 0) return { removed, failed };
    const cutoff = now.getTime() - retentionMs;
    const attempt = async (id: string, remove: () => Promise<void>) => {
      try {
        await remove();
        removed.push(id);
      } catch (err) {
        failed.push({ id, message: storageDetail(err, { folder: jobDir(varDir, id) }) ?? (err as Error).message });
      }
    };
    for (const id of store.endedBefore(new Date(cutoff).toISOString())) {
      if (running.get(id)) continue;
      await attempt(id, async () => {
        if (isJobId(id)) await rm(jobDir(varDir, id), { recursive: true, force: true });
        // (a lock held by another process: waited for without holding the service; past the
        // wait, this job is left for the next sweep)
        await store.whenFree(() => store.delete(id));
      });
    }
    // Folders without a row (a lost or reset database): aged by their last change.
    let names: string[] = [];
    try {
      names = await readdir(join(varDir, 'jobs'));
    } catch {
      return { removed, failed };
    }
    for (const name of names) {
      if (!isJobId(name) || running.get(name) || store.get(name)) continue;
      const dir = jobDir(varDir, name);
      const info = await stat(dir).catch(() => undefined);
      if (!info?.isDirectory() || info.mtimeMs >= cutoff) continue;
      await attempt(name, () => rm(dir, { recursive: true, force: true }));
    }
    return { removed, failed };
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
  const said = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  const run = () => {
    current = current.then(() => sweeper.sweep()).then(
      ({ removed, failed }) => {
        if (removed.length) app.log.info({ removed: removed.length }, 'old jobs removed');
        // each job once, not at every sweep: it is tried again each time
        for (const f of failed) {
          if (said.has(f.id)) continue;
          said.add(f.id);
          app.log.error({ job: f.id }, `an old job could not be removed (it is tried again at each sweep): ${f.message}`);
        }
      },
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
