/** One log line → the properties of its format (reference 2.5). Hot path: one exec, one loop. */
import type { CompiledFormat } from './types.js';

const QUOTE = 34;

/**
 * The properties read from a line, or undefined when the format does not match it.
 * A value wrapped in double quotes loses one pair of them; a value that is then empty or `-`
 * is absent; when several groups carry the same property, the last non-empty one wins.
 */
export function parseLine(format: CompiledFormat, line: string, into?: Record<string, string>): Record<string, string> | undefined {
  const match = format.regex.exec(line);
  return match === null ? undefined : fieldsOfMatch(format, match, into);
}

/**
 * The properties of a line the format's regex matched (run elsewhere: the format tester's budget),
 * stored into `into` when given (a shaped event: event-shape.ts), else into a new object.
 */
export function fieldsOfMatch(format: CompiledFormat, match: ArrayLike<string | null | undefined>, into?: Record<string, string>): Record<string, string> {
  const groups = format.groups;
  const out: Record<string, string> = into ?? {};
  for (let i = 0; i < groups.length; i++) {
    const property = groups[i];
    if (property === null) continue;
    let value = match[i + 1];
    if (value === undefined || value === null) continue;
    const last = value.length - 1;
    if (last > 0 && value.charCodeAt(0) === QUOTE && value.charCodeAt(last) === QUOTE) value = value.slice(1, last);
    if (value === '' || value === '-') continue;
    out[property] = value;
  }
  return out;
}
