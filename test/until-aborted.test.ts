import t from 'tap';
import { untilAborted } from '../src/until-aborted.js';

t.test('untilAborted: the promise, or the reason once the signal aborts; nothing kept per wait', async (t) => {
  const controller = new AbortController();
  t.equal(await untilAborted(Promise.resolve(1), controller.signal), 1);
  // many waits on one signal: what each gave is not kept (a race against one long-lived promise kept it all)
  let most = 0;
  for (let i = 0; i < 300; i++) {
    const chunk = await untilAborted(Promise.resolve(Buffer.alloc(1 << 20, i)), controller.signal);
    if (chunk.length !== 1 << 20) t.fail('the chunk given');
    most = Math.max(most, process.memoryUsage().arrayBuffers);
  }
  t.ok(most < 150 * (1 << 20), `at most ${(most / (1 << 20)).toFixed(0)} MB held while 300 MB went through`);
  const never = new Promise<number>(() => undefined);
  const waiting = untilAborted(never, controller.signal);
  controller.abort(new Error('deadline'));
  await t.rejects(waiting, /deadline/);
  await t.rejects(untilAborted(Promise.resolve(2), controller.signal), /deadline/, 'an aborted signal: at once');
});
