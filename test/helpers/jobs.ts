import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface JobAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: string;
  readonly id: string;
}

/** POSTs a job to a started service and reads the whole answer. */
export async function postJob(url: string, body: string | Uint8Array, headers: Record<string, string> = {}): Promise<JobAnswer> {
  const res = await fetch(`${url}/`, { method: 'POST', headers, body });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text, id: res.headers.get('job-id') ?? '' };
}

/** A file of a job's folder (report.json, lines-*.log, denied-ecs.csv…), or undefined when absent. */
export async function jobFile(varDir: string, id: string, name: string): Promise<string | undefined> {
  try {
    return await readFile(join(varDir, 'jobs', id, name), 'utf8');
  } catch {
    return undefined;
  }
}

export async function jobReport(varDir: string, id: string): Promise<Record<string, Record<string, unknown>>> {
  return JSON.parse((await jobFile(varDir, id, 'report.json')) ?? '{}') as Record<string, Record<string, unknown>>;
}

/** The non-empty lines of a text. */
export function lines(text: string | undefined): string[] {
  return (text ?? '').split('\n').filter((l) => l !== '');
}
