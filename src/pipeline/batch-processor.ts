import * as crypto from 'node:crypto';
import iconv from 'iconv-lite';
import { compileFormat } from './formats/compile.js';
import { parseLine } from './formats/line-parser.js';
import { CSV_FAMILY, csvRowFields } from './formats/csv-rows.js';
import { makeEventTimer, makeIsoEventTimer, type EventTime } from './dates.js';
import { normaliseUrl } from './url-normalise.js';
import { createSerializer } from './writers/index.js';
import type { EventSerializer } from './writers/types.js';
import { anonymizerStage, createCrypter } from './stages/anonymizer.js';
import { statusStage, validityStage } from './stages/validity.js';
import { platformStage } from './stages/platform.js';
import { qualifierStage } from './stages/qualifier.js';
import { exclusionStage, userAgentField } from './stages/exclusions.js';
import { deduplicatorStage } from './stages/deduplicator.js';
import { enhancerStage } from './stages/enhancer.js';
import { geolocalizerStage } from './stages/geolocalizer.js';
import { cutStage } from './stages/cut.js';
import { onCampusStage } from './stages/on-campus.js';
import { externalStage } from './stages/external.js';
import type { EventFlags, EventStage, RejectCategory } from './stages/types.js';
import type { AccessEvent } from './event.js';
import { eventShapeFor } from './event-shape.js';
import type { BatchResult, JobSpec } from './job-spec.js';
import { EventPacker } from './packed-events.js';
import { isBuiltinMiddleware } from './middlewares.js';
import { withoutLineEnd } from './line-batches.js';
import type { PlatformSet } from '../platforms/platform-set.js';
import type { WorkerResources } from '../resources/index.js';

/** What every job of a worker shares: loaded once per worker. */
export interface SharedResources {
  readonly platforms: PlatformSet;
  readonly resources: WorkerResources;
  /** the worker's batches are packed by this one packer, one batch after the other */
  readonly packer: EventPacker;
}

/** A job compiled for one worker. */
export interface JobContext {
  readonly spec: JobSpec;
  /** a line's fields (into `into` when given), or undefined when it does not match the job's format */
  readonly parse: (line: string, into?: Record<string, string>) => Record<string, string> | undefined;
  /** makes an event with its usual fields in place (event-shape.ts); undefined: events stay plain */
  readonly newEvent: (() => AccessEvent) | undefined;
  readonly timer: (fields: Record<string, string | undefined>) => EventTime | undefined;
  readonly stages: readonly EventStage[];
  readonly serializer: EventSerializer;
  /** calls `fn` with each line of a batch, decoded, without its line end's `\r` (withoutLineEnd) */
  readonly eachLine: (bytes: Uint8Array, fn: (line: string) => void) => void;
  readonly keepLines: ReadonlySet<RejectCategory>;
  /** no step of the chain reads log_id (no external middleware, not crypted nor a double-click field) */
  readonly lateLogId: boolean;
  /** the worker's packer (SharedResources) */
  readonly packer: EventPacker;
  /** gives an event the job's provenance fields it does not have (provenanceSetter) */
  readonly addProvenance: (ec: AccessEvent) => void;
}

/**
 * SHA-1 of a line in hex. The one-shot crypto.hash (Node ≥ 20.12) costs about a third of
 * createHash().update().digest(), which makes a Hash object per line.
 */
const sha1Hex: (text: string) => string = typeof crypto.hash === 'function'
  ? (text) => crypto.hash('sha1', text, 'hex')
  : (text) => crypto.createHash('sha1').update(text).digest('hex');

/**
 * Cuts and decodes a batch's lines. UTF-8 and Latin-1 lines are decoded one by one: one string
 * of the whole batch (256 KB) would be a large object, which survives the batch in the old
 * generation until a full collection, so each worker's heap would grow by dozens of them. A
 * line is decoded as the whole batch would be (0x0A is never part of a multi-byte character).
 * Other charsets may carry state from line to line: decoded whole. The carriage returns of line
 * ends (line-batches.ts, withoutLineEnd) are left out by moving the line's bounds, before decoding
 * (no string sliced for a CRLF line).
 */
const CR = 0x0d;

function lineSplitterFor(charset: string): JobContext['eachLine'] {
  const cs = charset.toLowerCase().replace(/[^a-z0-9]/g, '');
  const perLine: BufferEncoding | undefined = cs === 'utf8' ? 'utf8' : cs === 'latin1' || cs === 'iso88591' || cs === 'binary' ? 'latin1' : undefined;
  if (perLine) {
    return (bytes, fn) => {
      const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      let start = 0;
      while (start < buf.length) {
        let end = buf.indexOf(0x0a, start);
        if (end < 0) end = buf.length;
        let from = start;
        let to = end;
        if (to > from && buf[to - 1] === CR) {
          to--;
          if (to > from && buf[to - 1] === CR) to--;
        }
        if (to > from && buf[from] === CR) from++;
        fn(buf.toString(perLine, from, to));
        start = end + 1;
      }
    };
  }
  return (bytes, fn) => {
    const text = iconv.decode(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), charset);
    let start = 0;
    while (start < text.length) {
      let end = text.indexOf('\n', start);
      if (end < 0) end = text.length;
      fn(withoutLineEnd(text.slice(start, end)));
      start = end + 1;
    }
  };
}

