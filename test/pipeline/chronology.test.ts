import t from 'tap';
import { ReorderingChronology, StrictChronology, readChronologyTolerance } from '../../src/pipeline/chronology.js';
import type { EventRecord } from '../../src/pipeline/job-spec.js';
import type { HoldLimit, SequentialSink, SequentialStage } from '../../src/pipeline/sequential.js';

const unbounded: HoldLimit = { maxHeld: Infinity, releasedEarly: () => undefined };

const ev = (ts: number, text = String(ts)): EventRecord => ({ ts, text, denied: false });

function runStage(stage: SequentialStage, times: number[]): { out: string[]; rejected: string[] } {
  const out: string[] = [];
  const rejected: string[] = [];
  const sink: SequentialSink = { emit: (e) => out.push(String(e.text)), reject: (e) => rejected.push(String(e.text)) };
  times.forEach((ts, i) => stage.push(ev(ts, `${i}@${ts}`), sink));
  stage.end(sink);
  return { out, rejected };
}

t.test('strict: earlier than the latest accepted → unordered; equal is fine', async (t) => {
  t.same(runStage(new StrictChronology(), [10, 10, 5, 12, 11, 12]), { out: ['0@10', '1@10', '3@12', '5@12'], rejected: ['2@5', '4@11'] });
});

t.test('tolerance: re-ordered within the window, later ones rejected', async (t) => {
  t.same(runStage(new ReorderingChronology(5, unbounded), [10, 8, 12, 7, 20, 14, 16]), {
    out: ['3@7', '1@8', '0@10', '2@12', '6@16', '4@20'],
    rejected: ['5@14'],
  }, 'exactly the tolerance late is accepted');
  t.same(runStage(new ReorderingChronology(3, unbounded), [5, 5, 4, 5]).out, ['2@4', '0@5', '1@5', '3@5'], 'ties keep input order');
});

t.test('tolerance: the buffer holds the tolerance, not the log', async (t) => {
  const stage = new ReorderingChronology(2, unbounded);
  let emitted = 0;
  const sink: SequentialSink = { emit: () => emitted++, reject: () => undefined };
  let maxHeld = 0;
  for (let i = 0; i < 10000; i++) {
    stage.push(ev(i), sink);
    maxHeld = Math.max(maxHeld, i + 1 - emitted);
  }
  stage.end(sink);
  t.equal(emitted, 10000);
  t.ok(maxHeld <= 3, `at most 3 events held (${maxHeld})`);
});

t.test('header', async (t) => {
  t.equal(readChronologyTolerance(undefined), undefined);
  t.equal(readChronologyTolerance(' 5 '), 5);
  t.throws(() => readChronologyTolerance('-1'), { code: 4032 });
  t.throws(() => readChronologyTolerance('1.5'), { code: 4032 });
  t.throws(() => readChronologyTolerance('86400'), { code: 4032 });
});

t.test('tolerance: an event exactly the tolerance older than the latest leaves at once (a later one of its time comes after it)', async (t) => {
  const stage = new ReorderingChronology(5, unbounded);
  const out: string[] = [];
  const sink: SequentialSink = { emit: (e) => out.push(String(e.text)), reject: () => t.fail('no reject') };
  stage.push(ev(10, 'a'), sink);
  stage.push(ev(15, 'b'), sink);
  t.same(out, ['a'], 'a (10) cannot be preceded any more: an event accepted now is 10 or later');
  stage.push(ev(10, 'c'), sink);
  t.same(out, ['a', 'c'], 'c, of the same time, is accepted and leaves at once, after a');
  stage.end(sink);
  t.same(out, ['a', 'c', 'b'], 'in time order, ties in input order');
  t.equal(stage.held, 0);
});

t.test('tolerance, events of one time (a day-precision Date-Format): at most maxHeld held, every event out, in order', async (t) => {
  let early = 0;
  const stages = new Set<string>();
  const stage = new ReorderingChronology(60, { maxHeld: 1000, releasedEarly: (s, n) => { stages.add(s); early += n; } });
  const out: number[] = [];
  const sink: SequentialSink = { emit: (e) => out.push(Number(e.text)), reject: () => t.fail('no reject') };
  let most = 0;
  for (let i = 0; i < 50_000; i++) {
    stage.push(ev(1709539200, String(i)), sink);
    most = Math.max(most, stage.held);
  }
  t.equal(most, 1000, 'never more than 1000 held');
  stage.end(sink);
  t.equal(out.length, 50_000, 'every event out');
  t.ok(out.every((v, i) => v === i), 'in input order (one time: that is time order)');
  t.equal(early, 49_000, 'those released before the tolerance had passed, counted');
  t.same([...stages], ['chronology']);
});

t.test('tolerance past the bound: an event dated before those released early still comes out', async (t) => {
  const early: number[] = [];
  const stage = new ReorderingChronology(60, { maxHeld: 2, releasedEarly: (_s, n) => early.push(n) });
  const out: string[] = [];
  const sink: SequentialSink = { emit: (e) => out.push(String(e.text)), reject: () => t.fail('no reject') };
  for (const [ts, text] of [[100, 'a'], [101, 'b'], [102, 'c'], [90, 'd'], [103, 'e']] as const) stage.push(ev(ts, text), sink);
  stage.end(sink);
  t.same(out, ['a', 'd', 'b', 'c', 'e'], 'd came after a was let go: written after it, as soon as it could be');
  t.same(early, [1, 1, 1]);
});
