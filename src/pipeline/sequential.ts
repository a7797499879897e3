import type { EventRecord } from './job-spec.js';
import type { RejectCategory } from './stages/types.js';
import type { JobOptions } from './job-options.js';
import { ReorderingChronology, StrictChronology } from './chronology.js';
import { DoubleClickStage } from './double-clicks.js';

/** Where the sequential stages send events: on to the output, or into a reject category. */
export interface SequentialSink {
  emit(event: EventRecord): void;
  reject(event: EventRecord, category: RejectCategory): void;
}

/**
 * A stage that needs the events in input order (chronology, double clicks). It runs on the
 * main thread after the batches are put back in order; it may hold events back (a double-click
 * window) and must release them all at `end`.
 */
export interface SequentialStage {
  push(event: EventRecord, sink: SequentialSink): void;
  end(sink: SequentialSink): void;
}

/** The stages that hold events back: the re-ordering of Chronology-Tolerance, the double clicks. */
export type HoldingStage = 'chronology' | 'double-clicks';

/**
 * How many events a holding stage may keep (MAX_HELD_EVENTS, or half of it when both stages run):
 * past it, it lets its oldest go before their time (a window not yet over), and says how many to
 * `releasedEarly`. Events of one timestamp (a Date-Format without the time: a whole day's) never
 * see their window end.
 */
export interface HoldLimit {
  readonly maxHeld: number;
  releasedEarly(stage: HoldingStage, count: number, maxHeld: number): void;
}

/** Chains sequential stages: each one's emitted events are pushed into the next. */
export function chainSequential(stages: readonly SequentialStage[]): SequentialStage {
  if (stages.length === 0) return { push: (e, sink) => sink.emit(e), end: () => undefined };
  if (stages.length === 1) return stages[0];
  const [head, ...rest] = stages;
  const tail = chainSequential(rest);
  // What the head emits goes into the tail, then to the sink: made once per sink (a job has one),
  // not once per event.
  let downstream: SequentialSink | undefined;
  let into!: SequentialSink;
  const through = (sink: SequentialSink): SequentialSink => {
    if (sink !== downstream) {
      downstream = sink;
      into = { emit: (e) => tail.push(e, sink), reject: (e, c) => sink.reject(e, c) };
    }
    return into;
  };
  return {
    push(event, sink) {
      head.push(event, through(sink));
    },
    end(sink) {
      head.end(through(sink));
      tail.end(sink);
    },
  };
}

/**
 * A job's sequential stages (reference 4): the chronology check then the double clicks, both
 * only when the deduplicator is on (as in the reference); Chronology-Tolerance re-orders events
 * within that many seconds instead of rejecting them, and applies even without the deduplicator.
 * Together they hold at most `limit.maxHeld` events (half each when both hold events back).
 */
export function sequentialStages(options: Pick<JobOptions, 'doubleClick' | 'chronologyTolerance'>, limit: HoldLimit): SequentialStage {
  const stages: SequentialStage[] = [];
  const tolerance = options.chronologyTolerance;
  const reorder = tolerance !== undefined && tolerance > 0;
  const share = reorder && options.doubleClick.enabled ? { ...limit, maxHeld: Math.ceil(limit.maxHeld / 2) } : limit;
  if (reorder) stages.push(new ReorderingChronology(tolerance, share));
  else if (options.doubleClick.enabled || tolerance !== undefined) stages.push(new StrictChronology());
  if (options.doubleClick.enabled) stages.push(new DoubleClickStage(share));
  return chainSequential(stages);
}
