/**
 * `npm run bench:long`: one very long job, to see whether the service's memory stays flat over
 * gigabytes (a library sends months of logs at once). The shared generator writes the log into a
 * named pipe that the job reads, so that nothing of its size is stored: 64M lines (about 10 GB)
 * by default, spread over a day for each 2M lines (the 1M- and 5M-line logs of `npm run bench`
 * are spread over 5 days). The service is started as `npm run bench` starts it and warmed up
 * with 10k lines; its RSS is read every second, and printed for each tenth of the log.
 *
 *   npm run bench:long -- [--lines 64m] [--days N] [--users 400] [--no-build]
 *
 * `--users`: the generator's distinct users (host and login), 400 by default; more of them make
 * the workers' bounded caches (geolocation, crypting, user agents) drop and refill.
 *
 * The generator runs beside the service on the same cores (about 3 s of CPU a million lines), so
 * the lines/s are lower than `npm run bench`'s: what this measures is the memory.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { PROJECT_ROOT } from '../src/paths.js';
import { benchArgs, benchLog, FORMAT, generatorCommand, label, log, optionalSize, parseSize, requireShared } from './common.js';
import { buildDist, checkJob, postLog, RssSampler, startService } from './service.js';

const { values: args } = benchArgs(import.meta.url, process.argv, () => parseArgs({
  options: {
    lines: { type: 'string', default: '64m' },
    days: { type: 'string' },
    users: { type: 'string' },
    'no-build': { type: 'boolean', default: false },
  },
}));
requireShared();
const lines = parseSize(args.lines);
const days = args.days === undefined ? Math.max(5, Math.round(lines / 2e6)) : Number(args.days);
const users = optionalSize(args.users);
const MB = 1024 * 1024;
const mb = (bytes: number): string => (bytes / MB).toFixed(0);

if (!args['no-build']) buildDist(PROJECT_ROOT);
const warmUp = await benchLog(10_000);
const work = mkdtempSync(join(tmpdir(), 'logsift-long-'));
const fifo = join(work, 'log.pipe');
if (spawnSync('mkfifo', [fifo]).status !== 0) throw new Error('mkfifo failed: this benchmark needs a named pipe (Linux, macOS)');
const service = await startService({ root: PROJECT_ROOT, source: false, varDir: join(work, 'var') });

interface Sample { readonly ms: number; readonly sent: number; readonly rss: number }

try {
  checkJob(await postLog(service.url, warmUp, { 'Log-Format-ezproxy': FORMAT }), 'warm-up');
  const peakSampler = new RssSampler(service.pid);
  const restRss = peakSampler.rss();
  log(`${label(lines)} lines over ${days} days${users === undefined ? '' : ` by ${label(users)} users`}, generated into a named pipe; the service at rest after 10k lines: ${mb(restRss)} MB`);

  // The shell opens the pipe for the generator (a blocking descriptor: the generator's writes wait for the job to read).
  const [node, ...rest] = generatorCommand(lines, { days, users });
  const generator = spawn('sh', ['-c', 'exec "$@" > "$LOG_PIPE"', 'sh', node!, ...rest], {
    env: { ...process.env, LOG_PIPE: fifo },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const generated = new Promise<number | null>((resolve) => generator.on('close', resolve));

  const samples: Sample[] = [];
  let sent = 0;
  const t0 = performance.now();
  peakSampler.start();
  const timer = setInterval(() => {
    try {
      samples.push({ ms: performance.now() - t0, sent, rss: peakSampler.rss() });
    } catch {
      // the service is gone: the job's error says why
    }
  }, 1000);
  const job = await postLog(service.url, fifo, { 'Log-Format-ezproxy': FORMAT }, (n) => { sent += n; });
  clearInterval(timer);
  const { peak } = peakSampler.stop();
  const code = await generated;
  if (code !== 0) throw new Error(`the generator failed (${code})`);
  checkJob(job, `${label(lines)} lines`);

  log(`${'part of the log'.padEnd(16)} ${'GB read'.padStart(8)} ${'seconds'.padStart(8)} ${'RSS MB'.padStart(7)} (highest in the part, read every second)`);
  const tenths: number[] = [];
  for (let t = 1; t <= 10; t++) {
    const part = samples.filter((s) => s.sent > ((t - 1) / 10) * sent && s.sent <= (t / 10) * sent);
    const high = Math.max(0, ...part.map((s) => s.rss));
    tenths.push(high);
    const last = part[part.length - 1];
    log(`${`${(t - 1) * 10}–${t * 10}%`.padEnd(16)} ${(((t / 10) * sent) / 1e9).toFixed(2).padStart(8)} ${(last ? last.ms / 1000 : NaN).toFixed(0).padStart(8)} ${mb(high).padStart(7)}`);
  }
  const seconds = job.wallMs / 1000;
  log(`${label(lines)} lines (${(sent / 1e9).toFixed(2)} GB) in ${seconds.toFixed(0)} s: ${Math.round(lines / seconds).toLocaleString('en')} lines/s, ${(job.rows - 1).toLocaleString('en')} events`);
  const firstHalf = Math.max(...tenths.slice(0, 5));
  const secondHalf = Math.max(...tenths.slice(5));
  log(`peak RSS ${mb(peak)} MB (at rest ${mb(restRss)}); highest in the first half ${mb(firstHalf)} MB, in the second ${mb(secondHalf)} MB (${secondHalf >= firstHalf ? '+' : ''}${mb(secondHalf - firstHalf)})`);
} finally {
  await service.stop();
  rmSync(work, { recursive: true, force: true });
}