/**
 * The per-event chain of a job, from its middleware names (reference 3.8). Clean-Only stops after
 * the validity and status filters. A step whose feature is off for the job (Geoip: none,
 * ezPAARSE-Enrich: false, Double-Click-Removal: false, crypting disabled) is left out.
 */
export function buildChain(spec: JobSpec, shared: SharedResources, formatFields: readonly string[] = []): EventStage[] {
  const validity = [validityStage({ forceParser: spec.platforms.force !== undefined }), statusStage(spec.status)];
  if (spec.cleanOnly) return validity;
  const r = shared.resources;
  const chain: EventStage[] = [];
  for (const name of spec.middlewares) {
    switch (name) {
      case 'filter':
        chain.push(...validity, exclusionStage(r.exclusions, spec.exclusions, userAgentField(formatFields)));
        break;
      case 'parser':
        chain.push(platformStage(shared.platforms, {
          forceParser: spec.platforms.force,
          filterPlatforms: spec.platforms.only ? new Set(spec.platforms.only) : undefined,
          allowWildcards: spec.platforms.wildcards,
          forcePublisher: spec.platforms.publisher,
        }));
        break;
      case 'deduplicator':
        if (spec.doubleClick?.enabled) chain.push(deduplicatorStage(spec.doubleClick));
        break;
      case 'enhancer':
        if (spec.enrich && r.pkb.platforms.size > 0) chain.push(enhancerStage(r.pkb));
        break;
      case 'geolocalizer':
        if (spec.geolocate && r.geo) chain.push(geolocalizerStage(r.geo));
        break;
      case 'cut':
        if (spec.extract) chain.push(cutStage(spec.extract));
        break;
      case 'on-campus-counter':
        chain.push(onCampusStage(r.campus));
        break;
      case 'qualifier':
        chain.push(qualifierStage());
        break;
      case 'anonymizer':
        if (spec.crypt) {
          chain.push(anonymizerStage(createCrypter({ fields: spec.crypt.fields.join(','), salt: spec.crypt.salt, algorithm: spec.crypt.algorithm })!));
        }
        break;
      default: {
        const mod = r.middlewares.get(name);
        if (!mod) throw new Error(`no middleware named ${name} in this worker`);
        chain.push(externalStage(name, mod, { headers: spec.headers, formatFields }));
      }
    }
  }
  return chain;
}

/** How a job's lines are read: its log format, or the rows of a CSV file of events. */
function lineReader(spec: JobSpec): Pick<JobContext, 'parse' | 'timer'> & { readonly fieldNames: readonly string[] } {
  const f = spec.format;
  if (f.family === CSV_FAMILY) {
    // an ISO 8601 datetime column, unless a timestamp or epoch column (reference 2.7)
    return { parse: csvRowFields, fieldNames: f.columns, timer: makeIsoEventTimer(spec.defaultZone) };
  }
  const format = compileFormat(f.family, f.literal);
  return {
    parse: (line, into) => parseLine(format, line, into),
    fieldNames: format.fieldNames,
    timer: makeEventTimer(spec.dateFormat, spec.defaultZone),
  };
}

export function createJobContext(spec: JobSpec, shared: SharedResources): JobContext {
  const { parse, timer, fieldNames } = lineReader(spec);
  const builtinOnly = spec.middlewares.every(isBuiltinMiddleware);
  return {
    spec,
    parse,
    // a CSV of events has columns of its own, in rows that may each name others: left plain
    newEvent: spec.format.family === CSV_FAMILY ? undefined : eventShapeFor({ output: spec.output.kind, builtinOnly, formatFields: fieldNames, provenance: Object.keys(spec.provenance) }),
    timer,
    stages: buildChain(spec, shared, fieldNames),
    serializer: createSerializer(spec.output.kind, spec.output.columns),
    eachLine: lineSplitterFor(spec.charset),
    keepLines: new Set(spec.keepLines),
    lateLogId: builtinOnly
      && !spec.crypt?.fields.includes('log_id')
      && !(spec.doubleClick && Object.values(spec.doubleClick.fields).includes('log_id')),
    packer: shared.packer,
    addProvenance: provenanceSetter(spec.provenance),
  };
}

/**
 * A function giving an event each provenance field it does not have, in the provenance's order.
 * Written for the job's field names (a store to a named field per name): one loop storing under
 * a key that varies was one of a worker's larger costs, since every line passes here. The names
 * and values reach the source only through JSON.stringify.
 */
export function provenanceSetter(provenance: Readonly<Record<string, string>>): (ec: AccessEvent) => void {
  const body = Object.keys(provenance)
    .map((key, i) => `if (ec[${JSON.stringify(key)}] === undefined) ec[${JSON.stringify(key)}] = values[${i}];`)
    .join('\n');
  return new Function('values', `'use strict'; return (ec) => {\n${body}\n};`)(Object.values(provenance)) as (ec: AccessEvent) => void;
}

