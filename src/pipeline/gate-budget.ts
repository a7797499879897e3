/**
 * The main thread's time for users' expressions, shared by the service's jobs. Each job checks
 * its first lines against its log format on the main thread (job-runner.ts, the gate), where a
 * custom expression may take up to its line's budget and many such lines, or many such jobs,
 * would stall every request. The gates together get `shareMs` of each `windowMs`; past it, a
 * gate waits for room (other requests are answered meanwhile).
 */
export class GateBudget {
  /** [when it ended, how long it took], the last window's */
  private readonly spent: Array<[at: number, ms: number]> = [];

  constructor(
    readonly shareMs = 250,
    readonly windowMs = 1000,
    private readonly now: () => number = () => performance.now(),
  ) {}

  record(ms: number): void {
    this.spent.push([this.now(), ms]);
    this.drop();
  }

  /** Whether a gate may run a line now. */
  hasRoom(): boolean {
    this.drop();
    let sum = 0;
    for (const [, ms] of this.spent) sum += ms;
    return sum < this.shareMs;
  }

  /** Resolves once a gate may run again (or at once when it may). */
  async room(): Promise<void> {
    while (!this.hasRoom()) {
      const oldest = this.spent[0][0];
      await new Promise((resolve) => setTimeout(resolve, Math.max(5, oldest + this.windowMs - this.now())));
    }
  }

  private drop(): void {
    const from = this.now() - this.windowMs;
    while (this.spent.length > 0 && this.spent[0][0] <= from) this.spent.shift();
  }
}
