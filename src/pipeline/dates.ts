/**
 * Log dates (reference 2.7, with the better behaviour of section 10): `Date-Format` in moment.js
 * tokens, read non-strictly; dates without an offset placed in a configured zone; output that
 * keeps the offset of the line so that `date` does not depend on where the server runs.
 *
 * Hot path: a format is compiled once into steps read by a hand-written scanner (no regex, no
 * backtracking); makeEventTimer reads a date of the same minute as the line before from its
 * seconds digits alone (logs are in time order: a log of a few lines a second changes its minute
 * once in a hundred lines, its second almost every line), and keeps a small cache by date text.
 */

export class DateFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DateFormatError';
  }
}

export const DEFAULT_DATE_FORMAT = 'DD/MMM/YYYY:HH:mm:ss Z';

export interface DateParser {
  /**
   * The instant of a date text, or undefined when it does not fit the format or is not a real date.
   * `offsetMinutes` is the offset written in the text (east of UTC), undefined when there is none
   * (the instant then comes from the parser's zone, or the text was an epoch).
   */
  parse(text: string): { epochMs: number; offsetMinutes: number | undefined } | undefined;
}

/** timestamp = Unix seconds; datetime = ISO 8601 with offset; date = YYYY-MM-DD in that offset */
export interface EventTime {
  timestamp: number;
  datetime: string;
  date: string;
}

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
/** 9999-12-31T23:59:59Z: later instants cannot be written as YYYY */
const MAX_EPOCH_MS = 253_402_300_799_999;

// ---------------------------------------------------------------------------------------------
// Calendar arithmetic (proleptic Gregorian, no Date objects: Date.UTC maps years 0-99 to 19xx)

/** Days since 1970-01-01 of a civil date (month 1-12). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const mp = (month + 9) % 12;
  const doy = Math.floor((153 * mp + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function isLeap(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysInMonth(year: number, month: number): number {
  return month === 2 && isLeap(year) ? 29 : MONTH_DAYS[month - 1];
}

function pad2(n: number): string {
  return n < 10 ? '0' + n : String(n);
}

function pad4(n: number): string {
  return n >= 1000 ? String(n) : ('000' + n).slice(-4);
}

/** `YYYY-MM-DDTHH:mm:ss±HH:mm` and `YYYY-MM-DD` of an instant seen at an offset. */
function isoAt(epochMs: number, offsetMinutes: number): { datetime: string; date: string } {
  const local = epochMs + offsetMinutes * MINUTE_MS;
  let days = Math.floor(local / DAY_MS);
  const secondsOfDay = Math.floor((local - days * DAY_MS) / 1000);
  // civil from days (inverse of daysFromCivil)
  days += 719468;
  const era = Math.floor(days / 146097);
  const doe = days - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  const date = `${pad4(year)}-${pad2(month)}-${pad2(day)}`;
  const hh = Math.floor(secondsOfDay / 3600);
  const mm = Math.floor((secondsOfDay % 3600) / 60);
  const ss = secondsOfDay % 60;
  const abs = Math.abs(offsetMinutes);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const offset = `${sign}${pad2(Math.floor(abs / 60))}:${pad2(Math.round(abs % 60))}`;
  return { datetime: `${date}T${pad2(hh)}:${pad2(mm)}:${pad2(ss)}${offset}`, date };
}

// ---------------------------------------------------------------------------------------------
// Time zones

/** A zone in which dates written without an offset are read. */
interface Zone {
  readonly name: string;
  /** one offset at all times (UTC, `+01:00`) */
  readonly fixed: boolean;
  /** offset east of UTC, in minutes, at an instant */
  offsetAt(epochMs: number): number;
}

function fixedZone(name: string, minutes: number): Zone {
  return { name, fixed: true, offsetAt: () => minutes };
}

/** The server's zone, through Date (which follows the TZ environment variable). */
const LOCAL_ZONE: Zone = { name: 'local', fixed: false, offsetAt: (ms) => -new Date(ms).getTimezoneOffset() || 0 };

/** An IANA zone through Intl; offsets cached per minute (transitions fall on whole minutes). */
function ianaZone(name: string): Zone {
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat('en-US', { timeZone: name, timeZoneName: 'longOffset' });
  } catch {
    throw new DateFormatError(`unknown time zone "${name}": use an IANA name such as Europe/Paris, UTC, or local`);
  }
  const cache = new Map<number, number>();
  return {
    name,
    fixed: false,
    offsetAt(ms) {
      const minute = Math.floor(ms / MINUTE_MS);
      let offset = cache.get(minute);
      if (offset === undefined) {
        const part = format.formatToParts(ms).find((p) => p.type === 'timeZoneName')?.value ?? 'GMT';
        offset = parseGmtOffset(part);
        if (cache.size >= 4096) cache.clear();
        cache.set(minute, offset);
      }
      return offset;
    },
  };
}

