import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ErrorBody, apiErrorHandler, errorBody } from '../http-errors.js';
import type { HistoryRow, JobState } from '../db/jobs.js';
import type { User } from '../db/users.js';

/** The reference's history statuses (its `treatments` records): started, completed, error, abort. */
export function historyStatus(state: JobState): 'started' | 'completed' | 'error' | 'abort' {
  switch (state) {
    case 'running': return 'started';
    case 'done': return 'completed';
    case 'failed': return 'error';
    default: return 'abort';
  }
}

const HistoryItem = Type.Object({
  jobId: Type.String(),
  /** the submitter's login (its current one; a deleted account's: the one the job was sent with) */
  userId: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String(),
  status: Type.String(),
  state: Type.String(),
  endedAt: Type.Union([Type.String(), Type.Null()]),
  linesRead: Type.Integer(),
  events: Type.Integer(),
  denied: Type.Integer(),
  statusCode: Type.Union([Type.Integer(), Type.Null()]),
  statusMessage: Type.Union([Type.String(), Type.Null()]),
  /** for a caller who logged in with credentials: `?ticket=` for the links to the job's files */
  ticket: Type.Union([Type.String(), Type.Null()]),
});

const PageQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 1000, default: 100 }),
  /** the last job of the previous page: the jobs created before it */
  before: Type.Optional(Type.String({ maxLength: 64 })),
});

/**
 * Job histories, newest first (reference 4.1, 2.13): `GET /api/jobs`, every job, for
 * administrators; `GET /api/jobs/{userId}`, one account's jobs, for that account and
 * administrators. The history is the jobs table, so it lasts as long as the jobs' retention.
 * A page holds `limit` jobs; when it is full, a `Link: <…?before=ID>; rel="next"` header names
 * the next one.
 */
export default async function jobHistoryRoutes(instance: FastifyInstance): Promise<void> {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  app.setErrorHandler(apiErrorHandler);

  function page(request: FastifyRequest, reply: FastifyReply, path: string, query: { limit: number; before?: string }, owner?: number) {
    let before: { createdAt: string; id: string } | undefined;
    if (query.before !== undefined) {
      const row = app.jobStore.get(query.before);
      if (!row) return reply.code(400).send(errorBody(400, 'invalidParameter', `before: no job ${JSON.stringify(query.before)} (give the id of the last job of the previous page)`));
      before = { createdAt: row.created_at, id: row.id };
    }
    const rows = app.jobStore.history({ owner, before, limit: query.limit });
    reply.header('Cache-Control', 'no-store');
    if (rows.length === query.limit) {
      reply.header('Link', `<${path}?limit=${query.limit}&before=${rows[rows.length - 1].id}>; rel="next"`);
    }
    // Only a login with credentials earns tickets, as on the progress route.
    const caller: User | null = request.user && !request.viaTicket ? request.user : null;
    return rows.map((row) => item(row, caller ? (app.jobTickets.issue(row.id, String(caller.id)) ?? null) : null));
  }

  app.get('/api/jobs', {
    onRequest: app.requireAdmin,
    schema: { querystring: PageQuery, response: { 200: Type.Array(HistoryItem), '4xx': ErrorBody } },
  }, async (request, reply) => page(request, reply, '/api/jobs', request.query));

  app.get('/api/jobs/:userId', {
    onRequest: app.requireUser,
    schema: {
      params: Type.Object({ userId: Type.String({ maxLength: 320 }) }),
      querystring: PageQuery,
      response: { 200: Type.Array(HistoryItem), '4xx': ErrorBody },
    },
  }, async (request, reply) => {
    const caller = request.user!;
    const login = request.params.userId.trim().toLowerCase();
    const own = login === caller.username;
    // Another account's history is the administrators' only; whether it exists is not said to others.
    if (!own && caller.group !== 'admin') return reply.code(403).send(errorBody(403, 'forbidden'));
    const account = own ? caller : app.userStore.get(login);
    if (!account) return reply.code(404).send(errorBody(404, 'userNotFound'));
    return page(request, reply, `/api/jobs/${encodeURIComponent(account.username)}`, request.query, account.id);
  });
}

function item(row: HistoryRow, ticket: string | null) {
  return {
    jobId: row.id, userId: row.login, createdAt: row.created_at, status: historyStatus(row.state), state: row.state,
    endedAt: row.ended_at, linesRead: row.lines_read, events: row.events, denied: row.denied,
    statusCode: row.status_code, statusMessage: row.status_message, ticket,
  };
}
