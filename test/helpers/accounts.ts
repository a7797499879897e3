import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import type { Test } from 'tap';
import { readConfig } from '../../src/config.js';
import { SHARED_GEOIP_CACHE, SHARED_PLATFORMS_CACHE } from './shared-caches.js';
import { buildApp, type BuildOptions } from '../../src/app.js';

export interface InjectApp {
  readonly app: FastifyInstance;
  /** every log line the service wrote */
  readonly logs: string[];
  /** every response body `inject` received */
  readonly bodies: string[];
  inject(options: InjectOptions): Promise<LightMyRequestResponse>;
  /** listens on a free port (for streamed jobs) and answers the base URL */
  listen(): Promise<string>;
}

/**
 * The whole service on a temporary folder (its SQLite file and job folders), without platforms
 * (fast to start), one parsing thread and trace-level logs kept in memory; closed after the test.
 */
export async function testApp(t: Test, env: Record<string, string> = {}, build: BuildOptions = {}): Promise<InjectApp> {
  const varDir = mkdtempSync(join(tmpdir(), 'logsift-test-'));
  const platformsDir = join(varDir, 'no-platforms');
  mkdirSync(platformsDir);
  const logs: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      logs.push(String(chunk));
      done();
    },
  });
  const config = readConfig({ VAR_DIR: varDir, PLATFORMS_DIR: platformsDir, POOL_THREADS: '1', GEOIP_CACHE_DIR: SHARED_GEOIP_CACHE, PLATFORMS_CACHE_DIR: SHARED_PLATFORMS_CACHE, ...env });
  const app = await buildApp(config, { level: 'trace', stream }, build);
  t.teardown(async () => {
    await app.close();
    rmSync(varDir, { recursive: true, force: true });
  });
  const bodies: string[] = [];
  return {
    app,
    logs,
    bodies,
    async inject(options) {
      const res = await app.inject(options);
      bodies.push(res.body);
      return res;
    },
    async listen() {
      await app.listen({ host: '127.0.0.1', port: 0 });
      return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    },
  };
}

export function basic(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
}

export const ADMIN = { userid: 'admin@example.org', password: 'Correct-Horse-1' };

/** Registers the founding administrator through the route and answers its Authorization header. */
export async function registerAdmin(t: Test, ta: InjectApp): Promise<string> {
  const res = await ta.inject({
    method: 'POST', url: '/api/admin/register',
    payload: { userid: ADMIN.userid, password: ADMIN.password, confirm: ADMIN.password },
  });
  t.equal(res.statusCode, 201, 'administrator registered');
  return basic(ADMIN.userid, ADMIN.password);
}

export const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
export const USER = { userid: 'jane@example.org', password: 'Secret-words-7' };

export function form(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString();
}

/** The administrator and a user (USER), created through the routes; answers their Authorization headers. */
export async function withUsers(t: Test, ta: InjectApp): Promise<{ admin: string; user: string }> {
  const admin = await registerAdmin(t, ta);
  const res = await ta.inject({ method: 'POST', url: '/api/admin/users', headers: { authorization: admin }, payload: USER });
  t.equal(res.statusCode, 201, 'user created');
  return { admin, user: basic(USER.userid, USER.password) };
}
