import type { AccessEvent } from '../event.js';
import { lineFrame, type EventSerializer, type Frame } from './types.js';

/**
 * TSV as the reference writes it (reference 5.3): tab between values, `\n` after each row, header
 * row first; a falsy value (absent, empty, the number 0) is empty; a value containing a tab or `"`
 * is wrapped in `"` with inner `"` doubled; no trimming, and newlines are kept as they are (so a value
 * holding one breaks its row, as in the reference).
 *
 * As in CSV, a first value starting with `#` is quoted so that a row cannot start like the
 * `#logsift-error ` marker.
 */

const HASH = 35;

function cell(value: unknown, first: boolean): string {
  if (!value) return '';
  if (typeof value === 'number') return String(value);
  const text = String(value);
  if (text.indexOf('"') >= 0) return '"' + text.replaceAll('"', '""') + '"';
  if (text.indexOf('\t') >= 0 || (first && text.charCodeAt(0) === HASH)) return '"' + text + '"';
  return text;
}

/** The header row, without its `\n`. */
export function tsvHeader(columns: readonly string[]): string {
  let line = '';
  for (let i = 0; i < columns.length; i++) line += (i > 0 ? '\t' : '') + cell(columns[i], i === 0);
  return line;
}

export function createTsvSerializer(columns: readonly string[]): EventSerializer {
  const cols = columns.slice();
  const count = cols.length;
  return {
    serialize(ec: AccessEvent): string {
      if (count === 0) return '';
      let line = cell(ec[cols[0]], true);
      for (let i = 1; i < count; i++) line += '\t' + cell(ec[cols[i]], false);
      return line;
    },
  };
}

export function tsvFrame(columns: readonly string[]): Frame {
  return lineFrame(tsvHeader(columns) + '\n');
}
