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
  /** DENIED, CAMPUS_KNOWN, ON_CAMPUS, HAS_WINDOW, PKB_MISS bits */
  readonly flags: Uint8Array;
  /** double clicks: the window of each event (when HAS_WINDOW) */
  readonly dupWindow: Float64Array;
  /** platform, rtype and mime of each event: indexes in `labels`, -1 when absent */
  readonly labelIndex: Int32Array;
  /** the distinct platform, rtype and mime values of the batch */
  readonly labels: readonly string[];
  /** double clicks: the keys as one UTF-8 buffer, and the end of each event's (empty: none) */
  readonly dupKeys: Uint8Array;
  readonly dupKeyEnds: Uint32Array;
  /** only when some event of the batch has one (sparse arrays are cloned cheaply) */
  readonly raw?: ReadonlyArray<string | undefined>;
  readonly json?: ReadonlyArray<string | undefined>;
}

const DENIED = 1;
const CAMPUS_KNOWN = 2;
const ON_CAMPUS = 4;
const HAS_WINDOW = 8;
const PKB_MISS = 16;

/** A typed array at least `size` long, keeping the first `used` values (grown by doubling). */
function ensure<T extends Uint8Array | Uint32Array | Int32Array | Float64Array>(array: T, used: number, size: number, make: (n: number) => T): T {
  if (size <= array.length) return array;
  const bigger = make(Math.max(size, array.length * 2));
  bigger.set(array.subarray(0, used));
  return bigger;
}

/** `buffer`, or a bigger copy of its first `used` bytes, with room for `text` in UTF-8 after them. */
function room(buffer: Buffer, used: number, text: string): Buffer {
  // at most 3 bytes of UTF-8 per UTF-16 unit (a surrogate pair: 4 bytes for 2 units)
  const need = used + 3 * text.length;
  if (need <= buffer.length) return buffer;
  const bigger = Buffer.allocUnsafeSlow(Math.max(need, buffer.length * 2));
  buffer.copy(bigger, 0, 0, used);
  return bigger;
}

/** The first `length` bytes of `buffer`, in an ArrayBuffer of their own (to be transferred). */
function copyOut(buffer: Buffer, length: number): Uint8Array {
  return new Uint8Array(buffer.buffer, buffer.byteOffset, length).slice();
}

/**
 * Worker side: collects a batch's events as they come, then packs them; one packer serves a
 * worker's batches one after the other (`pack()` empties it). Each event's text and double-click
 * key are written as UTF-8 into buffers the packer keeps, its other fields into typed columns it
 * keeps: nothing of an event stays in the heap until its batch ends. A batch lasts about two of a
 * worker's young collections, so what it kept to its end was copied, promoted to the old
 * generation, then collected there; the keys were the worst, as their parts are slices of the
 * line and kept the whole line alive. Written as they come, what a worker promotes on the 1M
 * log fell from 270 to 31 MB and its full collections from 34 to 19 (bench/worker-path.ts
 * with the workers' heap settings, `--trace-gc-nvp`).
 */
export class EventPacker {
  private text: Buffer = Buffer.allocUnsafeSlow(64 * 1024);
  private bytes = 0;
  private ends = new Uint32Array(1024);
  private ts = new Float64Array(1024);
  private flags = new Uint8Array(1024);
  private windows = new Float64Array(1024);
  private labelIndex = new Int32Array(3 * 1024);
  private n = 0;
  private keys: Buffer = Buffer.allocUnsafeSlow(16 * 1024);
  private keyBytes = 0;
  private keyEnds = new Uint32Array(1024);
  private labels: string[] = [];
  private readonly labelIds = new Map<string, number>();
  private raw: Array<string | undefined> | undefined;
  private json: Array<string | undefined> | undefined;

