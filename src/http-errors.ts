import { STATUS_CODES as HTTP_STATUS } from 'node:http';
import type { FastifyError, FastifyReply, FastifyRequest, FastifySchemaValidationError, HookHandlerDoneFunction } from 'fastify';
import { Type } from '@fastify/type-provider-typebox';
import { StatusError } from './status-codes.js';
import { storageDetail } from './storage-errors.js';

/**
 * A refusal with a stable machine code (camelCase, routes.md 0.3), answered as
 * `{ statusCode, error, message: code }`; `detail` says more to a human when it helps.
 */
export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    readonly headers: Readonly<Record<string, string>> = {},
    readonly detail?: string,
  ) {
    super(code);
    this.name = 'ApiError';
  }
}

/** The error body of the admin and account routes. */
export const ErrorBody = Type.Object({
  statusCode: Type.Integer(),
  error: Type.String(),
  message: Type.String(),
  detail: Type.Optional(Type.String()),
});

export function errorBody(statusCode: number, code: string, detail?: string) {
  return { statusCode, error: HTTP_STATUS[statusCode] ?? 'Error', message: code, ...(detail ? { detail } : {}) };
}

export function sendApiError(reply: FastifyReply, err: ApiError): FastifyReply {
  return reply.code(err.statusCode).headers(err.headers).send(errorBody(err.statusCode, err.code, err.detail));
}

function camelCase(text: string): string {
  const words = text.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);
  return words.map((w, i) => (i === 0 ? w : w[0].toUpperCase() + w.slice(1))).join('');
}

/**
 * The service's SQLite file failing under a request (damaged, its disk full, locked, read-only) as
 * 5005 saying what to fix; undefined for any other error.
 */
export function databaseFailure(err: unknown, request: FastifyRequest): StatusError | undefined {
  const code = (err as { code?: unknown } | undefined)?.code;
  if (typeof code !== 'string' || !code.startsWith('SQLITE_')) return undefined;
  const detail = storageDetail(err, { database: request.server.jobStore.file });
  return detail === undefined ? undefined : new StatusError(5005, detail);
}

/**
 * Error handler for the JSON API routes: every error gets the `{ statusCode, error, message }`
 * body with a machine code; schema failures say which field is wrong; 5xx say nothing more.
 */
export function apiErrorHandler(error: FastifyError | ApiError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (error instanceof ApiError) return sendApiError(reply, error);
  if (error.validation) {
    // A POST without any body has none of the fields.
    if (error.validationContext === 'body' && request.body == null) return sendApiError(reply, new ApiError(400, 'fillAllFields'));
    return sendApiError(reply, new ApiError(400, 'invalidParameter', {}, error.message));
  }
  const status = error.statusCode ?? 500;
  const storage = status >= 500 ? databaseFailure(error, request) : undefined;
  if (storage) {
    request.log.error({ code: error.code }, `request failed: ${storage.message}`);
    return sendApiError(reply, new ApiError(503, 'storageFailed', {}, storage.message));
  }
  if (status >= 500) {
    request.log.error({ err: error }, 'request failed');
    return sendApiError(reply, new ApiError(500, 'internalError'));
  }
  const code = error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY'
    ? 'invalidBody'
    : camelCase(HTTP_STATUS[status] ?? 'error');
  return sendApiError(reply, new ApiError(status, code));
}

/**
 * Error handler for the public information routes: a refusal keeps Fastify's answer (a schema
 * failure names the field), but a 5xx says nothing of its cause, which goes to the log.
 */
export function hideServerErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const status = error.statusCode ?? 500;
  // Thrown on: the parent (Fastify's own) handler answers it.
  if (status >= 400 && status < 500) throw error;
  request.log.error({ err: error }, 'request failed');
  return reply.code(500).send(errorBody(500, 'internalError'));
}

const escapePointer = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

/** The JSON pointer of a number that is not finite in parsed data (objects and arrays only), if any. */
export function nonFinitePath(value: unknown): string | undefined {
  const queue: Array<[unknown, string]> = [[value, '']];
  for (let i = 0; i < queue.length; i++) {
    const [v, path] = queue[i];
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) return path;
    } else if (v !== null && typeof v === 'object') {
      // Parsed data only: a Buffer or stream body is not walked.
      const proto = Object.getPrototypeOf(v);
      if (!Array.isArray(v) && proto !== Object.prototype && proto !== null) continue;
      for (const [k, child] of Object.entries(v)) queue.push([child, `${path}/${escapePointer(k)}`]);
    }
  }
  return undefined;
}

const CHECKED_PARTS = [['params', 'params'], ['body', 'body'], ['querystring', 'query']] as const;

/**
 * preHandler for every route: Ajv's coercion reads `1e400` (and `Infinity`) as a number and
 * skips `minimum`/`maximum` for numbers that are not finite, so `?days=1e400` passed an integer
 * schema as Infinity and reached the handler. Such a value in a validated part is refused as a
 * schema failure of its field, the 400 every route's error handler already answers.
 */
export function refuseNonFiniteNumbers(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  const schema = request.routeOptions.schema;
  if (schema) {
    for (const [part, property] of CHECKED_PARTS) {
      if (!schema[part]) continue;
      // Fastify's params and query objects have prototypes of their own: copied to plain ones.
      const data = property === 'body' ? request.body : { ...(request[property] as object) };
      const path = nonFinitePath(data);
      if (path === undefined) continue;
      const validation: FastifySchemaValidationError[] = [{ keyword: 'type', instancePath: path, schemaPath: '', params: {}, message: 'must be a finite number' }];
      const error = Object.assign(schemaErrorFormatter(validation, part), { statusCode: 400, code: 'FST_ERR_VALIDATION', validation, validationContext: part });
      return done(error);
    }
  }
  done();
}

/**
 * The message of a schema failure (Fastify's `schemaErrorFormatter`, for every route): one part
 * per field, and a field limited to some values (a union of literals, an enum) says which, where
 * Ajv says "must be equal to constant" once per value and "must match a schema in anyOf".
 */
export function schemaErrorMessage(errors: readonly FastifySchemaValidationError[], dataVar: string): string {
  const fields = new Map<string, { allowed: unknown[]; others: string[]; union: string[] }>();
  for (const e of errors) {
    const path = `${dataVar}${e.instancePath}`;
    let field = fields.get(path);
    if (!field) fields.set(path, field = { allowed: [], others: [], union: [] });
    if (e.keyword === 'const') field.allowed.push(e.params.allowedValue);
    else if (e.keyword === 'enum') field.allowed.push(...(e.params.allowedValues as unknown[]));
    else if (e.keyword === 'anyOf' || e.keyword === 'oneOf') field.union.push(e.message ?? e.keyword);
    else if (e.keyword === 'additionalProperties') field.others.push(`must not have the property ${JSON.stringify(e.params.additionalProperty)}`);
    else field.others.push(e.message ?? e.keyword);
  }
  const parts: string[] = [];
  for (const [path, { allowed, others, union }] of fields) {
    const said = [...new Set(others)];
    if (allowed.length) said.unshift(`must be one of ${[...new Set(allowed)].map((v) => JSON.stringify(v)).join(', ')}`);
    // A union's own "must match a schema in anyOf" only when nothing says more.
    if (!said.length) said.push(...new Set(union));
    parts.push(`${path} ${said.join(' or ')}`);
  }
  return parts.join('; ');
}

export function schemaErrorFormatter(errors: FastifySchemaValidationError[], dataVar: string): Error {
  return new Error(schemaErrorMessage(errors, dataVar));
}
