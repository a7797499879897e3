/**
 * The workers' side of CSV re-injection (csv-events.ts is the main thread's): a row line back into
 * fields. Kept apart so that the workers do not load the CSV parser.
 */

/** The name a CSV input's "format" goes by in the report and the workers' spec. */
export const CSV_FAMILY = 'csv';

/** `obj[name] = value` as an own field even for `__proto__` (an assignment would set the prototype). */
export function ownField(obj: Record<string, string>, name: string, value: string): void {
  Object.defineProperty(obj, name, { value, enumerable: true, writable: true, configurable: true });
}

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
    if (typeof v !== 'string' || v === '') continue;
    // a column named `__proto__` is a field like any other: an assignment would set the prototype
    if (k === '__proto__') ownField(out, k, v);
    else out[k] = v;
  }
  return out;
}
