/**
 * npm run bench:platforms [-- --rounds 5 --noise 0.6 --urls 100000 --seed 42 --dir DIR]
 *
 * URLs routed and parsed per second by one parsing worker (this one thread): the platforms are
 * compiled as a worker compiles them, then each URL goes through what the platform stage does for
 * an event (URL normalised, host looked up, URL view built, the candidates' rules tried, fields
 * copied onto the event). The URLs are those of the conformance rows (../shared/platforms when
 * there, else the platforms' own examples) mixed with unrelated ones: by default 60% noise, half
 * static assets of the same hosts, 30% other pages of those hosts, 20% hosts no platform knows.
 * Deterministic for a given seed.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { benchArgs } from './common.js';
import { performance } from 'node:perf_hooks';
import { availableParallelism, loadavg } from 'node:os';
import { PROJECT_ROOT, SHARED_DIR } from '../src/paths.js';
import { loadPlatformSet } from '../src/platforms/platform-set.js';
import { platformsCacheDir } from '../src/config.js';
import { readConformanceTree } from '../src/platforms/conformance.js';
import { normaliseUrl } from '../src/pipeline/url-normalise.js';
import { platformStage } from '../src/pipeline/stages/platform.js';
import type { AccessEvent } from '../src/pipeline/event.js';

const { values } = benchArgs(import.meta.url, process.argv, () => parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    noise: { type: 'string', default: '0.6' },
    urls: { type: 'string', default: '100000' },
    seed: { type: 'string', default: '42' },
    dir: { type: 'string' },
  },
}));

/** A small seeded generator (mulberry32): the same URLs on every run. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Input {
  readonly url: string;
  readonly fields: Record<string, string>;
}

const sharedDir = join(SHARED_DIR, 'platforms');
const csvDir = values.dir ?? (existsSync(sharedDir) ? sharedDir : join(PROJECT_ROOT, 'repos', 'platforms'));
const t0 = performance.now();
const set = await loadPlatformSet(join(PROJECT_ROOT, 'repos', 'platforms'), platformsCacheDir());
const compileMs = performance.now() - t0;
const rows = (await readConformanceTree(csvDir)).filter((r) => r.input.url && /^https?:\/\//.test(r.input.url));
const resources: Input[] = rows.map((r) => {
  const { url: _url, ...fields } = r.input;
  return { url: r.input.url, fields };
});
const hosts = [...new Set(resources.map((r) => r.url.match(/^https?:\/\/([^/:?#]+)/)![0]))];

const rnd = random(Number(values.seed));
const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)];
const ASSETS = ['.png', '.gif', '.jpg', '.css', '.js', '.woff2', '.svg'];
const NAV = ['/', '/search?q=climate+change&page=2', '/login?return=%2Fhome', '/images/cover.jpg?w=120', '/about/contact', '/favicon.ico'];
const OTHER = ['https://www.google.com', 'https://fonts.gstatic.com', 'https://www.google-analytics.com', 'https://cdn.jsdelivr.net', 'https://library.example.edu', 'https://login.example.edu'];

function noise(): Input {
  const r = rnd();
  let url: string;
  if (r < 0.5) url = `${pick(hosts)}/static/${Math.floor(rnd() * 1e6).toString(36)}/app${pick(ASSETS)}`;
  else if (r < 0.8) url = pick(hosts) + pick(NAV);
  else url = `${pick(OTHER)}/${Math.floor(rnd() * 1e6).toString(36)}${pick(['.js', '/collect?v=1&tid=UA-1', '/', '.css'])}`;
  return { url, fields: {} };
}

const total = Number(values.urls);
const noiseShare = Number(values.noise);
const mixed: Input[] = [];
const onlyRows: Input[] = [];
const onlyNoise: Input[] = [];
for (let i = 0; i < total; i++) {
  if (rnd() < noiseShare) { const n = noise(); mixed.push(n); onlyNoise.push(n); }
  else { const r = pick(resources); mixed.push(r); onlyRows.push(r); }
}

const stage = platformStage(set, { allowWildcards: false });

/** One pass as the platform stage sees events; returns how many were recognised. */
function pass(inputs: readonly Input[]): number {
  let recognised = 0;
  for (const input of inputs) {
    const { url, domain } = normaliseUrl(input.url);
    const ec: AccessEvent = { ...input.fields, url };
    if (domain !== undefined) ec.domain = domain;
    if (stage.run(ec, { denied: false, pkbMiss: false }) === undefined) recognised++;
  }
  return recognised;
}

/**
 * Rates from the CPU time this process used (what one worker's thread gets when it has a core to
 * itself) and from the wall clock (lower when other processes share the cores).
 */
function measure(inputs: readonly Input[]): { cpu: number; wall: number; recognised: number } {
  pass(inputs); // warm-up: compiled code paths, lazily built objects
  const cpu: number[] = [];
  const wall: number[] = [];
  let recognised = 0;
  for (let round = 0; round < Number(values.rounds); round++) {
    const start = performance.now();
    const used = process.cpuUsage();
    recognised = pass(inputs);
    const { user, system } = process.cpuUsage(used);
    cpu.push(inputs.length / ((user + system) / 1e6));
    wall.push(inputs.length / ((performance.now() - start) / 1000));
  }
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  return { cpu: median(cpu), wall: median(wall), recognised };
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
console.log(`platforms: ${set.platforms.size} compiled in ${fmt(compileMs)} ms; ${resources.length} test-row URLs from ${csvDir} on ${hosts.length} hosts`);
console.log(`URLs: ${fmt(mixed.length)} (${fmt(onlyRows.length)} test-row URLs, ${fmt(onlyNoise.length)} noise); median of ${values.rounds} rounds, one thread`);
console.log('routed and parsed per second per worker:');
const report = (label: string, inputs: readonly Input[]) => {
  const m = measure(inputs);
  console.log(`${label} ${fmt(m.cpu)} URLs/s of CPU time (${fmt(m.wall)} by the wall clock), `
    + `${(100 * m.recognised / inputs.length).toFixed(1)}% recognised`);
};
report('mixed:         ', mixed);
report('test rows only:', onlyRows);
report('noise only:    ', onlyNoise);
console.log(`load average while measuring: ${loadavg().map((x) => x.toFixed(1)).join(' ')} on ${availableParallelism()} cores`);
