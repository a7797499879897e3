import t from 'tap';
import { JobTickets, TICKET_TTL_MS } from '../../src/plugins/auth.js';

const JOB = '0123abcd-0000-4000-8000-000000000001';
const OTHER = '0123abcd-0000-4000-8000-000000000002';

const stamps = new Map([['jane@example.org', '$argon2id$jane-1'], ['admin@example.org', '$argon2id$admin-1']]);
const stampOf = (username: string) => stamps.get(username);

t.test('a ticket stands for its user, for its job only, until it expires', async (t) => {
  const tickets = new JobTickets(stampOf);
  const now = Date.now();
  const ticket = tickets.issue(JOB, 'jane@example.org', now)!;
  t.same(tickets.check(ticket, JOB, now), { subject: 'jane@example.org' });
  t.equal(tickets.check(ticket, OTHER, now), undefined, 'another job');
  t.equal(tickets.check(ticket, JOB, now + TICKET_TTL_MS + 1000), undefined, 'expired');
  t.same(tickets.check(tickets.issue(JOB, null, now)!, JOB, now), { subject: null }, 'an anonymous job');
  const [expires, user, mac] = ticket.split('.');
  const forged = [String(Number(expires) + 3600), user, mac].join('.');
  t.equal(tickets.check(forged, JOB, now), undefined, 'a later expiry breaks the signature');
  const admin = [expires, Buffer.from('admin@example.org').toString('base64url'), mac].join('.');
  t.equal(tickets.check(admin, JOB, now), undefined, 'another user breaks it too');
  for (const bad of ['', 'x', '1.2', '1.2.3.4', `${expires}..${mac}`]) t.equal(tickets.check(bad, JOB, now), undefined, JSON.stringify(bad));
  t.equal(new JobTickets(stampOf).check(ticket, JOB, now), undefined, 'another process (key) does not know it');
});

t.test('a ticket ends with its account\'s password', async (t) => {
  const mine = new Map([['jane@example.org', '$argon2id$jane-1']]);
  const tickets = new JobTickets((username) => mine.get(username));
  const now = Date.now();
  const ticket = tickets.issue(JOB, 'jane@example.org', now)!;
  t.same(tickets.check(ticket, JOB, now), { subject: 'jane@example.org' });
  mine.set('jane@example.org', '$argon2id$jane-2');
  t.equal(tickets.check(ticket, JOB, now), undefined, 'a new password');
  mine.set('jane@example.org', '$argon2id$jane-1');
  t.ok(tickets.check(ticket, JOB, now), 'bound to the stamp, nothing else');
  mine.delete('jane@example.org');
  t.equal(tickets.check(ticket, JOB, now), undefined, 'the account is gone');
  t.equal(tickets.issue(JOB, 'jane@example.org', now), undefined, 'no ticket for an account that is gone');
});
