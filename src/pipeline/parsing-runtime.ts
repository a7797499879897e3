/**
 * What a job runs with: the platforms, the pool of workers compiled with them, and the version
 * strings written into events and reports. A job takes a lease on the current snapshot when it
 * starts and keeps it to its end; an update installs a new snapshot for the next jobs, and a
 * superseded pool closes once the last job holding it has released it.
 */
export interface RuntimeSnapshot<Platforms, Pool> {
  readonly platforms: Platforms;
  readonly pool: Pool;
  readonly versions: Readonly<Record<string, string>>;
}

export interface Lease<Platforms, Pool> extends RuntimeSnapshot<Platforms, Pool> {
  /** ends the lease (idempotent) */
  release(): void;
}

export interface RuntimeDeps<Platforms, Pool> {
  readonly load: () => Promise<Platforms>;
  readonly createPool: (platforms: Platforms) => Pool;
  readonly closePool: (pool: Pool) => Promise<void>;
  /** platforms_version / platforms_date of a loaded set */
  readonly platformVersions: (platforms: Platforms) => Record<string, string>;
  /** the other version fields (app, middlewares) */
  readonly baseVersions: Record<string, string>;
  readonly onPoolClosed?: (err?: unknown) => void;
}

/** A pool and the jobs still using it. */
interface Generation<Platforms, Pool> {
  readonly platforms: Platforms;
  readonly pool: Pool;
  leases: number;
  retired: boolean;
  closed?: Promise<void>;
}

export class ParsingRuntime<Platforms, Pool> {
  private gen: Generation<Platforms, Pool>;
  private snapshot: RuntimeSnapshot<Platforms, Pool>;
  private extraVersions: Record<string, string> = {};
  private readonly retiring = new Set<Generation<Platforms, Pool>>();
  private reloading: Promise<unknown> = Promise.resolve();
  private pending = 0;

  private constructor(private readonly deps: RuntimeDeps<Platforms, Pool>, platforms: Platforms) {
    this.gen = { platforms, pool: deps.createPool(platforms), leases: 0, retired: false };
    this.snapshot = this.makeSnapshot();
  }

  static async start<Platforms, Pool>(deps: RuntimeDeps<Platforms, Pool>): Promise<ParsingRuntime<Platforms, Pool>> {
    return new ParsingRuntime(deps, await deps.load());
  }

  private makeSnapshot(): RuntimeSnapshot<Platforms, Pool> {
    return Object.freeze({
      platforms: this.gen.platforms,
      pool: this.gen.pool,
      versions: Object.freeze({ ...this.deps.baseVersions, ...this.deps.platformVersions(this.gen.platforms), ...this.extraVersions }),
    });
  }

  /** What a job starting now gets (without a lease: for reads like /info/platforms). */
  get current(): RuntimeSnapshot<Platforms, Pool> {
    return this.snapshot;
  }

  /** Reloads asked for and not ended yet (the one running included). */
  get reloadsPending(): number {
    return this.pending;
  }

  /** Pools still serving jobs started before the last reload. */
  get retiringPools(): number {
    return this.retiring.size;
  }

  /** The current snapshot for one job: its pool stays open until `release()`. */
  acquire(): Lease<Platforms, Pool> {
    const gen = this.gen;
    gen.leases++;
    let released = false;
    return {
      ...this.snapshot,
      release: () => {
        if (released) return;
        released = true;
        gen.leases--;
        if (gen.retired && gen.leases === 0) void this.closeGeneration(gen);
      },
    };
  }

  /**
   * Reads the platforms again and puts a new pool in place for the next jobs, with `versions`
   * changed too (the middlewares' commit that the new pool runs). A failure to read keeps the
   * current snapshot, versions included. Reloads run one after the other.
   */
  reloadPlatforms(versions: Record<string, string> = {}): Promise<RuntimeSnapshot<Platforms, Pool>> {
    this.pending++;
    const next = this.reloading.then(async () => {
      const platforms = await this.deps.load();
      const old = this.gen;
      this.gen = { platforms, pool: this.deps.createPool(platforms), leases: 0, retired: false };
      this.extraVersions = { ...this.extraVersions, ...versions };
      this.snapshot = this.makeSnapshot();
      old.retired = true;
      if (old.leases === 0) void this.closeGeneration(old);
      else this.retiring.add(old);
      return this.snapshot;
    });
    this.reloading = next.catch(() => undefined).finally(() => {
      this.pending--;
    });
    return next;
  }

  /** Changes version fields (e.g. the middlewares' commit) for the next jobs, keeping the pool. */
  setVersions(fields: Record<string, string>): void {
    this.extraVersions = { ...this.extraVersions, ...fields };
    this.snapshot = this.makeSnapshot();
  }

  private closeGeneration(gen: Generation<Platforms, Pool>): Promise<void> {
    gen.closed ??= this.deps.closePool(gen.pool).then(
      () => this.deps.onPoolClosed?.(),
      (err: unknown) => this.deps.onPoolClosed?.(err),
    ).finally(() => this.retiring.delete(gen));
    return gen.closed;
  }

  /** Closes every pool, current and retiring (the service is stopping; jobs have ended). */
  async close(): Promise<void> {
    await this.reloading;
    const all = [this.gen, ...this.retiring];
    await Promise.all(all.map((g) => this.closeGeneration(g)));
  }
}
