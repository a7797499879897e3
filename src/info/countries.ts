import { readFile, stat } from 'node:fs/promises';
import { Reader, type Response } from 'mmdb-lib';
import { forEachLeaf, leafOffset, mmdbDecoder, recordAccess, SEPARATOR_BYTES } from '../resources/geoip-slim.js';

/** One entry of `/info/countries.json`: the reference's `{fr, en}`, plus the ISO 3166 code when known. */
export interface Country {
  readonly code?: string;
  readonly fr: string;
  readonly en: string;
  readonly [lang: string]: string | undefined;
}

type Named = { iso_code?: unknown; names?: Record<string, unknown> };

/** `{code, fr, en}` of a record part that names a country in both languages. */
function countryOf(part: unknown): Country | undefined {
  const p = part as Named | undefined;
  const en = p?.names?.en;
  const fr = p?.names?.fr;
  if (typeof p?.iso_code !== 'string' || typeof en !== 'string' || typeof fr !== 'string') return undefined;
  return { code: p.iso_code, fr, en };
}

/**
 * The countries a MaxMind database names (`country`, `registered_country`, `represented_country` of
 * its records) with their French and English names, sorted by English name. Each distinct record
 * is decoded once, found through the search tree's record values.
 */
export function countriesOfMmdb(db: Buffer): Country[] {
  const { nodeCount, recordSize, searchTreeSize } = new Reader<Response>(db).metadata;
  const dataStart = searchTreeSize + SEPARATOR_BYTES;
  const decoder = mmdbDecoder(db, dataStart);
  const records = recordAccess(db.subarray(0, searchTreeSize), recordSize);
  const seen = new Set<number>();
  const byCode = new Map<string, Country>();
  forEachLeaf(records, nodeCount, (_node, _right, value) => {
    if (seen.has(value)) return;
    seen.add(value);
    const record = decoder.decode(leafOffset(value, nodeCount, dataStart)).value as Record<string, unknown> | null;
    for (const key of ['country', 'registered_country', 'represented_country']) {
      const c = countryOf(record?.[key]);
      if (c?.code && !byCode.has(c.code)) byCode.set(c.code, c);
    }
  });
  return [...byCode.values()].sort((a, b) => a.en.localeCompare(b.en, 'en'));
}

/** A `countries.json` as the reference's resources repository holds it: an array of `{fr, en, …}`. */
export function parseCountriesFile(text: string): Country[] {
  const list = JSON.parse(text) as unknown;
  const ok = Array.isArray(list) && list.every((c) => typeof c === 'object' && c !== null
    && typeof (c as Country).fr === 'string' && typeof (c as Country).en === 'string'
    && Object.values(c as object).every((v) => typeof v === 'string'));
  if (!ok) throw new Error('countries.json is not an array of {fr, en} names');
  return list as Country[];
}

/**
 * The countries list: the resources part's `countries.json` when there is one (read again when it
 * changes), else the one of the packaged GeoLite2-Country database (read once, at the first
 * question), else none.
 */
export class CountriesSource {
  private fromFile?: { mtime: number; list: Country[] };
  private fromGeoip?: Promise<Country[] | undefined>;

  constructor(private readonly resourcesFile: string, private readonly geoipCountryFile: string | undefined) {}

  async list(): Promise<Country[] | undefined> {
    const mtime = (await stat(this.resourcesFile).catch(() => undefined))?.mtimeMs;
    if (mtime !== undefined) {
      if (this.fromFile?.mtime !== mtime) this.fromFile = { mtime, list: parseCountriesFile(await readFile(this.resourcesFile, 'utf8')) };
      return this.fromFile.list;
    }
    const file = this.geoipCountryFile;
    if (!file) return undefined;
    this.fromGeoip ??= readFile(file).then(countriesOfMmdb);
    return this.fromGeoip;
  }
}
