import { readFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
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

export interface Fetched {
  readonly status: number;
  readonly headers: Headers;
  readonly body: string;
}

export async function get(url: string, headers: Record<string, string> = {}): Promise<Fetched> {
  const res = await fetch(url, { headers });
  return { status: res.status, headers: res.headers, body: await res.text() };
}

/** GETs a path exactly as written (no URL normalisation of `..`, `%2e`, backslashes). */
export function rawGet(base: string, path: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ hostname, port, path, method: 'GET' }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => { body += c; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** The parsed report.json of a job. */
export async function report(base: string, id: string): Promise<Record<string, Record<string, unknown>>> {
  const res = await fetch(`${base}/${id}/job-report.json`);
  if (res.status !== 200) throw new Error(`report of ${id}: HTTP ${res.status}`);
  return (await res.json()) as Record<string, Record<string, unknown>>;
}

/** A job whose upload stays open: `push` sends more text, `push(null)` ends it; `response` resolves at the first event. */
export function openJob(base: string, first: string, headers: Record<string, string> = {}): { push: (text: string | null) => void; response: Promise<Response> } {
  let push!: (text: string | null) => void;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      push = (text) => (text === null ? controller.close() : controller.enqueue(new TextEncoder().encode(text)));
    },
  });
  push(first);
  const response = fetch(`${base}/`, { method: 'POST', body, headers: { Accept: 'text/csv', ...headers }, duplex: 'half' } as RequestInit);
  return { push, response };
}
