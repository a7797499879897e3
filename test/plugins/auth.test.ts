import t from 'tap';
import type { FastifyRequest } from 'fastify';
import { isCrossSite, mayAccessJob } from '../../src/plugins/auth.js';
import type { User } from '../../src/db/users.js';

const user = (username: string, group: 'user' | 'admin'): User =>
  ({ id: 1, username, group, founder: false, createdAt: '', updatedAt: '' });

t.test('who may read a job', async (t) => {
  t.ok(mayAccessJob(user('a@example.org', 'admin'), 'b@example.org'), 'administrators');
  t.ok(mayAccessJob(user('b@example.org', 'user'), 'b@example.org'), 'the submitter');
  t.notOk(mayAccessJob(user('c@example.org', 'user'), 'b@example.org'), 'another user');
  t.notOk(mayAccessJob(null, 'b@example.org'), 'anonymous, for a job with an owner');
  t.ok(mayAccessJob(null, null), 'anonymous job');
  t.ok(mayAccessJob(user('c@example.org', 'user'), undefined));
});

t.test('cross-site requests', async (t) => {
  const req = (method: string, headers: Record<string, string>) => ({ method, headers }) as unknown as FastifyRequest;
  const base = 'https://logs.example.org';
  t.notOk(isCrossSite(req('POST', {}), base), 'a script');
  t.notOk(isCrossSite(req('GET', { 'sec-fetch-site': 'cross-site' }), base), 'reading');
  t.ok(isCrossSite(req('DELETE', { 'sec-fetch-site': 'cross-site' }), base));
  t.notOk(isCrossSite(req('POST', { 'sec-fetch-site': 'same-origin', origin: 'https://evil.example' }), base), 'Sec-Fetch-Site decides');
  t.notOk(isCrossSite(req('POST', { 'sec-fetch-site': 'none' }), base), 'typed in the address bar');
  t.notOk(isCrossSite(req('POST', { origin: 'http://127.0.0.1:8080', host: '127.0.0.1:8080' }), base), 'same host');
  t.notOk(isCrossSite(req('POST', { origin: 'https://logs.example.org', host: 'backend:59599' }), base), 'behind a proxy, the public URL');
  t.ok(isCrossSite(req('PUT', { origin: 'https://evil.example', host: 'logs.example.org' }), base));
  t.ok(isCrossSite(req('POST', { origin: 'null', host: 'logs.example.org' }), base));
});
