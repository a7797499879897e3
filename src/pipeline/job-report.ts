import { readFile, rename, writeFile } from 'node:fs/promises';
import { INTERRUPTED_MESSAGE } from '../db/jobs.js';
import { REJECT_CATEGORIES, type RejectCategory } from './stages/types.js';

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

export type ReportValue = string | number | boolean | null;
export type ReportSection = Record<string, ReportValue>;
export type Report = Record<string, ReportSection>;

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

/** Local ISO 8601 time with the server's offset (`2026-11-22T10:03:04+01:00`). */
export function localIso(date: Date): string {
  const offset = -date.getTimezoneOffset();
  const sign = offset >= 0 ? '+' : '-';
  const abs = Math.abs(offset);
  const pad = (n: number) => String(n).padStart(2, '0');
  const local = new Date(date.getTime() + offset * 60_000).toISOString().slice(0, 19);
  return `${local}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

/** The sections a job's report starts with (reference 6.1). */
export function newReport(general: ReportSection): Report {
  const rejets: ReportSection = {};
  for (const c of REJECT_CATEGORIES) rejets[REJECT_COUNTERS[c]] = 0;
  return {
    general: {
      'Job-Done': false,
      'Job-Duration': '0 s ',
      'nb-ecs': 0,
      'nb-denied-ecs': 0,
      'nb-lines-input': 0,
      'Rejection-Rate': '0 %',
      ...general,
    },
    rejets,
    stats: { platforms: 0, 'mime-PDF': 0, 'mime-HTML': 0 },
  };
}

/**
 * The report of a job cut off by the end of its process (kill -9, power loss): marked with the
 * status the job row gets, written aside then renamed. A missing or unreadable file is left alone.
 */
export async function markReportInterrupted(file: string): Promise<void> {
  try {
    const report = JSON.parse(await readFile(file, 'utf8')) as Report;
    report.general = { ...report.general, 'Job-Done': false, status: 5003, 'status-message': INTERRUPTED_MESSAGE };
    await writeFile(`${file}.interrupted.tmp`, JSON.stringify(report, null, 2));
    await rename(`${file}.interrupted.tmp`, file);
  } catch {
    // no report was written yet, or the folder is gone: the job row says it all
  }
}
