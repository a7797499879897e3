import type { HoldingStage } from './sequential.js';

/**
 * Alerts of the job report (reference 6.1, `alerts`): unknown domains that weigh in a log; events
 * a holding stage released early (MAX_HELD_EVENTS); a log whose format changes part way.
 */

export interface AlertOptions {
  /** relevant lines (read − filtered) a log must exceed before alerts are computed */
  readonly activationThreshold: number;
  /** percentage of relevant lines from which an unknown domain raises an alert */
  readonly unknownDomainsRate: number;
}

export const DEFAULT_ALERT_OPTIONS: AlertOptions = Object.freeze({ activationThreshold: 1000, unknownDomainsRate: 10 });

/**
 * Counts lines per unknown domain in bounded memory. Up to `capacity` domains the counts are
 * exact; beyond, the Misra–Gries summary keeps every domain holding more than 1/capacity of the
 * lines (alerts start at 1 %), each undercounted by at most that share.
 */
export class DomainTally {
  private readonly counts = new Map<string, number>();

  constructor(private readonly capacity = 10_000) {}

  add(domain: string, n = 1): void {
    const current = this.counts.get(domain);
    if (current !== undefined || this.counts.size < this.capacity) {
      this.counts.set(domain, (current ?? 0) + n);
      return;
    }
    // Full: the newcomer and every tracked domain lose the same amount; zeros make room.
    let dec = n;
    for (const v of this.counts.values()) if (v < dec) dec = v;
    for (const [d, v] of this.counts) {
      if (v <= dec) this.counts.delete(d);
      else this.counts.set(d, v - dec);
    }
    if (n > dec) this.counts.set(domain, n - dec);
  }

  entries(): Array<[string, number]> {
    return [...this.counts];
  }
}

/**
 * `<domain> is unknown but represents <rate>% of the log lines` for each unknown domain whose
 * share of the relevant lines reaches the rate, largest first; none under the activation threshold.
 */
export function unknownDomainAlerts(tally: DomainTally, relevantLines: number, opts: AlertOptions): string[] {
  if (relevantLines <= opts.activationThreshold) return [];
  return tally
    .entries()
    .map(([domain, n]) => [domain, Math.round((n / relevantLines) * 100)] as const)
    .filter(([, rate]) => rate >= opts.unknownDomainsRate)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([domain, rate]) => `${domain} is unknown but represents ${rate}% of the log lines`);
}

/** A run of batches whose lines mostly do not match the log format, after batches whose lines did. */
export interface FormatBreak {
  /** number (from 1) of the run's first line, to a batch's precision */
  readonly startLine: number;
  /** its first batch */
  readonly seq: number;
  readonly lines: number;
  readonly unknown: number;
}

/**
 * Watches the unknown-formats share of each batch, in the log's order, for the place where the log's
 * format changes (a field added by a proxy upgrade mid-month, another proxy's log appended): the
 * counts say how many lines did not match, not that they all come after one point. Keeps the run
 * with the most such lines.
 */
export class FormatBreakWatch {
  private read = 0;
  private matched = false;
  private run: { startLine: number; seq: number; lines: number; unknown: number } | undefined;
  private largest: FormatBreak | undefined;

  add(seq: number, lines: number, unknown: number): void {
    const startLine = this.read + 1;
    this.read += lines;
    if (lines === 0) return;
    const share = unknown / lines;
    if (share >= 0.9 && this.matched) {
      this.run ??= { startLine, seq, lines: 0, unknown: 0 };
      this.run.lines += lines;
      this.run.unknown += unknown;
      if (!this.largest || this.run.unknown > this.largest.unknown) this.largest = { ...this.run };
      return;
    }
    if (share <= 0.5) this.matched = true;
    this.run = undefined;
  }

  get largestBreak(): FormatBreak | undefined {
    return this.largest;
  }
}

/**
 * `From line N on, … did not match the log format` when the largest break holds more lines than the
 * activation threshold and at least the unknown-domains rate of the relevant lines; `where` names
 * the file it starts, when it starts one.
 */
export function formatBreakAlert(found: FormatBreak | undefined, relevantLines: number, opts: AlertOptions, where?: string): string | undefined {
  if (!found || found.unknown <= opts.activationThreshold || relevantLines <= 0) return undefined;
  const rate = Math.round((found.unknown / relevantLines) * 100);
  if (rate < opts.unknownDomainsRate) return undefined;
  return `From about line ${found.startLine}${where ? ` (the start of ${where})` : ''} on, ${found.unknown} of the next ${found.lines} lines `
    + `did not match the log format (unknown-formats, ${rate}% of the log lines), after lines that did: the log's format seems to change there `
    + '(a field added by a proxy upgrade, another proxy\'s log). Try one of those lines in the format tester, and send them with their own Log-Format';
}

const SAME_TIME = 'many lines share one timestamp (a Date-Format without the time of day, such as DD/MMM/YYYY, gives a whole day\'s lines one time)';

/**
 * What it means that a stage released events early to hold at most `maxHeld` (MAX_HELD_EVENTS, or
 * its half, `shared` with the other stage): said in the traces when it first happens (no
 * `count`), and in the report's alerts at the end (with it).
 */
export function heldEventsAlert(stage: HoldingStage, held: { readonly maxHeld: number; readonly shared: boolean }, count?: number): string {
  const bound = `${held.shared ? 'its half of ' : ''}MAX_HELD_EVENTS (${held.maxHeld} events`;
  if (stage === 'double-clicks') {
    const what = count === undefined ? ': from here on it releases its oldest early' : ` and released ${count} events early`;
    return `The double-click check reached ${bound} waiting for their window to end)${what}, kept as if their window had ended, so some double clicks may be missed (kept as events instead of duplicate-ecs). A window never ends when ${SAME_TIME}; with a Date-Format without the time, turn double clicks off (Double-Click-Removal: false)`;
  }
  const what = count === undefined ? ': from here on it lets its earliest go before the tolerance has passed' : ` and let ${count} events go before the tolerance had passed`;
  return `The chronology check reached ${bound} waiting to be put in time order, Chronology-Tolerance)${what}, so a line dated before them that comes later is written after them, out of time order. It holds that many when ${SAME_TIME}, or when the tolerance spans that many events`;
}
