import t from 'tap';
import { VerifiedLogins } from '../../src/auth/verified-logins.js';

t.test('a login checked lately is known again, until its time is up or the account\'s hash changes', async (t) => {
  const clock = { now: 0 };
  const v = new VerifiedLogins(60_000, 3, () => clock.now);
  t.notOk(v.has('jane', 'Right-words-1', 'H1'), 'nothing before a check');
  v.add('jane', 'Right-words-1', 'H1');
  t.ok(v.has('jane', 'Right-words-1', 'H1'));
  t.notOk(v.has('jane', 'Wrong-words-1', 'H1'), 'another password');
  t.notOk(v.has('paul', 'Right-words-1', 'H1'), 'another account');
  t.notOk(v.has('jane', 'Right-words-1', 'H2'), 'a new password set since: the old one is checked again');
  v.add('jane', 'Right-words-1', 'H1');
  clock.now = 60_000;
  t.notOk(v.has('jane', 'Right-words-1', 'H1'), 'its time is up');
  for (const name of ['a', 'b', 'c', 'd']) v.add(name, 'p', 'H');
  t.notOk(v.has('a', 'p', 'H'), 'at most `max` kept: the oldest goes');
  t.ok(v.has('d', 'p', 'H'));
});
