import { link, readFile, rm, writeFile } from 'node:fs/promises';

/**
 * A lock file holding its owner's pid, shared by processes on one machine: the update lock of a
 * part (two services on one volume must not update it at once) and the lock of a VAR_DIR (a
 * second service must not take the first's running jobs for interrupted ones). A lock whose
 * process no longer runs (killed with SIGKILL, a crash) is taken over; so is one that names this
 * very process (a container's service is pid 1 at every start).
 */
export class LockFile {
  private held = false;

  constructor(readonly path: string) {}

  /** Takes the lock: undefined when taken, else the pid of the live process that holds it. */
  async take(): Promise<number | undefined> {
    // Written whole beside the lock, then linked to its name (atomic, fails if it exists), so a
    // reader never sees an empty lock file.
    const draft = `${this.path}.${process.pid}.tmp`;
    await writeFile(draft, String(process.pid));
    try {
      for (let attempt = 0; attempt < 2; attempt++) {
        try {
          await link(draft, this.path);
          this.held = true;
          return undefined;
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
          const pid = await this.holder();
          if (pid !== undefined && pid !== process.pid && isAlive(pid)) return pid;
          await rm(this.path, { force: true });
        }
      }
      // Another process took it over between our removal and our link.
      return (await this.holder()) ?? 0;
    } finally {
      await rm(draft, { force: true });
    }
  }

  /** Takes the lock; false when another live process holds it. */
  async acquire(): Promise<boolean> {
    return (await this.take()) === undefined;
  }

  /** The pid written in the lock file, if any. */
  async holder(): Promise<number | undefined> {
    const pid = Number((await readFile(this.path, 'utf8').catch(() => '')).trim());
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  }

  async release(): Promise<void> {
    if (!this.held) return;
    this.held = false;
    await rm(this.path, { force: true });
  }
}

/** A process exists with that pid (EPERM: it exists, owned by another user). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
