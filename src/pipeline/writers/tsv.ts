import type { AccessEvent } from '../event.js';
import { isInheritedName, lineFrame, ownColumns, type EventSerializer, type Frame } from './types.js';

/**
 * TSV as the reference writes it (reference 5.3): tab between values, `\n` after each row, header
 * row first; a falsy value (absent, empty, the number 0) is empty; a value containing a tab or `"`
 * is wrapped in `"` with inner `"` doubled; no trimming.
 *
 * Where the reference wrote newlines as they are (a value holding one broke its row, and could
 * forge a row or the `#logsift-error ` marker), a value or a name is written as in CSV: every `\n`
 * is deleted, and one holding `\r` is quoted. As in CSV, a first value starting with `#` is quoted
 * so that a row cannot start like the marker.
 */

const HASH = 35;
/** What needs more than returning the text; most values have none of it (one native scan). */
const SPECIAL = /[\t"\r\n]/;

function cell(value: unknown, first: boolean): string {
  if (!value) return '';
  if (typeof value === 'number') return String(value);
  let text = String(value);
  if (SPECIAL.test(text)) {
    if (text.indexOf('\n') >= 0) text = text.replaceAll('\n', '');
    if (text.indexOf('"') >= 0) return '"' + text.replaceAll('"', '""') + '"';
    if (text.indexOf('\t') >= 0 || text.indexOf('\r') >= 0) return '"' + text + '"';
  }
  // after the `\n` deletion: `\n#x` must not start a row with `#`
  return first && text.charCodeAt(0) === HASH ? '"' + text + '"' : text;
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
  const inherited = cols.some(isInheritedName);
  return {
    serialize(event: AccessEvent): string {
      if (count === 0) return '';
      const ec = inherited ? ownColumns(event, cols) : event;
      let line = cell(ec[cols[0]], true);
      for (let i = 1; i < count; i++) line += '\t' + cell(ec[cols[i]], false);
      return line;
    },
  };
}

export function tsvFrame(columns: readonly string[]): Frame {
  return lineFrame(tsvHeader(columns) + '\n');
}
