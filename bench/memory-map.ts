/**
 * `npm run bench:memory`: what the service's resident memory is made of, at rest and at the peak of
 * a job, from the kernel's map of the process (/proc/PID/smaps), so that work on the peak starts
 * from where the megabytes are rather than from guesses.
 *
 *   npm run bench:memory -- [--lines 1m] [--jobs 1] [--concurrent 1] [--every-ms 250] [--users N] [--no-build]
 *
 * The service is started as `npm run bench` starts it (production build, the start script's flags
 * and environment), warmed up with 10k lines, mapped at rest, then mapped every `--every-ms` while
 * it takes the log; the map with the most resident memory is shown beside the one at rest.
 * Mappings are sorted by what they look like (see `kindOf`): a reading aid, not an accounting.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import { PROJECT_ROOT } from '../src/paths.js';
import { buildDist, checkJob, postLog, RssSampler, startService } from './service.js';
import { benchArgs, benchLog, FORMAT, label, log, optionalSize, parseSize, requireShared } from './common.js';

const { values: args } = benchArgs(import.meta.url, process.argv, () => parseArgs({
  options: {
    lines: { type: 'string', default: '1m' },
    /** jobs one after the other: what a service keeps from one job to the next shows in the later ones' peaks */
    jobs: { type: 'string', default: '1' },
    /** each of those jobs as this many jobs at once */
    concurrent: { type: 'string', default: '1' },
    'every-ms': { type: 'string', default: '250' },
    'no-build': { type: 'boolean', default: false },
    /** distinct users of the log (the generator's 400 by default) */
    users: { type: 'string' },
  },
}));

interface Mapping {
  readonly size: number;
  readonly perms: string;
  readonly path: string;
  rss: number;
}

const KB = 1024;
const MB = 1024 * KB;
/** glibc reserves each thread arena as one 64 MB region, of which the used part is read-write */
const ARENA_RESERVATION = 64 * MB;
/** V8 allocates its regular heap pages one 256 KB mapping at a time */
const V8_PAGE = 256 * KB;

function readMappings(pid: number): Mapping[] {
  const out: Mapping[] = [];
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      out.push({ size: parseInt(head[2], 16) - parseInt(head[1], 16), perms: head[3], path: head[4], rss: 0 });
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss && out.length > 0) out[out.length - 1].rss = Number(rss[1]) * KB;
  }
  return out;
}

/** What a mapping most likely holds, from its name, permissions, size and the mapping after it. */
function kindOf(m: Mapping, next: Mapping | undefined): string {
  if (m.path.startsWith('/')) return basename(m.path) === 'node' ? 'node executable (file)' : 'libraries, native modules (file)';
  if (m.path === '[heap]') return 'glibc main arena ([heap])';
  if (m.path.startsWith('[')) return 'stacks, vdso';
  if (m.perms.includes('x')) return 'V8 code (JIT, regexes)';
  if (next && next.path === '' && next.perms === '---p' && m.size + next.size === ARENA_RESERVATION) return 'glibc thread arenas';
  if (m.size === V8_PAGE) return 'V8 heap pages (3 isolates)';
  if (m.size >= 16 * MB) return `large block ${Math.round(m.size / MB)} MB (geolocation copy)`;
  return 'other anonymous (big buffers, V8 large objects, stacks)';
}

function byKind(maps: readonly Mapping[]): Map<string, number> {
  const totals = new Map<string, number>();
  maps.forEach((m, i) => {
    if (m.rss === 0) return;
    const kind = kindOf(m, maps[i + 1]);
    totals.set(kind, (totals.get(kind) ?? 0) + m.rss);
  });
  return totals;
}

const sum = (m: Map<string, number>): number => [...m.values()].reduce((a, b) => a + b, 0);
const mb = (bytes: number): string => (bytes / MB).toFixed(1);

requireShared();
const lines = parseSize(args.lines);
const everyMs = Number(args['every-ms']);
const warmUp = await benchLog(10_000);
const file = await benchLog(lines, optionalSize(args.users));
if (!args['no-build']) buildDist(PROJECT_ROOT);
const varDir = mkdtempSync(join(tmpdir(), 'logsift-memory-'));
const service = await startService({ root: PROJECT_ROOT, source: false, varDir });
const HEADERS = { 'Log-Format-ezproxy': FORMAT };
try {
  checkJob(await postLog(service.url, warmUp, HEADERS), 'warm-up');
  const atRest = byKind(readMappings(service.pid));
  let atPeak = atRest;
  const sampler = new RssSampler(service.pid);
  sampler.start();
  const timer = setInterval(() => {
    try {
      const now = byKind(readMappings(service.pid));
      if (sum(now) > sum(atPeak)) atPeak = now;
    } catch {
      // the service is gone: the job's own check says why
    }
  }, everyMs);
  const jobs = Number(args.jobs);
  const peaks: number[] = [];
  for (let i = 0; i < jobs; i++) {
    if (i > 0) sampler.start();
    const results = await Promise.all(Array.from({ length: Number(args.concurrent) }, () => postLog(service.url, file, HEADERS)));
    for (const job of results) checkJob(job, `${label(lines)} lines`);
    peaks.push(sampler.stop().peak);
  }
  clearInterval(timer);
  const peak = Math.max(...peaks);
  log(`resident memory of the service (MB): at rest after 10k lines, and the largest of the maps taken every ${everyMs} ms during ${jobs > 1 ? `${jobs} jobs of ${label(lines)} lines, one after the other` : `a ${label(lines)}-line job`}${Number(args.concurrent) > 1 ? `, each ${args.concurrent} jobs at once` : ''}`);
  log(`${'at rest'.padStart(8)} ${'in job'.padStart(8)} ${'added'.padStart(8)}  kind`);
  const kinds = [...new Set([...atPeak.keys(), ...atRest.keys()])].sort((a, b) => (atPeak.get(b) ?? 0) - (atPeak.get(a) ?? 0));
  for (const kind of kinds) {
    const rest = atRest.get(kind) ?? 0;
    const busy = atPeak.get(kind) ?? 0;
    log(`${mb(rest).padStart(8)} ${mb(busy).padStart(8)} ${(busy >= rest ? '+' : '') + mb(busy - rest)}`.padEnd(27) + `  ${kind}`);
  }
  log(`${mb(sum(atRest)).padStart(8)} ${mb(sum(atPeak)).padStart(8)} ${'+' + mb(sum(atPeak) - sum(atRest))}`.padEnd(27) + '  total');
  log(`peak RSS of the job (VmRSS every 20 ms and VmHWM): ${jobs > 1 ? `${peaks.map(mb).join(', ')} MB, job by job` : `${mb(peak)} MB`}`);
} finally {
  await service.stop();
  rmSync(varDir, { recursive: true, force: true });
}
