import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { mayAccessJob } from '../plugins/auth.js';
import { errorBody, ErrorBody } from '../http-errors.js';
import { findResultFile, isJobId, jobDir } from '../pipeline/job-files.js';
import { visibleText } from '../pipeline/job-inputs.js';
import type { JobRow } from '../db/jobs.js';
import { jobCharset, sendFile } from './job-files.js';
import { contentTypeWithCharset } from '../pipeline/writers/encoding.js';

const JobParams = Type.Object({ jobId: Type.String({ maxLength: 64 }) });

const RESULT_TYPES: Readonly<Record<string, string>> = {
  csv: 'text/csv; charset=utf-8',
  txt: 'text/tab-separated-values; charset=utf-8',
  json: 'application/json; charset=utf-8',
  log: 'text/plain; charset=utf-8',
  gz: 'application/gzip',
  zz: 'application/octet-stream',
};

export const JobProgressSchema = Type.Object({
  id: Type.String(),
  state: Type.String(),
  running: Type.Boolean(),
  startedAt: Type.String(),
  endedAt: Type.Union([Type.String(), Type.Null()]),
  elapsedMs: Type.Integer(),
  bytesRead: Type.Integer(),
  linesRead: Type.Integer(),
  events: Type.Integer(),
  denied: Type.Integer(),
  rejects: Type.Record(Type.String(), Type.Integer()),
  linesPerSecond: Type.Integer(),
  eventsPerSecond: Type.Integer(),
  status: Type.Union([Type.Object({ code: Type.Integer(), message: Type.String() }), Type.Null()]),
  /** a deferred job's result file is there (`GET /{jobID}`) */
  result: Type.Boolean(),
  predefinedSettings: Type.Union([Type.String(), Type.Null()]),
  /**
   * for a caller who logged in with credentials: `?ticket=` to add to the links of the job's files
   * (a page cannot put its credentials in a link); null otherwise (a call made with a ticket included)
   */
  ticket: Type.Union([Type.String(), Type.Null()]),
});

/**
 * The file name a client asks its download to have (`?filename=`): its last part only, since a
 * careless client (curl -J, a script) saves under the suggested name, and without controls;
 * undefined when nothing usable is left.
 */
export function suggestedName(wanted: string | undefined): string | undefined {
  const name = visibleText(wanted?.split(/[/\\]/).pop() ?? '').trim();
  return name === '' || /^\.+$/.test(name) ? undefined : name;
}

