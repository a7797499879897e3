import ipaddr from 'ipaddr.js';

/**
 * Sets of IP addresses (single addresses, CIDR prefixes, `a - b` ranges, the reference's `a.b.c`
 * /24 shorthand), IPv4 and IPv6, stored as sorted, merged numeric ranges in SharedArrayBuffers:
 * built once on the main thread, handed to every worker in workerData without a copy, and
 * looked up by binary search (a million entries cost about 20 comparisons).
 */
export interface IpRangeData {
  /** IPv4 ranges: Uint32 pairs [start, end], sorted, disjoint */
  readonly v4: SharedArrayBuffer;
  /** IPv6 ranges: BigUint64 quadruples [startHigh, startLow, endHigh, endLow], sorted, disjoint */
  readonly v6: SharedArrayBuffer;
}

const THREE_NUMBERS = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
const V6_MAX = (1n << 128n) - 1n;
const MASK64 = (1n << 64n) - 1n;

/**
 * The dotted-quad IPv4 address as a number, or -1. Written by hand: it runs on every log line
 * (and every address of a proxy chain), where a general parser costs several times more.
 */
export function parseIPv4(text: string): number {
  const len = text.length;
  if (len < 7 || len > 15) return -1;
  let value = 0;
  let part = 0;
  let digits = 0;
  let dots = 0;
  for (let i = 0; i < len; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      // a leading zero is refused, as ipaddr.js refuses it (it would mean octal elsewhere)
      if (digits === 1 && part === 0) return -1;
      part = part * 10 + (c - 48);
      if (++digits > 3 || part > 255) return -1;
    } else if (c === 46) {
      if (digits === 0 || ++dots > 3) return -1;
      value = value * 256 + part;
      part = 0;
      digits = 0;
    } else {
      return -1;
    }
  }
  if (dots !== 3 || digits === 0) return -1;
  return value * 256 + part;
}

function v6ToBigInt(addr: ipaddr.IPv6): bigint {
  let n = 0n;
  for (const p of addr.parts) n = (n << 16n) | BigInt(p);
  return n;
}

type Parsed = { kind: 'v4'; start: number; end: number } | { kind: 'v6'; start: bigint; end: bigint };

function single(text: string): Parsed | undefined {
  const t = text.trim();
  if (ipaddr.IPv4.isValidFourPartDecimal(t)) {
    const n = parseIPv4(t);
    return n < 0 ? undefined : { kind: 'v4', start: n, end: n };
  }
  if (!ipaddr.IPv6.isValid(t)) return undefined;
  const v6 = ipaddr.IPv6.parse(t);
  if (v6.isIPv4MappedAddress()) {
    const n = parseIPv4(v6.toIPv4Address().toString());
    return { kind: 'v4', start: n, end: n };
  }
  const n = v6ToBigInt(v6);
  return { kind: 'v6', start: n, end: n };
}

/** Reads one list entry as an address range; undefined when it is not an address (a host name). */
export function parseIpEntry(entry: string): Parsed | undefined {
  const text = entry.trim();
  const three = THREE_NUMBERS.exec(text);
  if (three) {
    const [a, b, c] = [three[1], three[2], three[3]].map(Number);
    if (a > 255 || b > 255 || c > 255) return undefined;
    const start = ((a * 256 + b) * 256 + c) * 256;
    return { kind: 'v4', start, end: start + 255 };
  }
  const slash = text.indexOf('/');
  if (slash > 0) {
    if (!ipaddr.isValidCIDR(text)) return undefined;
    const [addr, bits] = ipaddr.parseCIDR(text);
    if (addr.kind() === 'ipv4') {
      const n = parseIPv4(addr.toString());
      const size = 2 ** (32 - bits);
      const start = Math.floor(n / size) * size;
      return { kind: 'v4', start, end: start + size - 1 };
    }
    const n = v6ToBigInt(addr as ipaddr.IPv6);
    const host = (1n << BigInt(128 - bits)) - 1n;
    return { kind: 'v6', start: n & ~host & V6_MAX, end: (n & ~host & V6_MAX) | host };
  }
  // `a - b`: both ends addresses of the same family (host names may hold dashes: they fail here)
  const dash = text.split('-');
  if (dash.length === 2) {
    const from = single(dash[0]);
    const to = single(dash[1]);
    if (from?.kind === 'v4' && to?.kind === 'v4' && from.start <= to.start) return { kind: 'v4', start: from.start, end: to.end };
    if (from?.kind === 'v6' && to?.kind === 'v6' && from.start <= to.start) return { kind: 'v6', start: from.start, end: to.end };
  }
  return single(text);
}

/**
 * Collects ranges, then sorts and merges them into the shared tables. IPv4 ranges are packed
 * as `start << 32 | end` in a growing BigUint64Array (sorted natively): a list of hundreds of
 * thousands of addresses leaves almost no garbage behind on the main thread.
 */
export class IpRangeBuilder {
  private v4 = new BigUint64Array(1024);
  private v4Count = 0;
  private readonly v6: Array<[bigint, bigint]> = [];

  /** Adds an entry; false when it is not an address, prefix or range. */
  add(entry: string): boolean {
    const text = entry.trim();
    // the common case (a plain IPv4 address) without the general parser
    const n = parseIPv4(text);
    if (n >= 0) {
      this.addV4(n, n);
      return true;
    }
    const parsed = parseIpEntry(text);
    if (!parsed) return false;
    if (parsed.kind === 'v4') this.addV4(parsed.start, parsed.end);
    else this.v6.push([parsed.start, parsed.end]);
    return true;
  }

