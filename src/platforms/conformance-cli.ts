/**
 * npm run platforms:test -- [--dir DIR] [--platform NAME[,NAME]]… [--platforms DIR]… [--routing [--wildcards]] [--quiet]
 *
 * Runs the test rows of DIR/<platform>/test/*.csv against the platforms loaded from the
 * --platforms folders (default: repos/platforms; several are read in order, the first of a name
 * wins: e.g. a checkout of the community's platforms with their parser.js). DIR defaults to
 * ../shared/platforms when present and no --platforms is given, else the first platforms folder. --routing also routes every
 * row by its host, as the service does, and fails a row claimed by another platform unless
 * routing-exceptions.yaml lists it (an exception not seen as listed is only reported: the file
 * describes the shared rows, and --dir may name others). Prints each failing row with its
 * differences and ends with `N passed, M failed`; exit code 1 when a row fails.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { PROJECT_ROOT, SHARED_DIR } from '../paths.js';
import { platformsCacheDir } from '../config.js';
import { formatFailure, runConformance } from './conformance.js';
import { formatMisroute } from './routing-check.js';

const USAGE = `Usage: npm run platforms:test -- [options]

Runs the test rows of DIR/<platform>/test/*.csv against the loaded platforms; ends with
"N passed, M failed" (exit code 1 when a row fails, 2 for a bad option).

  --dir DIR           the rows (default: ../shared/platforms when present and no --platforms
                      is given, else the first platforms folder)
  --platform NAME     these platforms only (repeat it, or NAME,NAME)
  --platforms DIR     a folder of platforms (default: repos/platforms); repeat it: the first
                      folder holding a name wins
  --routing           also route every row by its host, as the service does; a row claimed by
                      another platform fails unless routing-exceptions.yaml lists it
  --wildcards         with --routing: route as Allow-Domain-Wildcards: true does
  --quiet             print only the totals
  --help              print this and exit
`;

/** The options, or a one-line message and exit code 2 for a bad one (parseArgs throws with a hint of several lines). */
function readArgs() {
  try {
    return parseArgs({
      options: {
        dir: { type: 'string' },
        platform: { type: 'string', multiple: true },
        platforms: { type: 'string', multiple: true },
        routing: { type: 'boolean', default: false },
        wildcards: { type: 'boolean', default: false },
        quiet: { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
    }).values;
  } catch (err) {
    const message = (err as Error).message.split(/\.\s/)[0].replace(/\.$/, '');
    console.error(`platforms:test: ${message} (see --help)`);
    process.exit(2);
  }
}

const values = readArgs();
if (values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}

const sharedPlatforms = join(SHARED_DIR, 'platforms');
const platformsDirs = (values.platforms?.length ? values.platforms : [join(PROJECT_ROOT, 'repos', 'platforms')]).map((d) => resolve(d));
const csvDir = resolve(values.dir ?? (!values.platforms?.length && existsSync(sharedPlatforms) ? sharedPlatforms : platformsDirs[0]));
const only = values.platform ? new Set(values.platform.flatMap((p) => p.split(',')).map((p) => p.trim()).filter(Boolean)) : undefined;

const report = await runConformance({
  platformsDirs, csvDir, only, cacheDir: platformsCacheDir(),
  routing: values.routing, allowWildcards: values.wildcards,
});
for (const p of report.set.problems) console.log(`PROBLEM ${p.folder}: ${p.message}`);
if (!values.quiet) for (const f of report.failures) console.log(formatFailure(f));
const { routing } = report;
if (routing) {
  for (const e of routing.stale) {
    console.log(`routing exception not seen as listed: ${e.platform} on ${e.host} (${e.rows} rows claimed by ${e.winner})`);
  }
  if (!values.quiet) for (const r of routing.wrong) if (!routing.unexpected.includes(r)) console.log(`(listed) ${formatMisroute(r)}`);
  console.log(`routing: ${routing.checked} rows on their platform's hosts, ${routing.shared} of them on shared hosts; `
    + `${routing.wrong.length} claimed by another platform, ${routing.wrong.length - routing.unexpected.length} of them listed in routing-exceptions.yaml`);
}
if (report.shadowed.length) console.log(`platforms left out (same name in an earlier folder): ${report.shadowed.length}`);
console.log(`platforms loaded: ${report.set.platforms.size} from ${platformsDirs.join(', ')}; rows from ${csvDir}`);
console.log(`${report.passed} passed, ${report.failures.length} failed`);
process.exitCode = report.failures.length > 0 ? 1 : 0;
