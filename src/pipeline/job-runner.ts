import { mkdir, rm } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import iconv from 'iconv-lite';
import { STOPPED_FROM_OUTSIDE, StatusError, isStatusError } from '../status-codes.js';
import type { Config } from '../config.js';
import type { JobStore, JobProgress } from '../db/jobs.js';
import { autoFormats } from './formats/auto-detect.js';
import { checkLine } from './formats/line-check.js';
import { formatBreakHint } from './formats/tester.js';
import { makeEventTimer } from './dates.js';
import type { CompiledFormat } from './formats/types.js';
import { CSV_FAMILY, csvEventLines } from './formats/csv-events.js';
import { isAsciiCompatible, isUtf8, transcodeToUtf8, utf8OrMarkedUtf16 } from './charsets.js';
import { computeColumns } from './output-fields.js';
import { deniedFrameFor, frameFor } from './writers/index.js';
import type { Frame } from './writers/types.js';
import type { JobOptions } from './job-options.js';
import { jobSpec, type BatchResult, type EventRecord, type JobFormat, type JobSpec } from './job-spec.js';
import { headerLabel } from './job-headers.js';
import { CR_ENDED_HINT, forEachLine, lineBatches, withoutLineEnd } from './line-batches.js';
import { writeFileAside } from '../write-aside.js';
import type { ParsingPool } from './parsing-pool.js';
import { BoundedCaller, CallTimeout } from './bounded-call.js';
import { GateBudget } from './gate-budget.js';
import { DeniedFile, type JobOutput } from './job-output.js';
import { breakable, mediaType } from './job-inputs.js';
import { RejectFiles } from './reject-files.js';
import { unpackEvents } from './packed-events.js';
import { sequentialStages, type HoldingStage, type SequentialSink, type SequentialStage } from './sequential.js';
import { MAX_CHRONOLOGY_TOLERANCE } from './chronology.js';
import { countsLine, createJobTraces, linePlace, type JobTraces } from './job-traces.js';
import { accountedLines, formatDuration, JobReport, localIso, rejectionRate, REJECT_COUNTERS, type ReportSection } from './job-report.js';
import { DomainTally, FormatBreakWatch, formatBreakAlert, heldEventsAlert, unknownDomainAlerts } from './job-alerts.js';
import { deniedFileName, jobDir, jobUrls, REPORT_FILE, TRACES_FILE, type JobUrls } from './job-files.js';
import type { RejectCategory } from './stages/types.js';
import { UNKNOWN_BUILD, type BuildInfo } from '../build-info.js';
import { doubleClickReport } from './double-clicks.js';
import { folderError, storageDetail, storageError } from '../storage-errors.js';

/** One part of a job's input: a raw body, or one file of a multipart upload (bytes, decompressed). */
export interface JobInput {
  readonly name?: string;
  readonly bytes: AsyncIterable<Uint8Array>;
  /** a CSV file of events (re-injection), not log lines */
  readonly csv?: boolean;
  /** its own charset (a multipart file's Content-Type, without Request-Charset): else the job's */
  readonly charset?: string;
}

/**
 * A Log-Format header of an unknown family (misspelt, most likely) is left out, said in the
 * traces, the report's alerts and a refusal of the lines: the job ran without the format given.
 */
function ignoredFormatTexts(options: JobOptions): string[] {
  const then = options.format ? '' : ', and the format was looked for among the known ones';
  return options.ignoredFormatHeaders.map((h) => `${headerLabel(h)} is not a log format header (known: Log-Format-ezproxy, -apache, -squid, -bibliopam): it was ignored${then}`);
}

/** What made an input CSV events, as a refusal or a trace says it. */
function csvBecause(input: JobInput): string {
  return input.name === undefined ? 'the request\'s Content-Type says CSV' : `the file's name or type says CSV`;
}

function capitalised(text: string): string {
  return text[0].toUpperCase() + text.slice(1);
}

export interface JobDeps {
  readonly config: Config;
  /** base of the absolute URLs of the job's files */
  readonly baseUrl: string;
  readonly pool: ParsingPool;
  readonly store: JobStore;
  /** app and data versions added to every event and to the report */
  readonly versions: Readonly<Record<string, string>>;
  /** the service's source revision (report `git-*` keys) */
  readonly build?: BuildInfo;
  /** a platform's own version (its manifest's), for the report's `platform-versions` section */
  readonly platformVersion?: (code: string) => string | undefined;
  /** the service's log: what failed in the job's storage (its folder, its row) */
  readonly log?: JobLog;
  /** the main thread's time for the first lines' checks, shared by the jobs (one per service) */
  readonly gateBudget?: GateBudget;
}

export interface JobLog {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface JobMeta {
  readonly id: string;
  /** the account that submitted it (its id decides who may read the job's files) */
  readonly user?: { readonly id: number; readonly username: string };
  readonly userAgent?: string;
  readonly predefinedSettings?: string;
}

export type JobOutcome = 'done' | 'failed' | 'aborted';

/** Budget of one first line matched on the main thread: 1 s at most, less if batches get less. */
export function firstLineBudgetMs(batchTimeoutMs: number): number {
  return batchTimeoutMs > 0 ? Math.min(batchTimeoutMs, 1000) : 1000;
}

/** The errors reading a request raises when its client went away mid-upload. */
function clientGone(err: unknown): boolean {
  const e = err as NodeJS.ErrnoException | undefined;
  return e?.code === 'ECONNRESET' || e?.code === 'ERR_STREAM_PREMATURE_CLOSE' || e?.message === 'aborted';
}

/** Unordered-ecs rejections in a row, with no event kept, after which the traces say why. */
export const UNORDERED_RUN = 100;

/** A row left open by a locked database: tried again this often, for this long (then the next start marks it interrupted). */
const ROW_RETRY_MS = 1000;
const ROW_RETRY_FOR_MS = 10 * 60_000;

/** Unix seconds as an ISO time without milliseconds, for the traces. */
function isoSeconds(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');
}

/** Errors of the input itself, raised while it is read: the workers and the client are fine. */
const INPUT_ERRORS: ReadonlySet<number> = new Set([4002, 4003, 4007, 4022, 4034, 4037]);

/**
 * A job on the main thread: reads the inputs, finds the format on the first lines, sends
 * batches of lines to the parsing pool (a few at a time per job: back-pressure), puts results
 * back in input order, runs the sequential stages and writes events, rejects, report and traces.
 */
export class Job {
  readonly id: string;
  readonly dir: string;
  readonly startedAt = new Date();
  readonly report: JobReport;
  /** absolute URLs of the job's files (response headers, report) */
  readonly urls: JobUrls;
  state: 'running' | JobOutcome = 'running';
  /** the job is waiting for more of the upload (the route's idle limit is about these waits only) */
  waitingForInput = false;
  /** the job is waiting for its client to take what was written of the answer */
  waitingForOutput = false;
  bytesRead = 0;
  linesRead = 0;
  events = 0;
  denied = 0;
  readonly rejects: Partial<Record<RejectCategory, number>> = {};

