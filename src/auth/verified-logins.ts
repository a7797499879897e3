import { createHmac, randomBytes } from 'node:crypto';

/**
 * Logins checked lately, so that a client sending its credentials with every request (a script
 * polling its job's progress each second, the web page) costs one argon2 check (64 MiB, about
 * 0.2 s of CPU) every few minutes instead of one a request. An entry is a keyed hash of the
 * account and password (the key drawn at start, never stored) with the account's stored hash at
 * the time: a new password, however set, no longer matches it. Only successes are kept, so
 * guessing gains nothing; entries last `ttlMs`, at most `max` of them.
 */
export class VerifiedLogins {
  private readonly key = randomBytes(32);
  private readonly entries = new Map<string, { readonly storedHash: string; readonly until: number }>();

  constructor(
    private readonly ttlMs = 5 * 60_000,
    private readonly max = 1_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether this password was found right for this account lately, the account's hash unchanged. */
  has(account: string, password: string, storedHash: string): boolean {
    const id = this.id(account, password);
    const entry = this.entries.get(id);
    if (!entry) return false;
    if (entry.until <= this.now() || entry.storedHash !== storedHash) {
      this.entries.delete(id);
      return false;
    }
    return true;
  }

  add(account: string, password: string, storedHash: string): void {
    const id = this.id(account, password);
    this.entries.delete(id);
    this.entries.set(id, { storedHash, until: this.now() + this.ttlMs });
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value!);
  }

  private id(account: string, password: string): string {
    return createHmac('sha256', this.key).update(account).update('\0').update(password).digest('base64');
  }
}
