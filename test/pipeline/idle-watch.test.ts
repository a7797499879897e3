import t from 'tap';
import { IdleWatch } from '../../src/pipeline/idle-watch.js';

/** A queue that shrinks while the client reads, then stays where it stopped. */
function queue(stopAt: number) {
  let now = 0;
  return { set now(v: number) { now = v; }, unsent: () => (now < stopAt ? 100_000 - now : 100_000 - stopAt) };
}

t.test('a client that stops reading: the verdict comes the idle time after the answer last moved, not twice that', async (t) => {
  const idle = 1000;
  const q = queue(1100);
  const watch = new IdleWatch(idle, q.unsent, 0);
  const waiting = { input: false, output: true };
  // the sampler every idle/4, and the socket timer that fires once the socket did nothing for `idle`
  let verdictAt: number | undefined;
  let timerAt = idle;
  for (let now = 0; now <= 5000 && verdictAt === undefined; now += 10) {
    q.now = now;
    if (now % watch.sampleEveryMs === 0) watch.sample(now);
    if (now === timerAt) {
      const next = watch.onIdle(now, waiting);
      if ('verdict' in next) verdictAt = now;
      else timerAt = now + next.waitMs;
    }
  }
  t.ok(verdictAt !== undefined, `a verdict at ${verdictAt} ms`);
  // the answer stopped at 1100 ms: within the idle time and a sampling period of it
  t.ok(verdictAt! >= 1100 + idle && verdictAt! <= 1100 + idle + watch.sampleEveryMs, `at ${verdictAt} ms, the answer stopped at 1100 ms (idle ${idle} ms)`);
});

t.test('what an idle connection means', async (t) => {
  const still = () => 0;
  t.same(new IdleWatch(1000, still, 0).onIdle(1000, { input: true, output: false }), { verdict: 'upload' });
  t.same(new IdleWatch(1000, still, 0).onIdle(1000, { input: false, output: true }), { verdict: 'answer' });
  t.same(new IdleWatch(1000, still, 0).onIdle(1000, { input: false, output: false }), { waitMs: 1000 }, 'a busy job: nothing wrong');
  let unsent = 500;
  const moving = new IdleWatch(1000, () => unsent, 0);
  unsent = 400;
  moving.sample(700);
  t.same(moving.onIdle(1000, { input: false, output: true }), { waitMs: 700 }, 'a slow reader: the rest of its idle time');
});