  private addV4(start: number, end: number): void {
    if (this.v4Count === this.v4.length) {
      const bigger = new BigUint64Array(this.v4.length * 2);
      bigger.set(this.v4);
      this.v4 = bigger;
    }
    this.v4[this.v4Count++] = (BigInt(start) << 32n) | BigInt(end);
  }

  get size(): number {
    return this.v4Count + this.v6.length;
  }

  build(): IpRangeData {
    const packed = this.v4.subarray(0, this.v4Count).sort();
    // merge overlapping or adjacent ranges, in place into a Uint32 pair table
    const merged = new Uint32Array(this.v4Count * 2);
    let m = 0;
    for (let i = 0; i < packed.length; i++) {
      const start = Number(packed[i] >> 32n);
      const end = Number(packed[i] & 0xffffffffn);
      if (m > 0 && start <= merged[2 * m - 1] + 1) {
        if (end > merged[2 * m - 1]) merged[2 * m - 1] = end;
      } else {
        merged[2 * m] = start;
        merged[2 * m + 1] = end;
        m++;
      }
    }
    const v4buf = new SharedArrayBuffer(m * 2 * 4);
    new Uint32Array(v4buf).set(merged.subarray(0, 2 * m));
    const v6 = merge6(this.v6);
    const v6buf = new SharedArrayBuffer(v6.length * 4 * 8);
    const v6arr = new BigUint64Array(v6buf);
    v6.forEach(([s, e], i) => {
      v6arr[4 * i] = s >> 64n;
      v6arr[4 * i + 1] = s & MASK64;
      v6arr[4 * i + 2] = e >> 64n;
      v6arr[4 * i + 3] = e & MASK64;
    });
    return { v4: v4buf, v6: v6buf };
  }
}

/** Sorts IPv6 ranges and merges the overlapping or adjacent ones. */
function merge6(ranges: Array<[bigint, bigint]>): Array<[bigint, bigint]> {
  ranges.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const out: Array<[bigint, bigint]> = [];
  for (const [s, e] of ranges) {
    const last = out[out.length - 1];
    if (last && s <= last[1] + 1n) last[1] = e > last[1] ? e : last[1];
    else out.push([s, e]);
  }
  return out;
}

/** Lookups over IpRangeData (in any thread: the tables are only read). */
export class IpRanges {
  private readonly v4: Uint32Array;
  private readonly v6: BigUint64Array;

  constructor(data: IpRangeData) {
    this.v4 = new Uint32Array(data.v4);
    this.v6 = new BigUint64Array(data.v6);
  }

  get rangeCount(): number {
    return this.v4.length / 2 + this.v6.length / 4;
  }

  /** bytes of the shared tables */
  get bytes(): number {
    return this.v4.byteLength + this.v6.byteLength;
  }

  hasV4(n: number): boolean {
    const t = this.v4;
    let lo = 0;
    let hi = (t.length >> 1) - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (t[mid << 1] > n) hi = mid - 1;
      else if (t[(mid << 1) + 1] < n) lo = mid + 1;
      else return true;
    }
    return false;
  }

  hasV6(n: bigint): boolean {
    const t = this.v6;
    const high = n >> 64n;
    const low = n & MASK64;
    let lo = 0;
    let hi = (t.length >> 2) - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const i = mid << 2;
      if (t[i] > high || (t[i] === high && t[i + 1] > low)) hi = mid - 1;
      else if (t[i + 2] < high || (t[i + 2] === high && t[i + 3] < low)) lo = mid + 1;
      else return true;
    }
    return false;
  }

  /** Whether one address (IPv4, IPv6, IPv4-mapped IPv6) is in the set; names and garbage are not. */
  has(address: string): boolean {
    const n = parseIPv4(address);
    if (n >= 0) return this.v4.length > 0 && this.hasV4(n);
    if (address.indexOf(':') < 0) return false;
    const v6 = parseIPv6(address);
    if (v6 === undefined) return false;
    if (typeof v6 === 'number') return this.hasV4(v6);
    return this.v6.length > 0 && this.hasV6(v6);
  }
}

/** An IPv6 address as a number, an IPv4-mapped one as its IPv4 number, or undefined. */
export function parseIPv6(text: string): bigint | number | undefined {
  let t = text;
  // a bracketed address, or one with a zone
  if (t.startsWith('[') && t.endsWith(']')) t = t.slice(1, -1);
  if (!ipaddr.IPv6.isValid(t)) return undefined;
  const addr = ipaddr.IPv6.parse(t);
  if (addr.isIPv4MappedAddress()) return parseIPv4(addr.toIPv4Address().toString());
  return v6ToBigInt(addr);
}

/**
 * The addresses of a host field: one address, or a proxy chain `a, b, c` (X-Forwarded-For order:
 * the client first). Calls `test` on each; true as soon as one passes.
 */
export function someAddress(host: string, test: (address: string) => boolean): boolean {
  if (host.indexOf(',') < 0) return test(host.trim());
  for (const part of host.split(',')) {
    const a = part.trim();
    if (a !== '' && test(a)) return true;
  }
  return false;
}

