import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';

/**
 * Knowledge bases (PKB): KBART title lists per platform. The union of a platform's files is its
 * base; files are read oldest first (the date in their name, `…_YYYY-MM-DD.txt`), so a newer
 * file's record of a title_id replaces an older one.
 *
 * Storage: built once on the main thread into one SQLite file under var/cache (named by a digest
 * of the files' names, sizes and dates, so that a changed file gives a new build and an unchanged
 * set is reused across restarts), then opened read-only by each worker: the workers share the
 * operating system's page cache instead of each holding the titles in its heap.
 */
export interface PkbData {
  /** the SQLite file, or undefined when no platform has a base */
  readonly file?: string;
  /** platforms that have a base (a title not found there is a pkb miss) */
  readonly platforms: readonly string[];
  readonly titles: number;
  readonly files: number;
  /** the packages of each platform that has some (what `/info/platforms` shows as `pkb-packages`) */
  readonly packages: Readonly<Record<string, readonly PkbPackage[]>>;
}

/**
 * One knowledge-base package: the files `<name>_<YYYY-MM-DD>.txt` of a platform, described by its
 * newest file (reference routes.md 1.1; older files' counts are not added, unlike ezPAARSE).
 */
export interface PkbPackage {
  readonly name: string;
  /** the newest date seen for the package */
  readonly date: string;
  /** the rows of the newest file (non-empty lines less the header) */
  readonly entries: number;
}

/** KBART columns looked up; the others are only copied. */
const KEYS = ['title_id', 'print_identifier', 'online_identifier', 'doi'] as const;

interface KbartFile {
  readonly platform: string;
  readonly path: string;
  readonly date: string;
  readonly size: number;
  readonly mtime: number;
}

const DATED = /_(\d{4}-\d{2}-\d{2})\.txt$/;
const PACKAGE = /^(.+)_(\d{4}-\d{2}-\d{2})\.txt$/;

/** Bumped when the file's tables change, so that an older build is not reused. */
const SCHEMA = 'pkb-2';

/** `<name>_<YYYY-MM-DD>.txt` → its package and date; other names belong to no package. */
export function packageOfFile(fileName: string): { name: string; date: string } | undefined {
  const m = PACKAGE.exec(fileName);
  return m ? { name: m[1], date: m[2] } : undefined;
}

/**
 * Each platform's packages from its files and their row counts: per package the newest file
 * (ties: the last path), sorted by name. Platforms without a dated file are left out.
 */
export function latestPackages(
  files: ReadonlyArray<{ readonly platform: string; readonly path: string }>,
  rowsOf: (path: string) => number,
): Record<string, PkbPackage[]> {
  const newest = new Map<string, { platform: string; name: string; date: string; path: string }>();
  for (const f of files) {
    const pkg = packageOfFile(basename(f.path));
    if (!pkg) continue;
    const key = `${f.platform}\0${pkg.name}`;
    const seen = newest.get(key);
    if (!seen || pkg.date > seen.date || (pkg.date === seen.date && f.path > seen.path)) newest.set(key, { platform: f.platform, ...pkg, path: f.path });
  }
  const out: Record<string, PkbPackage[]> = {};
  for (const n of [...newest.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    (out[n.platform] ??= []).push({ name: n.name, date: n.date, entries: rowsOf(n.path) });
  }
  return out;
}

async function listDir(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).sort();
  } catch {
    return [];
  }
}

async function kbartFiles(platform: string, dir: string): Promise<KbartFile[]> {
  const out: KbartFile[] = [];
  for (const name of await listDir(dir)) {
    if (!name.endsWith('.txt')) continue;
    const path = join(dir, name);
    const s = await stat(path);
    if (!s.isFile()) continue;
    out.push({ platform, path, date: DATED.exec(name)?.[1] ?? '', size: s.size, mtime: s.mtimeMs });
  }
  return out;
}

/**
 * The KBART files: `<platformsDir>/<name>/pkb/*.txt`, then `<extra>/<name>/*.txt` for each extra
 * folder (the layout of the community's knowledge-base collections).
 */
export async function findKbartFiles(platformsDir: string, extraDirs: readonly string[]): Promise<KbartFile[]> {
  const files: KbartFile[] = [];
  for (const name of await listDir(platformsDir)) files.push(...(await kbartFiles(name, join(platformsDir, name, 'pkb'))));
  for (const extra of extraDirs) {
    for (const name of await listDir(extra)) files.push(...(await kbartFiles(name, join(extra, name))));
  }
  return files;
}

