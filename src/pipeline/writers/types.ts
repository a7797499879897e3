import type { AccessEvent } from '../event.js';

/**
 * Output of a job. Events are serialised in the workers (EventSerializer: one event's final text)
 * and framed on the main thread (Frame: head, separators, end, error marker), so the main thread
 * only concatenates strings and encodes bytes.
 */
export type OutputKind = 'csv' | 'tsv' | 'json' | 'jsonstream' | 'log';

export interface OutputFormat {
  readonly kind: OutputKind;
  /** text/csv, text/tab-separated-values, application/json (json and jsonstream), text/x-log */
  readonly contentType: string;
  /** csv, txt, json, json, log (names the denied and deferred files) */
  readonly extension: string;
}

/** Worker side: one event's text, without separator or line terminator. */
export interface EventSerializer {
  serialize(ec: AccessEvent): string;
}

/**
 * Main-thread side. The body of a job is, when it has at least one event:
 *   head + text1 + separator + text2 + … + textN + tail
 * and, when the job fails after the head was sent, `errorMarker(code, message)` is written in place
 * of `tail` (never both). A job without any event writes nothing at all, not even the head
 * (reference 5.1: empty body).
 *
 * Error markers (what a client looks for to know the result is incomplete):
 * - csv, tsv, log: the last line is `#logsift-error <code> <message>` (the message on one line).
 *   A row never starts with `#` (a first value starting with `#` is quoted) and a value never
 *   holds a line feed (CSV and TSV delete them), so the marker cannot be forged by data.
 * - json: the `]` is replaced by a newline and the same `#logsift-error <code> <message>` line, so
 *   the document is not valid JSON and cannot be taken for a complete array.
 * - jsonstream: a last line `{"error":{"code":<code>,"message":"<message>"}}`. Event fields hold
 *   strings and numbers, never an object, so no event line can look like it.
 */
export interface Frame {
  readonly head: string;
  /** written between two events */
  readonly separator: string;
  /** written right after each event, so that a line-oriented client gets each row whole at once */
  readonly terminator?: string;
  readonly tail: string;
  errorMarker(code: number, message: string): string;
}

/** Start of the in-band error line of the line-oriented formats and of JSON. */
export const ERROR_LINE_PREFIX = '#logsift-error ';

/**
 * Field holding the original log line, set in Clean-Only mode only, whose output is those lines:
 * no other output sees it, so no output hides a field (a log or CSV field named `_line`, `_x`… is
 * data like any other; in Clean-Only mode the original line replaces a `_line` field).
 */
export const LINE_FIELD = '_line';

/**
 * Names every object inherits from Object.prototype (`constructor`, `toString`, `__proto__`…): a
 * column so named must read the event's own field only, `ec[name]` would find the inherited one.
 */
export function isInheritedName(name: string): boolean {
  return name in Object.prototype;
}

/**
 * The own fields of `ec` among `columns`, for the serializers whose columns include an inherited
 * name (decided once per job, so the usual job reads `ec[name]` directly and copies nothing).
 */
export function ownColumns(ec: AccessEvent, columns: readonly string[]): AccessEvent {
  const own = Object.create(null) as AccessEvent;
  for (const name of columns) if (Object.hasOwn(ec, name)) own[name] = ec[name];
  return own;
}

/** The marker line `#logsift-error <code> <message>` (without line breaks), the message kept on one line. */
export function errorLine(code: number, message: string): string {
  return `${ERROR_LINE_PREFIX}${code} ${message.replace(/[\r\n]+/g, ' ')}`;
}

/** Frame of the line-oriented formats (CSV, TSV, Clean-Only): `head`, then `\n` after every row. */
export function lineFrame(head: string): Frame {
  return {
    head,
    separator: '',
    terminator: '\n',
    tail: '',
    errorMarker: (code, message) => `${errorLine(code, message)}\n`,
  };
}
