/**
 * The workers' side of CSV re-injection (csv-events.ts is the main thread's): a row line back into
 * fields. Kept apart so that the workers do not load the CSV parser.
 */

/** The name a CSV input's "format" goes by in the report and the workers' spec. */
export const CSV_FAMILY = 'csv';

/**
 * The fields of one row line (csv-events.ts `csvEventLines`): its cells as strings, empty ones
 * left out (as a log line's); undefined when the line is not such a row.
 */
export function csvRowFields(line: string): Record<string, string> | undefined {
  let row: unknown;
  try {
    row = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof row !== 'object' || row === null || Array.isArray(row)) return undefined;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(row as Record<string, unknown>)) {
    if (typeof v === 'string' && v !== '' && k !== '__proto__') out[k] = v;
  }
  return out;
}