  private readonly abortController = new AbortController();
  private failure: Error | undefined;
  private format: CompiledFormat | undefined;
  /** the columns of a CSV input of events: the job's fields, instead of a format's */
  private csvColumns: readonly string[] | undefined;
  /** what the job's inputs hold: a job reads log lines or CSV events, not both */
  private inputKind: 'log' | 'csv' | undefined;
  private spec: JobSpec | undefined;
  private parsedAny = false;
  private gateFailures = 0;
  /** of the gate's failures, lines that matched the format but whose date did not read */
  private gateDateFailures = 0;
  private gateTimer: ReturnType<typeof makeEventTimer> | undefined;
  /** the main thread's time the gate took for this job's lines */
  private gateMs = 0;
  private boundedCaller: BoundedCaller | undefined;
  private seq = 0;
  private nextSeq = 0;
  /** a multipart upload's files: the first batch of each, and its name (for the time-order warning) */
  private readonly parts: Array<{ firstSeq: number; name: string }> = [];
  private handlingPart = -1;
  /**
   * The input being read (a multipart upload's file: its number and name), and the number of its
   * line the gate looks at: the traces point at a line of its own file, not across the files.
   */
  private reading: { file?: { index: number; name: string }; line: number } = { line: 0 };
  /** the file being handled has given no event yet */
  private partStarting = false;
  /** the latest time of the events handled so far (Unix seconds) */
  private latestTs = -Infinity;
  /** unordered-ecs rejections since the last event kept, and whether the traces said why */
  private readonly unorderedRun = { n: 0, told: false };
  private readonly inflight = new Set<Promise<void>>();
  private readonly ordered = new Map<number, BatchResult>();
  private readonly platformCounts = new Map<string, { key: string; n: number }>();
  private readonly rtypeCounts = new Map<string, { key: string; n: number }>();
  private readonly mimeCounts = new Map<string, { key: string; n: number }>();
  /** texts of the events emitted by the batch being handled, written when it is done */
  private eventTexts: Array<string | Uint8Array> = [];
  private deniedTexts: Array<string | Uint8Array> = [];
  private wantFirstEvent = true;
  private readonly unknownDomains = new DomainTally();
  private readonly formatBreaks = new FormatBreakWatch();
  private fileOrderAlert: string | undefined;
  /** lines and events at the previous report write: the speeds shown while running are since then */
  private speedSample = { at: 0, lines: 0, events: 0 };
  private readonly deniedName: string;
  private traces!: JobTraces;
  private closeTraces: () => Promise<void> = async () => undefined;
  private deniedFile!: DeniedFile;
  private rejectFiles!: RejectFiles;
  private output!: JobOutput;
  private readonly sequential: SequentialStage;
  /** events the holding stages let go before their time to stay within MAX_HELD_EVENTS, and their share of it */
  private readonly early: Record<HoldingStage, { n: number; maxHeld: number }> = { chronology: { n: 0, maxHeld: 0 }, 'double-clicks': { n: 0, maxHeld: 0 } };
  private onCampus = 0;
  private offCampus = 0;
  private reportWrites: Promise<void> = Promise.resolve();
  private reportTimer: NodeJS.Timeout | undefined;
  private readonly batchCharset: string;

  constructor(
    private readonly deps: JobDeps,
    readonly options: JobOptions,
    readonly meta: JobMeta,
  ) {
    this.id = meta.id;
    this.dir = jobDir(deps.config.varDir, this.id);
    this.batchCharset = isAsciiCompatible(options.requestCharset) ? options.requestCharset : 'utf-8';
    this.deniedName = deniedFileName(options.output.extension, options.responseEncoding);
    this.urls = jobUrls(deps.baseUrl, this.id, this.deniedName);
    const build = deps.build ?? UNKNOWN_BUILD;
    const v = deps.versions;
    this.report = new JobReport({
      'ezPAARSE-version': v.ezpaarse_version,
      'logsift-version': v.ezpaarse_version,
      'Job-ID': this.id,
      'Job-Date': localIso(this.startedAt),
      'result-file-ecs': this.urls.result,
      'predefined-settings': meta.predefinedSettings ?? false,
      'URL-Traces': this.urls.traces,
      'URL-Report': this.urls.report,
      'URL-Report-HTML': this.urls.reportHtml,
      'url-denied-ecs': this.urls.denied,
      'client-user-agent': meta.userAgent ?? '',
      'git-branch': build.branch,
      'git-tag': build.tag,
      'git-last-commit': build.commit,
      'git-date': build.date,
      'platforms-version': v.platforms_version,
      'platforms-date': v.platforms_date,
      'middlewares-version': v.middlewares_version || 'N/A',
      'middlewares-date': v.middlewares_date || 'N/A',
      middlewares: options.middlewares.join(', '),
      geolocalization: (options.headers.geoip ?? '').toLowerCase(),
      'input-format-proxy': options.format?.family ?? null,
      'input-format-literal': options.format?.literal ?? null,
      'input-format-regex': options.format?.source ?? null,
    });
    for (const c of options.rejectFiles) this.report.rejets[`url-${c}`] = this.urls.rejects[c];
    this.report.replace('headers', { ...options.headers });
    if (options.notifications.length) {
      this.report.replace('notifications', {
        mailto: options.notifications.join(', '),
        'mail-status': 'fail',
        'mail-error-message': 'the service has no mail server',
      });
    }
    this.report.replace('dedoublonnage', doubleClickReport(options.doubleClick));
    const maxHeld = deps.config.limits.maxHeldEvents || Infinity;
    this.sequential = sequentialStages(options, { maxHeld, releasedEarly: (stage, n, share) => this.releasedEarly(stage, n, share) });
  }

  /**
   * The input breaks off for a reason the connection tells (idle upload, a body cut before its
   * declared length): handled as a broken upload, the lines read before it still go through.
   */
  breakInput(reason: StatusError): void {
    if (!this.inputBreak.signal.aborted) this.inputBreak.abort(reason);
  }

  private readonly inputBreak = new AbortController();

  /** Aborts the job (client gone, shutdown): reading stops and the workers' tasks are dropped. */
  abort(reason: StatusError): void {
    if (!this.failure) this.failure = reason;
    if (!this.abortController.signal.aborted) this.abortController.abort(reason);
  }

