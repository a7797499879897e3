import { StatusError } from '../status-codes.js';
import type { EventRecord } from './job-spec.js';
import type { HoldLimit, SequentialSink, SequentialStage } from './sequential.js';

/** Largest Chronology-Tolerance accepted: the re-ordering buffer holds that much log time. */
export const MAX_CHRONOLOGY_TOLERANCE = 3600;

/** `Chronology-Tolerance: <seconds>` (absent → undefined: the reference's strict rule). */
export function readChronologyTolerance(value: string | undefined): number | undefined {
  const v = value?.trim();
  if (v === undefined || v === '') return undefined;
  const n = /^\d+$/.test(v) ? Number(v) : NaN;
  if (!(n >= 0 && n <= MAX_CHRONOLOGY_TOLERANCE)) {
    throw new StatusError(4032, `Chronology-Tolerance: expected a whole number of seconds from 0 to ${MAX_CHRONOLOGY_TOLERANCE}, got ${JSON.stringify(value)}`);
  }
  return n;
}

/**
 * The reference's rule (4.5): an event strictly earlier than the latest event accepted is
 * rejected as unordered-ecs; equal times are fine.
 */
export class StrictChronology implements SequentialStage {
  private latest = -Infinity;

  push(event: EventRecord, sink: SequentialSink): void {
    if (event.ts < this.latest) {
      sink.reject(event, 'unordered-ecs');
      return;
    }
    this.latest = event.ts;
    sink.emit(event);
  }

  end(): void {}
}

interface Pending {
  readonly event: EventRecord;
  readonly seq: number;
}

function before(a: Pending, b: Pending): boolean {
  return a.event.ts < b.event.ts || (a.event.ts === b.event.ts && a.seq < b.seq);
}

/**
 * Chronology-Tolerance: events up to `tolerance` seconds earlier than the latest one seen are put
 * back in time order (a min-heap on time, then input order) instead of being rejected; only
 * those later than that are unordered-ecs. An event leaves once no accepted event can come
 * before it any more (one of the same time may still come, after it in input order: ties keep
 * input order), so the buffer holds `tolerance` seconds of log — and at most `limit.maxHeld`
 * events: past that the earliest leave at once. An event accepted later but dated before them
 * then comes out after them, out of time order (never lost).
 */
export class ReorderingChronology implements SequentialStage {
  private readonly heap: Pending[] = [];
  private latest = -Infinity;
  private seq = 0;

  constructor(
    private readonly tolerance: number,
    private readonly limit: HoldLimit,
  ) {}

  push(event: EventRecord, sink: SequentialSink): void {
    if (event.ts < this.latest - this.tolerance) {
      sink.reject(event, 'unordered-ecs');
      return;
    }
    if (event.ts > this.latest) this.latest = event.ts;
    this.insert({ event, seq: this.seq++ });
    const horizon = this.latest - this.tolerance;
    while (this.heap.length > 0 && this.heap[0].event.ts <= horizon) sink.emit(this.pop().event);
    if (this.heap.length > this.limit.maxHeld) {
      let early = 0;
      for (; this.heap.length > this.limit.maxHeld; early++) sink.emit(this.pop().event);
      this.limit.releasedEarly('chronology', early, this.limit.maxHeld);
    }
  }

  end(sink: SequentialSink): void {
    while (this.heap.length > 0) sink.emit(this.pop().event);
  }

  /** events held for re-ordering */
  get held(): number {
    return this.heap.length;
  }

  private insert(p: Pending): void {
    const h = this.heap;
    h.push(p);
    let i = h.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(h[i], h[parent])) break;
      [h[i], h[parent]] = [h[parent], h[i]];
      i = parent;
    }
  }

  private pop(): Pending {
    const h = this.heap;
    const top = h[0];
    const last = h.pop()!;
    if (h.length > 0) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && before(h[l], h[m])) m = l;
        if (r < h.length && before(h[r], h[m])) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m], h[i]];
        i = m;
      }
    }
    return top;
  }
}
