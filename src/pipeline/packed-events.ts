import type { EventRecord } from './job-spec.js';

/**
 * The events of one batch as a worker hands them back: their texts as one UTF-8 buffer and
 * their other fields as typed columns, all transferred to the main thread (not cloned). A batch
 * of objects would be cloned field by field into the main thread's heap; this way the main
 * thread gets a few buffers a batch and writes the texts as bytes, never as strings.
 */
export interface PackedEvents {
  readonly count: number;
  /** the serialised events, one after the other */
  readonly text: Uint8Array;
  /** end of each event's text in `text` (its start is the previous one's end) */
  readonly ends: Uint32Array;
  /** Unix seconds */
  readonly ts: Float64Array;
  /** DENIED, CAMPUS_KNOWN, ON_CAMPUS, HAS_WINDOW bits */
  readonly flags: Uint8Array;
  /** double clicks: the window of each event (when HAS_WINDOW) */
  readonly dupWindow: Float64Array;
  /** platform, rtype and mime of each event: indexes in `labels`, -1 when absent */
  readonly labelIndex: Int32Array;
  /** the distinct platform, rtype and mime values of the batch */
  readonly labels: readonly string[];
  /** only when some event of the batch has one (sparse arrays are cloned cheaply) */
  readonly dupKey?: ReadonlyArray<string | undefined>;
  readonly raw?: ReadonlyArray<string | undefined>;
  readonly json?: ReadonlyArray<string | undefined>;
}

const DENIED = 1;
const CAMPUS_KNOWN = 2;
const ON_CAMPUS = 4;
const HAS_WINDOW = 8;

/** Worker side: collects a batch's events, then packs them. */
export class EventPacker {
  private readonly texts: string[] = [];
  private readonly ts: number[] = [];
  private readonly flags: number[] = [];
  private readonly windows: number[] = [];
  private readonly labelIndex: number[] = [];
  private readonly labels: string[] = [];
  private readonly labelIds = new Map<string, number>();
  private dupKey: Array<string | undefined> | undefined;
  private raw: Array<string | undefined> | undefined;
  private json: Array<string | undefined> | undefined;

  get count(): number {
    return this.texts.length;
  }

  private label(value: string | undefined): number {
    if (value === undefined) return -1;
    let id = this.labelIds.get(value);
    if (id === undefined) {
      id = this.labels.push(value) - 1;
      this.labelIds.set(value, id);
    }
    return id;
  }

  push(e: EventRecord & { readonly text: string }): void {
    const i = this.texts.length;
    this.texts.push(e.text);
    this.ts.push(e.ts);
    this.flags.push((e.denied ? DENIED : 0) | (e.campus !== undefined ? CAMPUS_KNOWN : 0) | (e.campus ? ON_CAMPUS : 0) | (e.dupWindow !== undefined ? HAS_WINDOW : 0));
    this.windows.push(e.dupWindow ?? 0);
    this.labelIndex.push(this.label(e.platform), this.label(e.rtype), this.label(e.mime));
    if (e.dupKey !== undefined) (this.dupKey ??= [])[i] = e.dupKey;
    if (e.raw !== undefined) (this.raw ??= [])[i] = e.raw;
    if (e.json !== undefined) (this.json ??= [])[i] = e.json;
  }

  /** The packed events; every typed array has a buffer of its own (see transferables). */
  pack(): PackedEvents {
    const n = this.texts.length;
    const ends = new Uint32Array(n);
    let bytes = 0;
    for (let i = 0; i < n; i++) {
      bytes += Buffer.byteLength(this.texts[i], 'utf8');
      ends[i] = bytes;
    }
    const text = new Uint8Array(new ArrayBuffer(bytes));
    // Each text on its own, not joined: two texts could otherwise join halves of a surrogate pair.
    const out = Buffer.from(text.buffer);
    for (let i = 0, at = 0; i < n; i++) at += out.write(this.texts[i], at, 'utf8');
    return {
      count: n,
      text,
      ends,
      ts: Float64Array.from(this.ts),
      flags: Uint8Array.from(this.flags),
      dupWindow: Float64Array.from(this.windows),
      labelIndex: Int32Array.from(this.labelIndex),
      labels: this.labels,
      dupKey: this.dupKey,
      raw: this.raw,
      json: this.json,
    };
  }
}

/** The buffers to transfer with a batch's packed events. */
export function transferables(p: PackedEvents): ArrayBuffer[] {
  return [p.text, p.ends, p.ts, p.flags, p.dupWindow, p.labelIndex].map((a) => a.buffer as ArrayBuffer);
}

/** Main side: the events of a batch, each text a view of the batch's buffer (no copy, no string). */
export function unpackEvents(p: PackedEvents): EventRecord[] {
  const events: EventRecord[] = new Array(p.count);
  const text = Buffer.from(p.text.buffer, p.text.byteOffset, p.text.byteLength);
  const label = (i: number) => (i < 0 ? undefined : p.labels[i]);
  let start = 0;
  for (let i = 0; i < p.count; i++) {
    const end = p.ends[i];
    const f = p.flags[i];
    events[i] = {
      ts: p.ts[i],
      text: text.subarray(start, end),
      denied: (f & DENIED) !== 0,
      platform: label(p.labelIndex[3 * i]),
      rtype: label(p.labelIndex[3 * i + 1]),
      mime: label(p.labelIndex[3 * i + 2]),
      raw: p.raw?.[i],
      json: p.json?.[i],
      dupKey: p.dupKey?.[i],
      dupWindow: (f & HAS_WINDOW) !== 0 ? p.dupWindow[i] : undefined,
      campus: (f & CAMPUS_KNOWN) !== 0 ? (f & ON_CAMPUS) !== 0 : undefined,
    };
    start = end;
  }
  return events;
}