  get aborted(): boolean {
    return this.abortController.signal.aborted;
  }

  get signal(): AbortSignal {
    return this.abortController.signal;
  }

  /** Creates the job folder, its files and its database row. */
  /**
   * Creates the job folder, its files and its database row. A storage failure (the folder or the
   * row cannot be made) throws a StatusError (5005) with nothing left open.
   */
  async open(output: JobOutput): Promise<void> {
    this.output = output;
    try {
      await mkdir(this.dir, { recursive: true });
    } catch (err) {
      throw (this.failure = this.storageFailed(await folderError(err, this.dir), err, 'the job folder could not be made'));
    }
    try {
      const store = this.deps.store;
      await store.whenFree(() => store.create({
        id: this.id,
        user: this.meta.user,
        createdAt: this.startedAt.toISOString(),
        headers: this.options.headers,
        platformsVersion: this.deps.versions.platforms_version,
      }));
    } catch (err) {
      // the folder is empty: removed, so that a deferred job's id can be sent again
      await rm(this.dir, { recursive: true, force: true }).catch(() => undefined);
      throw (this.failure = this.storageFailed(storageError(err, { database: this.deps.store.file }), err, 'the job row could not be made'));
    }
    const { traces, close } = createJobTraces(join(this.dir, TRACES_FILE), this.options.tracesLevel, (err) => {
      this.deps.log?.warn({ job: this.id, err }, `job traces stopped: ${storageError(err, { file: join(this.dir, TRACES_FILE) }).message}`);
    });
    this.traces = traces;
    this.closeTraces = close;
    this.deniedFile = new DeniedFile(join(this.dir, this.deniedName), () => deniedFrameFor(this.options.output.kind, this.columns()), this.options.responseEncoding, 'w', this.fileFailed(join(this.dir, this.deniedName)));
    this.rejectFiles = new RejectFiles(this.dir, this.options.rejectFiles, this.fileFailed(join(this.dir, 'lines-*.log')));
    const o = this.options;
    traces.info(`New job with ID: ${this.id}`);
    traces.verbose(`Request headers: ${JSON.stringify(o.headers)}`);
    if (o.notifications.length) {
      traces.warn(`Mail notifications to ${o.notifications.join(', ')} are not sent: the service has no mail server`);
    }
    for (const w of o.warnings) traces.warn(w);
    for (const text of ignoredFormatTexts(o)) traces.warn(text);
    traces.info(o.format ? `Log format given (${o.format.family}): ${o.format.literal}` : 'No log format given: it will be detected on the first lines');
    traces.info(`Request charset ${o.requestCharset}; output ${o.output.contentType}, response charset ${o.responseEncoding.charset}${o.responseEncoding.compression ? `, ${o.responseEncoding.compression}` : ''}`);
    traces.info(o.rejectFiles.size ? `Reject files: ${[...o.rejectFiles].join(', ')}` : 'No reject file asked for (Reject-Files)');
    await this.writeReport();
    this.reportTimer = setInterval(() => void this.writeReport(), this.deps.config.jobs.reportIntervalMs);
    this.reportTimer.unref();
  }

  /** A job file that cannot be written (disk full) fails the job, said in its answer and the log. */
  fileFailed(file: string): (err: Error) => void {
    return (err) => {
      if (!this.failure) this.abort(this.storageFailed(storageError(err, { file }), err, 'a job file could not be written'));
    };
  }

  /** The output's framing (CSV header, JSON brackets), for the response. */
  frame(): Frame {
    return frameFor(this.options.output.kind, this.columns());
  }

  /** Output columns: known once the format is (its properties become columns). */
  columns(): string[] {
    return computeColumns(this.options.outputFields, this.options.stageFields, this.csvColumns ?? this.format?.fieldNames ?? this.options.format?.fieldNames ?? []);
  }

  /** Runs the job to its end; never throws (the outcome is recorded and answered). */
  async run(inputs: AsyncIterable<JobInput>): Promise<JobOutcome> {
    try {
      let part = 0;
      for await (const input of breakable(inputs, this.inputBreak.signal)) {
        part++;
        if (input.name !== undefined) this.report.set('files', String(part), input.name);
        this.parts.push({ firstSeq: this.seq, name: input.name ?? 'the request body' });
        this.reading = { file: input.name === undefined ? undefined : { index: part, name: input.name }, line: 0 };
        const what = input.name === undefined ? 'the request body' : `file ${part}: ${input.name}`;
        this.traces.info(`Reading ${what}${input.csv ? ' as a CSV file of events' : ''}${input.charset !== undefined ? ` in ${input.charset}` : ''}`);
        const kind = input.csv ? 'csv' : 'log';
        if (this.inputKind !== undefined && this.inputKind !== kind) {
          throw new StatusError(4003, `${what} holds ${input.csv ? 'CSV events (its name or type says CSV)' : 'log lines'}, and the files before it ${input.csv ? 'log lines' : 'CSV events'}: send them as separate jobs`);
        }
        this.inputKind = kind;
        const counted = this.countBytes(breakable(input.bytes, this.inputBreak.signal));
        const charset = input.charset ?? this.options.requestCharset;
        // A UTF-16 byte-order mark where UTF-8 is expected (no charset said, or UTF-8) tells the
        // input's real charset: read as UTF-8 its lines were garbage, all unknown formats.
        const bytes = isUtf8(charset) && isUtf8(this.batchCharset)
          ? utf8OrMarkedUtf16(counted, (found) => this.traces.info(`${capitalised(what)} starts with a UTF-16 byte-order mark: it is read as ${found}`))
          : counted;
        if (input.csv && this.options.format) this.traces.warn(`${capitalised(what)} is read as CSV events (${csvBecause(input)}): the log format given (Log-Format-${this.options.format.family}) is not used`);
        const batches = lineBatches(input.csv ? this.csvLines(bytes, charset, input) : this.batchBytes(bytes, charset), {
          batchBytes: this.deps.config.pool.batchBytes,
          firstBatchBytes: this.deps.config.pool.firstBatchBytes,
          maxLineBytes: this.deps.config.limits.maxLineBytes,
          flushAfterMs: this.deps.config.pool.flushAfterMs,
          signal: this.signal,
          inputName: input.name === undefined ? 'the request body' : `file ${part} (${input.name})`,
        });
        for await (const batch of batches) {
          if (this.aborted) break;
          const data = this.spec ? batch : await this.gated(batch);
          if (!data || data.length === 0) continue;
          await this.slot();
          if (this.aborted) break;
          this.dispatch(data);
        }
        if (this.aborted) break;
      }
      await this.settle();
      if (this.failure) throw this.failure;
      if (!this.parsedAny) {
        throw new StatusError(4003, this.linesRead === 0 ? 'the request held no line'
          : this.gateDateFailures === this.linesRead ? `the ${this.linesRead} lines read match the log format, but their dates do not read with ${this.dateFormatName()}: set Date-Format`
          : `none of the ${this.linesRead} lines read matches the log format${this.formatBreakText()}${this.resultSentBack()}${this.lineEndHint()}${this.ignoredFormatHint()}`);
      }
      this.flushHeld();
      return await this.complete();
    } catch (err) {
      const broken = isStatusError(err) && (INPUT_ERRORS.has(err.code) || err === this.inputBreak.signal.reason);
      if (broken && !this.aborted) await this.finishInFlight();
      return await this.terminate(err);
    }
  }

