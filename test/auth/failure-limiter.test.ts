import t from 'tap';
import { FailureLimiter } from '../../src/auth/failure-limiter.js';

function limiter(now: { t: number }) {
  return new FailureLimiter({ maxPerAddress: 3, maxPerAccount: 5, windowMs: 60_000 }, () => now.t);
}

t.test('an address is refused after its failures, until they leave the window', async (t) => {
  const now = { t: 1_000_000 };
  const l = limiter(now);
  for (let i = 0; i < 3; i++) {
    t.equal(l.retryAfter('1.2.3.4', 'a'), 0);
    l.recordFailure('1.2.3.4', `a${i}`);
    now.t += 1000;
  }
  t.equal(l.retryAfter('1.2.3.4', 'b'), 57, 'until the first failure is 60 s old');
  t.equal(l.retryAfter('5.6.7.8', 'b'), 0, 'another address is not concerned');
  now.t += 57_000;
  t.equal(l.retryAfter('1.2.3.4', 'b'), 0);
});

t.test('an account is refused after failures from many addresses', async (t) => {
  const now = { t: 0 };
  const l = limiter(now);
  for (let i = 0; i < 5; i++) l.recordFailure(`10.0.0.${i}`, 'victim');
  t.equal(l.retryAfter('10.0.0.99', 'victim'), 60);
  t.equal(l.retryAfter('10.0.0.99', 'other'), 0);
  l.clearAccount('victim');
  t.equal(l.retryAfter('10.0.0.99', 'victim'), 0, 'cleared after a new password');
});

t.test('a success clears its account\'s counts', async (t) => {
  const now = { t: 0 };
  const l = limiter(now);
  l.recordFailure('1.1.1.1', 'a');
  l.recordFailure('1.1.1.1', 'a');
  l.recordSuccess('1.1.1.1', 'a');
  l.recordFailure('1.1.1.1', 'a');
  l.recordFailure('1.1.1.1', 'a');
  t.equal(l.retryAfter('1.1.1.1', 'a'), 0);
});

t.test('a zero limit turns a check off', async (t) => {
  const l = new FailureLimiter({ maxPerAddress: 0, maxPerAccount: 0, windowMs: 60_000 });
  for (let i = 0; i < 100; i++) l.recordFailure('1.1.1.1', 'a');
  t.equal(l.retryAfter('1.1.1.1', 'a'), 0);
});

t.test('a success clears only its own account\'s failures, not the address\'s guesses at others', async (t) => {
  const now = { t: 0 };
  const l = limiter(now);
  l.recordFailure('1.1.1.1', 'victim1');
  l.recordFailure('1.1.1.1', 'victim2');
  l.recordSuccess('1.1.1.1', 'mallory');
  l.recordFailure('1.1.1.1', 'victim3');
  t.equal(l.retryAfter('1.1.1.1', 'mallory'), 60, 'a login on one\'s own account does not buy more guesses');

  // Behind one NAT address: a user who mistyped, then logged in, takes his own failures out.
  const nat = limiter(now);
  nat.recordFailure('9.9.9.9', 'jane');
  nat.recordFailure('9.9.9.9', 'jane');
  nat.recordFailure('9.9.9.9', 'paul');
  t.ok(nat.retryAfter('9.9.9.9', 'jane') > 0);
  nat.recordSuccess('9.9.9.9', 'jane');
  t.equal(nat.retryAfter('9.9.9.9', 'jane'), 0, 'jane is not counted any more');
  nat.recordFailure('9.9.9.9', 'lucy');
  t.equal(nat.retryAfter('9.9.9.9', 'jane'), 0, 'paul and lucy: 2 failures');
});

t.test('wrong old passwords: a login does not clear them, a right old password does', async (t) => {
  const now = { t: 0 };
  const l = limiter(now);
  // The profile route logs in (a success), then checks the old password.
  for (let i = 0; i < 3; i++) {
    t.equal(l.retryAfter('1.1.1.1', 'jane'), 0, `attempt ${i + 1}`);
    l.recordSuccess('1.1.1.1', 'jane');
    l.recordFailure('1.1.1.1', 'jane', 'oldPassword');
  }
  t.equal(l.retryAfter('1.1.1.1', 'jane'), 60, 'the 4th is refused');

  const again = limiter(now);
  for (let i = 0; i < 2; i++) again.recordFailure('1.1.1.1', 'jane', 'oldPassword');
  again.recordSuccess('1.1.1.1', 'jane', 'oldPassword');
  for (let i = 0; i < 2; i++) again.recordFailure('1.1.1.1', 'jane', 'oldPassword');
  t.equal(again.retryAfter('1.1.1.1', 'jane'), 0, 'counted again from the right old password');
});

t.test('attempts sent together meet the limit as attempts in a row do (counted before the password check)', async (t) => {
  const l = limiter({ t: 0 });
  // 100 attempts begun before any password check ends
  const waits = Array.from({ length: 100 }, () => l.beginAttempt('6.6.6.6', 'ghost'));
  t.equal(waits.filter((w) => w === 0).length, 3, 'three go on to a password check, as many as the address may fail');
  t.ok(waits.slice(3).every((w) => w === 60), 'the others are refused at once');
  const ok = limiter({ t: 0 });
  t.equal(ok.beginAttempt('1.1.1.1', 'jane'), 0);
  ok.recordSuccess('1.1.1.1', 'jane');
  for (let i = 0; i < 3; i++) t.equal(ok.beginAttempt('1.1.1.1', 'jane'), 0, `a success took its attempt out: ${i + 1}`);
});

t.test('an account\'s lock does not hold an address that logged in on it before', async (t) => {
  const now = { t: 0 };
  const l = limiter(now);
  l.recordSuccess('1.1.1.1', 'founder'); // the owner's usual address
  for (const address of ['7.7.7.1', '7.7.7.2', '7.7.7.3', '7.7.7.4', '7.7.7.5']) l.recordFailure(address, 'founder');
  t.ok(l.retryAfter('7.7.7.9', 'founder') > 0, 'the account is locked for other addresses');
  t.equal(l.retryAfter('1.1.1.1', 'founder'), 0, 'not for its owner\'s address');
  for (let i = 0; i < 3; i++) l.recordFailure('1.1.1.1', 'founder');
  t.ok(l.retryAfter('1.1.1.1', 'founder') > 0, 'which keeps its own limit');
  const reset = limiter(now);
  reset.recordSuccess('1.1.1.1', 'founder');
  for (let i = 0; i < 5; i++) reset.recordFailure(`7.7.7.${i}`, 'founder');
  reset.clearAccount('founder');
  for (let i = 0; i < 5; i++) reset.recordFailure(`7.7.7.${i}`, 'founder');
  t.ok(reset.retryAfter('1.1.1.1', 'founder') > 0, 'a password reset ends the trust in the addresses that knew the old one');
  const old = limiter(now);
  old.recordSuccess('1.1.1.1', 'founder');
  now.t += 31 * 24 * 3600_000;
  for (let i = 0; i < 5; i++) old.recordFailure(`7.7.7.${i}`, 'founder');
  t.ok(old.retryAfter('1.1.1.1', 'founder') > 0, 'trust lasts 30 days after the last login');
});
