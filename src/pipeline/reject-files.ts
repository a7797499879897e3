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

  constructor(dir: string, categories: ReadonlySet<RejectCategory>) {
    for (const c of categories) this.streams.set(c, createWriteStream(join(dir, rejectFileName(c))));
  }

  wants(category: RejectCategory): boolean {
    return this.streams.has(category);
  }

  write(category: RejectCategory, lines: readonly string[]): void {
    const stream = this.streams.get(category);
    if (!stream || lines.length === 0) return;
    stream.write(lines.join('\n') + '\n');
  }

  async drained(): Promise<void> {
    for (const s of this.streams.values()) if (s.writableNeedDrain) await drainOrClose(s);
  }

  async close(): Promise<void> {
    await Promise.all([...this.streams.values()].map(async (s) => {
      s.end();
      if (!s.closed) await once(s, 'close');
    }));
  }
}