  /** A TSV or JSON result of logsift sent back as a log: the refusal says what can be. */
  private resultSentBack(): string {
    const type = mediaType(this.options.headers['content-type']);
    return type === 'text/tab-separated-values' || type === 'application/json' || type === 'application/jsonstream'
      ? `; a result sent back to be processed again must be CSV (;-separated, Content-Type: text/csv), not ${type}`
      : '';
  }

  /**
   * The input broke off (a line too long, bad gzip, a broken multipart body, the upload limit):
   * the lines read before it still give their events, in order and with the double clicks they
   * held, before the error marker, and the report counts them.
   */
  private async finishInFlight(): Promise<void> {
    await this.settle().catch(() => undefined);
    if (this.failure || !this.spec) return;
    this.flushHeld();
  }

  private heldFlushed = false;

  /** The events the double-click and chronology checks still hold, written (once). */
  private flushHeld(): void {
    if (this.heldFlushed || !this.spec) return;
    this.heldFlushed = true;
    this.sequential.end(this.sink);
    this.flushEvents();
  }

  /**
   * A CSV input's rows as lines for the workers (formats/csv-events). Its header row starts the
   * parsing; a later CSV file of the job keeps the first one's columns in the output.
   */
  private csvLines(bytes: AsyncIterable<Uint8Array>, charset: string, input: JobInput): AsyncIterable<Uint8Array> {
    return csvEventLines(bytes, {
      charset,
      maxRowBytes: this.deps.config.limits.maxLineBytes,
      onColumns: (columns) => {
        this.report.general['input-first-line'] ??= columns.join(';');
        // every row would be an unknown format: said at once, not as a 200 with no event
        if (!columns.some((c) => c === 'datetime' || c === 'timestamp' || c === 'epoch')) {
          // a script that sent its log as text/csv meant Accept, most likely: say what made it CSV
          const given = this.options.format ? `; it was read as CSV (${csvBecause(input)}), not with the Log-Format-${this.options.format.family} given: send a log as text/plain` : '';
          throw new StatusError(4003, `the CSV file has no datetime, timestamp or epoch column: its events cannot be dated (columns: ${columns.join(', ').slice(0, 200)})${given}`);
        }
        if (!this.spec) {
          this.csvColumns = columns;
          this.startParsing({ family: CSV_FAMILY, columns });
        } else if (columns.join(';') !== this.csvColumns!.join(';')) {
          this.traces.warn(`This CSV file's columns differ from the first one's (${columns.join(', ')}): the output keeps the first file's columns`);
        }
      },
    });
  }

  /** Bytes read, decompressed (the upload limit counts them as received: job-inputs.ts). */
  private async *countBytes(source: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
    const chunks = source[Symbol.asyncIterator]();
    let ended = false;
    try {
      for (;;) {
        this.waitingForInput = true;
        let next: IteratorResult<Uint8Array>;
        try {
          next = await chunks.next();
        } finally {
          this.waitingForInput = false;
        }
        if (next.done) {
          ended = true;
          return;
        }
        this.bytesRead += next.value.length;
        yield next.value;
      }
    } finally {
      // stopped early (an error, an abort): the input is told, as a for-await would tell it
      if (!ended) await chunks.return?.();
    }
  }

  /**
   * Bytes as the workers get them: in the request charset when it writes newlines as 0x0A,
   * else transcoded to UTF-8 here first (UTF-16 and the like).
   */
  private batchBytes(source: AsyncIterable<Uint8Array>, charset: string): AsyncIterable<Uint8Array> {
    if (charset === this.batchCharset || (/^utf-?8$/i.test(charset) && /^utf-?8$/i.test(this.batchCharset))) return source;
    return transcodeToUtf8(source, charset);
  }

  private decodeLine(bytes: Uint8Array): string {
    const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const text = /^utf-?8$/i.test(this.batchCharset) ? buf.toString('utf8') : iconv.decode(buf, this.batchCharset);
    return withoutLineEnd(text);
  }

  /** A line the gate rejected holds lines ended by \r alone. */
  private gateSawCarriageReturn = false;

  /**
   * Whether a line holds lines of the format ended by `\r` alone: one of its first parts between
   * carriage returns matches it. A carriage return alone says nothing: binary data has some.
   */
  private endedByCarriageReturns(line: string): boolean {
    return line.split('\r', 4).some((part) => part !== '' && this.firstLineFormat(part).format !== undefined);
  }

  /** What a 4003 of the gate adds: that the lines hold carriage returns but no line feed, if so. */
  /** What a 4003 of the gate adds when a misspelt Log-Format header was left out. */
  private ignoredFormatHint(): string {
    const texts = ignoredFormatTexts(this.options);
    return texts.length ? `; ${texts.join('; ')}` : '';
  }

  private lineEndHint(): string {
    return this.gateSawCarriageReturn ? `; ${CR_ENDED_HINT}` : '';
  }

  /** The first line that did not match the format, and where it was (for a 4003's hint). */
  private firstUnmatched: { line: string; place: string } | undefined;

  /**
   * What a 4003 adds when the given format matches none of the lines: where it breaks on the
   * first of them (a format copied from the proxy's configuration mostly differs in one field).
   * Under the first lines' time budget: the format's custom regexes are the user's own.
   */
  private formatBreakText(): string {
    const format = this.options.format;
    const first = this.firstUnmatched;
    // (lines ended by \r alone: the 4003 says that, which is what to fix)
    if (!format || !first || this.gateSawCarriageReturn) return '';
    try {
      const match = (source: string, line: string) => new RegExp(source).exec(line);
      const hint = (this.boundedCaller ??= new BoundedCaller()).run(() => formatBreakHint(format, first.line, match), firstLineBudgetMs(this.deps.config.pool.batchTimeoutMs));
      return hint ? `; on ${first.place}, ${hint}` : '';
    } catch {
      // out of time, or a format the tester cannot cut: the 4003 says what it said before
      return '';
    }
  }

