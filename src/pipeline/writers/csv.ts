import type { AccessEvent } from '../event.js';
import { lineFrame, type EventSerializer, type Frame } from './types.js';

/**
 * CSV as the reference writes it (reference 5.3), byte for byte: `;` between values, `\n` after each
 * row, the header row first; a value is converted to text and trimmed, absent is empty; a value
 * containing `;` or `"` is wrapped in `"` with inner `"` doubled; then every `\n` of the row is
 * deleted (so a row is always exactly one line; `\r` is kept).
 *
 * One addition: a row's first value starting with `#` is quoted too, so that no row can start like
 * the `#logsift-error ` marker. With the default columns the first value is a date, so in practice
 * this never changes the reference's bytes.
 */

const HASH = 35;

/** One value's text, quoted when needed; `\n` is left in and removed for the whole row. */
function cell(value: unknown, first: boolean): string {
  if (value === undefined) return '';
  // numbers never need trimming nor quoting
  if (typeof value === 'number') return String(value);
  const text = String(value).trim();
  if (text.indexOf('"') >= 0) return '"' + text.replaceAll('"', '""') + '"';
  if (text.indexOf(';') >= 0 || (first && text.charCodeAt(0) === HASH)) return '"' + text + '"';
  return text;
}

/** One scan per row rather than per value: newlines are rare. */
function dropNewlines(line: string): string {
  return line.indexOf('\n') >= 0 ? line.replaceAll('\n', '') : line;
}

/** The header row, without its `\n`. Names are quoted like values. */
export function csvHeader(columns: readonly string[]): string {
  let line = '';
  for (let i = 0; i < columns.length; i++) line += (i > 0 ? ';' : '') + cell(columns[i], i === 0);
  return dropNewlines(line);
}

export function createCsvSerializer(columns: readonly string[]): EventSerializer {
  const cols = columns.slice();
  const count = cols.length;
  return {
    serialize(ec: AccessEvent): string {
      if (count === 0) return '';
      let line = cell(ec[cols[0]], true);
      for (let i = 1; i < count; i++) line += ';' + cell(ec[cols[i]], false);
      return dropNewlines(line);
    },
  };
}

export function csvFrame(columns: readonly string[]): Frame {
  return lineFrame(csvHeader(columns) + '\n');
}
