/**
 * Whether a line counts as matching a log format, as a job decides it before it knows the format:
 * the job's gate and the format tester both ask here, so that the tester never says "matches"
 * for lines a job would reject.
 */
import { parseLine, fieldsOfMatch } from './line-parser.js';
import type { CompiledFormat } from './types.js';
import type { EventTime } from '../dates.js';

/** Dates a line's fields with the job's date format (undefined: no usable date). */
export type LineTimer = (fields: Record<string, string | undefined>) => EventTime | undefined;

/** Runs a format's regex on a line: the format's own by default; the format tester bounds its time. */
export type FormatExec = (format: CompiledFormat, line: string) => ArrayLike<string | null | undefined> | null;

export interface LineCheck {
  /** the first of the formats whose regex matches the line */
  readonly format?: CompiledFormat;
  readonly fields?: Record<string, string>;
  /** the line's date, read with the job's date format: without it the line is an unknown format */
  readonly time?: EventTime;
}

/**
 * The first of `formats` (the given format alone, or the auto-detected ones in order) that
 * matches the line, its fields and its date. Like a job, it does not go on to the next format
 * when the date of the first one does not read: a wrong Date-Format is a wrong date format
 * (4003 saying so), not another log format.
 */
export function checkLine(line: string, formats: readonly CompiledFormat[], timer: LineTimer, exec?: FormatExec): LineCheck {
  for (const format of formats) {
    const fields = exec === undefined ? parseLine(format, line) : matchFields(format, line, exec);
    if (fields === undefined) continue;
    return { format, fields, time: timer(fields) };
  }
  return {};
}

function matchFields(format: CompiledFormat, line: string, exec: FormatExec): Record<string, string> | undefined {
  const m = exec(format, line);
  return m === null ? undefined : fieldsOfMatch(format, m);
}
