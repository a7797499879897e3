import t from 'tap';
import { generatePassword, hashPassword, passwordProblem, verifyPassword } from '../../src/auth/passwords.js';
import { normaliseAddress } from '../../src/auth/addresses.js';

t.test('argon2id hashes, salted, verified', async (t) => {
  const a = await hashPassword('Correct-Horse-1');
  const b = await hashPassword('Correct-Horse-1');
  t.match(a, /^\$argon2id\$v=19\$m=65536,p=4,t=3\$/);
  t.not(a, b, 'a random salt per hash');
  t.ok(await verifyPassword(a, 'Correct-Horse-1'));
  t.notOk(await verifyPassword(a, 'correct-horse-1'));
  t.notOk(await verifyPassword('not a hash', 'Correct-Horse-1'), 'a malformed hash fails the check');
  // composed and decomposed forms of the same text
  const c = await hashPassword('Caf\u00e9-au-lait-9');
  t.ok(await verifyPassword(c, 'Cafe\u0301-au-lait-9'));
});

t.test('password policy', async (t) => {
  t.equal(passwordProblem('Short-1'), 'weakPassword', 'too short');
  t.equal(passwordProblem('abcdefghijklmnop'), 'weakPassword', 'one class');
  t.equal(passwordProblem('12345678901234'), 'weakPassword', 'digits only');
  t.equal(passwordProblem('correct horse battery'), undefined, 'letters and spaces');
  t.equal(passwordProblem('Janedoe2024!', 'janedoe@example.org'), 'weakPassword', 'contains the local part');
  t.equal(passwordProblem('x-JANEDOE@EXAMPLE.ORG', 'janedoe@example.org'), 'weakPassword', 'contains the address');
  t.equal(passwordProblem('Strong-enough-1', 'jo@example.org'), undefined, 'a short local part is not searched');
  t.equal(passwordProblem('tab\tinside-Password'), 'invalidPassword', 'control characters');
  t.equal(passwordProblem('aB'.repeat(513)), 'invalidPassword', 'too long');
  t.equal(passwordProblem('aB3'.repeat(4)), undefined);
});

t.test('generated passwords pass the policy and differ', async (t) => {
  const seen = new Set<string>();
  for (let i = 0; i < 200; i++) {
    const p = generatePassword();
    t.equal(passwordProblem(p), undefined);
    t.equal(p.length, 24);
    seen.add(p);
  }
  t.equal(seen.size, 200);
});

t.test('mail addresses', async (t) => {
  t.equal(normaliseAddress('  Jane.Doe+logs@Example.ORG '), 'jane.doe+logs@example.org');
  for (const bad of ['jane', 'jane@', '@example.org', 'jane@localhost', 'ja ne@example.org', 'jane@@example.org',
    'jane@-example.org', 'jane@example..org', '.jane@example.org', 'jane:x@example.org', `${'a'.repeat(65)}@example.org`,
    `a@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.${'e'.repeat(63)}.org`]) {
    t.equal(normaliseAddress(bad), undefined, bad);
  }
});
