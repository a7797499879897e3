import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { findResultFile, isJobId, isServedFileName, jobDir, REPORT_FILE } from '../pipeline/job-files.js';
import { renderReportHtml, reportLanguage, REPORT_HTML_CSP } from '../pipeline/report-html.js';
import type { ReportData } from '../pipeline/job-report.js';
import { mayAccessJob } from '../plugins/auth.js';
import { ApiError, errorBody, sendApiError } from '../http-errors.js';
import { recordedHeaders, type JobRow } from '../db/jobs.js';
import { contentTypeWithCharset, readResponseCharset } from '../pipeline/writers/encoding.js';
import { download } from '../file-download.js';

/** Files larger than this are sent as attachments (reference: 500 KiB). */
const INLINE_MAX_BYTES = 500 * 1024;

export interface JobFilesOptions {
  /**
   * Who may read a job's files. It runs as the routes' preHandler, after the job id and the file
   * name have been checked (`request.params.jobId` is a valid id); it refuses by replying (401,
   * 403). Without it, whoever knows a job's id reads its files, as in the reference.
   */
  readonly access?: preHandlerAsyncHookHandler;
  /** what the HTML report says beyond report.json (whether the job runs, platforms' names) */
  readonly report?: ReportContext;
}

export interface ReportContext {
  running(jobId: string): boolean;
  platformName(code: string): string | undefined;
}

/** The service's answers to ReportContext: its running jobs, its current platforms. */
export function reportContext(app: FastifyInstance): ReportContext {
  return {
    running: (jobId) => app.runningJobs.get(jobId) !== undefined,
    platformName: (code) => app.platforms.sources.find((s) => s.manifest.name === code)?.manifest.longname,
  };
}

/**
 * The accounts' rule: a login when AUTH_JOBS asks for one (as for submitting), and the files of a
 * job submitted with a login only for its submitter and the administrators.
 */
export function jobFileAccess(app: FastifyInstance): preHandlerAsyncHookHandler {
  return async (request, reply) => {
    await app.requireJobAccess(request, reply);
    // A reply is a thenable: awaited, a refusal gives undefined; that it was sent is what tells.
    if (reply.sent) return reply;
    const { jobId } = request.params as FileParams;
    if (!mayAccessJob(request.user ?? null, app.jobStore.get(jobId)?.owner)) return sendApiError(reply, new ApiError(403, 'forbidden'));
  };
}

interface FileParams {
  jobId: string;
  file?: string;
}

function notFound(reply: FastifyReply, code: string): FastifyReply {
  return reply.code(404).type('application/json; charset=utf-8').send(errorBody(404, code));
}

/**
 * The charset a job wrote its result and denied file in: its Response-Charset, as recorded with
 * its headers (utf-8 when unknown).
 */
export function jobCharset(app: FastifyInstance, jobId: string): string {
  try {
    return readResponseCharset(recordedHeaders(app.jobStore.get(jobId))['response-charset']);
  } catch {
    return 'utf-8';
  }
}

/** Text content types by extension; the compressed denied files are binary. */
function contentType(name: string, charset: () => string): string {
  if (name.endsWith('.gz')) return 'application/gzip';
  if (name.endsWith('.zz')) return 'application/octet-stream';
  // Reject lines and traces are written in UTF-8; the denied file in the job's response charset,
  // said (without it a client such as Python's requests read text as latin1).
  if (name.startsWith('denied-ecs.')) {
    const ext = name.slice(name.lastIndexOf('.') + 1);
    const type = ({ csv: 'text/csv', txt: 'text/tab-separated-values', json: 'application/json' } as Record<string, string>)[ext] ?? 'text/plain';
    return contentTypeWithCharset(type, charset());
  }
  return 'text/plain; charset=utf-8';
}

function parsed(text: string | null | undefined): ReportData | undefined {
  if (!text) return undefined;
  try {
    const report: unknown = JSON.parse(text);
    return report !== null && typeof report === 'object' && !Array.isArray(report) ? (report as ReportData) : undefined;
  } catch {
    return undefined;
  }
}

/** A report written at the job's end: done, or failed with its status (an interim one is neither). */
function isFinal(report: ReportData): boolean {
  const general = (report as { general?: Record<string, unknown> }).general;
  return general?.['Job-Done'] === true || general?.status !== undefined;
}

/**
 * A job's report: report.json, or the copy its database row holds when the file is missing,
 * unreadable, or behind the row (an interim report of a job that has ended: the file could not be
 * written at the end, a disk full). `report` is undefined when neither parses (the file's text is
 * then served as it is by job-report.json).
 */
export async function readReport(app: FastifyInstance, jobId: string): Promise<{ text: string; report?: ReportData } | undefined> {
  const text = await readFile(join(jobDir(app.config.varDir, jobId), REPORT_FILE), 'utf8').catch(() => undefined);
  const file = parsed(text);
  if (file && isFinal(file)) return { text: text!, report: file };
  let row: JobRow | undefined;
  try {
    row = app.jobStore.get(jobId);
  } catch {
    // the database locked or damaged: the file as it is
  }
  const stored = parsed(row?.report);
  const useRow = stored && (!file || (row!.state !== 'running' && isFinal(stored)));
  if (useRow) return { text: JSON.stringify(stored, null, 2), report: stored };
  return text === undefined ? undefined : { text, report: file };
}

