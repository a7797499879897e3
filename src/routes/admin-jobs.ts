import type { FastifyInstance } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Job } from '../pipeline/job-runner.js';
import { ErrorBody, apiErrorHandler, errorBody } from '../http-errors.js';
import { StatusError } from '../status-codes.js';

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
 * The parts whose update a restart would cut off half-way: any data part's, and the app's until it
 * has installed (then it waits for jobs to end before its own restart, which this one may hasten).
 */
export function updatesInTheWay(updating: readonly string[], appUpdateState: string): string[] {
  return updating.filter((part) => part !== 'app' || appUpdateState !== 'restarting');
}

/**
 * POST /api/admin/restart: refused (409, empty) while jobs run, unless `?force=true`; refused
 * (409 `updateInProgress`, saying which) while an update runs, whatever `force` says: force ends
 * jobs, which can be sent again, while an update cut off half-way leaves a broken install. Else
 * 200, then the service closes (running jobs end with 5003) and exits with 75 for its supervisor
 * to start it again, as after an app update; updates asked meanwhile are refused.
 *
 * GET /api/admin/jobs: the ids of the jobs running in this process (the reference's bare array),
 * or with `?details=1` one record per job with its progress and the user who submitted it.
 * DELETE /api/admin/jobs/{id}: stops that job (5006), 202; 404 when no such job runs.
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

  // One job ended without a restart: the operator's way out of a job its client holds open for
  // ever (ezPAARSE-Response-Timeout: 0) or that takes more than its share.
  app.delete('/jobs/:id', {
    onRequest: app.requireAdmin,
    schema: { params: Type.Object({ id: Type.String() }), response: { 202: Type.Null(), '4xx': ErrorBody } },
  }, async (request, reply) => {
    const job = app.runningJobs.get(request.params.id);
    if (!job || job.state !== 'running') return reply.code(404).send(errorBody(404, 'unknownJob', 'no job of this id runs in this service'));
    const by = request.user?.username ?? 'an administrator';
    request.log.warn({ job: job.id, by }, 'job stopped by an administrator');
    job.abort(new StatusError(5006, `stopped by ${by}`));
    return reply.code(202).send(null);
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
    const updating = updatesInTheWay(app.updates.updatingParts(), app.appUpdater.state);
    if (updating.length > 0) {
      const detail = `an update of ${updating.join(', ')} is running: a restart now would cut it off (force=true ends jobs, not updates); restart once it has ended`;
      request.log.info({ updating }, `restart refused: ${detail}`);
      return reply.code(409).send(errorBody(409, 'updateInProgress', detail));
    }
    const running = app.runningJobs.size;
    if (running > 0 && request.query.force !== 'true') {
      request.log.info({ running }, 'restart refused: jobs are running (?force=true ends them)');
      return reply.code(409).send('');
    }
    // at once, in the same turn as the check: no update may start between the answer and the exit
    app.updates.refuseUpdates('the service is restarting');
    return reply.code(200).send('');
  });
}