/** `GMT`, `GMT+02:00`, `GMT-03:30`, `GMT+00:09:21` (Intl longOffset) → minutes. */
function parseGmtOffset(text: string): number {
  if (text.length <= 3) return 0;
  const sign = text[3] === '-' ? -1 : 1;
  const h = Number(text.slice(4, 6));
  const m = Number(text.slice(7, 9)) || 0;
  const s = Number(text.slice(10, 12)) || 0;
  return sign * (h * 60 + m + s / 60);
}

const UTC_NAMES = new Set(['utc', 'gmt', 'z', 'etc/utc', 'etc/gmt', 'universal', 'zulu']);
const FIXED_OFFSET = /^([+-])(\d\d):?(\d\d)$/;

/** `UTC`, `local`, an IANA name, or a fixed offset such as `+01:00`. */
function resolveZone(name: string): Zone {
  const trimmed = name.trim();
  if (trimmed === '' || trimmed.toLowerCase() === 'local') return LOCAL_ZONE;
  if (UTC_NAMES.has(trimmed.toLowerCase())) return fixedZone('UTC', 0);
  const fixed = FIXED_OFFSET.exec(trimmed);
  if (fixed) {
    const minutes = Number(fixed[2]) * 60 + Number(fixed[3]);
    // the offsets zones have: -12:00 to +14:00
    if (Number(fixed[3]) > 59 || minutes > (fixed[1] === '-' ? 12 * 60 : 14 * 60)) {
      throw new DateFormatError(`time zone offset "${trimmed}" out of range (from -12:00 to +14:00)`);
    }
    return fixedZone(trimmed, fixed[1] === '-' ? -minutes : minutes);
  }
  return ianaZone(trimmed);
}

/**
 * Checks a zone name as the date parser reads it (`UTC`, `local`, an IANA name, `+01:00`):
 * throws DateFormatError for one it cannot use, so that a setting is refused at start and not
 * at every job.
 */
export function checkTimeZone(name: string): void {
  resolveZone(name);
}

/**
 * The instant of a wall-clock time (given as if it were UTC) in a zone. An ambiguous time (when
 * clocks go back) is the earlier instant; a time that does not exist (when clocks go forward) is
 * moved forward by the size of the gap. Both as moment-timezone does.
 */
function wallToEpoch(zone: Zone, wallMs: number): number {
  const before = zone.offsetAt(wallMs - DAY_MS);
  const after = zone.offsetAt(wallMs + DAY_MS);
  const tBefore = wallMs - before * MINUTE_MS;
  if (before === after && zone.offsetAt(tBefore) === before) return tBefore;
  const tAfter = wallMs - after * MINUTE_MS;
  const okBefore = zone.offsetAt(tBefore) === before;
  const okAfter = zone.offsetAt(tAfter) === after;
  if (okBefore && okAfter) return Math.min(tBefore, tAfter);
  if (okAfter) return tAfter;
  // okBefore, or a gap: with the offset in force before the jump, the time lands after it
  return tBefore;
}

// ---------------------------------------------------------------------------------------------
// Format compilation

type FieldKind =
  | 'year'
  | 'year2'
  | 'month'
  | 'monthName'
  | 'day'
  | 'dayOrdinal'
  | 'weekday'
  | 'hour'
  | 'hour12'
  | 'meridiem'
  | 'minute'
  | 'second'
  | 'fraction'
  | 'offset'
  | 'epochSeconds'
  | 'epochMillis';

type Step =
  | { readonly kind: 'field'; readonly field: FieldKind; readonly maxDigits: number }
  /**
   * separator: any run (maybe empty) of characters that are neither letters nor digits; before the
   * hour, ISO 8601's `T` too (`2023-03-14T10:20:30` read with `YYYY-MM-DD HH:mm:ss`, as moment does)
   */
  | { readonly kind: 'sep'; readonly beforeHour?: true }
  /** a `[literal]`: must be there */
  | { readonly kind: 'lit'; readonly text: string }
  /** a letter that is not a token: taken when present (moment reads non-strictly) */
  | { readonly kind: 'opt'; readonly text: string };

