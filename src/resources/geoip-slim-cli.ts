/**
 * Makes the slim copy of a geolocation database (geoip-slim.ts), as a child process of the
 * service: `node geoip-slim-cli.js SOURCE TARGET`. The copy is written beside TARGET, then renamed
 * onto it, so that a reader never sees half a file (two services making it at once both succeed).
 */
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { slimMmdb } from './geoip-slim.js';

const [source, target] = process.argv.slice(2);
if (!source || !target) {
  process.stderr.write('usage: geoip-slim-cli SOURCE.mmdb TARGET.mmdb\n');
  process.exit(2);
}
const partial = `${target}.${process.pid}.part`;
try {
  await writeFile(partial, slimMmdb(await readFile(source)));
  await rename(partial, target);
} catch (err) {
  await rm(partial, { force: true });
  process.stderr.write(`${(err as Error).message}\n`);
  process.exit(1);
}