/** Identifiers compare without case (ISSN check digit X, DOIs) and without surrounding spaces. */
export function normaliseId(field: string, value: string): string {
  const v = value.trim();
  return field === 'title_id' ? v : v.toUpperCase();
}

/** Rows of one KBART file: header row, tab-separated, empty cells left out. */
export function parseKbart(text: string): Array<Record<string, string>> {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const header = lines[0]?.split('\t').map((h) => h.trim()) ?? [];
  const rows: Array<Record<string, string>> = [];
  for (let i = 1; i < lines.length; i++) {
    if (lines[i].trim() === '') continue;
    const cells = lines[i].split('\t');
    const row: Record<string, string> = {};
    for (let c = 0; c < header.length && c < cells.length; c++) {
      const v = cells[c].trim();
      if (header[c] && v !== '') row[header[c]] = v;
    }
    rows.push(row);
  }
  return rows;
}

/**
 * Builds (or reuses) the SQLite file of the bases found in the folders. Called at start and again
 * by a reload; an older build is removed once a new one is in place.
 */
export async function buildPkb(platformsDir: string, extraDirs: readonly string[], cacheDir: string): Promise<PkbData> {
  const files = await findKbartFiles(platformsDir, extraDirs);
  const platforms = [...new Set(files.map((f) => f.platform))].sort();
  if (files.length === 0) return { platforms, titles: 0, files: 0, packages: {} };
  const digest = createHash('sha1').update(`${SCHEMA}\n`);
  for (const f of files) digest.update(`${f.platform}\0${f.path}\0${f.size}\0${f.mtime}\n`);
  const name = `pkb-${digest.digest('hex').slice(0, 16)}.sqlite`;
  const file = join(cacheDir, name);
  await mkdir(cacheDir, { recursive: true });
  let built: { titles: number; packages: Record<string, PkbPackage[]> };
  try {
    await stat(file);
    built = readBuilt(file);
  } catch {
    built = await writePkb(file, files);
  }
  for (const old of await listDir(cacheDir)) {
    if (old.startsWith('pkb-') && old.endsWith('.sqlite') && old !== name) await rm(join(cacheDir, old), { force: true });
  }
  return { file, platforms, titles: built.titles, files: files.length, packages: built.packages };
}

/** What a reused build holds: its title count and the packages (not read from the KBART files again). */
function readBuilt(file: string): { titles: number; packages: Record<string, PkbPackage[]> } {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const titles = (db.prepare('SELECT count(*) AS n FROM title').get() as { n: number }).n;
    const packages: Record<string, PkbPackage[]> = {};
    const rows = db.prepare('SELECT platform, name, date, entries FROM package ORDER BY platform, rowid').all() as Array<PkbPackage & { platform: string }>;
    for (const { platform, name, date, entries } of rows) (packages[platform] ??= []).push({ name, date, entries });
    return { titles, packages };
  } finally {
    db.close();
  }
}

