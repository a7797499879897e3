import type { EventRecord } from './job-spec.js';
import type { RejectCategory } from './stages/types.js';

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

/** Chains sequential stages: each one's emitted events are pushed into the next. */
export function chainSequential(stages: readonly SequentialStage[]): SequentialStage {
  if (stages.length === 0) return { push: (e, sink) => sink.emit(e), end: () => undefined };
  if (stages.length === 1) return stages[0];
  const [head, ...rest] = stages;
  const tail = chainSequential(rest);
  return {
    push(event, sink) {
      head.push(event, { emit: (e) => tail.push(e, sink), reject: (e, c) => sink.reject(e, c) });
    },
    end(sink) {
      head.end({ emit: (e) => tail.push(e, sink), reject: (e, c) => sink.reject(e, c) });
      tail.end(sink);
    },
  };
}