  /** The gate over a batch, waiting for the main thread's share when the jobs' gates used it up. */
  private async gated(batch: Uint8Array): Promise<Uint8Array | undefined> {
    const budget = this.deps.gateBudget;
    let rest = batch;
    for (;;) {
      const { data, resumeAt } = this.gate(rest, budget);
      if (resumeAt === undefined) return data;
      await this.unlessAborted(budget!.room());
      if (this.aborted) return undefined;
      rest = rest.subarray(resumeAt);
    }
  }

  /**
   * Looks at the first lines on the main thread until one matches the format (given, or found
   * among the auto-detected ones). Lines before it are unknown formats; too many of them and
   * the job stops with 4003. Returns the part of the batch to parse, from that line on; or where
   * to resume once the jobs' share of the main thread (`budget`) has room again.
   */
  private gate(batch: Uint8Array, budget: GateBudget | undefined): { data?: Uint8Array; resumeAt?: number } {
    let from: number | undefined;
    let resumeAt: number | undefined;
    const rejected: string[] = [];
    try {
      forEachLine(batch, (bytes, start) => {
        if (budget && !budget.hasRoom()) {
          resumeAt = start;
          return false;
        }
        this.reading.line++;
        const line = this.decodeLine(bytes);
        if (line === '') return true;
        this.report.general['input-first-line'] ??= line;
        const { format, dated } = this.firstLineFormat(line);
        if (format && dated) {
          this.format = format;
          from = start;
          return false;
        }
        this.linesRead++;
        this.gateFailures++;
        if (format) this.gateDateFailures++;
        // (a comment line says nothing of where the format differs from the log's lines)
        else if (!line.startsWith('#')) this.firstUnmatched ??= { line, place: this.linePlace(false) };
        if (!this.gateSawCarriageReturn && line.includes('\r') && this.endedByCarriageReturns(line)) this.gateSawCarriageReturn = true;
        rejected.push(line);
        const place = this.linePlace();
        this.traces.warn(format
          ? `${place} matches the log format, but its date does not read with ${this.dateFormatName()}: ${line.slice(0, 300)}`
          : `${place} does not match the log format: ${line.slice(0, 300)}`);
        if (this.gateFailures >= this.options.maxParseAttempts) {
          const formatName = this.options.format ? 'the given log format' : 'any known log format';
          throw new StatusError(4003, this.gateDateFailures === this.gateFailures
            ? `the first ${this.gateFailures} lines match the log format, but their dates do not read with ${this.dateFormatName()}: set Date-Format (Max-Parse-Attempts)`
            : `the first ${this.gateFailures} lines do not match ${formatName}${this.gateDateFailures ? ` (${this.gateDateFailures} of them match it but their dates do not read with ${this.dateFormatName()})` : ''} (Max-Parse-Attempts)${this.formatBreakText()}${this.resultSentBack()}${this.lineEndHint()}${this.ignoredFormatHint()}`);
        }
        return true;
      });
    } finally {
      // Also when the job gives up (Max-Parse-Attempts): the lines it read were rejected.
      this.addRejects('unknown-formats', rejected.length, rejected);
    }
    if (resumeAt !== undefined) return { resumeAt };
    if (from === undefined) return {};
    this.startParsing(this.format!);
    return { data: batch.subarray(from) };
  }

  /** The line the gate looks at, as the traces name it (`Line 3 of file 2 (b.log)`). */
  private linePlace(capital = true): string {
    const place = linePlace(this.reading.line, this.reading.file);
    return capital ? place[0].toUpperCase() + place.slice(1) : place;
  }

  /** How the gate's messages name the job's date format. */
  private dateFormatName(): string {
    return `the date format ${JSON.stringify(this.options.dateFormat)}`;
  }

  /**
   * The format a line matches (the given one, or one auto-detected), and whether its date reads
   * with the job's date format (a line whose date does not is an unknown format too, so that a
   * wrong Date-Format gets 4003 and says so, not an empty answer). Checked on the main thread
   * under a time budget: a costly custom regex fails the job instead of stalling the service.
   */
  private firstLineFormat(line: string): { format?: CompiledFormat; dated: boolean } {
    const ms = firstLineBudgetMs(this.deps.config.pool.batchTimeoutMs);
    // made once, outside the budget: the time zone's formatter reads ICU's data at its first use
    const timer = this.gateTimer ??= makeEventTimer(this.options.dateFormat, this.deps.config.defaultTimeZone);
    // Lines each under their own budget add up: the job's first lines get twice one line's.
    if (this.gateMs > 2 * ms) {
      throw new StatusError(4038, `the first lines took more than ${2 * ms} ms in all to match against the log format (${this.linePlace(false)} reached): its custom expressions may backtrack catastrophically`);
    }
    const formats = this.options.format ? [this.options.format] : autoFormats();
    const check = () => {
      const { format, time } = checkLine(line, formats, timer);
      return { format, dated: time !== undefined };
    };
    const caller = this.boundedCaller ??= new BoundedCaller();
    // The budget is wall time: a machine busy enough to hold the thread back for it once must not
    // fail a sound log; an expression that backtracks catastrophically runs out of it again.
    for (let attempt = 1; ; attempt++) {
      const started = performance.now();
      try {
        return caller.run(check, ms);
      } catch (err) {
        if (!(err instanceof CallTimeout)) throw err;
        if (attempt < 2) continue;
        throw new StatusError(4038, `${this.linePlace(false)} took more than ${ms} ms to match against the log format, twice: its custom expressions may backtrack catastrophically`);
      } finally {
        const took = performance.now() - started;
        this.deps.gateBudget?.record(took);
        this.gateMs += took;
      }
    }
  }

  private startParsing(format: CompiledFormat | JobFormat & { family: typeof CSV_FAMILY }): void {
    this.parsedAny = true;
    const g = this.report.general;
    g['input-format-proxy'] = format.family;
    if (format.family === CSV_FAMILY) {
      g['input-format-literal'] = format.columns.join(';');
      g['input-format-regex'] = null;
      this.traces.info(`CSV file of events, columns: ${format.columns.join(', ')} (dates read as ISO 8601, or from a timestamp or epoch column; the log format does not apply)`);
    } else {
      g['input-format-literal'] = format.literal;
      g['input-format-regex'] = format.source;
      this.traces.info(`Log format${this.options.format ? '' : ' detected'} (${format.family}): ${format.literal}, first matched on ${this.linePlace(false)}`);
      for (const note of format.notes ?? []) this.traces.warn(`Log format: ${note}`);
    }
    this.spec = jobSpec(this.id, format, this.options, {
      defaultZone: this.deps.config.defaultTimeZone,
      // CSV rows reach the workers as UTF-8 JSON, whatever the request's charset
      charset: format.family === CSV_FAMILY ? 'utf-8' : this.batchCharset,
      columns: this.columns(),
      versions: this.deps.versions,
    });
  }

