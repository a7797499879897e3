/**
 * Summarises the `.cpuprofile` files of `npm run bench -- --profile DIR`: self time by function,
 * per thread (0 = the main thread, then the workers) and over all threads.
 *
 *   node --import=tsx bench/profile-top.ts DIR [--top 15] [--files]
 *
 * `--files` adds up the self time by source file (node: built-ins by module).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number }

const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string', default: '15' }, files: { type: 'boolean', default: false } } });
const dir = positionals[0];
if (!dir) {
  process.stderr.write('usage: node --import=tsx bench/profile-top.ts DIR [--top N]\n');
  process.exit(2);
}
const top = Number(values.top);

function where(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const file = url ? url.replace(/^.*\/(node_modules\/|dist\/|src\/|workers\/)/, '$1').replace(/^node:/, '') : '';
  if (values.files) return file || (functionName.startsWith('(') || functionName.startsWith('RegExp:') ? functionName.replace(/^RegExp:.*/, '(regexp)') : '(native)');
  return `${functionName || '(anonymous)'}${file ? ` ${file}:${lineNumber + 1}` : ''}`;
}

/** Self time in ms by function (idle and program markers kept apart). */
function selfTimes(profile: Profile): Map<string, number> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const times = new Map<string, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const node = byId.get(profile.samples[i])!;
    const key = where(node);
    times.set(key, (times.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  }
  return times;
}

function print(title: string, times: Map<string, number>): void {
  const busy = [...times].filter(([k]) => !k.startsWith('(idle)')).reduce((s, [, v]) => s + v, 0);
  process.stdout.write(`\n${title}: ${(busy / 1000).toFixed(2)} s busy, ${((times.get('(idle)') ?? 0) / 1000).toFixed(2)} s idle\n`);
  const rows = [...times].filter(([k]) => !k.startsWith('(idle)')).sort((a, b) => b[1] - a[1]).slice(0, top);
  for (const [name, ms] of rows) {
    process.stdout.write(`${(ms / 1000).toFixed(3).padStart(8)} s ${((100 * ms) / busy).toFixed(1).padStart(5)}%  ${name}\n`);
  }
}

const total = new Map<string, number>();
const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')).sort();
for (const file of files) {
  const times = selfTimes(JSON.parse(readFileSync(join(dir, file), 'utf8')) as Profile);
  const thread = basename(file).split('.')[4];
  print(`thread ${thread} (${thread === '0' ? 'main' : 'worker'})`, times);
  for (const [k, v] of times) if (thread !== '0') total.set(k, (total.get(k) ?? 0) + v);
}
print('all workers', total);
