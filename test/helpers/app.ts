import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { readConfig, type Config } from '../../src/config.js';
import { SHARED_GEOIP_CACHE, SHARED_PLATFORMS_CACHE } from './shared-caches.js';

export interface TestApp {
  readonly app: FastifyInstance;
  /** base URL of the listening socket (http://127.0.0.1:PORT) */
  readonly url: string;
  readonly config: Config;
  readonly varDir: string;
  close(): Promise<void>;
}

/** Configuration values to change: the `limits`, `pool` and `jobs` sections one value at a time. */
export type ConfigOverrides = Partial<Omit<Config, 'limits' | 'pool' | 'jobs'>> & {
  readonly limits?: Partial<Config['limits']>;
  readonly pool?: Partial<Config['pool']>;
  readonly jobs?: Partial<Config['jobs']>;
};

/**
 * Starts the real service on a random loopback port with its own temporary var/ folder (SQLite
 * file, job folders). `overrides` change any configuration value (a small platforms folder,
 * pool size, limits…).
 */
export async function startApp(overrides: ConfigOverrides = {}, env: NodeJS.ProcessEnv = {}): Promise<TestApp> {
  const varDir = await mkdtemp(join(tmpdir(), 'logsift-test-'));
  const base = readConfig({ GEOIP_CACHE_DIR: SHARED_GEOIP_CACHE, PLATFORMS_CACHE_DIR: SHARED_PLATFORMS_CACHE, ...env, VAR_DIR: varDir, PORT: '0', HOST: '127.0.0.1', POOL_THREADS: env.POOL_THREADS ?? '2' });
  const config = readConfig({ GEOIP_CACHE_DIR: SHARED_GEOIP_CACHE, PLATFORMS_CACHE_DIR: SHARED_PLATFORMS_CACHE, ...env, VAR_DIR: varDir, PORT: '0', HOST: '127.0.0.1', POOL_THREADS: env.POOL_THREADS ?? '2' }, {
    ...overrides,
    limits: { ...base.limits, ...(overrides.limits ?? {}) },
    pool: { ...base.pool, ...(overrides.pool ?? {}) },
    jobs: { ...base.jobs, ...(overrides.jobs ?? {}) },
  });
  const app = await buildApp(config, false);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const url = `http://127.0.0.1:${port}`;
  return {
    app, url, config: app.config, varDir,
    async close() {
      await app.close();
      await rm(varDir, { recursive: true, force: true });
    },
  };
}

/** The default EZproxy format of the reference's examples. */
export const EZPROXY_DEFAULT = '%h %l %u %t "%r" %s %b';
