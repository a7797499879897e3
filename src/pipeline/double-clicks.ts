import { StatusError } from '../status-codes.js';
import { booleanHeader, header, type RequestHeaders } from './job-headers.js';
import type { EventRecord } from './job-spec.js';
import type { HoldLimit, SequentialSink, SequentialStage } from './sequential.js';
import type { ReportSection } from './job-report.js';

/**
 * Double clicks (reference 4): a later click of the same user on the same resource (same unitid and
 * rtype, same platform, same mime class) within the window makes the earlier one a duplicate; the
 * later one is kept, so a run of clicks collapses to its last. Granted and denied events are
 * deduplicated separately.
 *
 * Modes: `ezpaarse` (default) has one window per mime class (html 10 s, pdf 30 s, misc 30 s,
 * `Double-Click-<X>` adds one, `Double-Click-MIXED` shares one window between all classes);
 * `counter5` is COUNTER Release 5's rule: 30 seconds whatever the format, formats told apart
 * (an HTML view and a PDF download of an article are two requests), the last click kept.
 */
export interface DoubleClickOptions {
  readonly enabled: boolean;
  readonly mode: 'ezpaarse' | 'counter5';
  /** user-key letters in priority order (C, L, I) */
  readonly strategy: string;
  /** field behind each letter */
  readonly fields: Readonly<Record<'C' | 'L' | 'I', string>>;
  /** window (seconds) per lower-cased mime class; `misc` for the others */
  readonly windows: Readonly<Record<string, number>>;
  /** one window for every class (seconds), when > 0 */
  readonly mixed: number;
}

const NOT_WINDOWS = new Set(['removal', 'strategy', 'mode', 'c-field', 'l-field', 'i-field', 'mixed']);
const COUNTER5_WINDOW = 30;
/**
 * The events of a window are held back until it closes: a longer window holds more of them, and
 * one of days would hold a whole log in memory. An hour is far beyond any counting rule.
 */
export const MAX_WINDOW_SECONDS = 3600;

function seconds(name: string, value: string): number {
  const v = value.trim();
  if (!/^\d+$/.test(v)) throw new StatusError(4031, `${name}: expected a whole number of seconds, got ${JSON.stringify(value)}`);
  const n = Number(v);
  if (n > MAX_WINDOW_SECONDS) {
    throw new StatusError(4031, `${name}: at most ${MAX_WINDOW_SECONDS} seconds (the events of a window wait for it to close), got ${v}`);
  }
  return n;
}

/** Reads the Double-Click-* headers (names lower-cased, as Node gives them). */
export function readDoubleClickOptions(headers: RequestHeaders): DoubleClickOptions {
  const get = (name: string): string | undefined => header(headers, `double-click-${name}`);
  const enabled = booleanHeader(headers, 'double-click-removal', true, 4031);
  const modeRaw = get('mode')?.trim().toLowerCase() || 'ezpaarse';
  if (modeRaw !== 'ezpaarse' && modeRaw !== 'counter5') {
    throw new StatusError(4031, `Double-Click-Mode: expected ezpaarse or counter5, got ${JSON.stringify(get('mode'))}`);
  }
  const strategy = (get('strategy')?.trim() || 'CLI').toUpperCase();
  if (!/^[CLI]{1,3}$/.test(strategy) || new Set(strategy).size !== strategy.length) {
    throw new StatusError(4031, `Double-Click-Strategy: expected up to three different letters among C, L, I (e.g. CLI), got ${JSON.stringify(get('strategy'))}`);
  }
  const field = (letter: string, fallback: string): string => get(`${letter}-field`)?.trim() || fallback;
  const windows: Record<string, number> = { html: 10, pdf: 30, misc: 30 };
  for (const [name, value] of Object.entries(headers)) {
    if (!name.startsWith('double-click-') || value === undefined) continue;
    const suffix = name.slice('double-click-'.length);
    if (NOT_WINDOWS.has(suffix)) continue;
    // named as the reference writes it: Double-Click-HTML (the header names arrive in lower case)
    const shown = `Double-Click-${suffix.toUpperCase()}`;
    if (!/^[a-z0-9]+$/.test(suffix)) throw new StatusError(4031, `${shown}: a window's name is letters and digits (Double-Click-<type>: seconds)`);
    windows[suffix] = seconds(shown, header(headers, name) ?? '');
  }
  const mixedRaw = get('mixed');
  const mixed = mixedRaw === undefined || mixedRaw.trim() === '' ? 0 : seconds('Double-Click-MIXED', mixedRaw);
  return {
    enabled,
    mode: modeRaw,
    strategy,
    fields: { C: field('c', 'session'), L: field('l', 'login'), I: field('i', 'host') },
    windows: modeRaw === 'counter5' ? { misc: COUNTER5_WINDOW } : windows,
    mixed: modeRaw === 'counter5' ? 0 : mixed,
  };
}