  get count(): number {
    return this.n;
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
    const i = this.n;
    if (i === this.ends.length) {
      const size = i + 1;
      this.ends = ensure(this.ends, i, size, (k) => new Uint32Array(k));
      this.ts = ensure(this.ts, i, size, (k) => new Float64Array(k));
      this.flags = ensure(this.flags, i, size, (k) => new Uint8Array(k));
      this.windows = ensure(this.windows, i, size, (k) => new Float64Array(k));
      this.labelIndex = ensure(this.labelIndex, 3 * i, 3 * size, (k) => new Int32Array(k));
      this.keyEnds = ensure(this.keyEnds, i, size, (k) => new Uint32Array(k));
    }
    this.text = room(this.text, this.bytes, e.text);
    // Each text on its own, not joined: two texts could otherwise join halves of a surrogate pair.
    this.bytes += this.text.write(e.text, this.bytes, 'utf8');
    this.ends[i] = this.bytes;
    // the key is made of the event's values, some of them slices of the line: kept as a string,
    // it would keep whole lines alive to the end of the batch
    if (e.dupKey !== undefined) {
      this.keys = room(this.keys, this.keyBytes, e.dupKey);
      this.keyBytes += this.keys.write(e.dupKey, this.keyBytes, 'utf8');
    }
    this.keyEnds[i] = this.keyBytes;
    this.ts[i] = e.ts;
    this.flags[i] = (e.denied ? DENIED : 0) | (e.campus !== undefined ? CAMPUS_KNOWN : 0) | (e.campus ? ON_CAMPUS : 0) | (e.dupWindow !== undefined ? HAS_WINDOW : 0) | (e.pkbMiss ? PKB_MISS : 0);
    this.windows[i] = e.dupWindow ?? 0;
    this.labelIndex[3 * i] = this.label(e.platform);
    this.labelIndex[3 * i + 1] = this.label(e.rtype);
    this.labelIndex[3 * i + 2] = this.label(e.mime);
    if (e.raw !== undefined) (this.raw ??= [])[i] = e.raw;
    if (e.json !== undefined) (this.json ??= [])[i] = e.json;
    this.n++;
  }

  /**
   * The packed events, each typed array with a buffer of its own (see transferables), copied out
   * of the packer's; the packer is then empty, ready for the next batch.
   */
  pack(): PackedEvents {
    const n = this.n;
    const packed: PackedEvents = {
      count: n,
      text: copyOut(this.text, this.bytes),
      ends: this.ends.slice(0, n),
      ts: this.ts.slice(0, n),
      flags: this.flags.slice(0, n),
      dupWindow: this.windows.slice(0, n),
      labelIndex: this.labelIndex.slice(0, 3 * n),
      labels: this.labels,
      dupKeys: copyOut(this.keys, this.keyBytes),
      dupKeyEnds: this.keyEnds.slice(0, n),
      raw: this.raw,
      json: this.json,
    };
    this.clear();
    return packed;
  }

  /** Drops the events pushed since the last pack. */
  clear(): void {
    this.n = 0;
    this.bytes = 0;
    this.keyBytes = 0;
    if (this.labels.length > 0) this.labels = [];
    this.labelIds.clear();
    this.raw = this.json = undefined;
  }
}

/** The buffers to transfer with a batch's packed events. */
export function transferables(p: PackedEvents): ArrayBuffer[] {
  return [p.text, p.ends, p.ts, p.flags, p.dupWindow, p.labelIndex, p.dupKeys, p.dupKeyEnds].map((a) => a.buffer as ArrayBuffer);
}

/** Main side: the events of a batch, each text a view of the batch's buffer (no copy, no string). */
export function unpackEvents(p: PackedEvents): EventRecord[] {
  const events: EventRecord[] = new Array(p.count);
  const text = Buffer.from(p.text.buffer, p.text.byteOffset, p.text.byteLength);
  const keys = Buffer.from(p.dupKeys.buffer, p.dupKeys.byteOffset, p.dupKeys.byteLength);
  const label = (i: number) => (i < 0 ? undefined : p.labels[i]);
  let start = 0;
  let keyStart = 0;
  for (let i = 0; i < p.count; i++) {
    const end = p.ends[i];
    const keyEnd = p.dupKeyEnds[i];
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
      dupKey: keyEnd > keyStart ? keys.toString('utf8', keyStart, keyEnd) : undefined,
      dupWindow: (f & HAS_WINDOW) !== 0 ? p.dupWindow[i] : undefined,
      campus: (f & CAMPUS_KNOWN) !== 0 ? (f & ON_CAMPUS) !== 0 : undefined,
      pkbMiss: (f & PKB_MISS) !== 0,
    };
    start = end;
    keyStart = keyEnd;
  }
  return events;
}
