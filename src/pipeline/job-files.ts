import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { REJECT_CATEGORIES, type RejectCategory } from './stages/types.js';
import type { ResponseEncoding } from './writers/encoding.js';

/**
 * The names of a job's folder and files, and their public URLs: one place for the runner that
 * writes them, the response headers and report that announce them, and the routes that serve them.
 */

/** Job ids are lower-case UUIDs; nothing else ever reaches a path. */
export const JOB_ID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const REPORT_FILE = 'report.json';
export const TRACES_FILE = 'job-traces.log';

/** Extensions of the denied file: those of the output formats, then the compression's. */
const DENIED_FILE = /^denied-ecs\.(csv|txt|json|log)(\.gz|\.zz)?$/;
const REJECT_FILE_NAMES = new Set<string>(REJECT_CATEGORIES.map((c) => rejectFileName(c)));

export function isJobId(id: string): boolean {
  return JOB_ID_PATTERN.test(id);
}

export function jobDir(varDir: string, id: string): string {
  if (!isJobId(id)) throw new Error(`not a job id: ${JSON.stringify(id)}`);
  return join(varDir, 'jobs', id);
}

export function rejectFileName(category: RejectCategory): string {
  return `lines-${category}.log`;
}

/** `denied-ecs.csv`, or `denied-ecs.csv.gz` when the output is compressed (reference 6.4). */
export function deniedFileName(extension: string, encoding: Pick<ResponseEncoding, 'compression'>): string {
  return `denied-ecs.${extension}${compressionSuffix(encoding)}`;
}

function compressionSuffix(encoding: Pick<ResponseEncoding, 'compression'>): string {
  return encoding.compression === 'gzip' ? '.gz' : encoding.compression === 'deflate' ? '.zz' : '';
}

/** `2024-03-12_14h05.job-ecs.csv` (local time of the job's start), `.gz`/`.zz` when compressed (reference 4.2). */
export function resultFileName(startedAt: Date, extension: string, encoding: Pick<ResponseEncoding, 'compression'>): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  const d = startedAt;
  const stamp = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}_${pad(d.getHours())}h${pad(d.getMinutes())}`;
  return `${stamp}.job-ecs.${extension}${compressionSuffix(encoding)}`;
}

/** A deferred job's result files end this way (and only they). */
export const RESULT_FILE = /\.job-ecs(\.[a-z]+){1,2}$/;

/** The result file of a deferred job's folder, if there is one (`PUT /{jobID}` only). */
export async function findResultFile(dir: string): Promise<string | undefined> {
  const names = await readdir(dir).catch(() => [] as string[]);
  return names.filter((n) => RESULT_FILE.test(n)).sort().at(-1);
}

/** The files of a job folder a client may read by name (`GET /{jobID}/{file}`): a closed list. */
export function isServedFileName(name: string): boolean {
  return name === TRACES_FILE || REJECT_FILE_NAMES.has(name) || DENIED_FILE.test(name);
}

export interface JobUrls {
  /** the deferred result (`/{jobID}`) */
  readonly result: string;
  readonly report: string;
  readonly reportHtml: string;
  readonly traces: string;
  readonly denied: string;
  readonly rejects: Readonly<Record<RejectCategory, string>>;
}

/** Absolute URLs of a job's files, under the service's public base URL. */
export function jobUrls(baseUrl: string, id: string, deniedName: string): JobUrls {
  const base = `${baseUrl}/${id}`;
  const rejects = {} as Record<RejectCategory, string>;
  for (const c of REJECT_CATEGORIES) rejects[c] = `${base}/${rejectFileName(c)}`;
  return {
    result: base,
    report: `${base}/job-report.json`,
    reportHtml: `${base}/job-report.html`,
    traces: `${base}/${TRACES_FILE}`,
    denied: `${base}/${deniedName}`,
    rejects,
  };
}