/** The report's `dedoublonnage` section (reference 4.1). */
export function doubleClickReport(o: DoubleClickOptions): ReportSection {
  if (!o.enabled) return { activated: false };
  const section: ReportSection = {
    activated: true,
    strategy: o.strategy,
    'fieldname-C': o.fields.C,
    'fieldname-L': o.fields.L,
    'fieldname-I': o.fields.I,
  };
  if (o.mode !== 'ezpaarse') section.mode = o.mode;
  for (const [name, w] of Object.entries(o.windows)) section[`window-${name}`] = w;
  if (o.mixed > 0) section['window-mixed'] = o.mixed;
  return section;
}

/**
 * Worker side: what the main thread needs to compare an event — its window (seconds) and one key
 * string made of the platform, the window class, the user key (which field, and its value), the
 * unitid and the rtype. Undefined when the event can have no double (no unitid, rtype or user key).
 */
export function doubleClickKey(ec: Readonly<Record<string, unknown>>, o: DoubleClickOptions): { key: string; window: number } | undefined {
  const unitid = ec.unitid;
  const rtype = ec.rtype;
  if (unitid === undefined || unitid === '' || rtype === undefined || rtype === '') return undefined;
  let user: string | undefined;
  for (const letter of o.strategy) {
    const v = ec[o.fields[letter as 'C' | 'L' | 'I']];
    // a field is a string or a number: a name like `constructor` finds Object's, not a field
    if ((typeof v === 'string' && v !== '') || typeof v === 'number') {
      user = `${letter}:${String(v)}`;
      break;
    }
  }
  if (user === undefined) return undefined;
  const mime = typeof ec.mime === 'string' ? ec.mime.toLowerCase() : '';
  let windowClass: string;
  let window: number;
  if (o.mode === 'counter5') {
    windowClass = mime;
    window = COUNTER5_WINDOW;
  } else if (o.mixed > 0) {
    windowClass = '*';
    window = o.mixed;
  } else {
    windowClass = o.windows[mime] !== undefined ? mime : 'misc';
    window = o.windows[windowClass];
  }
  const platform = typeof ec.platform === 'string' ? ec.platform.toLowerCase() : '';
  return { key: `${platform}\u0001${windowClass}\u0001${user}\u0001${String(unitid)}\u0001${String(rtype)}`, window };
}

const HELD = 0;
const PASS = 1;
const DROPPED = 2;

/** where an entry is kept (bits of `Entry.in`) */
const IN_ORDER = 1;
const IN_WINDOW = 2;

interface Entry {
  readonly event: EventRecord;
  state: number;
  key?: string;
  in: number;
}

/** A FIFO over an array, compacted now and then so that its memory follows its length. */
class Fifo<T> {
  private items: T[] = [];
  private head = 0;

  push(item: T): void {
    this.items.push(item);
  }

  peek(): T | undefined {
    return this.head < this.items.length ? this.items[this.head] : undefined;
  }

  shift(): void {
    this.items[this.head++] = undefined as T;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
  }

  get length(): number {
    return this.items.length - this.head;
  }
}

