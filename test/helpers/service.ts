import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { Test } from 'tap';
import { buildApp, type BuildOptions } from '../../src/app.js';
import { readConfig, type Config } from '../../src/config.js';
import { SHARED_GEOIP_CACHE, SHARED_PLATFORMS_CACHE } from './shared-caches.js';

import { ADMIN, basic } from './accounts.js';

/** Headers of an admin request: the administrator `startService` registers. */
export function adminHeaders(): Record<string, string> {
  return { authorization: basic(ADMIN.userid, ADMIN.password) };
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
  /** given: the service logs (level info) and each line goes here */
  readonly logs?: string[];
}

/** The service on temporary var/ and repos/ folders under `root`, one worker, closed at the end of the test. */
export async function startService(t: Test, root: string, opts: ServiceOptions = {}): Promise<{ app: FastifyInstance; config: Config }> {
  // the app part outside a git checkout (an APP_DIR must exist)
  await mkdir(join(root, 'no-app-checkout'), { recursive: true });
  const config = readConfig({
    VAR_DIR: join(root, 'var'),
    REPOS_DIR: join(root, 'repos'),
    APP_DIR: join(root, 'no-app-checkout'),
    POOL_THREADS: '1',
    GEOIP_CACHE_DIR: SHARED_GEOIP_CACHE, PLATFORMS_CACHE_DIR: SHARED_PLATFORMS_CACHE,
    // these tests post jobs anonymously while an administrator exists
    AUTH_JOBS: 'never',
    ...opts.env,
  });
  const logs = opts.logs;
  const stream = logs && new Writable({
    write(chunk, _encoding, done) {
      logs.push(String(chunk));
      done();
    },
  });
  const logger = stream ? { level: 'info', stream } : false;
  const app = await buildApp(config, logger, opts.build);
  t.teardown(() => app.close());
  const res = await app.inject({ method: 'POST', url: '/api/admin/register', payload: { userid: ADMIN.userid, password: ADMIN.password, confirm: ADMIN.password } });
  // 409: started again on the same var/ folder, the administrator is there already
  if (res.statusCode !== 201 && res.statusCode !== 409) throw new Error(`could not register the test administrator: ${res.body}`);
  return { app, config };
}
