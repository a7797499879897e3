import { appendFile, open, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { INTERRUPTED_MESSAGE } from '../db/jobs.js';
import { isAsciiCompatible } from './charsets.js';
import { findResultFile, REPORT_FILE, TRACES_FILE } from './job-files.js';
import { readOutputSettings, type RequestHeaders } from './job-options.js';
import { DeniedFile } from './job-output.js';
import { markReportInterrupted } from './job-report.js';
import { appendTraces } from './job-traces.js';
import { frameFor } from './writers/index.js';
import type { ResponseEncoding } from './writers/encoding.js';

type TraceNote = { level: 'error' | 'warn'; msg: string };

/** The status an interrupted job ends with (its row, report, result file and traces). */
export const INTERRUPTED_CODE = 5003;

/**
 * How the error line can be added to a result file its job never closed:
 * - empty: written as a failing job without any event writes it (charset and compression too);
 * - plain text in a charset that writes ASCII as ASCII: appended after what is there;
 * - otherwise left alone, and why: a compressed stream cut off unfinished cannot be read past the
 *   cut (an appended member would never be reached), and in a charset such as UTF-16 an appended
 *   line could start inside a character or repeat a byte order mark.
 */
export function markerPlacement(encoding: ResponseEncoding, size: number): 'write' | 'append' | { unsafe: string } {
  if (size === 0) return 'write';
  if (encoding.compression) return { unsafe: `it is ${encoding.compression}-compressed and its stream was cut off unfinished` };
  if (!isAsciiCompatible(encoding.charset)) return { unsafe: `its charset (${encoding.charset}) does not allow appending safely` };
  return 'append';
}

async function endsWithNewline(path: string, size: number): Promise<boolean> {
  const file = await open(path, 'r');
  try {
    const { buffer } = await file.read(Buffer.alloc(1), 0, 1, size - 1);
    return buffer[0] === 0x0a;
  } finally {
    await file.close();
  }
}

/**
 * Ends the deferred result file of an interrupted job with the error line a failing job writes
 * (the SIGTERM path: DeniedFile.close with the marker), in the job's format and encoding as its
 * recorded headers chose them. Returns the trace lines saying what was done.
 */
async function endResultFile(dir: string, headers: RequestHeaders): Promise<TraceNote[]> {
  const name = await findResultFile(dir);
  if (!name) return [];
  const path = join(dir, name);
  const { output, responseEncoding } = readOutputSettings(headers);
  const { size } = await stat(path);
  const placement = markerPlacement(responseEncoding, size);
  if (typeof placement === 'object') {
    return [{ level: 'warn', msg: `The result file ${name} is cut off where the service stopped, without the error line: ${placement.unsafe}` }];
  }
  const frame = frameFor(output.kind, []);
  const marker = { code: INTERRUPTED_CODE, message: INTERRUPTED_MESSAGE };
  // The line formats' marker starts no line of its own: a row cut in the middle gets its end first.
  const cutRow = placement === 'append' && !frame.errorMarker(0, '').startsWith('\n') && !(await endsWithNewline(path, size));
  if (cutRow) await appendFile(path, '\n');
  await new DeniedFile(path, () => frame, responseEncoding, placement === 'write' ? 'w' : 'a').close(marker);
  return [{ level: 'warn', msg: `The result file ${name} ends with the error line (${INTERRUPTED_CODE}): its events stop where the service stopped` }];
}

/**
 * A job cut off by the end of its process (kill -9, power loss), found at the next start: its
 * report, result file and traces say so, as those of a job stopped by a shutdown do. A folder
 * that is gone, or a file that cannot be read, is left as it is. `snapshotAt` (ISO time): when its
 * counts were last saved, the end time its row got; its report and traces say the counts are those.
 */
export async function endInterruptedJob(dir: string, headers: RequestHeaders, snapshotAt?: string): Promise<void> {
  await markReportInterrupted(join(dir, REPORT_FILE), snapshotAt);
  const lines: TraceNote[] = [{ level: 'error', msg: `Job interrupted: ${INTERRUPTED_CODE} ${INTERRUPTED_MESSAGE} (found at the service's next start)` }];
  if (snapshotAt) {
    lines.push({ level: 'warn', msg: `The job's counts (report, duration) are those of its last snapshot, saved at ${snapshotAt}: what it did after that until the service stopped is not counted` });
  }
  try {
    lines.push(...(await endResultFile(dir, headers)));
  } catch (err) {
    lines.push({ level: 'warn', msg: `The result file could not be ended with the error line: ${(err as Error).message}` });
  }
  await appendTraces(join(dir, TRACES_FILE), lines).catch(() => undefined);
}