/**
 * Main-thread side (reference 4.4 without the release bug): events arrive in time order (the
 * chronology stage before it sees to that). Each event first releases every held event whose
 * window has passed (`ts < now − window`), then makes the held event with its key a duplicate,
 * then is held itself. Events leave in input order: an event waits until every earlier one is
 * released or dropped. Memory is the events of the longest window, whatever the log's size, and
 * at most `limit.maxHeld` events: past that the oldest held one is released before its window
 * ends (kept, as if it had ended): events that share one time never see their window end.
 */
export class DoubleClickStage implements SequentialStage {
  private readonly order = new Fifo<Entry>();
  private readonly held = new Map<string, Entry>();
  /** held events per window length, in time order */
  private readonly byWindow = new Map<number, Fifo<Entry>>();
  /** entries out of `order` still in a window's FIFO (a duplicate stays there until its window ends) */
  private windowedOnly = 0;

  constructor(private readonly limit: HoldLimit) {}

  push(event: EventRecord, sink: SequentialSink): void {
    const now = event.ts;
    for (const [window, fifo] of this.byWindow) {
      for (let e = fifo.peek(); e && e.event.ts < now - window; e = fifo.peek()) {
        this.shiftWindow(fifo, e);
        this.release(e);
      }
    }
    if (event.dupKey === undefined) {
      this.order.push({ event, state: PASS, in: IN_ORDER });
    } else {
      const key = (event.denied ? 'D' : 'G') + event.dupKey;
      const previous = this.held.get(key);
      if (previous && previous.state === HELD) {
        previous.state = DROPPED;
        sink.reject(previous.event, 'duplicate-ecs');
      }
      const entry: Entry = { event, state: HELD, key, in: IN_ORDER | IN_WINDOW };
      this.held.set(key, entry);
      const window = event.dupWindow ?? 0;
      let fifo = this.byWindow.get(window);
      if (!fifo) this.byWindow.set(window, (fifo = new Fifo<Entry>()));
      fifo.push(entry);
      this.order.push(entry);
    }
    this.flush(sink);
    if (this.pending > this.limit.maxHeld) this.releaseEarly(sink);
  }

  end(sink: SequentialSink): void {
    for (const fifo of this.byWindow.values()) {
      for (let e = fifo.peek(); e; e = fifo.peek()) {
        this.shiftWindow(fifo, e);
        this.release(e);
      }
    }
    this.flush(sink);
  }

  /** events held or waiting for an earlier one, and duplicates whose window is not over (the memory this stage holds) */
  get pending(): number {
    return this.order.length + this.windowedOnly;
  }

  /**
   * Back within the bound. The windows' FIFOs first drop the entries at their head that are no
   * longer held (duplicates, events already out), which releases nothing; every entry left in them
   * is then one `order` holds. Then, while still over, the oldest held event (the head of
   * `order`, by `flush`) is released, and what waited behind it leaves with it.
   */
  private releaseEarly(sink: SequentialSink): void {
    let early = 0;
    for (;;) {
      for (const fifo of this.byWindow.values()) {
        for (let e = fifo.peek(); e && e.state !== HELD; e = fifo.peek()) this.shiftWindow(fifo, e);
      }
      const oldest = this.order.peek();
      if (this.pending <= this.limit.maxHeld || !oldest) break;
      this.release(oldest);
      early++;
      this.flush(sink);
    }
    if (early > 0) this.limit.releasedEarly('double-clicks', early, this.limit.maxHeld);
  }

  private release(e: Entry): void {
    if (e.state === HELD) e.state = PASS;
    if (e.key !== undefined && this.held.get(e.key) === e) this.held.delete(e.key);
  }

  private shiftWindow(fifo: Fifo<Entry>, e: Entry): void {
    fifo.shift();
    e.in &= ~IN_WINDOW;
    if (e.in === 0) this.windowedOnly--;
  }

  private flush(sink: SequentialSink): void {
    for (let e = this.order.peek(); e && e.state !== HELD; e = this.order.peek()) {
      this.order.shift();
      e.in &= ~IN_ORDER;
      if (e.in === IN_WINDOW) this.windowedOnly++;
      if (e.state === PASS) sink.emit(e.event);
    }
  }
}
