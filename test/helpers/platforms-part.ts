import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Test } from 'tap';
import { startGitServer, type GitServer } from './git-server.js';
import { cloneInto, demoPlatform, Upstream } from './git-fixtures.js';
import { startService, tempDir } from './service.js';

export interface PlatformsPart {
  readonly app: FastifyInstance;
  /** the origin, served by `server` */
  readonly up: Upstream;
  readonly server: GitServer;
  /** the part's work tree and metadata folder */
  readonly dir: string;
  readonly gitdir: string;
  readonly varDir: string;
}

/**
 * An origin holding the demo platform, served over HTTP and cloned as the platforms part
 * (metadata under repos/.gitdirs), and the service running on it (its log lines into `logs`, if given).
 */
export async function platformsClone(t: Test, env: Record<string, string> = {}, logs?: string[]): Promise<PlatformsPart> {
  const root = await tempDir(t);
  const server = await startGitServer(join(root, 'served'));
  t.teardown(() => server.close());
  const up = new Upstream(server.root, server.url, 'platforms');
  await up.init(demoPlatform('ARTICLE'));
  const dir = join(root, 'repos', 'platforms');
  const gitdir = join(root, 'repos', '.gitdirs', 'platforms');
  await cloneInto(up.url, dir, gitdir);
  const { app, config } = await startService(t, root, { env: { PLATFORMS_ORIGIN: up.url, ...env }, logs });
  return { app, up, server, dir, gitdir, varDir: config.varDir };
}
