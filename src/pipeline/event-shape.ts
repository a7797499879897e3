import type { AccessEvent } from './event.js';
import type { OutputKind } from './writers/types.js';

/**
 * Events made with their fields in place from the start. A plain object gets its fields one
 * store at a time, in an order that depends on the line and the platform: 1,720 orders of keys
 * (each at least one hidden class) over the 36,455 events of the 100k-line benchmark log, too
 * many for V8's inline caches, so that every stage read and wrote the event through its slowest
 * paths. An event that starts with the fields most events get (the format's, then those listed
 * here), each `undefined` until set, keeps one hidden class through the chain: a store fills a
 * field instead of adding one.
 *
 * Only where the order of the keys cannot show: an event that starts shaped lists its fields in
 * the shape's order, not the order they were set in, and holds its absent fields as undefined
 * keys. CSV and TSV read the columns by name and write undefined as absent; JSON writes the keys
 * in order, and middlewares from outside may enumerate them (eventShapeFor).
 */
export const LINE_EVENT_FIELDS: readonly string[] = Object.freeze([
  // the line-to-event step (batch-processor.ts, lineToEvent); the job's provenance fields come next
  'url', 'domain', 'datetime', 'timestamp', 'date', 'log_id',
]);

export const STAGE_EVENT_FIELDS: readonly string[] = Object.freeze([
  // the stages (exclusions, parser, geolocalizer, on-campus-counter)
  'robot', 'platform', 'platform_name', 'publisher_name',
  'geoip-host', 'geoip-country', 'geoip-region', 'geoip-city', 'geoip-latitude', 'geoip-longitude', 'geoip-coordinates',
  'on_campus',
  // the platforms' fields, the most frequent first (the `set` keys of the bundled rules)
  'rtype', 'mime', 'unitid', 'title_id', 'doi', 'vol', 'issue', 'publication_date', 'print_identifier', 'db_id',
  'online_identifier', 'pii', 'first_page', 'last_page', 'publication_title',
]);

/**
 * A maker of events holding `names` (duplicates once, first place kept), each undefined. A
 * function written for the names, so that each object is made by one allocation with its
 * fields in place; the names reach the source only through JSON.stringify. `__proto__` is left
 * out: a store under it sets no field, in a plain event either.
 */
export function eventShape(names: readonly string[]): () => AccessEvent {
  const body = [...new Set(names)].filter((name) => name !== '__proto__').map((name) => `this[${JSON.stringify(name)}] = undefined;`).join('\n');
  const Shaped = new Function(`'use strict';\n${body}`) as unknown as new () => AccessEvent;
  return () => new Shaped();
}

/** What eventShapeFor needs to know of a job. */
export interface ShapeChoice {
  readonly output: OutputKind;
  /** every step of the chain is logsift's own (no middleware from outside) */
  readonly builtinOnly: boolean;
  /** the fields of the job's format, in its order */
  readonly formatFields: readonly string[];
  /** the job's provenance fields, in their order */
  readonly provenance: readonly string[];
}

/** The job's maker of shaped events, or undefined when its events must stay plain objects. */
export function eventShapeFor(job: ShapeChoice): (() => AccessEvent) | undefined {
  if ((job.output !== 'csv' && job.output !== 'tsv') || !job.builtinOnly) return undefined;
  return eventShape([...job.formatFields, ...LINE_EVENT_FIELDS, ...job.provenance, ...STAGE_EVENT_FIELDS]);
}
