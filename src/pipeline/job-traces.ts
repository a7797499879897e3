import { pino, type Logger } from 'pino';
import type { TraceLevel } from './job-options.js';

/** pino levels for the reference's trace levels (`verbose` sits between info and debug). */
const LEVELS: Record<TraceLevel, string> = { error: 'error', warn: 'warn', info: 'info', verbose: 'verbose', debug: 'debug' };

export type JobTraces = Logger<'verbose'>;

/**
 * The job's `job-traces.log`: one JSON line per trace with an ISO time, the level name and the
 * message, kept at the level the job asked for (Traces-Level).
 */
export function createJobTraces(file: string, level: TraceLevel): { traces: JobTraces; close: () => Promise<void> } {
  const destination = pino.destination({ dest: file, sync: false, mkdir: true });
  const traces = pino<'verbose'>(
    {
      level: LEVELS[level],
      customLevels: { verbose: 25 },
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
  const close = () =>
    new Promise<void>((resolve) => {
      destination.flush(() => {
        destination.end();
        resolve();
      });
    });
  return { traces, close };
}

/** A logger that writes nothing (jobs refused before their folder exists). */
export function silentTraces(): JobTraces {
  return pino<'verbose'>({ level: 'silent', customLevels: { verbose: 25 } });
}
