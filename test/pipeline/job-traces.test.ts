import t from 'tap';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { countsLine, createJobTraces, linePlace, traceLine } from '../../src/pipeline/job-traces.js';

t.test('pino records become reference trace lines', async (t) => {
  t.equal(traceLine('{"level":"info","time":"2026-06-24T13:35:08.123Z","msg":"New job with ID: x"}\n'), '2026-06-24T13:35:08.123Z info: New job with ID: x\n');
  t.equal(traceLine('{"level":"warn","time":"T","msg":"a","file":"b.log"}'), 'T warn: a {"file":"b.log"}\n', 'other fields follow as JSON');
  t.equal(traceLine('{"level":"error","time":"T","msg":"failed","err":{"stack":"Error: x\\n    at y"}}'), 'T error: failed\n    Error: x\n        at y\n', 'a stack is indented under its line');
  t.equal(traceLine('{"level":"error","time":"T","msg":"two\\nlines"}'), 'T error: two\n    lines\n', 'a message never starts a line of its own');
});

t.test('a job\'s traces keep the level asked for', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'logsift-traces-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const levels = ['error', 'warn', 'info', 'verbose', 'debug'] as const;
  for (const level of levels) {
    const file = join(dir, `${level}.log`);
    const { traces, close } = createJobTraces(file, level);
    for (const l of levels) traces[l](`a ${l} message`);
    await close();
    const written = (await readFile(file, 'utf8')).split('\n').filter(Boolean).map((l) => l.split(' ')[1]);
    t.same(written, levels.slice(0, levels.indexOf(level) + 1).map((l) => `${l}:`), `${level}: ${written.join(' ')}`);
  }
});

t.test('the counts: pkb-miss events are kept, said apart from the lines rejected', async (t) => {
  t.equal(countsLine(50000, 9170, 0, { 'duplicate-ecs': 40830, 'pkb-miss-ecs': 9170 }),
    '50000 lines read: 9170 events, 0 denied; rejected: duplicate-ecs 40830; 9170 events not found in the knowledge bases (pkb-miss-ecs, kept)');
  t.equal(countsLine(10, 8, 0, { 'pkb-miss-ecs': 8 }), '10 lines read: 8 events, 0 denied; 8 events not found in the knowledge bases (pkb-miss-ecs, kept)', 'nothing rejected');
  t.equal(countsLine(2, 1, 0, { 'unknown-formats': 1 }), '2 lines read: 1 events, 0 denied; rejected: unknown-formats 1');
  t.equal(countsLine(0, 0, 0, {}), '0 lines read: 0 events, 0 denied');
});

t.test('a line is named in its own file of a multipart upload', async (t) => {
  t.equal(linePlace(4), 'line 4', 'the request body');
  t.equal(linePlace(1, { index: 2, name: 'b.log' }), 'line 1 of file 2 (b.log)');
});

t.test('a traces file that cannot be written (disk full) stops the traces, never the process: said once, closed at once', async (t) => {
  // /dev/full answers every write with ENOSPC, as a full disk does (pino.destination hung the
  // service in sonic-boom's flushSync, or crashed it on an 'error' nobody listened to)
  const errors: Error[] = [];
  const { traces, close } = createJobTraces('/dev/full', 'debug', (err) => errors.push(err));
  for (let i = 0; i < 1000; i++) traces.info(`line ${i} ${'x'.repeat(100)}`);
  await new Promise((resolve) => setTimeout(resolve, 50));
  traces.error('after the failure');
  const closed = await Promise.race([close().then(() => true), new Promise((resolve) => setTimeout(() => resolve(false), 5000).unref())]);
  t.ok(closed, 'close resolves');
  t.equal(errors.length, 1, 'the failure told once');
  t.match(errors[0], { code: 'ENOSPC' });
  traces.warn('a late trace is dropped');
});
