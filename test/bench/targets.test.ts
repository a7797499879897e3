import t from 'tap';
import { targetLines, TARGETS } from '../../bench/targets.js';

t.test('each target is said met or not, for the sizes that were run', async (t) => {
  const lines = targetLines({
    sizes: new Map([
      [10_000, { lines: 10_000, linesPerSec: 31_514, ratio: 2.02, peakRssMb: 190 }],
      [1_000_000, { lines: 1_000_000, linesPerSec: 78_137, ratio: 5.5, peakRssMb: 277.4 }],
      [5_000_000, { lines: 5_000_000, linesPerSec: 87_202, ratio: 5.87, peakRssMb: 199.6 }],
    ]),
    firstByteNoDedupMs: 51,
    concurrentJobs: 4,
    concurrentRatio: 1.01,
  });
  t.same(lines, [
    '1M lines: ratio 5.50 to the ceiling (at most 3.3): NOT met; 78,137 lines/s (at least 300,000): NOT met; peak RSS 277 MB (at most 200): NOT met',
    '5M lines: peak RSS 200 MB (at most 200): met',
    'first event byte without double-click removal: 51 ms (at most 100): met',
    '4 concurrent 1M-line jobs: 1.01 times one job\'s throughput (at least 1): met',
  ]);
});

t.test('the limits themselves count as met; a run without the 1M log says nothing of it', async (t) => {
  const lines = targetLines({
    sizes: new Map([[1_000_000, { lines: 1_000_000, linesPerSec: TARGETS.linesPerSec, ratio: TARGETS.ceilingRatio, peakRssMb: TARGETS.peakRssMb }]]),
    firstByteNoDedupMs: TARGETS.firstByteMs,
  });
  t.equal(lines.length, 2);
  t.notMatch(lines.join('\n'), /NOT met/);
  t.same(targetLines({ sizes: new Map([[10_000, { lines: 10_000, linesPerSec: 1, peakRssMb: 1 }]]) }), []);
});
