import { randomUUID } from 'node:crypto';
import { mkdir, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RuntimeLease } from '../plugins/platforms.js';
import { StatusError, isStatusError, STATUS_CODES } from '../status-codes.js';
import { readJobOptions, type JobOptions } from '../pipeline/job-options.js';
import { distinctHeaders, header, type RequestHeaders } from '../pipeline/job-headers.js';
import { Job } from '../pipeline/job-runner.js';
import { requestInputs } from '../pipeline/job-inputs.js';
import { BODY_CUT_SHORT } from '../client-errors.js';
import { folderError } from '../storage-errors.js';
import { IdleWatch } from '../pipeline/idle-watch.js';
import { DeferredOutput, ResponseOutput, headerSafe, type JobOutput } from '../pipeline/job-output.js';
import { isEmptyHeader, mergeJobHeaders } from '../settings/predefined.js';
import { REJECT_CATEGORIES, type RejectCategory } from '../pipeline/stages/types.js';
import { isJobId, jobDir, resultFileName, type JobUrls } from '../pipeline/job-files.js';

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
    // the same text as Service-Status-Message (a 5000 said its cause there and hid it here)
    message: error.message,
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

/** How a job answers: its events in the response (`POST /`), or in a result file (`PUT /{jobID}`). */
type JobMode = { readonly deferred: false } | { readonly deferred: true; readonly id: string };

/**
 * `POST /`: a job whose events stream back in the response while the upload is read.
 * `PUT /{jobID}`: the same job under an id the client chose, its events written to a result
 * file of the job folder (`GET /{jobID}` downloads it) while the response gets a heartbeat.
 */
export default async function jobRoutes(app: FastifyInstance): Promise<void> {
  // The body is the job's input: no parser may read it; the handler streams it.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_req, _payload, done) => done(null));

  // `Expect: 100-continue` (curl sends it for bodies over 1 MB): node says "continue" at once by
  // default, so a job refused on its headers or for capacity had its upload sent for nothing.
  // A job's upload is asked for once its headers are accepted (handleJobRequest); other
  // requests are told to continue at once.
  app.server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    if (!isJobUpload(req)) res.writeContinue();
    app.server.emit('request', req, res);
  });

  // The job runs to its end with the platforms, pool and versions current now, even if an
  // update installs new ones meanwhile.
  const withLease = async (run: (lease: RuntimeLease) => Promise<void>) => {
    const lease = app.runtime.acquire();
    try {
      await run(lease);
    } finally {
      lease.release();
    }
  };

  // The login check answers before the upload is read and the handler hijacks the reply
  // (AUTH_JOBS decides when one is needed).
  app.post('/', { onRequest: app.requireJobAccess }, async (request, reply) => {
    await withLease((lease) => handleJobRequest(app, request, reply, lease, { deferred: false }));
  });

  app.put('/:jobId', { onRequest: app.requireJobAccess }, async (request, reply) => {
    const { jobId } = request.params as { jobId: string };
    await withLease((lease) => handleJobRequest(app, request, reply, lease, { deferred: true, id: jobId }));
  });
}

/** Whether a job with this id exists: running here, recorded, or with a folder. */
async function jobExists(app: FastifyInstance, id: string): Promise<boolean> {
  if (app.runningJobs.get(id) || app.jobStore.get(id)) return true;
  return stat(jobDir(app.config.varDir, id)).then(() => true, () => false);
}

/**
 * The headers a job runs with: the request's, then its predefined setting's
 * (`ezPAARSE-Predefined-Settings`), then the configured defaults. Throws 4026 for an unknown setting.
 */
async function effectiveHeaders(app: FastifyInstance, request: FastifyRequest): Promise<{ headers: RequestHeaders; setting?: string; fromSetting: ReadonlySet<string> }> {
  // a header sent twice is kept as its values, so that one of a single value can be refused
  const given = distinctHeaders(request.raw);
  const id = header(given, 'ezpaarse-predefined-settings')?.trim() || undefined;
  const setting = id === undefined ? undefined : await app.predefinedSettings.get(id);
  if (id !== undefined && !setting) throw new StatusError(4026, `ezPAARSE-Predefined-Settings: ${JSON.stringify(id)} (see /info/predefined-settings)`);
  const headers = mergeJobHeaders(given, setting?.headers, app.config.defaultJobHeaders);
  // the values the setting gave (the request's own win): read leniently (OptionsContext.fromSetting)
  const fromSetting = new Set<string>();
  for (const [name, value] of Object.entries(setting?.headers ?? {})) {
    const k = name.toLowerCase();
    if ((given[k] === undefined || isEmptyHeader(given[k])) && headers[k] === value) fromSetting.add(k);
  }
  return { headers, setting: id, fromSetting };
}

