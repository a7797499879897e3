import t from 'tap';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { defaultGeoipFile } from '../../src/resources/geoip.js';
import { PROJECT_ROOT } from '../../src/paths.js';

const run = promisify(execFile);
const CHILD = join(PROJECT_ROOT, 'test', 'resources', 'fixtures', 'content-hash.ts');

t.test('hashing the geolocation file leaves no memory behind', { skip: existsSync('/proc/self/status') ? false : 'needs Linux /proc' }, async (t) => {
  // The packaged City file (61 MB) is hashed at every start to find its slim copy. Read as a
  // stream, its thousand 64 KB chunks left about 25 MB of freed memory in glibc's heap: RSS the
  // service kept for its whole life.
  const file = defaultGeoipFile('city')!;
  const { stdout } = await run(process.execPath, ['--expose-gc', '--import=tsx', CHILD, file], { cwd: PROJECT_ROOT });
  const { digest, grewMb } = JSON.parse(stdout) as { digest: string; grewMb: number };
  t.equal(digest, createHash('sha256').update(readFileSync(file)).digest('hex').slice(0, 16), 'the digest of the whole content');
  t.ok(grewMb < 8, `RSS after hashing ${Math.round(readFileSync(file).length / 2 ** 20)} MB: +${grewMb.toFixed(1)} MB`);
});
