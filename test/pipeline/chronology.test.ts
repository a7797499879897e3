import t from 'tap';
import { ReorderingChronology, StrictChronology, readChronologyTolerance } from '../../src/pipeline/chronology.js';
import type { EventRecord } from '../../src/pipeline/job-spec.js';
import type { SequentialSink, SequentialStage } from '../../src/pipeline/sequential.js';

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
  t.same(runStage(new ReorderingChronology(5), [10, 8, 12, 7, 20, 14, 16]), {
    out: ['3@7', '1@8', '0@10', '2@12', '6@16', '4@20'],
    rejected: ['5@14'],
  }, 'exactly the tolerance late is accepted');
  t.same(runStage(new ReorderingChronology(3), [5, 5, 4, 5]).out, ['2@4', '0@5', '1@5', '3@5'], 'ties keep input order');
});

t.test('tolerance: the buffer holds the tolerance, not the log', async (t) => {
  const stage = new ReorderingChronology(2);
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
