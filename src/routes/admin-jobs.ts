import type { FastifyInstance } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Job } from '../pipeline/job-runner.js';
import { ErrorBody, apiErrorHandler } from '../http-errors.js';

const RunningJob = Type.Object({
  id: Type.String(),
  user: Type.Union([Type.String(), Type.Null()]),
  startedAt: Type.String(),
  state: Type.String(),
  bytesRead: Type.Integer(),
  linesRead: Type.Integer(),
  events: Type.Integer(),
  denied: Type.Integer(),
  rejects: Type.Record(Type.String(), Type.Integer()),
});

function details(job: Job) {
  return { id: job.id, user: job.meta.user?.username ?? null, startedAt: job.startedAt.toISOString(), state: job.state, ...job.progress() };
}

/**
 * POST /api/admin/restart: refused (409, empty) while jobs run, unless `?force=true`; else 200,
 * then the service closes (running jobs end with 5003) and exits with 75 for its supervisor to
 * start it again, as after an app update.
 *
 * GET /api/admin/jobs: the ids of the jobs running in this process (the reference's bare array),
 * or with `?details=1` one record per job with its progress and the user who submitted it.
 */
export default async function adminJobRoutes(instance: FastifyInstance): Promise<void> {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  app.setErrorHandler(apiErrorHandler);

  app.get('/jobs', {
    onRequest: app.requireAdmin,
    schema: {
      querystring: Type.Object({ details: Type.Optional(Type.Union(['0', '1', 'false', 'true'].map((v) => Type.Literal(v)))) }),
      response: { 200: Type.Union([Type.Array(Type.String()), Type.Array(RunningJob)]), '4xx': ErrorBody },
    },
  }, async (request) => {
    const jobs = app.runningJobs.list();
    const wanted = request.query.details === '1' || request.query.details === 'true';
    return wanted ? jobs.map(details) : jobs.map((j) => j.id);
  });

  app.post('/restart', {
    onRequest: app.requireAdmin,
    schema: {
      querystring: Type.Object({ force: Type.Optional(Type.Union(['true', 'false'].map((v) => Type.Literal(v)))) }),
    },
    // after the answer has gone: the close waits for it
    onResponse: async (_request, reply) => {
      if (reply.statusCode === 200) void app.restartService();
    },
  }, async (request, reply) => {
    const running = app.runningJobs.size;
    if (running > 0 && request.query.force !== 'true') {
      request.log.info({ running }, 'restart refused: jobs are running (?force=true ends them)');
      return reply.code(409).send('');
    }
    return reply.code(200).send('');
  });
}
