import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import iconv from 'iconv-lite';
import { isUtf8 } from 'node:buffer';
import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { Readable } from 'node:stream';
import { isAlive } from '../lock-file.js';

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

const DATED = /_(\d{4}-\d{2}-\d{2})\.txt$/i;
const PACKAGE = /^(.+)_(\d{4}-\d{2}-\d{2})\.txt$/i;

/** Bumped when the file's tables or how cells are read change, so that an older build is not reused. */
const SCHEMA = 'pkb-5';

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

/** What the log says about a file or folder of the bases: skipped, or used but suspicious. */
export interface PkbNotice {
  readonly what: string;
  readonly message: string;
}

export type Notify = (notice: PkbNotice) => void;

const TXT = /\.txt$/i;

async function kbartFiles(platform: string, dir: string, notify: Notify): Promise<KbartFile[]> {
  const out: KbartFile[] = [];
  for (const name of await listDir(dir)) {
    if (name.startsWith('.')) continue;
    const path = join(dir, name);
    const s = await stat(path);
    if (!s.isFile()) continue;
    if (!TXT.test(name)) {
      notify({ what: `knowledge-base file ${path}`, message: 'skipped: not a .txt file' });
      continue;
    }
    out.push({ platform, path, date: DATED.exec(name)?.[1] ?? '', size: s.size, mtime: s.mtimeMs });
  }
  return out;
}

/**
 * The KBART files: `<platformsDir>/<name>/pkb/*.txt`, then `<extra>/<name>/*.txt` for each extra
 * folder (the layout of the community's knowledge-base collections). With `platforms`, a folder
 * named for none of them is said once (a misspelt folder would otherwise go unnoticed).
 */
export async function findKbartFiles(
  platformsDir: string,
  extraDirs: readonly string[],
  notify: Notify = () => {},
  platforms?: ReadonlySet<string>,
): Promise<KbartFile[]> {
  const files: KbartFile[] = [];
  const add = async (name: string, dir: string) => {
    const found = await kbartFiles(name, dir, notify);
    if (found.length === 0) return;
    if (platforms && !platforms.has(name)) {
      notify({ what: `knowledge-base folder ${dir}`, message: `no platform is named ${name}: no event will use its ${found.length} file${found.length === 1 ? '' : 's'} (read all the same, for a platform an update may add)` });
    }
    files.push(...found);
  };
  for (const name of await listDir(platformsDir)) await add(name, join(platformsDir, name, 'pkb'));
  for (const extra of extraDirs) {
    for (const name of await listDir(extra)) await add(name, join(extra, name));
  }
  return files;
}

/** An ISSN (8 characters) or an ISBN (10 or 13) once its hyphens and spaces are out. */
const ISSN_OR_ISBN = /^(?:\d{7}[\dX]|\d{9}[\dX]|97[89]\d{10})$/;

/**
 * Identifiers compare without surrounding spaces. title_id, the publisher's own code, compares
 * as it is (the reference matches it exactly); the others without case (ISSN check digit X,
 * DOIs), and an ISSN or ISBN without its hyphens: platforms give `09628436` where the
 * KBART file has `0962-8436`, or `9781446270288` where another has `978-1-4462-7028-8`.
 */
export function normaliseId(field: string, value: string): string {
  const v = value.trim();
  if (field === 'title_id') return v;
  const u = v.toUpperCase();
  if (field !== 'print_identifier' && field !== 'online_identifier') return u;
  const compact = u.replace(/[-\s]/g, '');
  return ISSN_OR_ISBN.test(compact) ? compact : u;
}

/** Header cells: trimmed and lower-cased (KBART names are lower case; some tools write them upper). */
export function parseKbartHeader(line: string): string[] {
  return line.replace(/^\uFEFF/, '').split('\t').map((h) => h.trim().toLowerCase());
}

/** One row under its header, empty cells left out. */
export function parseKbartRow(header: readonly string[], line: string): Record<string, string> {
  const cells = line.split('\t');
  const row: Record<string, string> = {};
  for (let c = 0; c < header.length && c < cells.length; c++) {
    const v = unquoteCell(cells[c].trim());
    if (header[c] && v !== '') row[header[c]] = v;
  }
  return row;
}

/**
 * A cell as a spreadsheet saves it in "text (tab-separated)": one holding a quote mark is
 * written between quotes, its quotes doubled (`"Le ""tiers"" : …"`). Such a cell is read back
 * as the value it holds; a quote inside an unquoted cell is the value's own.
 */
export function unquoteCell(v: string): string {
  if (v.length < 2 || v[0] !== '"' || v[v.length - 1] !== '"') return v;
  return v.slice(1, -1).replaceAll('""', '"').trim();
}