/**
 * Turns one line into an event with the fields every event has (url and domain normalised,
 * datetime/date/timestamp, log_id, provenance), or undefined when the line does not match the
 * format or carries no usable date (both are unknown formats). `into`: the event to fill (shaped).
 */
export function lineToEvent(ctx: JobContext, line: string, into?: AccessEvent): AccessEvent | undefined {
  const fields = ctx.parse(line, into as Record<string, string> | undefined);
  if (!fields) return undefined;
  const time = ctx.timer(fields);
  if (!time) return undefined;
  const ec: AccessEvent = fields;
  if (typeof fields.url === 'string') {
    const { url, domain } = normaliseUrl(fields.url);
    ec.url = url;
    if (domain !== undefined) ec.domain = domain;
  }
  ec.datetime = time.datetime;
  ec.timestamp = time.timestamp;
  ec.date = time.date;
  // Most lines are rejected by the chain: when no step reads log_id, hashing waits for the event
  // to pass it, and the placeholder keeps log_id's place among the keys (JSON output).
  ec.log_id = ctx.lateLogId ? undefined : sha1Hex(line);
  ctx.addProvenance(ec);
  return ec;
}

class BatchCollector {
  readonly rejects: Partial<Record<RejectCategory, number>> = {};
  readonly rejectedLines: Partial<Record<RejectCategory, string[]>> = {};
  readonly unknownDomains: Record<string, number> = {};
  readonly errors: string[] = [];
  lines = 0;

  constructor(readonly events: EventPacker, private readonly keep: ReadonlySet<RejectCategory>) {}

  reject(category: RejectCategory, line: string): void {
    this.rejects[category] = (this.rejects[category] ?? 0) + 1;
    if (this.keep.has(category)) (this.rejectedLines[category] ??= []).push(line);
  }
}

function processLine(ctx: JobContext, line: string, out: BatchCollector, wantJson: boolean): void {
  // the report's first event is written with its keys in the order they were set: a plain object
  const ec = lineToEvent(ctx, line, wantJson ? undefined : ctx.newEvent?.());
  if (!ec) {
    out.reject('unknown-formats', line);
    return;
  }
  // the clear time, for the chronology and the double-click windows: Crypted-Fields may name timestamp
  const ts = ec.timestamp as number;
  // every flag in place from the start: one hidden class, whichever stages set them
  const flags: EventFlags = { denied: false, pkbMiss: false, dupKey: undefined, dupWindow: undefined, campus: undefined };
  for (const stage of ctx.stages) {
    const verdict = stage.run(ec, flags);
    if (verdict === undefined) continue;
    out.reject(verdict, line);
    if (verdict === 'unknown-domains' && typeof ec.domain === 'string') {
      out.unknownDomains[ec.domain] = (out.unknownDomains[ec.domain] ?? 0) + 1;
    }
    return;
  }
  // Clean-Only outputs the lines that pass the status filter, 401/403 included (reference 3.5).
  if (ctx.spec.cleanOnly) flags.denied = false;
  const spec = ctx.spec;
  const platform = typeof ec.platform === 'string' ? ec.platform : undefined;
  const rtype = typeof ec.rtype === 'string' ? ec.rtype : undefined;
  const mime = typeof ec.mime === 'string' ? ec.mime : undefined;
  if (ctx.lateLogId) ec.log_id = sha1Hex(line);
  // the report's first event: every field of the event, and not the line Clean-Only adds below
  const json = wantJson ? JSON.stringify(ec) : undefined;
  if (spec.cleanOnly) ec._line = line;
  out.events.push({
    ts,
    text: ctx.serializer.serialize(ec),
    // Clean-Only writes every line that passes the status filter, 401/403 included (reference 3.5)
    denied: flags.denied && !spec.cleanOnly,
    platform,
    rtype,
    mime,
    raw: spec.keepRaw ? line : undefined,
    json,
    dupKey: flags.dupKey,
    dupWindow: flags.dupWindow,
    campus: flags.campus,
    pkbMiss: flags.pkbMiss,
  });
}

/**
 * Processes a batch of whole lines: each non-empty line ends as exactly one event or one
 * rejected line. An unexpected error on a line rejects that line only (unknown-errors).
 */
export function processBatch(ctx: JobContext, data: Uint8Array, seq: number, wantJson = false): BatchResult {
  // a batch that failed midway (its worker then answered with the error) left its events in the packer
  ctx.packer.clear();
  const out = new BatchCollector(ctx.packer, ctx.keepLines);
  ctx.eachLine(data, (line) => {
    if (line === '') return;
    out.lines++;
    try {
      processLine(ctx, line, out, wantJson);
    } catch (err) {
      out.reject('unknown-errors', line);
      if (out.errors.length < 10) out.errors.push((err as Error)?.stack ?? String(err));
    }
  });
  return {
    seq,
    lines: out.lines,
    events: out.events.pack(),
    rejects: out.rejects,
    rejectedLines: out.rejectedLines,
    unknownDomains: out.unknownDomains,
    errors: out.errors,
  };
}