  /** Waits for room: a free in-flight slot for this job, and drained output streams. */
  private async slot(): Promise<void> {
    while (this.inflight.size >= this.deps.config.pool.inFlightPerJob) await Promise.race(this.inflight);
    this.waitingForOutput = true;
    try {
      // a client that reads nothing must not hold an aborted job (shutdown, idle limit) for ever
      await this.unlessAborted(this.output.drained());
    } finally {
      this.waitingForOutput = false;
    }
    await this.deniedFile.drained();
    await this.rejectFiles.drained();
  }

  /** `wait`, or less: until the job is aborted. */
  private unlessAborted(wait: Promise<void>): Promise<void> {
    const signal = this.signal;
    if (signal.aborted) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => resolve();
      signal.addEventListener('abort', onAbort, { once: true });
      wait.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  }

  private dispatch(data: Uint8Array): void {
    const seq = this.seq++;
    const wantJson = this.wantFirstEvent;
    const task = this.deps.pool
      .run({ spec: this.spec!, seq, data, wantJson }, this.signal)
      .then(
        (result) => {
          this.ordered.set(result.seq, result);
          this.drainOrdered();
        },
        (err) => {
          if (!this.aborted) this.abort(isStatusError(err) ? err : new StatusError(5002, (err as Error)?.message ?? String(err)));
        },
      )
      .finally(() => this.inflight.delete(task));
    this.inflight.add(task);
  }

  private async settle(): Promise<void> {
    while (this.inflight.size > 0) await Promise.race(this.inflight);
  }

  private drainOrdered(): void {
    for (let r = this.ordered.get(this.nextSeq); r; r = this.ordered.get(this.nextSeq)) {
      this.ordered.delete(this.nextSeq);
      this.nextSeq++;
      try {
        this.handle(r);
      } catch (err) {
        this.abort(isStatusError(err) ? err : new StatusError(5000, (err as Error).message));
      } finally {
        this.flushEvents();
      }
    }
  }

  private addRejects(category: RejectCategory, count: number, lines?: readonly string[]): void {
    if (count === 0) return;
    this.rejects[category] = (this.rejects[category] ?? 0) + count;
    if (lines?.length) this.rejectFiles.write(category, lines);
  }

  private readonly sink: SequentialSink = {
    emit: (e) => {
      this.unorderedRun.n = 0;
      this.emit(e);
    },
    reject: (e, category) => {
      this.addRejects(category, 1, e.raw !== undefined ? [e.raw] : undefined);
      if (category === 'unordered-ecs') this.countUnordered(e.ts);
    },
  };

  /**
   * A run of unordered-ecs rejections with no event kept between them: one line dated ahead of
   * the others (a wrong date) makes every later line of the log out of order, which the counts
   * alone do not explain. Said once a job.
   */
  private countUnordered(ts: number): void {
    const run = this.unorderedRun;
    if (++run.n !== UNORDERED_RUN || run.told) return;
    run.told = true;
    this.traces.warn(`${UNORDERED_RUN} lines in a row were rejected as out of order (unordered-ecs), the last dated ${isoSeconds(ts)}: a line dated ${isoSeconds(this.latestTs)} moved the job's time ahead, and every line dated before it is rejected. If that date is wrong, correct the line; to keep the lines, send Chronology-Tolerance (up to ${MAX_CHRONOLOGY_TOLERANCE} s) or Double-Click-Removal: false`);
  }

  private handle(result: BatchResult): void {
    this.linesRead += result.lines;
    for (const [category, count] of Object.entries(result.rejects) as Array<[RejectCategory, number]>) {
      this.addRejects(category, count, result.rejectedLines[category]);
    }
    for (const [domain, n] of Object.entries(result.unknownDomains)) this.unknownDomains.add(domain, n);
    this.formatBreaks.add(result.seq, result.lines, result.rejects['unknown-formats'] ?? 0);
    for (const e of result.errors) this.traces.error(`A line could not be processed (unknown-errors): ${e}`);
    this.traces.debug(`Batch ${result.seq}: ${result.lines} lines, ${result.events.count} events, rejects ${JSON.stringify(result.rejects)}`);
    // A file that starts before the end of the files before it (files not in time order): its lines
    // up to then are out of order (unordered-ecs). Said once a file: the reference says nothing.
    while (this.handlingPart + 1 < this.parts.length && this.parts[this.handlingPart + 1].firstSeq <= result.seq) {
      this.handlingPart++;
      this.partStarting = this.handlingPart > 0;
    }
    for (const event of unpackEvents(result.events)) {
      if (this.partStarting) {
        this.partStarting = false;
        if (event.ts < this.latestTs) this.warnFileOrder(event.ts);
      }
      if (event.ts > this.latestTs) this.latestTs = event.ts;
      this.sequential.push(event, this.sink);
    }
  }

  private warnFileOrder(ts: number): void {
    const iso = isoSeconds;
    const part = this.parts[this.handlingPart];
    const text = `File ${this.handlingPart + 1} (${part.name}) starts at ${iso(ts)}, before the last line of the files before it (${iso(this.latestTs)}): the files are not in time order, and its lines dated before that are out of order (unordered-ecs) when double clicks are removed; send the files in time order`;
    this.traces.warn(text);
    // the report's alerts name the first such file (the traces, each)
    this.fileOrderAlert ??= text;
  }

  /** Counts the events a holding stage released early; its first time, said in the traces. */
  private releasedEarly(stage: HoldingStage, n: number, maxHeld: number): void {
    const early = this.early[stage];
    if (early.n === 0) this.traces.warn(heldEventsAlert(stage, { maxHeld, shared: maxHeld < this.deps.config.limits.maxHeldEvents }));
    early.n += n;
    early.maxHeld = maxHeld;
  }

  private emit(event: EventRecord): void {
    // counted here, after the double clicks and the chronology: the reference's enhancer comes after its deduplicator
    if (event.pkbMiss) this.addRejects('pkb-miss-ecs', 1, event.raw !== undefined ? [event.raw] : undefined);
    if (event.campus !== undefined) {
      if (event.campus) this.onCampus++;
      else this.offCampus++;
    }
    if (event.denied) {
      this.denied++;
      this.deniedTexts.push(event.text);
      return;
    }
    this.events++;
    this.eventTexts.push(event.text);
    if (this.wantFirstEvent && event.json) {
      this.wantFirstEvent = false;
      this.report.replace('first_event', JSON.parse(event.json) as ReportSection);
    }
    if (this.options.cleanOnly) return;
    if (event.platform) this.count(this.platformCounts, 'platform-', event.platform);
    if (event.rtype) this.count(this.rtypeCounts, 'rtype-', event.rtype);
    if (event.mime) this.count(this.mimeCounts, 'mime-', event.mime);
  }

