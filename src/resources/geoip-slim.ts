import { createRequire } from 'node:module';
import { Reader, type Response } from 'mmdb-lib';

/**
 * A MaxMind DB reduced to what geolocation reads. The packaged GeoLite2-City file is 59 MB, 34 MB
 * of it records naming each place in eight languages; logsift reads five values of a record. The
 * slim file keeps the search tree as it is (same networks, same node numbers) and points its
 * leaves at new, small records holding those five values: 31 MB in all, read by the same library.
 *
 * A slim record has the shape of the ip-location-db files, which the locator already reads:
 * `country_code`, `state1`, `city`, `latitude`, `longitude`, each present only when the locator
 * would have given a value for it from the original record (so it gives the same fields).
 */

/** The record shapes of MaxMind's GeoIP2/GeoLite2 files and of the ip-location-db files. */
export interface MmdbRecord {
  country?: { iso_code?: string };
  registered_country?: { iso_code?: string };
  subdivisions?: Array<{ iso_code?: string; names?: Record<string, string> }>;
  city?: { names?: Record<string, string> } | string;
  location?: { latitude?: number; longitude?: number };
  country_code?: string;
  state1?: string;
  latitude?: number | string;
  longitude?: number | string;
}

/** What the locator reads of a record. */
export interface PlaceValues {
  readonly country?: string;
  readonly region?: string;
  readonly city?: string;
  readonly latitude?: number | string;
  readonly longitude?: number | string;
}

export function placeValues(r: MmdbRecord): PlaceValues {
  const city = typeof r.city === 'string' ? r.city : r.city?.names?.en;
  const lat = r.location?.latitude ?? r.latitude;
  const lon = r.location?.longitude ?? r.longitude;
  const located = lat !== undefined && lon !== undefined && lat !== '' && lon !== '';
  return {
    country: r.country?.iso_code ?? r.country_code ?? r.registered_country?.iso_code ?? undefined,
    region: r.subdivisions?.[0]?.iso_code ?? r.state1 ?? undefined,
    city: city || undefined,
    latitude: located ? lat : undefined,
    longitude: located ? lon : undefined,
  };
}

/** MaxMind DB data types (the spec's numbering). */
const POINTER = 1;
const UTF8 = 2;
const DOUBLE = 3;
const MAP = 7;

/** The spec's separator between the search tree and the data section, and the metadata's marker. */
export const SEPARATOR_BYTES = 16;
export const METADATA_MARKER = Buffer.from('abcdef4d61784d696e642e636f6d', 'hex');

/** A control byte (and the size's extra bytes) of a value of `type` and `size`. */
function control(type: number, size: number): number[] {
  const t = type << 5;
  if (size < 29) return [t | size];
  if (size < 285) return [t | 29, size - 29];
  if (size < 65_821) { const s = size - 285; return [t | 30, s >> 8, s & 0xff]; }
  const s = size - 65_821;
  return [t | 31, (s >> 16) & 0xff, (s >> 8) & 0xff, s & 0xff];
}

/** A pointer to `offset` in the data section (the spec's three shortest forms). */
function pointer(offset: number): number[] {
  const t = POINTER << 5;
  if (offset < 2048) return [t | (offset >> 8), offset & 0xff];
  if (offset < 526_336) { const p = offset - 2048; return [t | 0x08 | (p >> 16), (p >> 8) & 0xff, p & 0xff]; }
  const p = offset - 526_336;
  if (p >= 2 ** 27) throw new Error('data section too large');
  return [t | 0x10 | (p >>> 24), (p >> 16) & 0xff, (p >> 8) & 0xff, p & 0xff];
}

/**
 * Writes slim records one after the other. Each string (a key, a country, a city) is written
 * once; later uses point to it, so that a record takes about 40 bytes.
 */
export class PlaceWriter {
  readonly chunks: Buffer[] = [];
  length = 0;
  private readonly stringAt = new Map<string, number>();

  /** Appends a record; returns its offset in the data section. */
  write(place: PlaceValues): number {
    const bytes: number[] = [];
    const entries: Array<[string, string | number]> = [];
    if (place.country) entries.push(['country_code', place.country]);
    if (place.region) entries.push(['state1', place.region]);
    if (place.city) entries.push(['city', place.city]);
    if (place.latitude !== undefined && place.longitude !== undefined) {
      entries.push(['latitude', place.latitude], ['longitude', place.longitude]);
    }
    bytes.push(...control(MAP, entries.length));
    for (const [k, v] of entries) {
      this.string(k, bytes);
      if (typeof v === 'string') {
        this.string(v, bytes);
      } else {
        const d = Buffer.alloc(8);
        d.writeDoubleBE(v);
        bytes.push((DOUBLE << 5) | 8, ...d);
      }
    }
    const offset = this.length;
    this.chunks.push(Buffer.from(bytes));
    this.length += bytes.length;
    return offset;
  }

  private string(text: string, out: number[]): void {
    const at = this.stringAt.get(text);
    if (at !== undefined) {
      out.push(...pointer(at));
      return;
    }
    const utf8 = Buffer.from(text, 'utf8');
    const head = control(UTF8, utf8.length);
    // a string is only pointed to where it starts, inside the record being written
    this.stringAt.set(text, this.length + out.length);
    out.push(...head, ...utf8);
  }
}

