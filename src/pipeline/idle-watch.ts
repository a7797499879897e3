/**
 * What a connection where nothing moves for IDLE_UPLOAD_MS means for its job: its upload stopped
 * (4037), its client stopped reading (4040), or nothing wrong (the job is busy with what it has).
 * What moves is sampled (`progress`: the bytes received, the bytes written, what the system still
 * has to send), a quarter of the idle time apart: a slow reader's large write completes only once
 * it has all been taken, but the system's send queue shrinks meanwhile. So the limit is the idle
 * time after the last move, give or take a sampling period; the socket's own timeout, which a
 * shortened re-arm left short for good, is not used.
 */
export class IdleWatch {
  private last: readonly number[];
  private movedAt: number;

  constructor(
    private readonly idleMs: number,
    private readonly progress: () => readonly number[],
    now: number,
  ) {
    this.last = progress();
    this.movedAt = now;
  }

  /** How often to sample: a move is dated to within this. */
  get sampleEveryMs(): number {
    return Math.max(this.idleMs / 4, 10);
  }

  /** A sample: the job's verdict once nothing moved for the idle time, undefined otherwise. */
  check(now: number, waiting: { readonly input: boolean; readonly output: boolean }): 'upload' | 'answer' | undefined {
    const current = this.progress();
    if (current.some((v, i) => v !== this.last[i])) {
      this.last = current;
      this.movedAt = now;
      return undefined;
    }
    if (now - this.movedAt < this.idleMs) return undefined;
    if (waiting.input) return 'upload';
    if (waiting.output) return 'answer';
    // busy with what it has: nothing wrong, counted again from now
    this.movedAt = now;
    return undefined;
  }
}