  /**
   * Counts an event in the report's stats. The counts live in maps keyed by the value (no key
   * text built per event) and are copied into the stats when the report is written; a key enters
   * the stats when first seen, so that their order is the order of first appearance.
   */
  private count(counts: Map<string, { key: string; n: number }>, prefix: string, value: string): void {
    let c = counts.get(value);
    if (c === undefined) {
      c = { key: prefix + value, n: 0 };
      counts.set(value, c);
      const stats = this.report.stats;
      stats[c.key] ??= 0;
      if (counts === this.platformCounts) {
        stats.platforms = counts.size;
        this.report.set('platform-versions', value, this.deps.platformVersion?.(value) ?? this.deps.versions.platforms_version);
      }
    }
    c.n++;
  }

  /** Writes the events of a batch as one chunk (and the denied ones as another). */
  private flushEvents(): void {
    if (this.eventTexts.length > 0) {
      this.output.writeAll(this.eventTexts);
      this.eventTexts = [];
    }
    if (this.deniedTexts.length > 0) {
      this.deniedFile.writeAll(this.deniedTexts);
      this.deniedTexts = [];
    }
  }

  progress(): JobProgress {
    const rejects: Record<string, number> = {};
    for (const [c, n] of Object.entries(this.rejects)) rejects[c] = n;
    return { bytesRead: this.bytesRead, linesRead: this.linesRead, events: this.events, denied: this.denied, rejects };
  }

  /** What the job's row keeps: its counts and its report. */
  private rowProgress(): JobProgress {
    return { ...this.progress(), report: this.report.toJSON() };
  }

  /**
   * Brings the report's counters up to date. Speeds are those since the previous write while the
   * job runs (what a client polling the report wants to see), the job's average once it has ended.
   */
  private refreshReport(): void {
    const g = this.report.general;
    const now = Date.now();
    const elapsed = now - this.startedAt.getTime();
    g['Job-Duration'] = formatDuration(elapsed);
    g['nb-ecs'] = this.events;
    g['nb-denied-ecs'] = this.denied;
    g['nb-lines-input'] = this.linesRead;
    g['Rejection-Rate'] = rejectionRate(this.linesRead, this.rejects);
    const since = this.state === 'running' ? this.speedSample : { at: this.startedAt.getTime(), lines: 0, events: 0 };
    const seconds = Math.max((now - since.at) / 1000, 0.001);
    g['process-speed'] = `${Math.round((this.linesRead - since.lines) / seconds)} lignes/s`;
    g['ecs-speed'] = `${Math.round((this.events - since.events) / seconds)} ec/s`;
    this.speedSample = { at: now, lines: this.linesRead, events: this.events };
    if (this.options.middlewares.includes('on-campus-counter')) {
      g['on-campus-accesses'] = this.onCampus;
      g['off-campus-accesses'] = this.offCampus;
    }
    for (const [c, n] of Object.entries(this.rejects) as Array<[RejectCategory, number]>) this.report.rejets[REJECT_COUNTERS[c]] = n;
    const stats = this.report.stats;
    for (const counts of [this.platformCounts, this.rtypeCounts, this.mimeCounts]) for (const { key, n } of counts.values()) stats[key] = n;
    this.report.replace('alerts', this.alerts().section);
    this.report.refresh();
  }

  /**
   * Writes report.json (atomically: a reader never sees half a file) and saves progress. Writes
   * run one after the other, so that a periodic write still under way never lands after the final one.
   */
  writeReport(): Promise<void> {
    this.reportWrites = this.reportWrites.then(() => this.writeReportNow());
    return this.reportWrites;
  }

  private async writeReportNow(): Promise<void> {
    if (this.speedSample.at === 0) this.speedSample.at = this.startedAt.getTime();
    this.refreshReport();
    const file = join(this.dir, REPORT_FILE);
    // The file and the row each on their own: the report routes serve the row's copy when the
    // file is missing or behind it. A failure is said once (the folder may be gone, the disk full).
    try {
      await writeFileAside(file, JSON.stringify(this.report, null, 2));
    } catch (err) {
      this.warnOnce('report', storageError(err, { file }), err, 'report.json could not be written: the report routes serve the copy in the database');
    }
    if (this.rowFailed) return;
    try {
      // one try: a snapshot the database's lock holds back is skipped, the next one comes soon
      const store = this.deps.store;
      const progress = this.rowProgress();
      await store.whenFree(() => store.saveProgress(this.id, progress), 0);
    } catch (err) {
      this.warnOnce('progress', storageError(err, { database: this.deps.store.file }), err, 'the job row could not be updated');
    }
  }

  private readonly warned = new Set<string>();
  /** the job's row could not be closed: not tried again (a locked database holds each try 5 s) */
  private rowFailed = false;

  /** A failure that does not stop the job, in the service log and the traces, once per kind. */
  private warnOnce(kind: string, error: StatusError, err: unknown, what: string): void {
    if (this.warned.has(kind)) return;
    this.warned.add(kind);
    this.deps.log?.warn({ job: this.id, err }, `${what}: ${error.message}`);
    this.traces.warn(`${what}: ${error.message}`);
  }

  /** A storage failure that fails the job, in the service log at error level; returns the error. */
  private storageFailed(error: StatusError, err: unknown, what: string): StatusError {
    this.deps.log?.error({ job: this.id, err, code: error.code }, `${what}: ${error.message}`);
    return error;
  }

  /**
   * Closes the job's row, waiting (the event loop free) while another process holds the database;
   * a storage failure is said in the log and thrown as a StatusError.
   */
  private async endRow(state: JobOutcome, status?: { code: number; message: string }): Promise<void> {
    if (this.rowFailed) return;
    const store = this.deps.store;
    const progress = this.rowProgress();
    try {
      await store.whenFree(() => store.end(this.id, state, progress, status));
    } catch (err) {
      this.rowFailed = true;
      const error = storageError(err, { database: store.file });
      this.traces.error(`The job row could not be closed: ${error.message}`);
      throw this.storageFailed(error, err, `the job row could not be closed (${state})`);
    }
  }