/** Rows of one KBART text: header row, tab-separated, empty cells left out. */
export function parseKbart(text: string): Array<Record<string, string>> {
  const lines = text.split(/\r?\n/);
  const header = parseKbartHeader(lines[0] ?? '');
  const rows: Array<Record<string, string>> = [];
  for (let i = 1; i < lines.length; i++) if (lines[i].trim() !== '') rows.push(parseKbartRow(header, lines[i]));
  return rows;
}

export type KbartEncoding = 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1252';

/**
 * How a KBART file is decoded: UTF-16 by its BOM (Excel's "Unicode text"; also without BOM when
 * its first character is ASCII), UTF-8 with or without BOM when it is valid UTF-8 throughout,
 * else Windows-1252 (a superset of Latin-1's printable characters: Excel's "Text" on Windows).
 * The UTF-8 check reads the whole file once, in chunks (about 0.6 s for 440 MB).
 */
export async function kbartEncoding(path: string): Promise<KbartEncoding> {
  const head = Buffer.alloc(2);
  const fd = await open(path, 'r');
  let n: number;
  try {
    ({ bytesRead: n } = await fd.read(head, 0, 2, 0));
  } finally {
    await fd.close();
  }
  if (n === 2) {
    if ((head[0] === 0xff && head[1] === 0xfe) || (head[0] !== 0 && head[1] === 0)) return 'utf-16le';
    if ((head[0] === 0xfe && head[1] === 0xff) || (head[0] === 0 && head[1] !== 0)) return 'utf-16be';
  }
  let carry = Buffer.alloc(0);
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) {
    const buf = carry.length ? Buffer.concat([carry, chunk as Buffer]) : (chunk as Buffer);
    const cut = completeUtf8(buf);
    if (!isUtf8(buf.subarray(0, cut))) return 'windows-1252';
    carry = Buffer.from(buf.subarray(cut));
  }
  return carry.length === 0 ? 'utf-8' : 'windows-1252';
}

/** Where the last whole UTF-8 sequence of `buf` ends (a chunk may end inside a character). */
function completeUtf8(buf: Buffer): number {
  for (let i = buf.length - 1; i >= 0 && i >= buf.length - 4; i--) {
    const b = buf[i];
    if (b < 0x80) return buf.length;
    if (b >= 0xc0) return i + (b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2) > buf.length ? i : buf.length;
  }
  return buf.length;
}

/**
 * Calls `each` on every line of a file (line ends `\n` or `\r\n`, BOM dropped), chunk by chunk:
 * nothing but the current chunk is held.
 */
export async function eachLine(path: string, encoding: KbartEncoding, each: (line: string) => void): Promise<void> {
  const raw = createReadStream(path, { highWaterMark: 1 << 16 });
  let text: Readable = raw;
  if (encoding === 'utf-8') raw.setEncoding('utf8');
  else {
    text = raw.pipe(iconv.decodeStream(encoding)) as unknown as Readable;
    raw.on('error', (err) => text.destroy(err));
  }
  let rest = '';
  let first = true;
  try {
    for await (const chunk of text as AsyncIterable<string>) {
      let s = rest + chunk;
      if (first) {
        if (s.charCodeAt(0) === 0xfeff) s = s.slice(1);
        first = false;
      }
      let start = 0;
      let end: number;
      while ((end = s.indexOf('\n', start)) >= 0) {
        const line = s.charCodeAt(end - 1) === 13 && end > start ? s.slice(start, end - 1) : s.slice(start, end);
        start = end + 1;
        each(line);
      }
      rest = s.slice(start);
    }
    if (rest !== '') each(rest.endsWith('\r') ? rest.slice(0, -1) : rest);
  } finally {
    raw.destroy();
    text.destroy();
  }
}

/**
 * Builds (or reuses) the SQLite file of the bases found in the folders. Called at start and again
 * by a reload; an older build is removed once a new one is in place, and so are the temporary
 * files of builds whose process ended before finishing. What is wrong with a file (skipped, or
 * suspicious) is told to `notify`, at each call (a reused build keeps what its build found).
 */
