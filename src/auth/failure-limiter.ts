export interface FailureLimits {
  /** failed logins from one address within the window before it is refused (0 = no limit) */
  readonly maxPerAddress: number;
  /** failed logins on one account, from anywhere, within the window before it is refused (0 = no limit) */
  readonly maxPerAccount: number;
  readonly windowMs: number;
}

/**
 * What failed: a login (HTTP Basic), or the old password a logged user gave to change it. The
 * profile route logs in before it checks the old password, so a successful login must not clear
 * the wrong old passwords, or they would never reach the limit.
 */
export type FailureKind = 'login' | 'oldPassword';

interface Failure {
  readonly at: number;
  /** the account tried: a success clears only its own account's failures */
  readonly account: string;
  readonly kind: FailureKind;
}

// Beyond this many tracked keys the expired ones are dropped, then the oldest: memory stays bounded
// even when a client tries many different names.
const MAX_KEYS = 50_000;

/** How long an address that logged in on an account stays exempt from that account's lock. */
export const TRUSTED_ADDRESS_MS = 30 * 24 * 3600_000;
/** Addresses remembered per account (the most recent), and accounts remembered in all. */
const TRUSTED_PER_ACCOUNT = 16;
const TRUSTED_ACCOUNTS = 10_000;

/**
 * Counts failed logins per client address and per account name in a sliding window. While either
 * count is at its limit, logins are refused before any password check (429 with Retry-After), so
 * guessing is capped and costs the server nothing. A success clears only its own account's
 * failures: an attacker's login on his own account does not clear his guesses at others from the
 * same address. One instance per service (no module state).
 */
export class FailureLimiter {
  private readonly failures = new Map<string, Failure[]>();
  /** account → the addresses that logged in on it, with when they last did */
  private readonly trusted = new Map<string, Map<string, number>>();

  constructor(
    private readonly limits: FailureLimits,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Seconds until a login from `address` on `account` is accepted again; 0 when it is now. An
   * address that logged in on the account before is not held by the account's lock (only by its
   * own count): others' failures on an account would otherwise lock its owner out, the founder
   * included, whose password nobody can reset.
   */
  retryAfter(address: string, account: string): number {
    const wait = Math.max(
      this.waitMs(`a:${address}`, this.limits.maxPerAddress),
      this.isTrusted(address, account) ? 0 : this.waitMs(`u:${account}`, this.limits.maxPerAccount),
    );
    return wait > 0 ? Math.ceil(wait / 1000) : 0;
  }

  /**
   * Checks the limits and, when the attempt may go on, counts it as a failure at once: attempts
   * sent together then meet the limit as attempts one after the other do (each password check
   * takes a while, and the count used to be made after it). A success takes it out again
   * (recordSuccess). Answers the seconds to wait, or 0 when the attempt was counted.
   */
  beginAttempt(address: string, account: string, kind: FailureKind = 'login'): number {
    const wait = this.retryAfter(address, account);
    if (wait === 0) this.recordFailure(address, account, kind);
    return wait;
  }

  recordFailure(address: string, account: string, kind: FailureKind = 'login'): void {
    const now = this.now();
    const failure: Failure = { at: now, account, kind };
    for (const [key, max] of [[`a:${address}`, this.limits.maxPerAddress], [`u:${account}`, this.limits.maxPerAccount]] as const) {
      if (max <= 0) continue;
      const list = this.recent(key, now);
      list.push(failure);
      // Attempts one after the other stop at `max` (refused there); concurrent ones can pass the
      // check together. A success may take some out (its own account's): keep up to 2 × max.
      if (list.length > 2 * max) list.splice(0, list.length - 2 * max);
      this.failures.delete(key); // re-inserted last: the map's order is the order of last failure
      this.failures.set(key, list);
    }
    if (this.failures.size > MAX_KEYS) this.shrink(now);
  }

  /**
   * A success of `kind` clears the account's failures of that kind (the account's own count
   * still caps guesses on it) and those its address made on that account; not the address's
   * failures on other accounts (many users may share one address behind a NAT: each clears
   * his own typing errors only).
   */
  recordSuccess(address: string, account: string, kind: FailureKind = 'login'): void {
    this.remove(`a:${address}`, (f) => f.account === account && f.kind === kind);
    this.remove(`u:${account}`, (f) => f.kind === kind);
    if (kind === 'login') this.trust(address, account);
  }

  private trust(address: string, account: string): void {
    const now = this.now();
    let addresses = this.trusted.get(account);
    if (addresses) this.trusted.delete(account); // re-inserted last: the oldest accounts go first
    addresses ??= new Map();
    addresses.delete(address);
    addresses.set(address, now);
    if (addresses.size > TRUSTED_PER_ACCOUNT) addresses.delete(addresses.keys().next().value!);
    this.trusted.set(account, addresses);
    if (this.trusted.size > TRUSTED_ACCOUNTS) this.trusted.delete(this.trusted.keys().next().value!);
  }

  private isTrusted(address: string, account: string): boolean {
    const at = this.trusted.get(account)?.get(address);
    return at !== undefined && this.now() - at < TRUSTED_ADDRESS_MS;
  }

  /**
   * After an administrator sets a new password, the account's count starts again, and the
   * addresses that knew the old password are trusted no more.
   */
  clearAccount(account: string): void {
    this.failures.delete(`u:${account}`);
    this.trusted.delete(account);
  }

  private remove(key: string, cleared: (failure: Failure) => boolean): void {
    const list = this.failures.get(key);
    if (!list) return;
    const kept = list.filter((f) => !cleared(f));
    if (kept.length === 0) this.failures.delete(key);
    else if (kept.length < list.length) this.failures.set(key, kept);
  }

  private waitMs(key: string, max: number): number {
    if (max <= 0) return 0;
    const now = this.now();
    const list = this.recent(key, now);
    if (list.length < max) return 0;
    // Accepted again once enough of the failures have left the window.
    return list[list.length - max].at + this.limits.windowMs - now;
  }

  /** The failures of `key` still in the window (older ones are dropped in place). */
  private recent(key: string, now: number): Failure[] {
    const list = this.failures.get(key);
    if (!list) return [];
    const from = now - this.limits.windowMs;
    let drop = 0;
    while (drop < list.length && list[drop].at <= from) drop++;
    if (drop > 0) list.splice(0, drop);
    if (list.length === 0) this.failures.delete(key);
    return list;
  }

  private shrink(now: number): void {
    for (const key of this.failures.keys()) this.recent(key, now);
    for (const key of this.failures.keys()) {
      if (this.failures.size <= MAX_KEYS) break;
      this.failures.delete(key);
    }
  }
}
