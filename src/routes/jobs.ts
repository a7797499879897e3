import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RuntimeLease } from '../plugins/platforms.js';
import { StatusError, isStatusError, STATUS_CODES } from '../status-codes.js';
import { header, readJobOptions, type JobOptions } from '../pipeline/job-options.js';
import { Job } from '../pipeline/job-runner.js';
import { requestInputs } from '../pipeline/job-inputs.js';
import { ResponseOutput, headerSafe } from '../pipeline/job-output.js';
import { REJECT_CATEGORIES, type RejectCategory } from '../pipeline/stages/types.js';
import type { JobUrls } from '../pipeline/job-files.js';

/** `unknown-formats` → `Lines-Unknown-Formats`, `pkb-miss-ecs` → `Lines-PKB-Miss-ECs`. */
export function rejectHeaderName(category: RejectCategory): string {
  const words = category.split('-').map((w) => (w === 'ecs' ? 'ECs' : w === 'pkb' ? 'PKB' : w[0].toUpperCase() + w.slice(1)));
  return `Lines-${words.join('-')}`;
}

/** The job headers of reference 6.5, with the absolute URLs of the job's files. */
export function jobHeaders(id: string, urls: JobUrls, version: string): Record<string, string> {
  const headers: Record<string, string> = {
    'Job-ID': id,
    'Job-Report': urls.report,
    'Job-Traces': urls.traces,
    'Denied-ECs': urls.denied,
    'ezPAARSE-Version': version,
  };
  // Every Lines-* header is sent, as the reference does (its clients look for them); a file
  // that was not asked for in Reject-Files answers 404.
  for (const c of REJECT_CATEGORIES) headers[rejectHeaderName(c)] = urls.rejects[c];
  return headers;
}

/** The error answer when nothing was sent yet: its HTTP status, the status headers, a JSON body. */
export function sendStatusError(res: ServerResponse, error: StatusError, extra: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  const message = headerSafe(error.message);
  const body = JSON.stringify({
    statusCode: error.http,
    error: STATUS_TEXT[error.http] ?? 'Error',
    message: error.http >= 500 && error.code === 5000 ? 'An internal server error occurred' : error.message,
    code: error.code,
  });
  res.writeHead(error.http, {
    ...extra,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    'Service-Status': String(error.code),
    'Service-Status-Message': message,
    'ezPAARSE-Status': String(error.code),
    'ezPAARSE-Status-Message': message,
  });
  res.end(body);
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request', 406: 'Not Acceptable', 408: 'Request Timeout', 409: 'Conflict', 413: 'Payload Too Large',
  422: 'Unprocessable Entity', 499: 'Client Closed Request', 500: 'Internal Server Error', 503: 'Service Unavailable',
};

/** POST /: a job whose events stream back in the response while the upload is read. */
export default async function jobRoutes(app: FastifyInstance): Promise<void> {
  // The body is the job's input: no parser may read it; the handler streams it.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_req, _payload, done) => done(null));

  // The login check answers before the upload is read and the handler hijacks the reply
  // (AUTH_JOBS decides when one is needed).
  app.post('/', { onRequest: app.requireJobAccess }, async (request, reply) => {
    // The job runs to its end with the platforms, pool and versions current now, even if an
    // update installs new ones meanwhile.
    const lease = app.runtime.acquire();
    try {
      await handleJobRequest(app, request, reply, lease);
    } finally {
      lease.release();
    }
  });
}

/** Checks the job's headers and the concurrency limit, then runs the job. */
async function handleJobRequest(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply, lease: RuntimeLease): Promise<void> {
  const version = app.appVersion;
  let options: JobOptions;
  try {
    options = readJobOptions(request.headers, {
      platforms: lease.platforms.names,
      middlewares: lease.platforms.resources.middlewareModules,
      defaultMiddlewares: app.config.middlewares,
    });
  } catch (err) {
    const error = isStatusError(err) ? err : new StatusError(5000, (err as Error).message);
    reply.hijack();
    discardRest(request);
    sendStatusError(reply.raw, error, { 'ezPAARSE-Version': version });
    return;
  }
  const limit = app.config.limits.maxConcurrentJobs;
  if (limit > 0 && app.runningJobs.size >= limit) {
    reply.hijack();
    discardRest(request);
    sendStatusError(reply.raw, new StatusError(5004, `${limit} jobs are running`), { 'Retry-After': '30' });
    return;
  }
  reply.hijack();
  await runJob(app, request, reply.raw, options, lease);
}

async function runJob(app: FastifyInstance, request: FastifyRequest, res: ServerResponse, options: JobOptions, lease: RuntimeLease): Promise<void> {
  const id = randomUUID();
  const job = new Job(
    {
      config: app.config,
      baseUrl: app.baseUrl(request),
      pool: lease.pool,
      store: app.jobStore,
      versions: lease.versions,
      build: app.buildInfo,
      platformVersion: (code) => lease.platforms.sources.find((s) => s.manifest.name === code)?.manifest.version,
    },
    options,
    { id, userId: request.user?.username, userAgent: header(request.headers, 'user-agent') },
  );
  const headers = jobHeaders(id, job.urls, app.appVersion);
  const output = new ResponseOutput(res, () => job.frame(), options.responseEncoding, options.output.contentType, () => headers);
  job.onFailBeforeOutput = (error) => {
    discardRest(request);
    sendStatusError(res, error, headers);
  };

  // A client that goes away aborts the job; an upload that stops sending fails it.
  res.on('close', () => {
    if (!res.writableFinished) job.abort(new StatusError(4039, 'the client closed the connection'));
  });
  const idle = app.config.limits.idleUploadMs;
  if (idle > 0) {
    request.raw.setTimeout(idle, () => job.abort(new StatusError(4037, `nothing received for ${idle / 1000} s`)));
    // Once the upload is complete, the job may take its time: only a silent upload is cut off.
    request.raw.once('end', () => request.raw.setTimeout(0));
  }

  const done = (async () => {
    await job.open(output);
    const outcome = await job.run(requestInputs(request.raw, options.contentEncoding));
    request.log.info({ job: id, outcome, lines: job.linesRead, events: job.events }, 'job ended');
  })();
  app.runningJobs.add(job, done);
  try {
    await done;
  } catch (err) {
    request.log.error({ err, job: id }, 'job crashed');
    sendStatusError(res, new StatusError(5000, (err as Error).message), headers);
    if (!res.writableEnded) res.destroy();
  }
  discardRest(request);
}

/**
 * A job that ended before its upload did (an error, a limit): the rest of the body is read and
 * dropped, up to a limit, so that the client gets the answer instead of a connection reset
 * (closing a socket with unread data resets it) and the connection can serve again; past the
 * limit the connection is cut.
 */
function discardRest(request: FastifyRequest, maxBytes = 64 * 1024 * 1024, maxMs = 10_000): void {
  const raw = request.raw;
  if (raw.complete || raw.destroyed || raw.listenerCount('data') > 0) return;
  let seen = 0;
  const stop = () => raw.destroy();
  const timer = setTimeout(stop, maxMs);
  timer.unref();
  raw.on('data', (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > maxBytes) stop();
  });
  raw.on('end', () => clearTimeout(timer));
  raw.on('close', () => clearTimeout(timer));
  raw.resume();
}
