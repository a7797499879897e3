import type { Db } from './database.js';

export interface UsageTotals {
  jobs: number;
  failed: number;
  bytes: number;
  lines: number;
  events: number;
  denied: number;
  /** lines counted by the rejection rate (unknown formats and domains, unqualified, errors, duplicates, unordered) */
  rejected: number;
  /** filtered-ecs lines (outside the rejection rate) */
  filtered: number;
  durationMs: number;
}

export interface UsageDay extends UsageTotals {
  day: string;
}

export interface PlatformUsage {
  platform: string;
  jobs: number;
  events: number;
}

export interface UsageSummary {
  /** first and last day with a job in the window (undefined when none) */
  readonly firstDay?: string;
  readonly lastDay?: string;
  readonly totals: UsageTotals;
  readonly days: UsageDay[];
  /** platforms by events, most first */
  readonly platforms: PlatformUsage[];
  /** distinct platforms seen in the window */
  readonly platformCount: number;
}

const TOTALS = `coalesce(sum(jobs), 0) AS jobs, coalesce(sum(failed), 0) AS failed, coalesce(sum(bytes), 0) AS bytes,
  coalesce(sum(lines), 0) AS lines, coalesce(sum(events), 0) AS events, coalesce(sum(denied), 0) AS denied,
  coalesce(sum(rejected), 0) AS rejected, coalesce(sum(filtered), 0) AS filtered, coalesce(sum(duration_ms), 0) AS durationMs`;

/** Reads the usage counters the `jobs_usage` trigger keeps (migration 003). */
export class UsageStore {
  private readonly byDay;
  private readonly totals;
  private readonly byPlatform;
  private readonly platformCount;

  constructor(db: Db) {
    this.byDay = db.prepare(`SELECT day, jobs, failed, bytes, lines, events, denied, rejected, filtered, duration_ms AS durationMs
      FROM usage_days WHERE platform = '' AND day >= ? ORDER BY day`);
    this.totals = db.prepare(`SELECT ${TOTALS}, min(day) AS firstDay, max(day) AS lastDay FROM usage_days WHERE platform = '' AND day >= ?`);
    this.byPlatform = db.prepare(`SELECT platform, sum(jobs) AS jobs, sum(events) AS events FROM usage_days
      WHERE platform != '' AND day >= ? GROUP BY platform ORDER BY events DESC, platform LIMIT ?`);
    this.platformCount = db.prepare(`SELECT count(DISTINCT platform) FROM usage_days WHERE platform != '' AND day >= ?`).pluck();
  }

  /** The days from `since` (YYYY-MM-DD, UTC) on, and the `top` platforms of that window. */
  summary(since: string, top: number): UsageSummary {
    const row = this.totals.get(since) as UsageTotals & { firstDay: string | null; lastDay: string | null };
    const { firstDay, lastDay, ...totals } = row;
    return {
      firstDay: firstDay ?? undefined,
      lastDay: lastDay ?? undefined,
      totals,
      days: this.byDay.all(since) as UsageDay[],
      platforms: this.byPlatform.all(since, top) as PlatformUsage[],
      platformCount: this.platformCount.get(since) as number,
    };
  }
}