/** What a run of one letter means; undefined = not a token (a literal letter). */
function fieldOf(letter: string, count: number): { field: FieldKind; maxDigits: number } | undefined | 'bad' {
  switch (letter) {
    case 'Y':
      if (count === 4 || count === 1) return { field: 'year', maxDigits: 4 };
      if (count === 2) return { field: 'year2', maxDigits: 2 };
      return 'bad';
    case 'M':
      if (count <= 2) return { field: 'month', maxDigits: 2 };
      if (count <= 4) return { field: 'monthName', maxDigits: 0 };
      return 'bad';
    case 'D':
      return count <= 2 ? { field: 'day', maxDigits: 2 } : 'bad';
    case 'd':
      return count === 3 || count === 4 ? { field: 'weekday', maxDigits: 0 } : 'bad';
    case 'H':
      return count <= 2 ? { field: 'hour', maxDigits: 2 } : 'bad';
    case 'h':
      return count <= 2 ? { field: 'hour12', maxDigits: 2 } : 'bad';
    case 'm':
      return count <= 2 ? { field: 'minute', maxDigits: 2 } : 'bad';
    case 's':
      return count <= 2 ? { field: 'second', maxDigits: 2 } : 'bad';
    case 'S':
      return count <= 9 ? { field: 'fraction', maxDigits: 9 } : 'bad';
    case 'A':
    case 'a':
      return count === 1 ? { field: 'meridiem', maxDigits: 0 } : 'bad';
    case 'Z':
      return count <= 2 ? { field: 'offset', maxDigits: 0 } : 'bad';
    case 'X':
      return count === 1 ? { field: 'epochSeconds', maxDigits: 0 } : 'bad';
    case 'x':
      return count === 1 ? { field: 'epochMillis', maxDigits: 0 } : 'bad';
    default:
      return undefined;
  }
}

/** Which calendar slot a field fills, to refuse a format that fills one twice (`MM…MM`). */
const SLOT: Partial<Record<FieldKind, string>> = {
  year: 'year',
  year2: 'year',
  month: 'month',
  monthName: 'month',
  day: 'day',
  dayOrdinal: 'day',
  hour: 'hour',
  hour12: 'hour',
  minute: 'minute',
  second: 'second',
  fraction: 'fraction',
  meridiem: 'meridiem',
  offset: 'offset',
  weekday: 'weekday',
  epochSeconds: 'epoch',
  epochMillis: 'epoch',
};

function isAlnum(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code > 127;
}

function compileSteps(format: string): Step[] {
  if (format.trim() === '') throw new DateFormatError('empty');
  if (format.length > 256) throw new DateFormatError('longer than 256 characters');
  const steps: Step[] = [];
  const slots = new Set<string>();
  let i = 0;
  while (i < format.length) {
    const ch = format[i];
    const code = format.charCodeAt(i);
    if (ch === '[') {
      const close = format.indexOf(']', i + 1);
      if (close < 0) throw new DateFormatError(`the [ at character ${i + 1} is never closed`);
      if (close > i + 1) steps.push({ kind: 'lit', text: format.slice(i + 1, close) });
      i = close + 1;
      continue;
    }
    if (!isAlnum(code)) {
      while (i < format.length && !isAlnum(format.charCodeAt(i)) && format[i] !== '[') i++;
      if (steps.at(-1)?.kind !== 'sep') steps.push({ kind: 'sep' });
      continue;
    }
    let j = i + 1;
    while (j < format.length && format[j] === ch) j++;
    const count = j - i;
    // `Do`: day of month with an English ordinal suffix
    if (ch === 'D' && count === 1 && format[j] === 'o') {
      addField(steps, slots, 'dayOrdinal', 2, 'Do');
      i = j + 1;
      continue;
    }
    const meaning = fieldOf(ch, count);
    if (meaning === 'bad') {
      throw new DateFormatError(`token ${ch.repeat(count)} (character ${i + 1}) is not supported`);
    }
    if (meaning === undefined) {
      for (let k = i; k < j; k++) steps.push({ kind: 'opt', text: format[k] });
    } else {
      addField(steps, slots, meaning.field, meaning.maxDigits, ch.repeat(count));
    }
    i = j;
  }
  const hasEpoch = slots.has('epoch');
  if (!hasEpoch && !(slots.has('year') && slots.has('month') && slots.has('day'))) {
    throw new DateFormatError(
      `"${format}" needs a year, a month and a day (YYYY, MM or MMM, DD), or an epoch (X, x)`,
    );
  }
  return steps.map((step, i) => {
    const next = steps[i + 1];
    return step.kind === 'sep' && next?.kind === 'field' && (next.field === 'hour' || next.field === 'hour12') ? { kind: 'sep', beforeHour: true } : step;
  });
}

function addField(steps: Step[], slots: Set<string>, field: FieldKind, maxDigits: number, written: string): void {
  const slot = SLOT[field]!;
  if (slots.has(slot)) {
    const hint = slot === 'month' ? ' (mm is minutes)' : slot === 'fraction' ? ' (ss is seconds)' : '';
    throw new DateFormatError(`gives the ${slot} twice (${written})${hint}`);
  }
  slots.add(slot);
  steps.push({ kind: 'field', field, maxDigits });
}

