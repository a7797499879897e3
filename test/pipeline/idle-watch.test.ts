import t from 'tap';
import { IdleWatch } from '../../src/pipeline/idle-watch.js';

/** Runs a watch sampled as the service does, on a clock of 10 ms steps: when its verdict comes. */
function run(idle: number, progressAt: (now: number) => number[], waiting: (now: number) => { input: boolean; output: boolean }, until = 20_000) {
  let now = 0;
  const watch = new IdleWatch(idle, () => progressAt(now), 0);
  for (now = 0; now <= until; now += 10) {
    if (now % watch.sampleEveryMs !== 0) continue;
    const verdict = watch.check(now, waiting(now));
    if (verdict) return { verdict, at: now, every: watch.sampleEveryMs };
  }
  return undefined;
}

t.test('a client that stops reading: the verdict comes the idle time after the answer last moved', async (t) => {
  // the send queue shrinks while the client reads, then stays where it stopped at 1,100 ms
  const got = run(1000, (now) => [0, 5000, 100_000 - Math.min(now, 1100)], () => ({ input: false, output: true }));
  t.equal(got?.verdict, 'answer');
  t.ok(got!.at >= 2100 && got!.at <= 2100 + got!.every, `at ${got?.at} ms: the answer stopped at 1,100 ms (idle 1,000 ms), not nearly twice that`);
});

t.test('an upload that stops: 4037 the idle time after the last bytes', async (t) => {
  const got = run(1000, (now) => [Math.min(now, 3000), 0, 0], () => ({ input: true, output: false }));
  t.equal(got?.verdict, 'upload');
  t.ok(got!.at >= 4000 && got!.at <= 4000 + got!.every, `at ${got?.at} ms`);
});

t.test('nothing wrong: a slow reader, a busy job, an answer that flows while the upload pauses', async (t) => {
  t.equal(run(1000, (now) => [0, 0, 100_000 - Math.floor(now / 900)], () => ({ input: false, output: true })), undefined, 'a slow reader: its queue shrinks');
  t.equal(run(1000, () => [0, 0, 0], () => ({ input: false, output: false })), undefined, 'a busy job waits for neither');
  // the answer written in bursts, then short pauses in the upload: never the idle time without a move
  t.equal(run(1000, (now) => [Math.floor(now / 700), Math.floor(now / 400), 0], (now) => ({ input: now % 1000 < 500, output: false })), undefined);
});

t.test('the verdict comes the idle time after the last move within a hundredth, not up to a quarter late', async (t) => {
  // IDLE_UPLOAD_MS=120000: both ended jobs at 150 s, the moves being dated by samples 30 s apart
  const idle = 120_000;
  const upload = run(idle, (now) => [Math.min(now, 3010), 0, 0], () => ({ input: true, output: false }), 200_000);
  t.equal(upload?.verdict, 'upload');
  t.ok(upload!.at >= 3010 + idle && upload!.at <= 3010 + idle * 1.01, `4037 at ${upload?.at} ms: the upload stopped at 3,010 ms`);
  const answer = run(idle, (now) => [0, Math.min(now, 61_230), 0], () => ({ input: false, output: true }), 250_000);
  t.equal(answer?.verdict, 'answer');
  t.ok(answer!.at >= 61_230 + idle && answer!.at <= 61_230 + idle * 1.01, `4040 at ${answer?.at} ms: the answer stopped moving at 61,230 ms`);
  t.ok(new IdleWatch(idle, () => [], 0).sampleEveryMs <= 1000, 'a sample a second at most');
  t.equal(new IdleWatch(200, () => [], 0).sampleEveryMs, 10, 'and at least 10 ms apart');
});
