import { readFile } from 'node:fs/promises';
import { INTERRUPTED_MESSAGE } from '../db/jobs.js';
import { REJECT_CATEGORIES, type RejectCategory } from './stages/types.js';
import { writeFileAside } from '../write-aside.js';

/** Report counter of each reject category (reference 6.1, section `rejets`). */
export const REJECT_COUNTERS: Record<RejectCategory, string> = {
  'filtered-ecs': 'nb-lines-ignored',
  'duplicate-ecs': 'nb-lines-duplicate-ecs',
  'ignored-domains': 'nb-lines-ignored-domains',
  'unknown-domains': 'nb-lines-unknown-domains',
  'unknown-formats': 'nb-lines-unknown-formats',
  'unqualified-ecs': 'nb-lines-unqualified-ecs',
  'unordered-ecs': 'nb-lines-unordered-ecs',
  'ignored-hosts': 'nb-lines-ignored-hosts',
  'robots-ecs': 'nb-lines-robots-ecs',
  'unknown-errors': 'nb-lines-unknown-errors',
  'pkb-miss-ecs': 'nb-lines-pkb-miss-ecs',
};

/** Categories whose lines gave no event (pkb-miss events are counted but kept). */
export const LOST_LINE_CATEGORIES: readonly RejectCategory[] = REJECT_CATEGORIES.filter((c) => c !== 'pkb-miss-ecs');

export type ReportValue = string | number | boolean | null;
export type ReportSection = Record<string, ReportValue>;
/** The report as written to report.json: sections in SECTION_ORDER, each a flat key → value map. */
export type ReportData = Record<string, ReportSection>;

/**
 * The order of the report's sections in report.json (README, "The report"), whatever the order
 * the job names them in (it knows its files and notifications first). A section not listed
 * comes after these, in the order it was first named.
 */
export const SECTION_ORDER: readonly string[] = [
  'general', 'rejets', 'stats', 'headers', 'dedoublonnage', 'first_event', 'platform-versions', 'alerts', 'files', 'notifications',
];

/**
 * A job's report. Sections are written in SECTION_ORDER (general, rejets and stats always; the
 * others once named: files, first_event, alerts, a stage's own section such as `dedoublonnage`).
 * A part of the pipeline with counters of its own either writes them as they change (`set`,
 * `increment`) or registers `onRefresh` to copy them in before each write.
 */
export class JobReport {
  private readonly data: ReportData = {};
  private readonly contributors: Array<(report: JobReport) => void> = [];

  constructor(general: ReportSection) {
    const rejets: ReportSection = {};
    for (const c of REJECT_CATEGORIES) rejets[REJECT_COUNTERS[c]] = 0;
    this.data.general = {
      'Job-Done': false,
      'Job-Duration': '0 s ',
      'nb-ecs': 0,
      'nb-denied-ecs': 0,
      'nb-lines-input': 0,
      'Rejection-Rate': '0 %',
      ...general,
    };
    this.data.rejets = rejets;
    this.data.stats = { platforms: 0, 'mime-PDF': 0, 'mime-HTML': 0 };
  }

  get general(): ReportSection {
    return this.data.general;
  }

  get rejets(): ReportSection {
    return this.data.rejets;
  }

  get stats(): ReportSection {
    return this.data.stats;
  }

  /** A section, created empty the first time it is named. */
  section(name: string): ReportSection {
    return (this.data[name] ??= {});
  }

  has(name: string): boolean {
    return name in this.data;
  }

  set(section: string, key: string, value: ReportValue): void {
    this.section(section)[key] = value;
  }

  get(section: string, key: string): ReportValue | undefined {
    return this.data[section]?.[key];
  }

  /** Adds to a numeric key (0 when absent); returns the new value. */
  increment(section: string, key: string, by = 1): number {
    const s = this.section(section);
    const n = (typeof s[key] === 'number' ? (s[key] as number) : 0) + by;
    s[key] = n;
    return n;
  }

  /** Replaces a whole section's content, keeping its place. */
  replace(section: string, values: ReportSection): void {
    const s = this.section(section);
    for (const k of Object.keys(s)) delete s[k];
    Object.assign(s, values);
  }

  /** `fn` runs before each write of the report (every few seconds, and at the end). */
  onRefresh(fn: (report: JobReport) => void): void {
    this.contributors.push(fn);
  }

  refresh(): void {
    for (const fn of this.contributors) fn(this);
  }

  /** The sections in SECTION_ORDER (the same objects, not copies). */
  toJSON(): ReportData {
    const ordered: ReportData = {};
    for (const name of SECTION_ORDER) if (name in this.data) ordered[name] = this.data[name];
    for (const name of Object.keys(this.data)) ordered[name] ??= this.data[name];
    return ordered;
  }
}

/** `1 h 2 m 3 s ` as the reference writes durations (trailing space included). */
export function formatDuration(ms: number): string {
  let s = Math.round(ms / 1000);
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  if (h) return `${h} h ${m} m ${s} s `;
  if (m) return `${m} m ${s} s `;
  return `${s} s `;
}

/**
 * The reference's rejection rate: (unknown formats + unknown domains + unqualified + unknown
 * errors + duplicates + unordered) / (lines read − filtered lines), two decimals, "r %".
 */
export function rejectionRate(linesRead: number, rejects: Partial<Record<RejectCategory, number>>): string {
  const n = (c: RejectCategory) => rejects[c] ?? 0;
  const numerator = n('unknown-formats') + n('unknown-domains') + n('unqualified-ecs') + n('unknown-errors') + n('duplicate-ecs') + n('unordered-ecs');
  const denominator = linesRead - n('filtered-ecs');
  const rate = denominator > 0 ? Math.round((numerator * 10000) / denominator) / 100 : 0;
  return `${rate} %`;
}

/**
 * Lines a report accounts for: events + denied events + every reject counter but pkb-miss (those
 * events were kept). Equal to `nb-lines-input` when every line ended in exactly one place.
 */
export function accountedLines(report: ReportData): number {
  const g = report.general ?? {};
  let n = Number(g['nb-ecs'] ?? 0) + Number(g['nb-denied-ecs'] ?? 0);
  for (const c of LOST_LINE_CATEGORIES) n += Number(report.rejets?.[REJECT_COUNTERS[c]] ?? 0);
  return n;
}

/** Local ISO 8601 time with the server's offset (`2026-11-22T10:03:04+01:00`). */
export function localIso(date: Date): string {
  const offset = -date.getTimezoneOffset();
  const sign = offset >= 0 ? '+' : '-';
  const abs = Math.abs(offset);
  const pad = (n: number) => String(n).padStart(2, '0');
  const local = new Date(date.getTime() + offset * 60_000).toISOString().slice(0, 19);
  return `${local}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

/**
 * The report of a job cut off by the end of its process (kill -9, power loss): marked with the
 * status the job row gets, and with `Job-Snapshot-Date`, the time of the snapshot its counts are
 * (`snapshotAt`, ISO), written aside then renamed. A missing or unreadable file is left alone.
 */
export async function markReportInterrupted(file: string, snapshotAt?: string): Promise<void> {
  try {
    const report = JSON.parse(await readFile(file, 'utf8')) as ReportData;
    const snapshot: ReportSection = snapshotAt ? { 'Job-Snapshot-Date': localIso(new Date(snapshotAt)) } : {};
    report.general = { ...report.general, 'Job-Done': false, status: 5003, 'status-message': INTERRUPTED_MESSAGE, ...snapshot };
    await writeFileAside(file, JSON.stringify(report, null, 2));
  } catch {
    // no report was written yet, or the folder is gone: the job row says it all
  }
}
