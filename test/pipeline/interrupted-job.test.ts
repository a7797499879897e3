import t, { type Test } from 'tap';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import iconv from 'iconv-lite';
import { endInterruptedJob, markerPlacement } from '../../src/pipeline/interrupted-job.js';
import { DeniedFile } from '../../src/pipeline/job-output.js';
import { frameFor } from '../../src/pipeline/writers/index.js';
import { parseResponseEncoding } from '../../src/pipeline/writers/encoding.js';

const MARKER = '#logsift-error 5003 The service stopped while the job was running\n';
const RESULT = '2026-11-26_09h50.job-ecs';

/** A job folder as a killed process leaves it: report still running, traces, a result file never closed. */
async function crashedJob(t: Test, resultName: string, result: Uint8Array | string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'logsift-interrupted-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'report.json'), JSON.stringify({ general: { 'Job-Done': false, 'nb-ecs': 2 } }));
  await writeFile(join(dir, 'job-traces.log'), '2026-11-26T09:50:11.013Z info: New job with ID: x\n');
  await writeFile(join(dir, resultName), result);
  return dir;
}

/** What the SIGTERM path writes for a job that failed with `code` before its first event. */
async function failureFileBytes(t: Test, kind: Parameters<typeof frameFor>[0], charset: string, compression?: string): Promise<Buffer> {
  const dir = await mkdtemp(join(tmpdir(), 'logsift-failed-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = new DeniedFile(join(dir, 'f'), () => frameFor(kind, ['a']), parseResponseEncoding(charset, compression));
  await file.close({ code: 5003, message: 'The service stopped while the job was running' });
  return readFile(join(dir, 'f'));
}

t.test('markerPlacement: empty files are written, plain ASCII-compatible ones appended, the others left', async (t) => {
  const enc = (charset: string, compression?: string) => parseResponseEncoding(charset, compression);
  t.equal(markerPlacement(enc('utf-8'), 0), 'write');
  t.equal(markerPlacement(enc('utf-16', 'gzip'), 0), 'write', 'an empty file holds no cut-off stream');
  t.equal(markerPlacement(enc('utf-8'), 10), 'append');
  t.equal(markerPlacement(enc('iso-8859-1'), 10), 'append');
  t.match(markerPlacement(enc('utf-8', 'gzip'), 10), { unsafe: /gzip-compressed/ });
  t.match(markerPlacement(enc('utf-8', 'deflate'), 10), { unsafe: /deflate-compressed/ });
  t.match(markerPlacement(enc('utf-16le'), 10), { unsafe: /utf-16le/ });
});

t.test('a CSV result cut in the middle of a row ends with the error line on a line of its own', async (t) => {
  const dir = await crashedJob(t, `${RESULT}.csv`, 'a;b\n1;2\n3;');
  await endInterruptedJob(dir, {});
  t.equal(await readFile(join(dir, `${RESULT}.csv`), 'utf8'), `a;b\n1;2\n3;\n${MARKER}`);
  const report = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as { general: Record<string, unknown> };
  t.match(report.general, { 'Job-Done': false, status: 5003, 'nb-ecs': 2 }, 'the report says so too');
  const traces = await readFile(join(dir, 'job-traces.log'), 'utf8');
  t.match(traces, /^2026-11-26T09:50:11\.013Z info: New job with ID: x\n/, 'the traces keep what they had');
  t.match(traces, /\n\S+Z error: Job interrupted: 5003 The service stopped while the job was running/);
  t.match(traces, /warn: The result file .*\.csv ends with the error line/);
});

t.test('the report and traces say the counts are those of the last snapshot, and when it was', async (t) => {
  const dir = await crashedJob(t, `${RESULT}.csv`, 'a;b\n');
  await endInterruptedJob(dir, {}, '2026-11-26T09:50:15.250Z');
  const report = JSON.parse(await readFile(join(dir, 'report.json'), 'utf8')) as { general: Record<string, unknown> };
  t.equal(new Date(String(report.general['Job-Snapshot-Date'])).getTime(), Date.parse('2026-11-26T09:50:15Z'), 'the report: the local time of its counts');
  t.equal(report.general['nb-ecs'], 2, 'which stay as they were');
  t.match(await readFile(join(dir, 'job-traces.log'), 'utf8'), /warn: The job's counts \(report, duration\) are those of its last snapshot, saved at 2026-11-26T09:50:15\.250Z/);
});

t.test('an empty result gets exactly what a job failing before its first event writes', async (t) => {
  const cases: Array<[kind: Parameters<typeof frameFor>[0], ext: string, headers: Record<string, string>]> = [
    ['csv', 'csv', {}],
    ['json', 'json', { accept: 'application/json' }],
    ['jsonstream', 'json', { accept: 'application/jsonstream' }],
    ['log', 'log', { 'clean-only': 'true' }],
  ];
  for (const [kind, ext, headers] of cases) {
    const dir = await crashedJob(t, `${RESULT}.${ext}`, '');
    await endInterruptedJob(dir, headers);
    t.same(await readFile(join(dir, `${RESULT}.${ext}`)), await failureFileBytes(t, kind, 'utf-8'), kind);
  }
  const dir = await crashedJob(t, `${RESULT}.csv.gz`, '');
  await endInterruptedJob(dir, { 'response-encoding': 'gzip', 'response-charset': 'utf-16' });
  const bytes = await readFile(join(dir, `${RESULT}.csv.gz`));
  t.equal(iconv.decode(gunzipSync(bytes), 'utf-16'), MARKER, 'compressed and in the job\'s charset');
  t.same(gunzipSync(bytes), gunzipSync(await failureFileBytes(t, 'csv', 'utf-16', 'gzip')));
});

t.test('a JSON result is left invalid, with the error line where its `]` would be', async (t) => {
  const dir = await crashedJob(t, `${RESULT}.json`, '[\n{"a":1},\n{"a":2}');
  await endInterruptedJob(dir, { accept: 'application/json' });
  const text = await readFile(join(dir, `${RESULT}.json`), 'utf8');
  t.equal(text, `[\n{"a":1},\n{"a":2}\n${MARKER}`);
  t.throws(() => JSON.parse(text));
});

t.test('the error line is in the job\'s charset', async (t) => {
  const dir = await crashedJob(t, `${RESULT}.csv`, iconv.encode('a;b\nCaf\u00e9;1\n', 'iso-8859-1'));
  await endInterruptedJob(dir, { 'response-charset': 'ISO-8859-1' });
  t.equal(iconv.decode(await readFile(join(dir, `${RESULT}.csv`)), 'iso-8859-1'), `a;b\nCaf\u00e9;1\n${MARKER}`);
});

t.test('a cut-off compressed or UTF-16 result is left as it is, and the traces say why', async (t) => {
  const cut = gzipSync('a;b\n1;2\n').subarray(0, 15);
  const dir = await crashedJob(t, `${RESULT}.csv.gz`, cut);
  await endInterruptedJob(dir, { 'response-encoding': 'gzip' });
  t.same(await readFile(join(dir, `${RESULT}.csv.gz`)), cut);
  t.match(await readFile(join(dir, 'job-traces.log'), 'utf8'), /warn: The result file .*\.csv\.gz is cut off where the service stopped, without the error line: it is gzip-compressed/);

  const utf16 = iconv.encode('a;b\n1;2\n', 'utf-16');
  const dir2 = await crashedJob(t, `${RESULT}.csv`, utf16);
  await endInterruptedJob(dir2, { 'response-charset': 'utf-16' });
  t.same(await readFile(join(dir2, `${RESULT}.csv`)), utf16);
  t.match(await readFile(join(dir2, 'job-traces.log'), 'utf8'), /without the error line: its charset \(utf-16\)/);
});

t.test('a POST job (no result file) and a folder that is gone', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'logsift-interrupted-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'job-traces.log'), '');
  await endInterruptedJob(dir, {});
  t.match(await readFile(join(dir, 'job-traces.log'), 'utf8'), /^\S+ error: Job interrupted: 5003 [^\n]*\n$/, 'only the interruption is traced');
  await t.resolves(endInterruptedJob(join(dir, 'gone'), {}));
});
