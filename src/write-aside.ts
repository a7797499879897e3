import { randomBytes } from 'node:crypto';
import { rename, rm, writeFile } from 'node:fs/promises';

/**
 * Writes a whole file under a temporary name beside it, then renames it into place: a reader sees
 * the old file or the new one, never a part. The temporary name is this call's own, so that
 * processes, or calls of one process, writing the same file at once do not take each other's.
 * On failure the temporary file is removed and the error thrown.
 */
export async function writeFileAside(file: string, data: string | Uint8Array): Promise<void> {
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(tmp, data);
    await rename(tmp, file);
  } catch (err) {
    await rm(tmp, { force: true }).catch(() => undefined);
    throw err;
  }
}