// ---------------------------------------------------------------------------------------------
// Parsing

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const MONTHS_LONG = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];
const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
const WEEKDAYS_LONG = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

function isLetterCode(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
}

/** Index in `names` of the word at `pos` (full or 3-letter form), with the index after it; -1 if none. */
function readName(text: string, pos: number, short: readonly string[], long: readonly string[]): [number, number] {
  let end = pos;
  while (end < text.length && isLetterCode(text.charCodeAt(end))) end++;
  if (end === pos) return [-1, pos];
  const word = text.slice(pos, end).toLowerCase();
  let index = long.indexOf(word);
  if (index < 0) index = short.indexOf(word);
  if (index < 0 && word.length === 4 && word.startsWith('sept')) index = 8;
  return [index, end];
}

class StepParser implements DateParser {
  /** where the last successful parse read the seconds (digits at [secondStart, secondEnd)), -1 if none */
  secondStart = -1;
  secondEnd = -1;

  constructor(
    private readonly steps: readonly Step[],
    private readonly zone: Zone,
  ) {
    this.lacks = (steps.some((s) => s.kind === 'field' && s.field === 'second') ? 0 : LACKS_SECONDS) |
      (steps.some((s) => s.kind === 'field' && s.field === 'fraction') ? 0 : LACKS_FRACTION);
  }

  /** which parts of a time the format does not read (LACKS_*): their text is skipped before an offset */
  private readonly lacks: number;

  /**
   * Whether two texts that differ only in their seconds digits are two instants of the same
   * minute, whole seconds apart: a seconds field, and no fraction, epoch or second-giving field.
   */
  get secondsAreSeparable(): boolean {
    let second = false;
    for (const step of this.steps) {
      if (step.kind !== 'field') continue;
      if (step.field === 'second') second = true;
      if (step.field === 'fraction' || step.field === 'epochSeconds' || step.field === 'epochMillis') return false;
    }
    return second;
  }

