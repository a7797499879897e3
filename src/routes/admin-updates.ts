import type { FastifyInstance } from 'fastify';
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { UpdateError } from '../updates/operations.js';
import { hidePaths } from '../updates/hide-paths.js';
import type { PartName } from '../updates/parts.js';

const StatusRecord = Type.Object({
  'is-git-repo': Type.Boolean(),
  current: Type.Optional(Type.String()),
  head: Type.Optional(Type.String()),
  tag: Type.Optional(Type.String()),
  'from-head': Type.Optional(Type.Union([Type.Literal('uptodate'), Type.Literal('outdated')])),
  'from-tag': Type.Optional(Type.Union([Type.Literal('uptodate'), Type.Literal('outdated'), Type.Literal('upward')])),
  'local-commits': Type.Optional(Type.Boolean()),
  'local-changes': Type.Optional(Type.Boolean()),
  branch: Type.Optional(Type.String()),
  headOid: Type.Optional(Type.String()),
  remoteOid: Type.Optional(Type.String()),
  origin: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  fetchedAt: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  error: Type.Optional(Type.String()),
  bundled: Type.Optional(Type.Boolean()),
  updating: Type.Optional(Type.Boolean()),
  buildPending: Type.Optional(Type.String()),
  loadedOid: Type.Optional(Type.String()),
  reloadNeeded: Type.Optional(Type.Boolean()),
});

const ErrorBody = Type.Object({
  statusCode: Type.Integer(),
  error: Type.String(),
  message: Type.String(),
  detail: Type.Optional(Type.String()),
});

const UpdateLog = Type.Object({
  state: Type.String(),
  request: Type.Optional(Type.Object({ version: Type.String(), force: Type.Boolean(), rebuild: Type.Boolean() })),
  startedAt: Type.Optional(Type.String()),
  endedAt: Type.Optional(Type.String()),
  target: Type.Optional(Type.String()),
  error: Type.Optional(Type.String()),
  offset: Type.Integer(),
  lines: Type.Array(Type.String()),
});

const PartParams = Type.Object({ part: Type.String() });
const YesNo = Type.Union([Type.Literal('yes'), Type.Literal('no')]);
const Flag = Type.Union([Type.Literal('1'), Type.Literal('0'), Type.Literal('true'), Type.Literal('false')]);

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody, 413: ErrorBody, 500: ErrorBody, 502: ErrorBody };

const ERROR_TEXT: Record<number, string> = {
  400: 'Bad Request', 404: 'Not Found', 409: 'Conflict', 413: 'Payload Too Large', 500: 'Internal Server Error', 502: 'Bad Gateway',
};

/** The error body of reference 0.3: a stable code in `message`, the reason in `detail`. */
function errorBody(e: UpdateError): { statusCode: number; error: string; message: string; detail?: string } {
  const body: { statusCode: number; error: string; message: string; detail?: string } = { statusCode: e.http, error: ERROR_TEXT[e.http] ?? 'Error', message: e.code };
  if (e.detail) body.detail = e.detail;
  return body;
}

/** Accepted PUT bodies: none, the text `uptodate`, or JSON `{"to":"uptodate"}` (reference 3.3). */
export function isUpdateBody(body: unknown): boolean {
  if (body === undefined || body === null) return true;
  if (typeof body !== 'string') return false;
  const text = body.trim();
  if (text === '' || text === 'uptodate') return true;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      && Object.keys(value).length === 1 && (value as { to?: unknown }).to === 'uptodate';
  } catch {
    return false;
  }
}

/**
 * Admin routes of the updatable parts (reference 2.12 and 3.3):
 * `GET /api/admin/{part}/status`, `PUT /api/admin/{part}/status`, `GET /api/admin/app/update-log`.
 */
export default async function adminUpdateRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  // Bodies are read as text whatever their type, then checked by isUpdateBody.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: 4096 }, (_req, body, done) => done(null, body));

  // Handlers throw; refusals (UpdateError) keep their status, anything unexpected is a 500 with its
  // reason: whole in the log, in the answer naming the part rather than the service's folders
  // (a 5xx says nothing of the server: reference 0.3).
  app.setErrorHandler((err: Error & { validation?: unknown; statusCode?: number; code?: string }, request, reply) => {
    let e: UpdateError;
    if (err instanceof UpdateError) e = err;
    else if (err.validation) e = new UpdateError(400, 'invalidRequest', err.message);
    else if (err.statusCode && err.statusCode < 500) e = new UpdateError(err.statusCode, err.code ?? 'badRequest', err.message);
    else {
      const part = (request.params as { part?: string } | undefined)?.part;
      request.log.error({ err, part }, 'update route failed');
      const reason = hidePaths(err.message, app.updates.pathLabels());
      const named = part && app.updates.has(part) && !reason.startsWith(part) ? `${part}: ${reason}` : reason;
      e = new UpdateError(500, request.method === 'GET' ? 'statusFailed' : 'updateFailed', named);
    }
    if (e.http >= 500 && e.detail) e = new UpdateError(e.http, e.code, hidePaths(e.detail, app.updates.pathLabels()));
    return reply.code(e.http).send(errorBody(e));
  });

  const knownPart = (part: string): PartName => {
    if (!app.updates.has(part)) throw new UpdateError(404, 'unknownRepository');
    return part;
  };

  app.get('/api/admin/:part/status', {
    preHandler: app.requireAdmin,
    schema: {
      params: PartParams,
      querystring: Type.Object({ refresh: Type.Optional(Flag) }),
      response: { 200: StatusRecord, ...errors },
    },
  }, async (request) => {
    const refresh = request.query.refresh === '1' || request.query.refresh === 'true';
    return app.updates.status(knownPart(request.params.part), { refresh });
  });

  app.put('/api/admin/:part/status', {
    preHandler: app.requireAdmin,
    schema: {
      params: PartParams,
      querystring: Type.Object({
        force: Type.Optional(YesNo),
        version: Type.Optional(Type.Union([Type.Literal('stable'), Type.Literal('latest')])),
        rebuild: Type.Optional(YesNo),
      }),
      response: { 200: StatusRecord, 202: Type.Object({ status: Type.Literal('started') }), ...errors },
    },
  }, async (request, reply) => {
    const part = knownPart(request.params.part);
    if (!isUpdateBody(request.body)) throw new UpdateError(400, 'invalidBody', 'send no body, "uptodate" or {"to":"uptodate"}');
    const force = request.query.force === 'yes';
    if (part !== 'app') return app.updates.update(part, { force });
    await app.appUpdater.start({ version: request.query.version ?? 'stable', force, rebuild: request.query.rebuild !== 'no' });
    return reply.code(202).send({ status: 'started' as const });
  });

  app.get('/api/admin/app/update-log', {
    preHandler: app.requireAdmin,
    schema: {
      querystring: Type.Object({ since: Type.Optional(Type.Integer({ minimum: 0 })) }),
      response: { 200: UpdateLog, 401: ErrorBody, 403: ErrorBody },
    },
  }, async (request) => app.appUpdater.log(request.query.since ?? 0));
}
