import t from 'tap';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { readdirSync } from 'node:fs';
import { PROJECT_ROOT } from '../../src/paths.js';
import { formatFailure, runConformance } from '../../src/platforms/conformance.js';
import { formatMisroute } from '../../src/platforms/routing-check.js';
import { shared } from '../helpers/shared.js';

const PLATFORMS = join(PROJECT_ROOT, 'repos', 'platforms');
const cacheDir = join(tmpdir(), 'logsift-test-hooks');
const show = (lines: string[]) => lines.slice(0, 20).join('\n');

t.test('every platform\'s own examples (repos/platforms/*/test/*.csv) pass, as unit tests', async (t) => {
  const report = await runConformance({ platformsDirs: [PLATFORMS], csvDir: PLATFORMS, cacheDir });
  const folders = readdirSync(PLATFORMS, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
  t.equal(report.set.platforms.size, folders.length, 'every folder loads');
  t.same(report.set.problems, []);
  const failing = new Map<string, string[]>();
  for (const f of report.failures) failing.set(f.row.platform, [...(failing.get(f.row.platform) ?? []), formatFailure(f)]);
  for (const name of folders) {
    const failures = failing.get(name) ?? [];
    t.same(failures, [], name);
  }
  t.ok(report.rows > 2000, `${report.rows} examples`);
});

t.test('the shared conformance rows: all 653 platforms loaded, every row passes, routing as expected', async (t) => {
  const dir = shared(t, 'platforms');
  if (!dir) return;
  const report = await runConformance({ platformsDirs: [PLATFORMS], csvDir: dir, cacheDir, routing: true });
  t.equal(report.set.platforms.size, 653);
  t.same(report.set.problems, []);
  // 4,955 rows: a count of the files' non-blank lines after their first gives 4,956, because
  // naxos's file starts with a blank line and its header is on line 2.
  t.equal(report.rows, 4955);
  t.equal(report.failures.length, 0, show(report.failures.map(formatFailure)));
  const routing = report.routing!;
  t.same(routing.unexpected.map(formatMisroute), [], 'a row claimed by another platform is listed in routing-exceptions.yaml');
  t.same(routing.stale, [], 'every listed exception happens as listed');
  t.equal(routing.wrong.length, 10);
  t.ok(routing.checked > 4000 && routing.shared > 150, `${routing.checked} rows routed, ${routing.shared} on shared hosts`);
});
