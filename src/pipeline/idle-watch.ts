/**
 * What a connection idle for IDLE_UPLOAD_MS (no read, no write completed) means for its job: its
 * upload stopped (4037), its client stopped reading (4040), or nothing wrong (the job is busy, or
 * the client reads slowly). A slow reader's large write completes only once it has all been taken,
 * so the socket looks idle while the system's send queue (`unsent`) still shrinks: the queue is
 * sampled in between, and the answer counts as moving while it changed less than the idle time ago.
 */
export class IdleWatch {
  private unsent: number | undefined;
  private movedAt: number;

  constructor(
    private readonly idleMs: number,
    private readonly unsentBytes: () => number | undefined,
    now: number,
  ) {
    this.unsent = unsentBytes();
    this.movedAt = now;
  }

  /** How often to sample the queue: a move is dated to within this. */
  get sampleEveryMs(): number {
    return Math.max(this.idleMs / 4, 10);
  }

  sample(now: number): void {
    const unsent = this.unsentBytes();
    if (unsent !== this.unsent) {
      this.unsent = unsent;
      this.movedAt = now;
    }
  }

  /**
   * The socket has been idle for the idle time: the job's verdict, or how long to wait before
   * asking again. An answer that moved `t` ago is given the rest of its idle time, not a whole new
   * one (which made the limit nearly twice what it says).
   */
  onIdle(now: number, waiting: { readonly input: boolean; readonly output: boolean }): { readonly verdict: 'upload' | 'answer' } | { readonly waitMs: number } {
    this.sample(now);
    const since = now - this.movedAt;
    if (since < this.idleMs) return { waitMs: Math.max(this.idleMs - since, 10) };
    if (waiting.input) return { verdict: 'upload' };
    if (waiting.output) return { verdict: 'answer' };
    return { waitMs: this.idleMs };
  }
}
