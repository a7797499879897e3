/**
 * Which predefined settings read pasted lines (`PUT /api/format/discover`, the reference's
 * "discover" on its format page): each distinct log format and date format of the settings is
 * tried on the lines as a job counts them (the format matches, the date reads), and the settings
 * whose format reads at least one line are listed, those reading the most lines first. A
 * librarian who does not know the format of the proxy's logs finds an institution that has the same.
 */
import { compileFormat, isProxyFamily } from './compile.js';
import { checkLine } from './line-check.js';
import { pastedLines, type Matcher } from './tester.js';
import type { CompiledFormat, ProxyFamily } from './types.js';
import { DEFAULT_DATE_FORMAT, makeEventTimer } from '../dates.js';

/** One log format with its date format, and the settings that use it. */
export interface FormatCandidate {
  readonly proxy: ProxyFamily;
  readonly format: string;
  readonly dateFormat: string;
  readonly ids: readonly string[];
}

export interface DiscoverInput {
  readonly logLines: string;
  readonly candidates: readonly FormatCandidate[];
  readonly defaultZone: string;
}

export interface DiscoveredFormat {
  readonly proxy: ProxyFamily;
  readonly format: string;
  readonly dateFormat: string;
  readonly ids: readonly string[];
  /** the lines it reads, of `tested` */
  readonly matching: number;
}

export interface DiscoverResult {
  readonly tested: number;
  readonly formats: DiscoveredFormat[];
}

/**
 * The distinct (proxy, log format, date format) of the settings that name a log format, in the
 * settings' order; a setting naming several families gives one candidate each.
 */
export function formatCandidates(settings: Readonly<Record<string, { readonly headers: Readonly<Record<string, string>> }>>): FormatCandidate[] {
  const byKey = new Map<string, { proxy: ProxyFamily; format: string; dateFormat: string; ids: string[] }>();
  for (const [id, setting] of Object.entries(settings)) {
    let dateFormat = DEFAULT_DATE_FORMAT;
    const formats: Array<[ProxyFamily, string]> = [];
    for (const [name, value] of Object.entries(setting.headers)) {
      const lower = name.toLowerCase();
      if (lower === 'date-format' && value.trim() !== '') dateFormat = value.trim();
      const family = lower.startsWith('log-format-') ? lower.slice('log-format-'.length) : '';
      if (isProxyFamily(family) && value.trim() !== '') formats.push([family, value.trim()]);
    }
    for (const [proxy, format] of formats) {
      const key = JSON.stringify([proxy, format, dateFormat]);
      const known = byKey.get(key);
      if (known) known.ids.push(id);
      else byKey.set(key, { proxy, format, dateFormat, ids: [id] });
    }
  }
  return [...byKey.values()];
}

/**
 * Runs one regex on every line within the time budget, an answer a line (throws BudgetExceeded past
 * the budget). One call a format, not one a line: entering the budget's `vm` costs more than the match.
 */
export type ManyMatcher = (source: string, lines: readonly string[]) => Array<Array<string | null> | null>;

/** A ManyMatcher made of a Matcher, a line at a time. */
export const oneByOne = (match: Matcher): ManyMatcher => (source, lines) => lines.map((line) => match(source, line));

/** Tries every candidate on the pasted lines, each format's regex through `matchMany` (the tester's time budget). */
export function discoverFormats(input: DiscoverInput, matchMany: ManyMatcher): DiscoverResult {
  const lines = pastedLines(input.logLines);
  const found: DiscoveredFormat[] = [];
  // a timer costs about a millisecond to make, and the settings share a few date formats
  const timers = new Map<string, ReturnType<typeof makeEventTimer>>();
  for (const candidate of input.candidates) {
    let format: CompiledFormat;
    let timer: ReturnType<typeof makeEventTimer>;
    try {
      format = compileFormat(candidate.proxy, candidate.format);
      timer = timers.get(candidate.dateFormat) ?? makeEventTimer(candidate.dateFormat, input.defaultZone);
      timers.set(candidate.dateFormat, timer);
    } catch {
      continue; // a setting whose format does not compile reads nothing (the settings' check says why)
    }
    const matches = matchMany(format.regex.source, lines);
    // the job's own check on each line, its regex answered from the run over all of them
    const matching = lines.filter((line, i) => checkLine(line, [format], timer, () => matches[i]).time !== undefined).length;
    if (matching > 0) found.push({ ...candidate, matching });
  }
  // the most lines read first; then the settings' order
  found.sort((a, b) => b.matching - a.matching);
  return { tested: lines.length, formats: found };
}