export async function buildPkb(
  platformsDir: string,
  extraDirs: readonly string[],
  cacheDir: string,
  options: { readonly notify?: Notify; readonly platforms?: ReadonlySet<string> } = {},
): Promise<PkbData> {
  const notify = options.notify ?? (() => {});
  const files = await findKbartFiles(platformsDir, extraDirs, notify, options.platforms);
  if (files.length === 0) {
    await removeOldBuilds(cacheDir);
    return { platforms: [], titles: 0, files: 0, packages: {} };
  }
  const digest = createHash('sha1').update(`${SCHEMA}\n`);
  for (const f of files) digest.update(`${f.platform}\0${f.path}\0${f.size}\0${f.mtime}\n`);
  const name = `pkb-${digest.digest('hex').slice(0, 16)}.sqlite`;
  const file = join(cacheDir, name);
  await mkdir(cacheDir, { recursive: true });
  let built: Built;
  try {
    await stat(file);
    built = readBuilt(file);
  } catch {
    built = await writePkb(file, files);
  }
  for (const n of built.notices) notify(n);
  await removeOldBuilds(cacheDir, name);
  return { file, platforms: built.platforms, titles: built.titles, files: built.files, packages: built.packages };
}

/** A build's temporary file: `<build>.<pid of the process writing it>.tmp`. */
const TEMP = /^pkb-[0-9a-f]+\.sqlite\.(\d+)\.tmp$/;

/**
 * Removes the builds other than `keep`, and the temporary files of builds that will never end:
 * their process no longer runs, or it had this process's id (a container's service often gets
 * the same one at each start) and the file is older than this process.
 */
async function removeOldBuilds(cacheDir: string, keep?: string): Promise<void> {
  const started = Date.now() - process.uptime() * 1000;
  for (const old of await listDir(cacheDir)) {
    const path = join(cacheDir, old);
    if (old.startsWith('pkb-') && old.endsWith('.sqlite')) {
      if (old !== keep) await rm(path, { force: true });
      continue;
    }
    const pid = Number(TEMP.exec(old)?.[1] ?? 0);
    if (pid === 0) continue;
    const stale = pid === process.pid ? ((await stat(path).catch(() => undefined))?.mtimeMs ?? Infinity) < started : !isAlive(pid);
    if (stale) await rm(path, { force: true });
  }
}

interface Built {
  readonly platforms: string[];
  readonly titles: number;
  /** the files that gave titles */
  readonly files: number;
  readonly packages: Record<string, PkbPackage[]>;
  readonly notices: PkbNotice[];
}

/** What a reused build holds (not read from the KBART files again). */
function readBuilt(file: string): Built {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const bases = db.prepare('SELECT platform, titles, files FROM base ORDER BY platform').all() as Array<{ platform: string; titles: number; files: number }>;
    const packages: Record<string, PkbPackage[]> = {};
    const rows = db.prepare('SELECT platform, name, date, entries FROM package ORDER BY platform, rowid').all() as Array<PkbPackage & { platform: string }>;
    for (const { platform, name, date, entries } of rows) (packages[platform] ??= []).push({ name, date, entries });
    const notices = db.prepare('SELECT what, message FROM notice ORDER BY rowid').all() as PkbNotice[];
    return {
      platforms: bases.map((b) => b.platform),
      titles: bases.reduce((n, b) => n + b.titles, 0),
      files: bases.reduce((n, b) => n + b.files, 0),
      packages,
      notices,
    };
  } finally {
    db.close();
  }
}

/** Rows inserted per transaction: memory stays flat whatever the size of a file. */
const BATCH = 10_000;

const KEY_LIST = 'title_id, print_identifier, online_identifier or doi';

/**
 * Writes the bases into a new SQLite file, streaming: each file is read line by line and its rows
 * inserted as they come. "A newer file's record of a title_id wins" is the database's doing: a
 * unique key on (platform, title_id) and INSERT OR REPLACE, files in date order.
 */