/**
 * A job's files: `/{jobID}/job-report.json`, `/job-report.html`, `/job-traces.log`,
 * `/lines-<category>.log`, `/denied-ecs.<ext>` (also under /api/logs). Only a job id and a name
 * of the closed list ever reach a path; anything else is a 404.
 */
export default async function jobFileRoutes(app: FastifyInstance, opts: JobFilesOptions): Promise<void> {
  const varDir = app.config.varDir;

  const checkNames = async (request: FastifyRequest, reply: FastifyReply) => {
    const { jobId, file } = request.params as FileParams;
    // not a job's path at all (`/info/nosuch`): the service's own 404, not a job's
    if (!isJobId(jobId)) {
      reply.callNotFound();
      return reply;
    }
    if (file !== undefined && !isServedFileName(file)) return notFound(reply, 'fileNotFound');
  };
  const hooks = { preValidation: checkNames, preHandler: opts.access ? [opts.access] : [] };

  app.get('/:jobId/job-report.json', hooks, async (request, reply) => {
    const { jobId } = request.params as FileParams;
    const found = await readReport(app, jobId);
    if (found === undefined) return notFound(reply, 'reportNotFound');
    const text = found.text;
    return reply
      .type('application/json; charset=utf-8')
      .header('Content-Disposition', `attachment; filename="${jobId.slice(0, 8)}_report.json"`)
      .header('Cache-Control', 'no-cache')
      .header('X-Content-Type-Options', 'nosniff')
      .send(text);
  });

  app.get('/:jobId/job-report.html', hooks, async (request, reply) => {
    // `standalone=1` is accepted and changes nothing: the page is always self-contained.
    const { jobId } = request.params as FileParams;
    // Opened with a ticket (a page logged in): the page's links to the job's files keep it.
    // `lang` (en, fr): the language the pages were switched to, before the browser's Accept-Language.
    const { ticket, lang } = request.query as { ticket?: unknown; lang?: unknown };
    const found = await readReport(app, jobId);
    if (found === undefined) return notFound(reply, 'reportNotFound');
    if (found.report === undefined) {
      return reply.code(500).type('application/json; charset=utf-8')
        .send(errorBody(500, 'reportUnreadable', 'report.json is damaged (cut short?) and the database holds no copy of it: see job-report.json'));
    }
    const report = found.report;
    return reply
      .type('text/html; charset=utf-8')
      .header('Content-Security-Policy', REPORT_HTML_CSP)
      .header('Cache-Control', 'no-cache')
      .header('X-Content-Type-Options', 'nosniff')
      .header('Referrer-Policy', 'no-referrer')
      .header('Vary', 'Accept-Language')
      .send(renderReportHtml(report, lang === 'en' || lang === 'fr' ? lang : reportLanguage(request.headers['accept-language']), {
        running: opts.report?.running(jobId),
        result: (await findResultFile(jobDir(varDir, jobId))) !== undefined,
        ticket: typeof ticket === 'string' ? ticket : undefined,
        platformName: opts.report?.platformName,
      }));
  });

  app.get('/:jobId/:file', hooks, async (request, reply) => {
    const { jobId, file } = request.params as Required<FileParams>;
    const path = join(jobDir(varDir, jobId), file);
    const info = await stat(path).catch(() => undefined);
    if (!info?.isFile()) return notFound(reply, 'fileNotFound');
    reply
      .header('Cache-Control', 'no-cache')
      .header('X-Content-Type-Options', 'nosniff');
    if (info.size > INLINE_MAX_BYTES || /\.(gz|zz)$/.test(file)) {
      reply.header('Content-Disposition', `attachment; filename="${jobId.slice(0, 8)}_${file}"`);
    }
    return sendFile(request, reply, path, info, contentType(file, () => jobCharset(app, jobId)));
  });
}

/**
 * A file of the job folder as its download asks (see file-download.ts): whole, a byte range
 * (206, 416), or nothing new (304, 412). `reply` holds the file's other headers already.
 */
export function sendFile(request: FastifyRequest, reply: FastifyReply, path: string, info: { size: number; mtimeMs: number }, type: string): FastifyReply {
  const answer = download(request.method, request.headers, info);
  reply.headers(answer.headers);
  if (answer.status === 304) return reply.code(304).send();
  if (answer.status === 412) return reply.code(412).type('application/json; charset=utf-8').send(errorBody(412, 'preconditionFailed', 'the file is not the version named by If-Match or If-Unmodified-Since'));
  if (answer.status === 416) {
    return reply.code(416).type('application/json; charset=utf-8')
      .send(errorBody(416, 'rangeNotSatisfiable', `the file has ${info.size} bytes: a range starts before its end`));
  }
  const [start, end] = answer.status === 206 ? [answer.start, answer.end] : [0, info.size - 1];
  reply.code(answer.status).type(type).header('Content-Length', end - start + 1);
  if (end < start) return reply.send('');
  // The size was taken before reading: a file still growing is sent as it was then.
  return reply.send(createReadStream(path, { start, end }));
}
