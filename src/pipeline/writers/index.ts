import { StatusError } from '../../status-codes.js';
import { cleanLogFrame, createCleanLogSerializer } from './clean-log.js';
import { createCsvSerializer, csvFrame } from './csv.js';
import { createJsonSerializer, jsonFrame } from './json.js';
import { createJsonStreamSerializer, jsonStreamFrame } from './jsonstream.js';
import { createTsvSerializer, tsvFrame } from './tsv.js';
import type { EventSerializer, Frame, OutputFormat, OutputKind } from './types.js';

export type { EventSerializer, Frame, OutputFormat, OutputKind } from './types.js';

export const OUTPUT_FORMATS: Readonly<Record<OutputKind, OutputFormat>> = Object.freeze({
  csv: Object.freeze({ kind: 'csv', contentType: 'text/csv', extension: 'csv' }),
  tsv: Object.freeze({ kind: 'tsv', contentType: 'text/tab-separated-values', extension: 'txt' }),
  json: Object.freeze({ kind: 'json', contentType: 'application/json', extension: 'json' }),
  // the reference answers jsonstream with application/json too
  jsonstream: Object.freeze({ kind: 'jsonstream', contentType: 'application/json', extension: 'json' }),
  log: Object.freeze({ kind: 'log', contentType: 'text/x-log', extension: 'log' }),
});

/** Worker side. `columns` only matters to CSV and TSV (JSON writes every non-internal field). */
export function createSerializer(kind: OutputKind, columns: readonly string[]): EventSerializer {
  switch (kind) {
    case 'csv':
      return createCsvSerializer(columns);
    case 'tsv':
      return createTsvSerializer(columns);
    case 'json':
      return createJsonSerializer();
    case 'jsonstream':
      return createJsonStreamSerializer();
    case 'log':
      return createCleanLogSerializer();
  }
}

/**
 * The denied file's framing: the output's, except for jsonstream, whose denied file is a JSON
 * array (reference 5.4) of the same compact objects, as its `.json` name promises.
 */
export function deniedFrameFor(kind: OutputKind, columns: readonly string[]): Frame {
  return frameFor(kind === 'jsonstream' ? 'json' : kind, columns);
}

/** Main-thread side: head, separator, tail and error marker of a job's body (see Frame). */
export function frameFor(kind: OutputKind, columns: readonly string[]): Frame {
  switch (kind) {
    case 'csv':
      return csvFrame(columns);
    case 'tsv':
      return tsvFrame(columns);
    case 'json':
      return jsonFrame();
    case 'jsonstream':
      return jsonStreamFrame();
    case 'log':
      return cleanLogFrame();
  }
}

/** The media types a client may ask for, in the order preferred when it accepts several equally. */
const OFFERED: readonly (readonly [type: string, subtype: string, kind: OutputKind])[] = [
  ['text', 'csv', 'csv'],
  ['text', 'tab-separated-values', 'tsv'],
  ['application', 'json', 'json'],
  ['application', 'jsonstream', 'jsonstream'],
];

interface MediaRange {
  type: string;
  subtype: string;
  /** quality, 0 to 1 */
  q: number;
  /** media-type parameters before q (they make a range more specific) */
  params: number;
}

/** Splits on `sep` outside double-quoted strings (parameter values may be quoted). */
function splitOutsideQuotes(text: string, sep: string): string[] {
  const parts: string[] = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') quoted = !quoted;
    else if (c === '\\' && quoted) i++;
    else if (c === sep && !quoted) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;
const QVALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

/** One media range of Accept, or undefined when it is malformed (then it is ignored, as RFC 9110 allows). */
function parseRange(item: string): MediaRange | undefined {
  const [mediaType, ...rawParams] = splitOutsideQuotes(item, ';');
  const slash = mediaType.indexOf('/');
  if (slash < 0) return undefined;
  const type = mediaType.slice(0, slash).trim().toLowerCase();
  const subtype = mediaType.slice(slash + 1).trim().toLowerCase();
  if (!TOKEN.test(type) || !TOKEN.test(subtype) || (type === '*' && subtype !== '*')) return undefined;
  let q = 1;
  let params = 0;
  for (const raw of rawParams) {
    const eq = raw.indexOf('=');
    const name = (eq < 0 ? raw : raw.slice(0, eq)).trim().toLowerCase();
    if (name === '') continue;
    if (name === 'q') {
      const value = eq < 0 ? '' : raw.slice(eq + 1).trim();
      if (!QVALUE.test(value)) return undefined;
      q = Number(value);
      break; // what follows q are accept-extensions, not media-type parameters
    }
    params++;
  }
  return { type, subtype, q, params };
}

/** How precisely `range` names `type/subtype` (higher wins), or -1 when it does not match it. */
function specificity(range: MediaRange, type: string, subtype: string): number {
  if (range.type === '*') return 0;
  if (range.type !== type) return -1;
  if (range.subtype === '*') return 1;
  return range.subtype === subtype ? 2 + range.params : -1;
}

/**
 * Chooses the output format (reference 1.3, with real negotiation as recommended in 10 #14).
 * Clean-Only always gives the original lines (Accept is ignored). An absent or blank Accept gives
 * CSV. Otherwise each offered type gets the quality of the most specific range matching it
 * (parameters such as `charset=utf-8` are accepted and ignored: Response-Charset decides the
 * charset); the best quality wins, then the range the client listed first, then the order CSV, TSV,
 * JSON, jsonstream (so `*` / `*` and `text/*` give CSV, `application/*` JSON). Nothing acceptable: 4006.
 */
export function negotiateOutput(accept: string | undefined, cleanOnly: boolean): OutputFormat {
  if (cleanOnly) return OUTPUT_FORMATS.log;
  if (accept === undefined || accept.trim() === '') return OUTPUT_FORMATS.csv;

  const ranges: MediaRange[] = [];
  const malformed: string[] = [];
  for (const item of splitOutsideQuotes(accept, ',')) {
    if (item.trim() === '') continue;
    const range = parseRange(item);
    if (range) ranges.push(range);
    else malformed.push(item.trim());
  }

  let best: OutputKind | undefined;
  let bestQ = 0;
  let bestPosition = Infinity;
  for (const [type, subtype, kind] of OFFERED) {
    let q = 0;
    let position = Infinity;
    let precision = -1;
    for (let i = 0; i < ranges.length; i++) {
      const s = specificity(ranges[i], type, subtype);
      if (s > precision) {
        precision = s;
        q = ranges[i].q;
        position = i;
      }
    }
    if (q > bestQ || (q === bestQ && q > 0 && position < bestPosition)) {
      best = kind;
      bestQ = q;
      bestPosition = position;
    }
  }
  if (best === undefined) {
    throw new StatusError(
      4006,
      `"${accept}" (offered: text/csv, text/tab-separated-values, application/json, application/jsonstream)${malformed.length ? `; not read, as malformed (a type/subtype, a q from 0 to 1 with at most three decimals): ${malformed.map((m) => JSON.stringify(m)).join(', ')}` : ''}`,
    );
  }
  return OUTPUT_FORMATS[best];
}