async function writePkb(file: string, files: readonly KbartFile[]): Promise<Built> {
  const tmp = `${file}.${process.pid}.tmp`;
  await rm(tmp, { force: true });
  const db = new Database(tmp);
  try {
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    // room for the title_id key's pages while rows come in random order (bounded, not per row)
    db.pragma('cache_size = -32768');
    db.exec(`CREATE TABLE title (
      id INTEGER PRIMARY KEY,
      platform TEXT NOT NULL,
      title_id TEXT, print_identifier TEXT, online_identifier TEXT, doi TEXT,
      record TEXT NOT NULL)`);
    db.exec('CREATE UNIQUE INDEX title_key ON title (platform, title_id)');
    const insert = db.prepare('INSERT OR REPLACE INTO title (platform, title_id, print_identifier, online_identifier, doi, record) VALUES (?, ?, ?, ?, ?, ?)');
    const notices: PkbNotice[] = [];
    const rowsOf = new Map<string, number>();
    const used: KbartFile[] = [];
    const filesOf = new Map<string, number>();
    const byPlatform = new Map<string, KbartFile[]>();
    for (const f of files) byPlatform.set(f.platform, [...(byPlatform.get(f.platform) ?? []), f]);
    let pending = 0;
    db.exec('BEGIN');
    for (const [platform, list] of byPlatform) {
      // oldest first: a newer file's record of a title replaces the older one
      list.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
      for (const f of list) {
        const note = (message: string) => notices.push({ what: `knowledge-base file ${f.path}`, message });
        let encoding: KbartEncoding;
        let header: string[] | undefined;
        let keyAt: number[] = [];
        let rows = 0;
        let kept = 0;
        try {
          encoding = await kbartEncoding(f.path);
          if (encoding === 'windows-1252') note('not valid UTF-8: read as Windows-1252 (Latin-1); save it as UTF-8 to be sure of its accents');
          await eachLine(f.path, encoding, (line) => {
            if (header === undefined) {
              if (line.trim() === '') return;
              header = parseKbartHeader(line);
              keyAt = KEYS.map((k) => header!.indexOf(k));
              return;
            }
            if (line.trim() === '') return;
            rows++;
            // no identifier column: no row could be found, the rows are only counted
            if (keyAt.every((i) => i < 0)) return;
            const row = parseKbartRow(header, line);
            const ids = KEYS.map((k) => (row[k] !== undefined ? normaliseId(k, row[k]) : null));
            if (ids.every((id) => id === null)) return;
            insert.run(platform, ...ids, JSON.stringify(row));
            kept++;
            if (++pending >= BATCH) {
              db.exec('COMMIT');
              db.exec('BEGIN');
              pending = 0;
            }
          });
        } catch (err) {
          if (err instanceof Database.SqliteError) throw err;
          note(`skipped: not read (${(err as Error).message})${kept > 0 ? `; ${kept} rows read before are kept` : ''}`);
          continue;
        }
        if (header === undefined) note('skipped: empty');
        else if (!keyAt.some((i) => i >= 0)) {
          note(header.length === 1
            ? `skipped: not tab-separated (header: ${JSON.stringify(header.join('\t').slice(0, 80))})`
            : `skipped: no ${KEY_LIST} column (header: ${JSON.stringify(header.join('\t').slice(0, 80))})`);
        } else if (rows === 0) note('skipped: no rows (header only)');
        else if (kept === 0) note(`skipped: no row has a ${KEY_LIST}`);
        else {
          if (keyAt[0] < 0) note('no title_id column: its titles are found by their other identifiers only');
          if (kept < rows) note(`${rows - kept} of ${rows} rows have no ${KEY_LIST} and are left out`);
        }
        // the packages list every file, a skipped one too (its entries tell what it lacks)
        rowsOf.set(f.path, rows);
        if (kept === 0) continue;
        used.push(f);
        filesOf.set(platform, (filesOf.get(platform) ?? 0) + 1);
      }
    }
    db.exec('COMMIT');
    for (const k of KEYS) if (k !== 'title_id') db.exec(`CREATE INDEX title_${k} ON title (platform, ${k}) WHERE ${k} IS NOT NULL`);
    // the bases, packages and notices are kept with the titles, so that a reused build needs no file read
    const bases = db.prepare('SELECT platform, count(*) AS titles FROM title GROUP BY platform ORDER BY platform').all() as Array<{ platform: string; titles: number }>;
    db.exec('CREATE TABLE base (platform TEXT NOT NULL, titles INTEGER NOT NULL, files INTEGER NOT NULL)');
    db.exec('CREATE TABLE notice (what TEXT NOT NULL, message TEXT NOT NULL)');
    const packages = latestPackages(files, (path) => rowsOf.get(path) ?? 0);
    db.exec('CREATE TABLE package (platform TEXT NOT NULL, name TEXT NOT NULL, date TEXT NOT NULL, entries INTEGER NOT NULL)');
    const insertBase = db.prepare('INSERT INTO base (platform, titles, files) VALUES (?, ?, ?)');
    const insertNotice = db.prepare('INSERT INTO notice (what, message) VALUES (?, ?)');
    const insertPackage = db.prepare('INSERT INTO package (platform, name, date, entries) VALUES (?, ?, ?, ?)');
    db.transaction(() => {
      for (const b of bases) insertBase.run(b.platform, b.titles, filesOf.get(b.platform) ?? 0);
      for (const n of notices) insertNotice.run(n.what, n.message);
      for (const [platform, list] of Object.entries(packages)) for (const p of list) insertPackage.run(platform, p.name, p.date, p.entries);
    })();
    db.close();
    await rename(tmp, file);
    return {
      platforms: bases.map((b) => b.platform),
      titles: bases.reduce((n, b) => n + b.titles, 0),
      files: used.length,
      packages,
      notices,
    };
  } catch (err) {
    if (db.open) db.close();
    await rm(tmp, { force: true });
    throw err;
  }
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
