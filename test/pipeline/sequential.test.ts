import t from 'tap';
import { chainSequential, type SequentialSink, type SequentialStage } from '../../src/pipeline/sequential.js';
import type { EventRecord } from '../../src/pipeline/job-spec.js';

const ev = (ts: number): EventRecord => ({ ts, text: String(ts), denied: false });

/** Holds every event until the end; rejects odd timestamps. */
function holding(): SequentialStage {
  const held: EventRecord[] = [];
  return {
    push(e, sink) {
      if (e.ts % 2 === 1) sink.reject(e, 'unordered-ecs');
      else held.push(e);
    },
    end(sink) {
      for (const e of held.splice(0)) sink.emit(e);
    },
  };
}

/** Adds 100 to each timestamp on the way through. */
const shifting: SequentialStage = {
  push: (e, sink) => sink.emit({ ...e, ts: e.ts + 100 }),
  end: () => undefined,
};

function collecting(): SequentialSink & { out: number[]; rejected: number[] } {
  const out: number[] = [];
  const rejected: number[] = [];
  return { out, rejected, emit: (e) => out.push(e.ts), reject: (e) => rejected.push(e.ts) };
}

t.test('a chain sends what its first stage emits through the next one, its rejects straight to the sink', async (t) => {
  const chain = chainSequential([holding(), shifting]);
  const sink = collecting();
  for (const ts of [2, 3, 4]) chain.push(ev(ts), sink);
  t.same(sink.out, [], 'held');
  chain.end(sink);
  t.same(sink.out, [102, 104]);
  t.same(sink.rejected, [3]);
});

t.test('each call goes to the sink it was given, also when the sink changes', async (t) => {
  const chain = chainSequential([shifting, shifting]);
  const a = collecting();
  const b = collecting();
  chain.push(ev(1), a);
  chain.push(ev(2), b);
  chain.push(ev(3), a);
  t.same(a.out, [201, 203]);
  t.same(b.out, [202]);
});