/** Checks the job's id (deferred), headers and the concurrency limit, then runs the job. */
async function handleJobRequest(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply, lease: RuntimeLease, mode: JobMode): Promise<void> {
  const refuse = (error: StatusError, extra: Record<string, string> = {}) => {
    reply.hijack();
    discardRest(request);
    sendStatusError(reply.raw, error, { 'ezPAARSE-Version': app.appVersion, ...extra });
  };
  // Ids chosen by clients are lower-case UUIDs, as the reference requires.
  if (mode.deferred && !isJobId(mode.id)) {
    // The reference's route does not match such a path: not found, said the job way.
    reply.hijack();
    discardRest(request);
    const body = JSON.stringify({ statusCode: 404, error: 'Not Found', message: 'a job id is a lower-case UUID' });
    reply.raw.writeHead(404, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body), 'ezPAARSE-Version': app.appVersion });
    reply.raw.end(body);
    return;
  }
  if (mode.deferred && (await jobExists(app, mode.id))) return refuse(new StatusError(4023, `${mode.id}: choose another one`));
  let options: JobOptions;
  let setting: string | undefined;
  try {
    const effective = await effectiveHeaders(app, request);
    setting = effective.setting;
    options = readJobOptions(effective.headers, {
      platforms: lease.platforms.names,
      middlewares: lease.platforms.resources.middlewareModules,
      defaultMiddlewares: app.config.middlewares,
      fromSetting: effective.fromSetting,
    });
  } catch (err) {
    return refuse(isStatusError(err) ? err : new StatusError(5000, (err as Error).message));
  }
  const limit = app.config.limits.maxConcurrentJobs;
  if (limit > 0 && app.runningJobs.size >= limit) return refuse(new StatusError(5004, `MAX_CONCURRENT_JOBS allows ${limit}`), { 'Retry-After': '30' });
  // One client must not take the service for itself (a script opening hundreds of uploads).
  const perClient = app.config.limits.maxJobsPerClient;
  const client = request.user ? `user:${request.user.id}` : `address:${request.ip}`;
  if (perClient > 0 && app.runningJobs.countFor(client) >= perClient) {
    return refuse(new StatusError(5004, `MAX_JOBS_PER_CLIENT allows ${perClient} at once ${request.user ? 'for an account' : 'from an address without a login'}, and ${perClient} are running`), { 'Retry-After': '30' });
  }
  const maxUpload = app.config.limits.maxUploadBytes;
  const declared = Number(request.headers['content-length'] ?? 0);
  if (maxUpload > 0 && declared > maxUpload) return refuse(new StatusError(4034, `the body announces ${declared} bytes, more than ${maxUpload} (MAX_UPLOAD_BYTES)`));
  if (/^\s*100-continue\s*$/i.test(header(request.headers, 'expect') ?? '')) reply.raw.writeContinue();
  reply.hijack();
  const release = app.runningJobs.claim(client);
  try {
    await runJob(app, request, reply.raw, options, lease, mode, setting);
  } finally {
    release();
  }
}

