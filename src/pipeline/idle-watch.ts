/**
 * What a connection where nothing moves for IDLE_UPLOAD_MS means for its job: its upload stopped
 * (4037), its client stopped reading (4040), or nothing wrong (the job is busy with what it has).
 * What moves is sampled (`progress`: the bytes received, the bytes written, what the system still
 * has to send): a slow reader's large write completes only once it has all been taken, but the
 * system's send queue shrinks meanwhile. A move is dated by the sample that sees it, up to a
 * sampling period late, and so is the verdict: samples a hundredth of the idle time apart (at
 * most 1 s, at least 10 ms) make the limit the idle time after the last move within 1 % (or
 * 10 ms), where samples a quarter apart let it fire up to a quarter late (150 s for 120). Three
 * numbers read each second cost nothing, and no timer is set per chunk. The socket's own
 * timeout, which a shortened re-arm left short for good, is not used.
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

  /** How often to sample: a move, and so the verdict, is dated to within this. */
  get sampleEveryMs(): number {
    return Math.min(Math.max(Math.round(this.idleMs / 100), 10), 1000);
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