async function writePkb(file: string, files: readonly KbartFile[]): Promise<{ titles: number; packages: Record<string, PkbPackage[]> }> {
  const tmp = `${file}.${process.pid}.tmp`;
  await rm(tmp, { force: true });
  const db = new Database(tmp);
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  db.exec(`CREATE TABLE title (
    id INTEGER PRIMARY KEY,
    platform TEXT NOT NULL,
    title_id TEXT, print_identifier TEXT, online_identifier TEXT, doi TEXT,
    record TEXT NOT NULL)`);
  const insert = db.prepare('INSERT INTO title (platform, title_id, print_identifier, online_identifier, doi, record) VALUES (?, ?, ?, ?, ?, ?)');
  let count = 0;
  const rowsOf = new Map<string, number>();
  const byPlatform = new Map<string, KbartFile[]>();
  for (const f of files) byPlatform.set(f.platform, [...(byPlatform.get(f.platform) ?? []), f]);
  for (const [platform, list] of byPlatform) {
    // oldest first: a newer file's record of a title replaces the older one
    list.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    const byTitle = new Map<string, Record<string, string>>();
    const untitled: Array<Record<string, string>> = [];
    for (const f of list) {
      const rows = parseKbart(await readFile(f.path, 'utf8'));
      rowsOf.set(f.path, rows.length);
      for (const row of rows) {
        if (row.title_id) {
          byTitle.delete(row.title_id);
          byTitle.set(row.title_id, row);
        } else {
          untitled.push(row);
        }
      }
    }
    // Inserted oldest to newest: the highest id of a match is the newest record.
    db.transaction(() => {
      for (const row of [...untitled, ...byTitle.values()]) {
        const ids = KEYS.map((k) => (row[k] !== undefined ? normaliseId(k, row[k]) : null));
        insert.run(platform, ...ids, JSON.stringify(row));
        count++;
      }
    })();
  }
  for (const k of KEYS) db.exec(`CREATE INDEX title_${k} ON title (platform, ${k}) WHERE ${k} IS NOT NULL`);
  // the packages are kept with the titles, so that a reused build needs no file read
  const packages = latestPackages(files, (path) => rowsOf.get(path) ?? 0);
  db.exec('CREATE TABLE package (platform TEXT NOT NULL, name TEXT NOT NULL, date TEXT NOT NULL, entries INTEGER NOT NULL)');
  const insertPackage = db.prepare('INSERT INTO package (platform, name, date, entries) VALUES (?, ?, ?, ?)');
  db.transaction(() => {
    for (const [platform, list] of Object.entries(packages)) for (const p of list) insertPackage.run(platform, p.name, p.date, p.entries);
  })();
  db.close();
  await rename(tmp, file);
  return { titles: count, packages };
}

/** Bounded cache of lookups: a log asks for the same few titles again and again. */
const CACHE_LIMIT = 2000;

/** Read-only lookups in the built file (one per worker). */
export class PkbReader {
  readonly platforms: ReadonlySet<string>;
  private readonly db?: Database.Database;
  private readonly queries: Record<(typeof KEYS)[number], Database.Statement<[string, string]>> | undefined;
  private readonly cache = new Map<string, Record<string, string> | null>();

  constructor(data: PkbData) {
    this.platforms = new Set(data.platforms);
    if (!data.file) return;
    this.db = new Database(data.file, { readonly: true, fileMustExist: true });
    // the titles are read from the OS page cache, shared by all workers; keep each connection's own cache small
    this.db.pragma('cache_size = -1024');
    const q = (k: string) => this.db!.prepare<[string, string]>(`SELECT record FROM title WHERE platform = ? AND ${k} = ? ORDER BY id DESC LIMIT 1`).pluck();
    this.queries = { title_id: q('title_id'), print_identifier: q('print_identifier'), online_identifier: q('online_identifier'), doi: q('doi') };
  }

  has(platform: string): boolean {
    return this.platforms.has(platform);
  }

  /**
   * The record of a title: by title_id, then print_identifier, then online_identifier (each also
   * against the other identifier column: a print ISSN is sometimes filed as the online one), then doi.
   */
  find(platform: string, ids: Partial<Record<(typeof KEYS)[number], string>>): Record<string, string> | undefined {
    const cacheKey = `${platform}\0${ids.title_id ?? ''}\0${ids.print_identifier ?? ''}\0${ids.online_identifier ?? ''}\0${ids.doi ?? ''}`;
    const cached = this.cache.get(cacheKey);
    if (cached !== undefined) return cached ?? undefined;
    const found = this.lookup(platform, ids);
    if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
    this.cache.set(cacheKey, found ?? null);
    return found;
  }

  private lookup(platform: string, ids: Partial<Record<(typeof KEYS)[number], string>>): Record<string, string> | undefined {
    const q = this.queries;
    if (!q) return undefined;
    const tries: Array<[(typeof KEYS)[number], string | undefined]> = [
      ['title_id', ids.title_id],
      ['print_identifier', ids.print_identifier],
      ['online_identifier', ids.print_identifier],
      ['online_identifier', ids.online_identifier],
      ['print_identifier', ids.online_identifier],
      ['doi', ids.doi],
    ];
    for (const [column, value] of tries) {
      if (!value) continue;
      const record = q[column].get(platform, normaliseId(column, value)) as string | undefined;
      if (record !== undefined) return JSON.parse(record) as Record<string, string>;
    }
    return undefined;
  }

  close(): void {
    this.db?.close();
  }
}