/** Takes the job folder of a client-chosen id: only one of two requests racing for it gets it. */
async function claimFolder(dir: string): Promise<boolean> {
  await mkdir(dirname(dir), { recursive: true });
  try {
    await mkdir(dir);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

async function runJob(app: FastifyInstance, request: FastifyRequest, res: ServerResponse, options: JobOptions, lease: RuntimeLease, mode: JobMode, setting: string | undefined): Promise<void> {
  const id = mode.deferred ? mode.id : randomUUID();
  const job = new Job(
    {
      config: app.config,
      baseUrl: app.baseUrl(request),
      pool: lease.pool,
      store: app.jobStore,
      versions: lease.versions,
      build: app.buildInfo,
      platformVersion: (code) => lease.platforms.sources.find((s) => s.manifest.name === code)?.manifest.version,
      log: request.log,
      gateBudget: app.gateBudget,
    },
    options,
    { id, user: request.user ? { id: request.user.id, username: request.user.username } : undefined, userAgent: header(request.headers, 'user-agent'), predefinedSettings: setting },
  );
  const headers = jobHeaders(id, job.urls, app.appVersion);
  let claimed = true;
  try {
    if (mode.deferred) claimed = await claimFolder(job.dir);
  } catch (err) {
    const error = await folderError(err, job.dir);
    request.log.error({ err, job: id }, `the job folder could not be made: ${error.message}`);
    discardRest(request);
    sendStatusError(res, error, { 'ezPAARSE-Version': app.appVersion });
    return;
  }
  if (!claimed) {
    discardRest(request);
    sendStatusError(res, new StatusError(4023, `${id}: choose another one`), { 'ezPAARSE-Version': app.appVersion });
    return;
  }
  let output: JobOutput;
  if (mode.deferred) {
    const result = join(job.dir, resultFileName(job.startedAt, options.output.extension, options.responseEncoding));
    const deferred = new DeferredOutput(res, result, () => job.frame(), options.responseEncoding, () => headers, app.config.heartbeatMs, job.fileFailed(result));
    job.onFailBeforeOutput = (error) => {
      void deferred.abandon(error.code, error.message).catch(() => undefined);
      discardRest(request);
      sendStatusError(res, error, headers);
    };
    output = deferred;
  } else {
    output = new ResponseOutput(res, () => job.frame(), options.responseEncoding, options.output.contentType, () => headers);
    job.onFailBeforeOutput = (error) => {
      discardRest(request);
      sendStatusError(res, error, headers);
    };
  }

  // A client that goes away aborts the job, unless its events go to a file and its upload has
  // been read to its end (a deferred job then ends on its own: what node had received but the
  // job not yet read is dropped with the connection); an upload that stops sending fails it.
  // The connection may be gone already, while the job was being set up.
  const onClose = () => {
    if (res.writableFinished || (mode.deferred && request.raw.readableEnded)) return;
    job.abort(new StatusError(4039, mode.deferred || !request.raw.complete ? 'before the service had read the whole upload' : 'before the answer was complete'));
  };
  if (res.destroyed) onClose();
  else res.on('close', onClose);
  // Nothing moving on the connection for IDLE_UPLOAD_MS: the job fails if it was waiting for the
  // upload (4037, as a broken upload: what came before still goes through) or for its client to
  // read (4040); see IdleWatch.
  const idle = options.idleMs ?? app.config.limits.idleUploadMs;
  let sampler: NodeJS.Timeout | undefined;
  if (idle > 0) {
    // a deferred job's answer is only its own heartbeat: the upload alone says whether it moves
    const progress = mode.deferred
      ? () => [res.socket?.bytesRead ?? 0]
      : () => [res.socket?.bytesRead ?? 0, res.socket?.bytesWritten ?? 0, unsentBytes(res) ?? 0];
    const watch = new IdleWatch(idle, progress, Date.now());
    sampler = setInterval(() => {
      const verdict = watch.check(Date.now(), { input: job.waitingForInput, output: job.waitingForOutput });
      if (verdict === undefined) return;
      clearInterval(sampler);
      if (verdict === 'upload') job.breakInput(new StatusError(4037, `nothing received for ${idle / 1000} s`));
      else job.abort(new StatusError(4040, `nothing taken for ${idle / 1000} s`));
    }, watch.sampleEveryMs);
    sampler.unref();
  }
  // A body cut before its declared length (told by the connection: see client-errors.ts): most
  // often a client that went away (a cancelled upload), maybe one that only closed its side and
  // still reads, which then gets the events of the lines before the cut and the error.
  request.raw.on(BODY_CUT_SHORT, () => job.breakInput(new StatusError(4039, 'before the service had read the whole upload (the body ended before its declared length)')));

  const done = (async () => {
    await job.open(output);
    const outcome = await job.run(requestInputs(request.raw, options.contentEncoding, app.config.limits));
    request.log.info({ job: id, outcome, lines: job.linesRead, events: job.events, deferred: mode.deferred }, 'job ended');
  })();
  app.runningJobs.add(job, done);
  try {
    await done;
  } catch (err) {
    try {
      // a storage failure at the start (Job.open: said in the log) fails this job alone
      if (isStatusError(err)) job.onFailBeforeOutput?.(err);
      else {
        request.log.error({ err, job: id }, 'job crashed');
        sendStatusError(res, new StatusError(5000, (err as Error).message), headers);
      }
    } finally {
      // even when the answer could not be written either: a client left waiting on an open
      // connection never learns that its job is over
      if (!res.writableEnded) res.destroy();
    }
  } finally {
    clearInterval(sampler);
  }
  discardRest(request);
}

/** A job's upload: `POST /` or `PUT /{jobID}` (the routes whose body is read only once the job is accepted). */
export function isJobUpload(req: IncomingMessage): boolean {
  const path = (req.url ?? '').split('?')[0];
  return (req.method === 'POST' && path === '/') || (req.method === 'PUT' && isJobId(path.replace(/^\/|\/$/g, '')));
}

/**
 * Bytes of the answer the system has been given but not sent yet (the socket's write queue, which
 * a partial write shrinks), or undefined where node does not tell.
 */
function unsentBytes(res: ServerResponse): number | undefined {
  const queued = (res.socket as unknown as { _handle?: { writeQueueSize?: unknown } } | null)?._handle?.writeQueueSize;
  return typeof queued === 'number' ? queued : undefined;
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
