import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { mkdir, open, readdir, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { RUNNING_FROM_SOURCE } from '../paths.js';
import { exists } from '../platforms/loader.js';

/** Changes when the slim records change: older copies are then made again. */
const SLIM_VERSION = 1;

/** The child's entry: the compiled .js in dist/, the .ts when the service runs from its sources. */
const SLIM_ENTRY = fileURLToPath(new URL(`./geoip-slim-cli${RUNNING_FROM_SOURCE ? '.ts' : '.js'}`, import.meta.url));

/**
 * A short digest of a file's content, which names its slim copy. The file is read through one
 * buffer, not a stream: a stream's 64 KB chunks (a thousand for the City file) are allocated and
 * freed one by one, and glibc kept the memory they went through in the service's RSS.
 */
export async function contentHash(file: string): Promise<string> {
  const hash = createHash('sha256');
  const buffer = Buffer.allocUnsafeSlow(1 << 20);
  const handle = await open(file, 'r');
  try {
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      hash.update(buffer.subarray(0, bytesRead));
    }
  } finally {
    await handle.close();
  }
  return hash.digest('hex').slice(0, 16);
}

/**
 * The slim copy of a geolocation database in `cacheDir`, made when missing. It is named by the
 * source's content, so a new database (an update of the npm package, another GEOIP_DB) gets its
 * own copy, and the copies of other contents of the same file name are removed. It is made by a
 * child process: decoding every record of a City file takes seconds and a few hundred MB, which
 * the service's own heap would then keep.
 */
export async function slimCopy(file: string, cacheDir: string): Promise<string> {
  const stem = basename(file).replace(/\.mmdb$/i, '');
  const name = `${stem}-${await contentHash(file)}.slim${SLIM_VERSION}.mmdb`;
  const target = join(cacheDir, name);
  if (await exists(target)) return target;
  await mkdir(cacheDir, { recursive: true });
  const loader = RUNNING_FROM_SOURCE && !process.execArgv.some((a) => a.includes('tsx')) ? ['--import=tsx'] : [];
  try {
    await promisify(execFile)(process.execPath, [...process.execArgv, ...loader, SLIM_ENTRY, file, target], { timeout: 300_000 });
  } catch (err) {
    const stderr = String((err as { stderr?: unknown }).stderr ?? '').trim().split('\n').pop();
    throw new Error(`could not make the slim copy: ${stderr || (err as Error).message}`);
  }
  for (const old of await readdir(cacheDir)) {
    if (old !== name && old.startsWith(`${stem}-`) && /\.slim\d+\.mmdb$/.test(old)) await rm(join(cacheDir, old), { force: true });
  }
  return target;
}
