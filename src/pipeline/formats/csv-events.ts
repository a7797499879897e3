/**
 * CSV re-injection (reference 1.2): a CSV file of events (`;`-separated, first row = column names)
 * instead of log lines. The main thread parses the CSV and turns each row into one line, the row as
 * a JSON object: that line is what the workers read, what reject files keep and what `log_id`
 * hashes, as the reference did. Unlike the reference, the file may be compressed and is decoded
 * with `Request-Charset` (or its Content-Type's charset).
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parse as parseCsv } from 'fast-csv';
import { StatusError } from '../../status-codes.js';
import { decodedText } from '../charsets.js';
import { ownField } from './csv-rows.js';

export { CSV_FAMILY } from './csv-rows.js';

const PROTO = '__proto__';

/** Lines are handed on in chunks of about this many bytes (or sooner, when the parser runs dry). */
const CHUNK_BYTES = 64 * 1024;

export interface CsvEventOptions {
  /** the file's charset (`Request-Charset`, else its Content-Type's, else UTF-8) */
  readonly charset: string;
  /** a row (pending text with no complete row) longer than this fails with 4022 (MAX_LINE_BYTES) */
  readonly maxRowBytes: number;
  /** told the column names once the header row is read, before any line is given out */
  readonly onColumns: (columns: readonly string[]) => void;
}

/**
 * The parser's rows; its own failure (a quote closed in the middle of a cell) becomes the
 * client's error, 4003, quoting where and saying what to fix, not an internal error (5000).
 */
async function* readRows(rows: AsyncIterable<string[]>): AsyncIterable<string[]> {
  try {
    yield* rows;
  } catch (err) {
    const message = (err as Error)?.message;
    if (typeof message === 'string' && message.startsWith('Parse Error')) {
      throw new StatusError(4003, `the CSV file cannot be read: ${message.replace(/^Parse Error:\s*/, '')} (a quoted cell must end at a ";" or the line's end; a quote inside it is doubled: "")`);
    }
    throw err;
  }
}

/**
 * The rows of a CSV input as UTF-8 lines of JSON (`{"column":"value",…}\n`), in chunks. A row with
 * fewer cells than columns lacks the last ones; cells past the last column are dropped. Empty rows
 * are skipped. The text a row spans is bounded (an unclosed quote would otherwise hold the rest of
 * the file in the parser).
 */
export async function* csvEventLines(source: AsyncIterable<Uint8Array>, opts: CsvEventOptions): AsyncIterable<Uint8Array> {
  const parser = parseCsv<string[], string[]>({ delimiter: ';', ignoreEmpty: true });
  // What bounds the parser's memory is the text it holds without a complete row (its `lines`, the
  // unparsed rest: an unclosed quote makes it the rest of the file). Bytes counted between the
  // input and the rows taken were not it: the streams in between hold a megabyte of short rows
  // when the job reads slower than the upload comes, and a CSV of 1 MB failed with a false 4022.
  const unparsed = () => ((parser as unknown as { lines?: unknown }).lines as string | undefined)?.length ?? 0;
  async function* checked(): AsyncIterable<Uint8Array> {
    for await (const chunk of source) {
      if (opts.maxRowBytes > 0 && unparsed() > opts.maxRowBytes) {
        throw new StatusError(4022, `a CSV row is longer than ${opts.maxRowBytes} bytes: a quoted cell may lack its closing quote`);
      }
      yield chunk;
    }
  }
  const feeding = pipeline(Readable.from(decodedText(checked(), opts.charset)), parser);
  // the parser's iteration reports the failure; this keeps the pipeline's own copy from going unheard
  feeding.catch(() => undefined);
  let columns: string[] | undefined;
  /** the (first) column named `__proto__`, which `row[name] = cell` would not keep (-1: none) */
  let protoAt = -1;
  let pending: string[] = [];
  let pendingBytes = 0;
  try {
    for await (const cells of readRows(parser as AsyncIterable<string[]>)) {
      if (columns === undefined) {
        columns = cells.map((c) => c.trim());
        if (!columns.some((c) => c !== '')) throw new StatusError(4003, 'the CSV file\'s first row names no column');
        // saved by a spreadsheet with another separator: one column whose name holds the others
        if (columns.length === 1 && /[,\t]/.test(columns[0])) {
          throw new StatusError(4003, `the CSV file's first row is one column, ${JSON.stringify(columns[0].slice(0, 60))}: a CSV of events is separated by ";" (as logsift writes it); save it with ";" separators`);
        }

        protoAt = columns.indexOf(PROTO);
        opts.onColumns(columns.filter((c) => c !== ''));
        continue;
      }
      const row: Record<string, string> = {};
      const n = Math.min(cells.length, columns.length);
      for (let i = 0; i < n; i++) {
        if (i === protoAt) ownField(row, PROTO, cells[i]);
        else if (columns[i] !== '') row[columns[i]] = cells[i];
      }
      const line = JSON.stringify(row) + '\n';
      pending.push(line);
      pendingBytes += line.length;
      if (pendingBytes >= CHUNK_BYTES || parser.readableLength === 0) {
        yield Buffer.from(pending.join(''), 'utf8');
        pending = [];
        pendingBytes = 0;
      }
    }
    if (pending.length > 0) yield Buffer.from(pending.join(''), 'utf8');
    await feeding;
  } finally {
    parser.destroy();
  }
}
