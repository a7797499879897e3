/**
 * The speed settings and the speed work change nothing in the output: a generated log of 30,000
 * lines gives the same bytes (answer, denied file, reject files) and counts with 1, 2 or 3
 * workers, tiny or large batches, few or many batches in flight, and the same as the service
 * gave before the speed work (the committed expectation, recorded on the code of that time).
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import t from 'tap';
import { PROJECT_ROOT } from '../../src/paths.js';
import { startApp } from '../helpers/app.js';
import { digestJob, folderDigest, type OutputDigest, type RunSettings } from '../helpers/output-digest.js';
import { shared } from '../helpers/shared.js';

interface Expectation {
  generator: { lines: number; seed: number };
  log: { bytes: number; sha1: string };
  platforms: string;
  csv: OutputDigest;
  jsonstream: OutputDigest;
}

const expected = JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures/output-identity.json'), 'utf8')) as Expectation;

const makeLog = shared(t, 'bench', 'make-log.js');
const platformsCsv = shared(t, 'platforms');
if (makeLog && platformsCsv) {
  // Written to a file, not a pipe: the tool writes asynchronously to its stdout and fails
  // (EAGAIN) when a pipe fills faster than a busy parent reads it.
  const logFile = join(mkdtempSync(join(tmpdir(), 'logsift-identity-')), 'bench.log');
  const fd = openSync(logFile, 'w');
  try {
    execFileSync(process.execPath, [makeLog, '--csv-dir', platformsCsv, '--lines', String(expected.generator.lines), '--seed', String(expected.generator.seed)], {
      stdio: ['ignore', fd, 'pipe'],
    });
  } finally {
    closeSync(fd);
  }
  const log = readFileSync(logFile);
  rmSync(dirname(logFile), { recursive: true, force: true });

  // The expectation's own settings first: one worker, the default batch size.
  const reference: RunSettings = { threads: 1, batchBytes: 256 * 1024, inFlight: 4 };
  const variants: RunSettings[] = [
    { threads: 2, batchBytes: 4 * 1024, inFlight: 1 },
    { threads: 3, batchBytes: 1024 * 1024, inFlight: 8 },
    { threads: 2, batchBytes: 32 * 1024, inFlight: 3 },
    { threads: 2, batchBytes: 256 * 1024, inFlight: 4, firstBatchBytes: 16 * 1024 },
  ];
  const name = (s: RunSettings) => `${s.threads} worker(s), ${s.batchBytes} bytes a batch${s.firstBatchBytes ? ` (the first ${s.firstBatchBytes})` : ''}, ${s.inFlight} in flight`;

  t.test('CSV: the same output whatever the pool and batch settings', async (t) => {
    const base = await digestJob(startApp, log, reference);
    t.equal(base.status, 200);
    t.equal(base.jobDone, 'true');
    t.ok((base.counts.events as number) > 5000, 'the log gives thousands of events');
    for (const v of variants) t.same(await digestJob(startApp, log, v), base, name(v));

    const sameInput = createHash('sha1').update(log).digest('hex') === expected.log.sha1;
    const samePlatforms = (await folderDigest(join(PROJECT_ROOT, 'repos/platforms'))) === expected.platforms;
    if (sameInput && samePlatforms) {
      t.same(base, expected.csv, 'the same output as before the speed work');
    } else {
      t.skip(`the committed expectation was recorded on other ${sameInput ? 'platforms' : 'input (../shared/bench/make-log.js changed)'}: record it again on the code before the speed work (see recordedWith in fixtures/output-identity.json)`, () => undefined);
    }
  });

  t.test('jsonstream: the same output with other settings, and as before the speed work', async (t) => {
    const headers = { Accept: 'application/jsonstream' };
    const base = await digestJob(startApp, log, { threads: 2, batchBytes: 16 * 1024, inFlight: 2 }, headers);
    t.equal(base.jobDone, 'true');
    const samePlatforms = (await folderDigest(join(PROJECT_ROOT, 'repos/platforms'))) === expected.platforms;
    if (createHash('sha1').update(log).digest('hex') === expected.log.sha1 && samePlatforms) {
      t.same(base, expected.jsonstream, 'the same output as before the speed work');
    } else {
      t.same(base, await digestJob(startApp, log, reference, headers), 'the same output as with one worker');
    }
  });
}