/** Reads and writes the records of a search tree node, for the three record sizes of the spec. */
export function recordAccess(tree: Buffer, recordSize: number): { get(node: number, right: boolean): number; set(node: number, right: boolean, v: number): void } {
  if (recordSize === 24) {
    return {
      get: (n, r) => tree.readUIntBE(n * 6 + (r ? 3 : 0), 3),
      set: (n, r, v) => { tree.writeUIntBE(v, n * 6 + (r ? 3 : 0), 3); },
    };
  }
  if (recordSize === 32) {
    return {
      get: (n, r) => tree.readUInt32BE(n * 8 + (r ? 4 : 0)),
      set: (n, r, v) => { tree.writeUInt32BE(v, n * 8 + (r ? 4 : 0)); },
    };
  }
  if (recordSize === 28) {
    // 7 bytes: left's low 24 bits, the middle byte (left's high nibble, right's high nibble), right's low 24 bits
    return {
      get: (n, r) => {
        const o = n * 7;
        return r
          ? ((tree[o + 3] & 0x0f) << 24) + tree.readUIntBE(o + 4, 3)
          : ((tree[o + 3] & 0xf0) << 20) + tree.readUIntBE(o, 3);
      },
      set: (n, r, v) => {
        const o = n * 7;
        if (r) {
          tree[o + 3] = (tree[o + 3] & 0xf0) | ((v >>> 24) & 0x0f);
          tree.writeUIntBE(v & 0xffffff, o + 4, 3);
        } else {
          tree[o + 3] = (tree[o + 3] & 0x0f) | (((v >>> 24) & 0x0f) << 4);
          tree.writeUIntBE(v & 0xffffff, o, 3);
        }
      },
    };
  }
  throw new Error(`unsupported record size ${recordSize}`);
}

/**
 * Calls `fn` for each record of a search tree that points into the data section (a leaf: not
 * another node, not "nothing known"), with its value as the file holds it.
 */
export function forEachLeaf(records: { get(node: number, right: boolean): number }, nodeCount: number, fn: (node: number, right: boolean, value: number) => void): void {
  for (let node = 0; node < nodeCount; node++) {
    for (const right of [false, true]) {
      const value = records.get(node, right);
      if (value > nodeCount) fn(node, right, value);
    }
  }
}

/** Where in the file a leaf's value points: the data section starts after the tree and its separator. */
export const leafOffset = (value: number, nodeCount: number, dataStart: number): number => value - nodeCount - SEPARATOR_BYTES + dataStart;

export interface DecodeCache { get(offset: number): unknown; set(offset: number, value: unknown): void }
export interface Decoder { decode(offset: number): { value: unknown }; decodeFast(offset: number): { value: unknown } }
type DecoderClass = new (db: Buffer, baseOffset: number, cache?: DecodeCache) => Decoder;

/**
 * mmdb-lib's decoder of a data section (its Reader's own module, which the package does not
 * export): `baseOffset` is where in `db` the section's pointers count from.
 */
export function mmdbDecoder(db: Buffer, baseOffset: number, cache?: DecodeCache): Decoder {
  const Decoder = (createRequire(import.meta.url)('mmdb-lib/lib/decoder.js') as { default: DecoderClass }).default;
  return new Decoder(db, baseOffset, cache);
}

/**
 * The slim version of a MaxMind DB file's bytes. Throws when the file is not a MaxMind DB. The
 * records are decoded by mmdb-lib's own decoder (the module the Reader uses).
 */
export function slimMmdb(db: Buffer): Buffer {
  const { metadata } = new Reader<Response>(db);
  const { nodeCount, recordSize, searchTreeSize } = metadata;
  const metaStart = db.lastIndexOf(METADATA_MARKER);
  if (metaStart < 0) throw new Error('no metadata section');
  const dataStart = searchTreeSize + SEPARATOR_BYTES;
  // Records share their parts (a country, a continent) through pointers: decoded once each.
  const shared = new Map<number, unknown>();
  const decoder = mmdbDecoder(db, dataStart, { get: (k) => shared.get(k), set: (k, v) => { if (shared.size >= 50_000) shared.clear(); shared.set(k, v); } });

  const tree = Buffer.from(db.subarray(0, searchTreeSize));
  const records = recordAccess(tree, recordSize);
  const newOffsetOf = new Map<number, number>(); // old record value → new one
  const offsetOfPlace = new Map<string, number>(); // identical slim records are stored once
  const writer = new PlaceWriter();
  forEachLeaf(records, nodeCount, (node, right, value) => {
    let slim = newOffsetOf.get(value);
    if (slim === undefined) {
      const record = decoder.decode(leafOffset(value, nodeCount, dataStart)).value;
      const place = typeof record === 'object' && record !== null ? placeValues(record as MmdbRecord) : {};
      const key = JSON.stringify(place);
      let offset = offsetOfPlace.get(key);
      if (offset === undefined) {
        offset = writer.write(place);
        offsetOfPlace.set(key, offset);
      }
      slim = offset + nodeCount + SEPARATOR_BYTES;
      newOffsetOf.set(value, slim);
    }
    records.set(node, right, slim);
  });
  return Buffer.concat([tree, Buffer.alloc(SEPARATOR_BYTES), ...writer.chunks, db.subarray(metaStart)]);
}