  parse(text: string): { epochMs: number; offsetMinutes: number | undefined } | undefined {
    const steps = this.steps;
    const n = text.length;
    let pos = 0;
    let year = -1;
    let month = -1;
    let day = -1;
    let hour = 0;
    let minute = 0;
    let second = 0;
    let millis = 0;
    let pm: boolean | undefined;
    let offset: number | undefined;
    let epoch: number | undefined;
    let secondStart = -1;
    let secondEnd = -1;
    let sepStart = 0;

    for (let s = 0; s < steps.length; s++) {
      const step = steps[s];
      if (step.kind === 'sep') {
        sepStart = pos;
        // a sign just before an offset or epoch belongs to it
        const next = steps[s + 1];
        const signed =
          next?.kind === 'field' &&
          (next.field === 'offset' || next.field === 'epochSeconds' || next.field === 'epochMillis');
        while (pos < n) {
          const code = text.charCodeAt(pos);
          if (isAlnum(code) || (signed && (code === 43 || code === 45))) break;
          pos++;
        }
        if (step.beforeHour && (text.charCodeAt(pos) | 0x20) === 116) {
          const digit = text.charCodeAt(pos + 1);
          if (digit >= 48 && digit <= 57) pos++;
        }
        continue;
      }
      if (step.kind === 'lit') {
        if (!text.startsWith(step.text, pos)) return undefined;
        pos += step.text.length;
        continue;
      }
      if (step.kind === 'opt') {
        if (pos < n && text[pos].toLowerCase() === step.text.toLowerCase()) pos++;
        continue;
      }
      const field = step.field;
      if (step.maxDigits > 0) {
        const start = pos;
        let value = 0;
        while (pos < n && pos - start < step.maxDigits) {
          const code = text.charCodeAt(pos);
          if (code < 48 || code > 57) break;
          value = value * 10 + (code - 48);
          pos++;
        }
        const digits = pos - start;
        if (field === 'fraction') {
          const from = steps[s - 1]?.kind === 'sep' ? sepStart : start;
          if (digits === 0 || crossesSignOrSpace(text, from, start)) {
            // no fraction written (`10:00:03 +0100` read with ss.SSS): what follows is not one
            pos = from;
            continue;
          }
        }
        if (digits === 0) return undefined;
        // a full field followed by more digits where the format has a separator is not that field
        // (`20245` for YYYY): reading on would date the line with the wrong digits
        if (digits === step.maxDigits && isDigitAt(text, pos) && steps[s + 1]?.kind !== 'field') return undefined;
        switch (field) {
          case 'year':
            // moment reads a 2-digit YYYY as YY
            year = digits === 2 ? twoDigitYear(value) : value;
            break;
          case 'year2':
            year = twoDigitYear(value);
            break;
          case 'month':
            month = value;
            break;
          case 'day':
            day = value;
            break;
          case 'dayOrdinal':
            day = value;
            if (pos + 1 < n && isLetterCode(text.charCodeAt(pos)) && isLetterCode(text.charCodeAt(pos + 1))) pos += 2;
            break;
          case 'hour':
          case 'hour12':
            hour = value;
            break;
          case 'minute':
            minute = value;
            break;
          case 'second':
            second = value;
            secondStart = start;
            secondEnd = pos;
            break;
          case 'fraction':
            millis = Math.floor((value / 10 ** digits) * 1000);
            break;
        }
        continue;
      }
      switch (field) {
        case 'monthName': {
          const [index, end] = readName(text, pos, MONTHS, MONTHS_LONG);
          if (index < 0) return undefined;
          month = index + 1;
          pos = end;
          break;
        }
        case 'weekday': {
          const [index, end] = readName(text, pos, WEEKDAYS, WEEKDAYS_LONG);
          if (index < 0) return undefined;
          pos = end;
          break;
        }
        case 'meridiem': {
          const c = text.charCodeAt(pos) | 0x20;
          if (c !== 97 && c !== 112) return undefined; // a / p
          pm = c === 112;
          pos++;
          if (pos < n && text[pos] === '.') pos++;
          if (pos < n && (text.charCodeAt(pos) | 0x20) === 109) pos++; // m
          if (pos < n && text[pos] === '.') pos++;
          break;
        }
        case 'offset': {
          const read = findOffset(text, pos, this.lacks);
          // an absent offset is allowed: the date is then read in the zone
          if (read === undefined) break;
          if (read === null) return undefined;
          offset = read[0];
          pos = read[1];
          break;
        }
        case 'epochSeconds':
        case 'epochMillis': {
          const read = readNumber(text, pos);
          if (read === undefined) return undefined;
          epoch = field === 'epochSeconds' ? Math.round(read[0] * 1000) : Math.trunc(read[0]);
          pos = read[1];
          break;
        }
      }
    }

    // What the format did not read: the date's own offset (a Date-Format without Z over
    // `30/Nov/2012:00:00:11 +0500` would read the date in the default zone, hours off, as the
    // reference does), after parts of the time the format lacks (`:11`, `.5`); anything else
    // means the format does not fit the text (`X` over `2024-10-27 02:30:00`).
    if (pos < n) {
      if (epoch !== undefined || offset !== undefined) {
        if (!onlySpaces(text, pos)) return undefined;
      } else {
        const read = trailingOffset(text, pos, this.lacks);
        if (read === null) return undefined;
        offset = read;
      }
    }

    if (epoch !== undefined) {
      if (!(Math.abs(epoch) <= MAX_EPOCH_MS)) return undefined;
      return { epochMs: epoch, offsetMinutes: undefined };
    }
    if (pm !== undefined) {
      if (pm && hour < 12) hour += 12;
      else if (!pm && hour === 12) hour = 0;
    }
    if (year < 1 || year > 9999 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
    if (hour > 23 || minute > 59 || second > 59) return undefined;
    this.secondStart = secondStart;
    this.secondEnd = secondEnd;
    const wall = daysFromCivil(year, month, day) * DAY_MS + ((hour * 60 + minute) * 60 + second) * 1000 + millis;
    if (offset !== undefined) return { epochMs: wall - offset * MINUTE_MS, offsetMinutes: offset };
    return { epochMs: wallToEpoch(this.zone, wall), offsetMinutes: undefined };
  }
}

function twoDigitYear(value: number): number {
  return value + (value > 68 ? 1900 : 2000);
}

/**
 * `Z`, `±HH`, `±HHMM`, `±HH:MM` at pos → [minutes, end]; undefined when no offset starts there;
 * null when one starts but is malformed.
 */
function readOffset(text: string, pos: number): [number, number] | undefined | null {
  const c = text.charCodeAt(pos);
  if (c === 90 || c === 122) return [0, pos + 1];
  if (c !== 43 && c !== 45) return undefined;
  const digit = (k: number) => {
    const d = text.charCodeAt(k) - 48;
    return d >= 0 && d <= 9 ? d : -1;
  };
  const h1 = digit(pos + 1);
  const h2 = digit(pos + 2);
  if (h1 < 0 || h2 < 0) return null;
  let end = pos + 3;
  let minutes = 0;
  const colon = text[end] === ':' ? 1 : 0;
  const m1 = digit(end + colon);
  const m2 = digit(end + colon + 1);
  if (m1 >= 0 && m2 >= 0) {
    minutes = m1 * 10 + m2;
    end += colon + 2;
  }
  const hours = h1 * 10 + h2;
  if (hours > 23 || minutes > 59) return null;
  const total = hours * 60 + minutes;
  return [c === 45 ? -total : total, end];
}

function isDigitAt(text: string, pos: number): boolean {
  const code = text.charCodeAt(pos);
  return code >= 48 && code <= 57;
}

function isSpace(code: number): boolean {
  return code === 32 || code === 9;
}

function onlySpaces(text: string, pos: number): boolean {
  for (let k = pos; k < text.length; k++) if (!isSpace(text.charCodeAt(k))) return false;
  return true;
}

/** Whether text[from, to) holds a sign or a space: then it is not what stands before a fraction. */
function crossesSignOrSpace(text: string, from: number, to: number): boolean {
  for (let k = from; k < to; k++) {
    const code = text.charCodeAt(k);
    if (code === 43 || code === 45 || isSpace(code)) return true;
  }
  return false;
}

const LACKS_SECONDS = 1;
const LACKS_FRACTION = 2;

/**
 * Past the parts of a time that the format lacks (`lacks`, LACKS_* bits): seconds after HH:mm
 * (`:00`), a fraction (`.250`, `,5`), or the digits alone where the format's separator took the
 * `:` or `.`; then spaces.
 */
function skipTimeRest(text: string, pos: number, lacks: number): number {
  const n = text.length;
  let p = pos;
  if (lacks !== 0 && isDigitAt(text, p)) {
    while (isDigitAt(text, p)) p++;
    // the digits were the seconds: a fraction may follow
    if (lacks === (LACKS_SECONDS | LACKS_FRACTION)) p = skipDigitsAfter(text, p, 46, 44);
  } else {
    if (lacks & LACKS_SECONDS) p = skipDigitsAfter(text, p, 58, 58);
    if (lacks & LACKS_FRACTION) p = skipDigitsAfter(text, p, 46, 44);
  }
  while (p < n && isSpace(text.charCodeAt(p))) p++;
  return p;
}

/** Past `c` then digits, where `c` is one of two characters and digits follow it. */
function skipDigitsAfter(text: string, pos: number, c1: number, c2: number): number {
  const code = text.charCodeAt(pos);
  if ((code !== c1 && code !== c2) || !isDigitAt(text, pos + 1)) return pos;
  let p = pos + 1;
  while (isDigitAt(text, p)) p++;
  return p;
}

/**
 * The offset a `Z` token reads at pos, past what of the time the format does not read
 * (`10:00:03.5 +0000` with `HH:mm:ss Z`): [minutes, end]; undefined when the text ends with no
 * offset (the date is then read in the zone); null for anything else where the offset should
 * stand (`CET`, `+x`), which would otherwise be dropped silently.
 */
function findOffset(text: string, pos: number, lacks: number): [number, number] | undefined | null {
  const p = skipTimeRest(text, pos, lacks);
  if (p >= text.length) return undefined;
  return readOffsetOrUtc(text, p);
}

/**
 * What follows the date, when it is an offset (`Z`, `±HH`, `±HHMM`, `±HH:MM`, `GMT`, `UTC`), maybe
 * after parts of the time the format lacks, spaces around: its minutes; undefined for nothing but
 * spaces; null for anything else.
 */
function trailingOffset(text: string, pos: number, lacks: number): number | undefined | null {
  const p = skipTimeRest(text, pos, lacks);
  if (p >= text.length) return undefined;
  if (p === pos && isDigitAt(text, pos)) return null;
  const read = readOffsetOrUtc(text, p);
  if (!read || !onlySpaces(text, read[1])) return null;
  return read[0];
}

/** `GMT` or `UTC`, any case, at pos (char codes: no string made on the way). */
function isUtcWord(text: string, pos: number): boolean {
  const a = text.charCodeAt(pos) | 0x20;
  const b = text.charCodeAt(pos + 1) | 0x20;
  const c = text.charCodeAt(pos + 2) | 0x20;
  return (a === 103 && b === 109 && c === 116) || (a === 117 && b === 116 && c === 99);
}

/**
 * `±HH[:MM]`, `Z`, or `GMT`/`UTC` (any case, maybe followed by an offset: `GMT+02:00`) at pos →
 * [minutes, end]; null when there is none, or the word goes on (`Zulu`, `UTCX`).
 */
function readOffsetOrUtc(text: string, pos: number): [number, number] | null {
  let p = pos;
  if (isUtcWord(text, p)) {
    p += 3;
    const c = text.charCodeAt(p);
    if (c !== 43 && c !== 45) return isLetterCode(c) || isDigitAt(text, p) ? null : [0, p];
  }
  const read = readOffset(text, p);
  if (!read || isLetterCode(text.charCodeAt(read[1])) || isDigitAt(text, read[1])) return null;
  return read;
}

/** `[+-]digits[.digits]` at pos → [value, end]. */
function readNumber(text: string, pos: number): [number, number] | undefined {
  let end = pos;
  if (text[end] === '+' || text[end] === '-') end++;
  const digitsStart = end;
  while (end < text.length && text.charCodeAt(end) >= 48 && text.charCodeAt(end) <= 57) end++;
  if (end === digitsStart) return undefined;
  if (text[end] === '.') {
    let k = end + 1;
    while (k < text.length && text.charCodeAt(k) >= 48 && text.charCodeAt(k) <= 57) k++;
    if (k > end + 1) end = k;
  }
  return [Number(text.slice(pos, end)), end];
}

/**
 * Compiles a moment-style date format (tokens YYYY YY M MM MMM MMMM D DD Do ddd dddd H HH h hh A a
 * m mm s ss S… Z ZZ X x, and [literal]). Separators are not strict: one in the format accepts any
 * run of characters that are neither letters nor digits. `Z` and `S…` are optional; an offset
 * (or GMT, UTC) is read wherever it stands after the time; dates without one are read in
 * `defaultZone` (default UTC; an IANA name, `local`, or `+HH:MM`). The text must be used up.
 * Throws DateFormatError on an unusable format.
 */
export function compileDateFormat(format: string, defaultZone = 'UTC'): DateParser {
  return new StepParser(compileSteps(format), resolveZone(defaultZone));
}

// ---------------------------------------------------------------------------------------------
// Event time

/** Unix seconds, maybe with a fraction (`1319061710`, `1319061710.284`) → ms; undefined if not that. */
function epochSecondsText(text: string): number | undefined {
  const n = text.length;
  if (n === 0 || n > 24) return undefined;
  let i = 0;
  let value = 0;
  while (i < n) {
    const code = text.charCodeAt(i);
    if (code < 48 || code > 57) break;
    value = value * 10 + (code - 48);
    i++;
  }
  if (i === 0) return undefined;
  let ms = value * 1000;
  if (i < n) {
    if (text[i] !== '.' || i === n - 1) return undefined;
    let scale = 100;
    for (let k = i + 1; k < n; k++) {
      const code = text.charCodeAt(k);
      if (code < 48 || code > 57) return undefined;
      ms += (code - 48) * scale;
      scale /= 10;
    }
    ms = Math.floor(ms);
  }
  return ms <= MAX_EPOCH_MS ? ms : undefined;
}

/** Bounded memo: cleared when full (log dates move forward, old keys are not asked again). */
const CACHE_LIMIT = 512;

/**
 * The function that dates each parsed line: `timestamp`, then `epoch` (Unix seconds, e.g. squid
 * `%ts`), then `datetime` read with `dateFormat` (dates without offset read in `defaultZone`).
 * The returned objects are shared between lines with the same date text: treat them as read-only.
 * undefined = no usable date (the caller counts the line as an unknown format).
 * Throws DateFormatError for a bad format or zone.
 */
export function makeEventTimer(
  dateFormat: string,
  defaultZone: string,
): (fields: Record<string, string | undefined>) => EventTime | undefined {
  const zone = resolveZone(defaultZone);
  const parser = new StepParser(compileSteps(dateFormat || DEFAULT_DATE_FORMAT), zone);
  const epochCache = new Map<string, EventTime | null>();
  const dateCache = new Map<string, EventTime | null>();

  const timeOf = (epochMs: number, offsetMinutes: number | undefined): EventTime => {
    const iso = isoAt(epochMs, offsetMinutes ?? zone.offsetAt(epochMs));
    return Object.freeze({ timestamp: Math.floor(epochMs / 1000), datetime: iso.datetime, date: iso.date });
  };

  const remember = (cache: Map<string, EventTime | null>, key: string, value: EventTime | null) => {
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(key, value);
    return value ?? undefined;
  };

  const fromEpoch = (text: string): EventTime | undefined => {
    const hit = epochCache.get(text);
    if (hit !== undefined) return hit ?? undefined;
    const ms = epochSecondsText(text);
    return remember(epochCache, text, ms === undefined ? null : timeOf(ms, undefined));
  };

  // Lines come in time order and most share their minute with the line before: such a date is
  // the last one plus a few seconds, found by comparing the text around the seconds digits
  // (no Map lookup, no parse). Only where the offset is written in the text or the zone is
  // fixed (elsewhere an offset could change within a minute: old local mean times).
  const separable = parser.secondsAreSeparable;
  let last: MinuteCache | undefined;
  /** the line before's date: lines of the same second get the same object */
  let prevText: string | undefined;
  let prevTime: EventTime | undefined;

  const fromMinute = (text: string): EventTime | undefined => {
    const m = last!;
    if (text.length !== m.length || !text.startsWith(m.head) || !text.endsWith(m.tail)) return undefined;
    const start = m.head.length;
    let second = 0;
    for (let i = start; i < start + m.digits; i++) {
      const d = text.charCodeAt(i) - 48;
      if (d < 0 || d > 9) return undefined;
      second = second * 10 + d;
    }
    if (second > 59) return undefined;
    return Object.freeze({ timestamp: m.minuteTimestamp + second, datetime: m.datetimeHead + pad2(second) + m.datetimeTail, date: m.date });
  };

  const parseDatetime = (datetime: string): EventTime | undefined => {
    const hit = dateCache.get(datetime);
    if (hit !== undefined) return hit ?? undefined;
    const parsed = parser.parse(datetime);
    const time = remember(dateCache, datetime, parsed ? timeOf(parsed.epochMs, parsed.offsetMinutes) : null);
    if (time && separable && parser.secondStart >= 0 && (parsed!.offsetMinutes !== undefined || zone.fixed)) {
      const second = Number(time.datetime.slice(17, 19));
      last = {
        length: datetime.length,
        head: datetime.slice(0, parser.secondStart),
        tail: datetime.slice(parser.secondEnd),
        digits: parser.secondEnd - parser.secondStart,
        minuteTimestamp: time.timestamp - second,
        datetimeHead: time.datetime.slice(0, 17),
        datetimeTail: time.datetime.slice(19),
        date: time.date,
      };
    }
    return time;
  };

  return (fields) => {
    const timestamp = fields.timestamp;
    if (timestamp) {
      const time = fromEpoch(timestamp);
      if (time) return time;
    }
    const epoch = fields.epoch;
    if (epoch) {
      const time = fromEpoch(epoch);
      if (time) return time;
    }
    const datetime = fields.datetime;
    if (!datetime) return undefined;
    if (datetime === prevText) return prevTime;
    const time = (last !== undefined && fromMinute(datetime)) || parseDatetime(datetime);
    prevText = datetime;
    prevTime = time;
    return time;
  };
}

/** The last minute read (see makeEventTimer): its text around the seconds, and its output. */
interface MinuteCache {
  readonly length: number;
  /** the date text before and after its seconds digits */
  readonly head: string;
  readonly tail: string;
  readonly digits: number;
  /** Unix seconds of second 0 of that minute */
  readonly minuteTimestamp: number;
  /** the output datetime before and after its seconds (`YYYY-MM-DDTHH:mm:` and `±HH:mm`) */
  readonly datetimeHead: string;
  readonly datetimeTail: string;
  readonly date: string;
}

/**
 * The timer of CSV events (reference 2.7): `timestamp` or `epoch` when there, else `datetime` in
 * ISO 8601, its date and time parted by `T` or by a space, with or without seconds, seconds'
 * fractions and an offset (the default zone's then); a date alone is its midnight in that zone.
 */
export function makeIsoEventTimer(defaultZone: string): (fields: Record<string, string | undefined>) => EventTime | undefined {
  const withT = makeEventTimer('YYYY-MM-DDTHH:mm:ssZ', defaultZone);
  const withSpace = makeEventTimer('YYYY-MM-DD HH:mm:ssZ', defaultZone);
  const minutesT = makeEventTimer('YYYY-MM-DDTHH:mmZ', defaultZone);
  const minutesSpace = makeEventTimer('YYYY-MM-DD HH:mmZ', defaultZone);
  const dateOnly = makeEventTimer('YYYY-MM-DD', defaultZone);
  return (fields) => {
    const datetime = fields.datetime;
    if (datetime === undefined) return withT(fields);
    // seconds' fractions and a space before the offset: left out of the text read, or the offset
    // after them was lost (the date read in the default zone, hours off)
    const plain = isoWithoutFraction(datetime);
    const read = plain === datetime ? fields : { ...fields, datetime: plain };
    if (plain.length === 10) return dateOnly(read);
    const space = plain.charCodeAt(10) === 32;
    // `2024-10-27T02:30`, maybe with an offset: no seconds
    if (plain.length >= 16 && plain.charCodeAt(16) !== 58) return space ? minutesSpace(read) : minutesT(read);
    return space ? withSpace(read) : withT(read);
  };
}

/** `2024-03-04T08:05:07.123 +05:30` → `2024-03-04T08:05:07+05:30`; other texts as they are. */
function isoWithoutFraction(text: string): string {
  let end = 19;
  if (text.charCodeAt(end) === 46 || text.charCodeAt(end) === 44) {
    end++;
    while (end < text.length && text.charCodeAt(end) >= 48 && text.charCodeAt(end) <= 57) end++;
  }
  while (end < text.length && text.charCodeAt(end) === 32) end++;
  return end === 19 ? text : text.slice(0, 19) + text.slice(end);
}
