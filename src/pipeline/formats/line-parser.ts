/** One log line → the properties of its format (reference 2.5). Hot path: one exec, one loop. */
import type { CompiledFormat } from './types.js';

const QUOTE = 34;

/**
 * The properties read from a line, or undefined when the format does not match it.
 * A value wrapped in double quotes loses one pair of them; a value that is then empty or `-`
 * is absent; when several groups carry the same property, the last non-empty one wins.
 */
export function parseLine(format: CompiledFormat, line: string): Record<string, string> | undefined {
  const match = format.regex.exec(line);
  if (match === null) return undefined;
  const groups = format.groups;
  const out: Record<string, string> = {};
  for (let i = 0; i < groups.length; i++) {
    const property = groups[i];
    if (property === null) continue;
    let value = match[i + 1];
    if (value === undefined) continue;
    const last = value.length - 1;
    if (last > 0 && value.charCodeAt(0) === QUOTE && value.charCodeAt(last) === QUOTE) value = value.slice(1, last);
    if (value === '' || value === '-') continue;
    out[property] = value;
  }
  return out;
}
