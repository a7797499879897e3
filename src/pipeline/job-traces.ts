import { createWriteStream } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import { pino, type DestinationStream, type Logger } from 'pino';
import type { TraceLevel } from './job-options.js';

/** pino levels for the reference's trace levels (`verbose` sits between info and debug). */
const LEVELS: Record<TraceLevel, string> = { error: 'error', warn: 'warn', info: 'info', verbose: 'verbose', debug: 'debug' };

export type JobTraces = Logger<'verbose'>;

/**
 * One pino record as a trace line of the reference (6.3): `<ISO time> <level>: <message>`, the
 * record's other fields after it as JSON, continuation lines (a stack) indented.
 */
export function traceLine(record: string): string {
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(record) as Record<string, unknown>;
  } catch {
    return record.endsWith('\n') ? record : `${record}\n`;
  }
  const { time, level, msg, err, ...rest } = o;
  let text = typeof msg === 'string' ? msg : '';
  if (Object.keys(rest).length > 0) text += ` ${JSON.stringify(rest)}`;
  const stack = (err as { stack?: unknown } | undefined)?.stack;
  if (typeof stack === 'string') text += `\n${stack}`;
  return `${String(time)} ${String(level)}: ${text.replace(/\r?\n/g, '\n    ')}\n`;
}

/**
 * The job's `job-traces.log`: timestamped, levelled text lines kept at the level the job asked
 * for (Traces-Level), written asynchronously. A plain fs stream, not pino.destination: sonic-boom
 * retries a failed synchronous flush for ever (ENOSPC: the service hung), and its 'error' needs a
 * listener. A file that cannot be written (disk full, folder gone) stops the job's traces, never
 * the job or the service: `onError` is told once.
 */
export function createJobTraces(file: string, level: TraceLevel, onError: (err: Error) => void = () => undefined): { traces: JobTraces; close: () => Promise<void> } {
  const stream = createWriteStream(file);
  let failed = false;
  stream.on('error', (err) => {
    if (failed) return;
    failed = true;
    onError(err);
  });
  let closed: Promise<void> | undefined;
  const lines: DestinationStream = {
    write: (record: string) => {
      // A trace after the file was closed (a late worker error) or failed is dropped, never thrown.
      if (!closed && !failed) stream.write(traceLine(record));
    },
  };
  const traces = pino<'verbose'>(
    {
      level: LEVELS[level],
      customLevels: { verbose: 25 },
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    lines,
  );
  // Resolves once every trace is on disk and the file is closed (or it failed: a destroyed stream closes too).
  const close = () =>
    (closed ??= new Promise<void>((resolve) => {
      if (stream.closed) return resolve();
      stream.once('close', () => resolve());
      stream.end();
    }));
  return { traces, close };
}

/**
 * Adds lines to the traces of a job that is no longer running (its process died), in the same
 * form as its own. Error and warn lines: every Traces-Level keeps those.
 */
export async function appendTraces(file: string, lines: ReadonlyArray<{ level: 'error' | 'warn'; msg: string }>): Promise<void> {
  const time = new Date().toISOString();
  await appendFile(file, lines.map(({ level, msg }) => traceLine(JSON.stringify({ time, level, msg }))).join(''));
}

/**
 * Where a line is, as the traces say it: its number in the request body, or in its own file of a
 * multipart upload (`line 1 of file 2 (b.log)`), not counted across the files. `line` counts
 * every line of that input from 1, empty ones included: the number an editor shows.
 */
export function linePlace(line: number, file?: { readonly index: number; readonly name: string }): string {
  return file ? `line ${line} of file ${file.index} (${file.name})` : `line ${line}`;
}

/**
 * The trace of what a job did with its lines: the lines thrown away (each reject category) apart
 * from the pkb-miss ones, which are events kept (written, only not found in the knowledge bases).
 */
export function countsLine(linesRead: number, events: number, denied: number, rejects: Readonly<Record<string, number>>): string {
  let rejected = '';
  let pkbMiss = 0;
  for (const [category, n] of Object.entries(rejects)) {
    if (category === 'pkb-miss-ecs') pkbMiss = n;
    else rejected += `${rejected ? ', ' : '; rejected: '}${category} ${n}`;
  }
  const kept = pkbMiss ? `; ${pkbMiss} events not found in the knowledge bases (pkb-miss-ecs, kept)` : '';
  return `${linesRead} lines read: ${events} events, ${denied} denied${rejected}${kept}`;
}

/** A logger that writes nothing (jobs refused before their folder exists). */
export function silentTraces(): JobTraces {
  return pino<'verbose'>({ level: 'silent', customLevels: { verbose: 25 } });
}
