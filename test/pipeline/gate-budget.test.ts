import t from 'tap';
import { GateBudget } from '../../src/pipeline/gate-budget.js';

t.test('the gates share 250 ms of each second: past it, room comes back as the time spent leaves the window', async (t) => {
  const clock = { now: 0 };
  const b = new GateBudget(250, 1000, () => clock.now);
  t.ok(b.hasRoom());
  b.record(100);
  clock.now = 100;
  b.record(149);
  t.ok(b.hasRoom(), '249 ms spent');
  b.record(1);
  t.notOk(b.hasRoom(), '250 ms spent: no room');
  clock.now = 1000;
  t.ok(b.hasRoom(), 'the first record left the window');
});

t.test('room() waits for the window to move, and resolves at once when there is room', async (t) => {
  const b = new GateBudget(50, 200);
  await b.room();
  b.record(60);
  const started = performance.now();
  await b.room();
  const waited = performance.now() - started;
  t.ok(waited >= 150, `waited ${Math.round(waited)} ms for the window`);
  t.ok(b.hasRoom());
});
