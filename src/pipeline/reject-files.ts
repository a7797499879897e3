import { createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { drainOrClose } from './job-output.js';
import { join } from 'node:path';
import type { RejectCategory } from './stages/types.js';
import { rejectFileName } from './job-files.js';

/**
 * The `lines-<category>.log` files a job was asked for (Reject-Files), created at the start
 * (empty when nothing is rejected there). Lines are written one per line, as the job decoded them
 * (Request-Charset), in UTF-8: not in the upload's bytes.
 */
export class RejectFiles {
  private readonly streams = new Map<RejectCategory, WriteStream>();

  /** A file that cannot be written (disk full) is told to `onError` once and written no more. */
  constructor(dir: string, categories: ReadonlySet<RejectCategory>, onError: (err: Error) => void = () => undefined) {
    let failed = false;
    for (const c of categories) {
      const stream = createWriteStream(join(dir, rejectFileName(c)));
      // an 'error' nobody listened to ended the process
      stream.on('error', (err) => {
        if (failed) return;
        failed = true;
        onError(err);
      });
      this.streams.set(c, stream);
    }
  }

  wants(category: RejectCategory): boolean {
    return this.streams.has(category);
  }

  write(category: RejectCategory, lines: readonly string[]): void {
    const stream = this.streams.get(category);
    if (!stream || stream.destroyed || lines.length === 0) return;
    stream.write(lines.join('\n') + '\n');
  }

  async drained(): Promise<void> {
    // (a write error is told to onError: not thrown at the job waiting here)
    for (const s of this.streams.values()) if (!s.destroyed && s.writableNeedDrain) await drainOrClose(s).catch(() => undefined);
  }

  async close(): Promise<void> {
    await Promise.all([...this.streams.values()].map(async (s) => {
      if (!s.destroyed) s.end();
      if (!s.closed) await once(s, 'close');
    }));
  }
}