/** RFC 6266: an ASCII fallback and the exact name percent-encoded. */
export function attachment(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

const perSecond = (n: number, ms: number) => (ms > 0 ? Math.round((n * 1000) / ms) : 0);

/**
 * A deferred job's result (`GET /{jobID}`) and the live progress of any job
 * (`GET /api/jobs/{jobID}/progress`): from the running job while it runs, from its row once it
 * has ended (that also works for the jobs of another process sharing the database).
 */
export default async function jobResultRoutes(instance: FastifyInstance): Promise<void> {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const varDir = app.config.varDir;

  const notFound = (reply: FastifyReply, message = 'jobNotFound') => reply.code(404).send(errorBody(404, message));

  /** The job's owner, or undefined when no such job is known (row or running job). */
  const owner = (id: string): { known: boolean; owner: number | null; row?: JobRow } => {
    const running = app.runningJobs.get(id);
    if (running) return { known: true, owner: running.meta.user?.id ?? null };
    const row = app.jobStore.get(id);
    return row ? { known: true, owner: row.owner, row } : { known: false, owner: null };
  };

  // Before the login check: any other one-segment path (`/favicon.ico`) is a plain 404, not a login prompt.
  const checkId = async (request: FastifyRequest, reply: FastifyReply) => {
    const { jobId } = request.params as { jobId: string };
    if (!isJobId(jobId)) return notFound(reply);
  };

  /** After the login check (AUTH_JOBS): the job's files are its submitter's and the administrators'. */
  const checkJob = async (request: FastifyRequest, reply: FastifyReply) => {
    const { jobId } = request.params as { jobId: string };
    const o = owner(jobId);
    if (o.known && !mayAccessJob(request.user, o.owner)) return reply.code(403).send(errorBody(403, 'forbidden'));
  };

  // `/{jobID}/` too: the reference's route takes an optional trailing slash
  for (const path of ['/:jobId', '/:jobId/']) app.get(path, {
    onRequest: [checkId, app.requireJobAccess],
    preHandler: checkJob,
    schema: { params: JobParams, querystring: Type.Object({ filename: Type.Optional(Type.String({ maxLength: 200 })) }) },
  }, async (request, reply) => {
    const { jobId } = request.params;
    if (app.runningJobs.get(jobId)) return reply.code(409).header('Retry-After', '5').send(errorBody(409, 'jobRunning', 'the result is complete once the job has ended'));
    const dir = jobDir(varDir, jobId);
    const file = await findResultFile(dir);
    if (!file) return notFound(reply, 'resultNotFound');
    const info = await stat(join(dir, file)).catch(() => undefined);
    if (!info?.isFile()) return notFound(reply, 'resultNotFound');
    const last = file.slice(file.lastIndexOf('.') + 1);
    const wanted = suggestedName(request.query.filename);
    const name = wanted ? `${wanted}.${last}` : `${jobId.slice(0, 8)}_${file}`;
    const type = RESULT_TYPES[last] ?? 'application/octet-stream';
    reply
      .header('Content-Disposition', attachment(name))
      .header('Cache-Control', 'no-store')
      .header('X-Content-Type-Options', 'nosniff');
    return sendFile(request, reply, join(dir, file), info, type.includes('charset=') ? contentTypeWithCharset(type, jobCharset(app, jobId)) : type);
  });

  app.get('/api/jobs/:jobId/progress', {
    onRequest: [checkId, app.requireJobAccess],
    preHandler: checkJob,
    schema: { params: JobParams, response: { 200: JobProgressSchema, '4xx': ErrorBody } },
  }, async (request, reply) => {
    const { jobId } = request.params;
    reply.header('Cache-Control', 'no-store');
    // Only a login with credentials earns a ticket: one opened with a ticket would renew it forever.
    const ticket = request.user && !request.viaTicket ? (app.jobTickets.issue(jobId, String(request.user.id)) ?? null) : null;
    const job = app.runningJobs.get(jobId);
    if (job) {
      const p = job.progress();
      const elapsedMs = Date.now() - job.startedAt.getTime();
      return {
        id: jobId, state: job.state, running: true, startedAt: job.startedAt.toISOString(), endedAt: null, elapsedMs,
        ...p,
        linesPerSecond: perSecond(p.linesRead, elapsedMs), eventsPerSecond: perSecond(p.events, elapsedMs),
        status: null, result: false, predefinedSettings: job.meta.predefinedSettings ?? null, ticket,
      };
    }
    const row = app.jobStore.get(jobId);
    if (!row) return notFound(reply);
    const endedAt = row.ended_at;
    const elapsedMs = Math.max(0, Date.parse(endedAt ?? new Date().toISOString()) - Date.parse(row.created_at));
    const report = parseJson(row.report) as { general?: Record<string, unknown> } | undefined;
    const setting = report?.general?.['predefined-settings'];
    return {
      id: jobId, state: row.state, running: false, startedAt: row.created_at, endedAt, elapsedMs,
      bytesRead: row.bytes_read, linesRead: row.lines_read, events: row.events, denied: row.denied,
      rejects: (parseJson(row.rejects) as Record<string, number> | undefined) ?? {},
      linesPerSecond: perSecond(row.lines_read, elapsedMs), eventsPerSecond: perSecond(row.events, elapsedMs),
      status: row.status_code === null ? null : { code: row.status_code, message: row.status_message ?? '' },
      result: (await findResultFile(jobDir(varDir, jobId))) !== undefined,
      predefinedSettings: typeof setting === 'string' ? setting : null,
      ticket,
    };
  });
}

function parseJson(text: string | null): unknown {
  if (text === null) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