  /**
   * A row that could not be closed (a lock, a full disk, an I/O error) is closed once the cause is
   * gone (tried every ROW_RETRY_MS for ROW_RETRY_FOR_MS), so that it does not read `running` until
   * the next start, which would take it for interrupted.
   */
  private closeRowLater(state: JobOutcome, status: { code: number; message: string }): void {
    const store = this.deps.store;
    const progress = this.rowProgress();
    const endedAt = new Date();
    const giveUpAt = Date.now() + ROW_RETRY_FOR_MS;
    void (async () => {
      while (Date.now() < giveUpAt) {
        await sleep(ROW_RETRY_MS, undefined, { ref: false });
        try {
          await store.whenFree(() => store.end(this.id, state, progress, status, endedAt), 0);
          this.deps.log?.warn({ job: this.id }, `the job row is closed at last (${state}, ${status.code})`);
          return;
        } catch (err) {
          // another failure (the database closed by the shutdown): the next start marks it interrupted
          if (storageDetail(err, { database: store.file }) === undefined) return;
        }
      }
    })();
  }

  /**
   * The report's alerts (reference 6.1) on the lines read so far: in each snapshot, so that a job
   * cut off by the end of its process has those of its last one; `texts` are said in the traces
   * at the job's end.
   */
  private alerts(): { section: ReportSection; texts: string[] } {
    const relevant = this.linesRead - (this.rejects['filtered-ecs'] ?? 0);
    const texts = unknownDomainAlerts(this.unknownDomains, relevant, this.options.alerts);
    const section: ReportSection = { 'active-alerts': 'unknown-domains' };
    texts.forEach((text, i) => { section[`alert-${i + 1}`] = text; });
    // said in the traces when it first happened
    let n = texts.length;
    for (const text of ignoredFormatTexts(this.options)) section[`alert-${++n}`] = text;
    const found = this.formatBreaks.largestBreak;
    const part = found && this.parts.length > 1 ? this.parts.findIndex((p) => p.firstSeq === found.seq) : -1;
    const formatBreak = formatBreakAlert(found, relevant, this.options.alerts, part >= 0 ? `file ${part + 1} (${this.parts[part].name})` : undefined);
    if (formatBreak) {
      section[`alert-${++n}`] = formatBreak;
      texts.push(formatBreak);
    }
    if (this.fileOrderAlert) section[`alert-${++n}`] = this.fileOrderAlert;
    for (const stage of ['chronology', 'double-clicks'] as const) {
      const early = this.early[stage];
      if (early.n > 0) section[`alert-${++n}`] = heldEventsAlert(stage, { maxHeld: early.maxHeld, shared: early.maxHeld < this.deps.config.limits.maxHeldEvents }, early.n);
    }
    return { section, texts };
  }

  private traceAlerts(): void {
    for (const text of this.alerts().texts) this.traces.warn(`Alert: ${text}`);
  }

  /** Traces what the job did with its lines, and says so loudly if some line is not accounted for. */
  private traceCounts(stopped = false): void {
    this.traces.info(countsLine(this.linesRead, this.events, this.denied, this.progress().rejects));
    const accounted = accountedLines(this.report.toJSON());
    if (accounted === this.linesRead) return;
    // A job that stops early drops the events its double-click and chronology checks still held.
    if (stopped) this.traces.warn(`${this.linesRead - accounted} of the ${this.linesRead} lines read were events still held by the double-click or chronology checks when the job stopped: neither written nor rejected`);
    else this.traces.error(`${this.linesRead} lines read but ${accounted} accounted for`);
  }

  /** `failure`: the denied events' file ends with the job's error line, as the result does. */
  private async closeFiles(failure?: StatusError): Promise<void> {
    if (this.reportTimer) clearInterval(this.reportTimer);
    const marker = failure && { code: failure.code, message: failure.message };
    // once: a job that fails after its normal end (its row) has closed them already
    this.filesClosed ??= Promise.allSettled([this.deniedFile?.close(marker), this.rejectFiles?.close()]).then(() => undefined);
    await this.filesClosed;
  }

  private filesClosed: Promise<void> | undefined;

  private async complete(): Promise<JobOutcome> {
    await this.closeFiles();
    // the result file whole before the row says done (a download then gets all of it), and a
    // file that cannot be written at its end fails the job instead of ending it done
    await this.output.settle();
    if (isStatusError(this.failure) && this.failure.code === 5005) throw this.failure;
    this.state = 'done';
    this.report.general['Job-Done'] = true;
    this.traceAlerts();
    this.refreshReport();
    this.traceCounts();
    this.traces.info(`Job done in ${formatDuration(Date.now() - this.startedAt.getTime()).trim()}`);
    await this.writeReport();
    // before the traces are closed: a row that cannot be closed fails the job, traced
    await this.endRow('done');
    await this.closeTraces();
    await this.output.finish();
    return 'done';
  }

  private async terminate(err: unknown): Promise<JobOutcome> {
    const error = isStatusError(err) ? err : clientGone(err) ? new StatusError(4039, 'the upload broke off')
      : new StatusError(5000, (err as Error)?.message ?? String(err));
    if (!this.failure) this.failure = error;
    if (!this.abortController.signal.aborted) this.abortController.abort(error);
    await this.settle().catch(() => undefined);
    const outcome: JobOutcome = STOPPED_FROM_OUTSIDE.has(error.code) ? 'aborted' : 'failed';
    // A job stopped from outside (its client, the shutdown, an administrator) still writes the events its checks
    // held, whose lines were read and counted: before, they were neither written nor rejected.
    // (A failed one may have failed in those checks: it writes nothing more.)
    if (outcome === 'aborted') {
      try {
        this.flushHeld();
      } catch {
        // the traces' count says what was not accounted for
      }
    }
    await this.closeFiles(error);
    this.state = outcome;
    const g = this.report.general;
    // (a job whose row could not be closed had got as far as its end)
    g['Job-Done'] = false;
    g.status = error.code;
    g['status-message'] = error.message;
    this.traceAlerts();
    this.refreshReport();
    this.traceCounts(true);
    this.traces.error(`Job ${outcome}: ${error.code} ${error.message}`);
    if (error.code === 5000 && err instanceof Error && err.stack) this.traces.error(err.stack);
    await this.writeReport();
    const status = { code: error.code, message: error.message };
    try {
      await this.endRow(outcome, status);
    } catch {
      // said in the log; the client still gets the job's own error
    }
    // (also a row that failed to close at the job's normal end)
    if (this.rowFailed) this.closeRowLater(outcome, status);
    await this.closeTraces();
    if (this.output.started) await this.output.failStreaming(error.code, error.message);
    else this.onFailBeforeOutput?.(error);
    return outcome;
  }

  /** Set by the route: answers an error when nothing was sent yet. */
  onFailBeforeOutput?: (error: StatusError) => void;
}

