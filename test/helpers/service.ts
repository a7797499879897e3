import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Test } from 'tap';
import { buildApp, type BuildOptions } from '../../src/app.js';
import { readConfig, type Config } from '../../src/config.js';

const ADMIN = { username: 'admin@example.org', password: 'a test password' };

/**
 * Headers of an admin request. The interim auth of issue 7 reads one admin from the environment;
 * with issue 6's accounts this is where a test admin gets created instead.
 */
export function adminHeaders(): Record<string, string> {
  process.env.ADMIN_USERNAME = ADMIN.username;
  process.env.ADMIN_PASSWORD = ADMIN.password;
  return { authorization: `Basic ${Buffer.from(`${ADMIN.username}:${ADMIN.password}`).toString('base64')}` };
}

/** A temporary folder removed when the test ends. */
export async function tempDir(t: Test, prefix = 'logsift-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

export interface ServiceOptions {
  /** environment variables for readConfig (VAR_DIR and REPOS_DIR default to folders of `root`) */
  readonly env?: Record<string, string>;
  readonly build?: BuildOptions;
}

/** The service on temporary var/ and repos/ folders under `root`, one worker, closed at the end of the test. */
export async function startService(t: Test, root: string, opts: ServiceOptions = {}): Promise<{ app: FastifyInstance; config: Config }> {
  adminHeaders();
  const config = readConfig({
    VAR_DIR: join(root, 'var'),
    REPOS_DIR: join(root, 'repos'),
    APP_DIR: join(root, 'no-app-checkout'),
    POOL_THREADS: '1',
    ...opts.env,
  });
  const app = await buildApp(config, false, opts.build);
  t.teardown(() => app.close());
  return { app, config };
}
