import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { urlView } from './url-view.js';
import { readPlatformSources, type CompiledPlatform } from './loader.js';
import { compilePlatformSet, type PlatformSet } from './platform-set.js';
import {
  checkRouting, formatMisroute, judgeRouting, readRoutingExceptions, type RoutingSummary, type RoutingVerdict,
} from './routing-check.js';
import type { Fields } from './rules/types.js';

/**
 * One test row of a platform: input event fields (`in-*` columns) and the fields the platform
 * must produce (`out-*` columns). An empty cell means the field must be absent; a row without
 * any `out-*` value expects no match.
 */
export interface ConformanceRow {
  readonly platform: string;
  readonly file: string;
  /** 1-based line of the row in its file (the header is line 1) */
  readonly line: number;
  readonly input: Record<string, string>;
  readonly expected: Fields;
}

export interface RowResult {
  readonly row: ConformanceRow;
  readonly ok: boolean;
  readonly actual?: Fields;
  readonly differences: string[];
}

/**
 * Splits `;`-separated text into records, each with the line it starts on. Fields may be quoted
 * (`"a;b"`, `""` for a quote, line breaks inside); CRLF and LF line ends.
 */
export function splitCsv(text: string): Array<{ line: number; cells: string[] }> {
  const records: Array<{ line: number; cells: string[] }> = [];
  let cells: string[] = [];
  let cell = '';
  let line = 1;
  let start = 1;
  let i = 0;
  let quoted = false;
  const endRecord = () => {
    cells.push(cell);
    records.push({ line: start, cells });
    cells = [];
    cell = '';
  };
  while (i < text.length) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') { cell += '"'; i += 2; continue; }
        quoted = false;
      } else {
        if (ch === '\n') line++;
        cell += ch;
      }
      i++;
      continue;
    }
    if (ch === '"' && cell === '') { quoted = true; i++; continue; }
    if (ch === ';') { cells.push(cell); cell = ''; i++; continue; }
    if (ch === '\r' && text[i + 1] === '\n') { i++; continue; }
    if (ch === '\n') {
      endRecord();
      line++;
      start = line;
      i++;
      continue;
    }
    cell += ch;
    i++;
  }
  if (cell !== '' || cells.length > 0) endRecord();
  return records;
}

/**
 * Reads the text of one test CSV: the first non-blank record is the header (names trimmed, a BOM
 * removed; of a repeated column only the last is read, as the shared files expect); blank lines
 * are skipped; fields beyond the header are ignored. An empty cell means "absent".
 */
export function parseConformanceCsv(text: string, platform: string, displayName: string): ConformanceRow[] {
  const records = splitCsv(text.replace(/^\uFEFF/, ''));
  const blank = (cells: string[]) => cells.every((c) => c.trim() === '');
  const headerAt = records.findIndex((r) => !blank(r.cells));
  if (headerAt < 0) return [];
  const names = records[headerAt].cells.map((h) => h.trim());
  const columns = names.map((h, i) => (names.indexOf(h, i + 1) < 0 ? h : undefined));
  const rows: ConformanceRow[] = [];
  for (const { line, cells } of records.slice(headerAt + 1)) {
    if (blank(cells)) continue;
    const input: Record<string, string> = {};
    const expected: Fields = {};
    columns.forEach((key, i) => {
      const value = cells[i];
      if (key === undefined || value === undefined || value === '') return;
      if (key.startsWith('in-')) input[key.slice(3)] = value;
      else if (key.startsWith('out-')) expected[key.slice(4)] = value;
    });
    rows.push({ platform, file: displayName, line, input, expected });
  }
  return rows;
}

/** Reads one test CSV file (see parseConformanceCsv). */
export async function readConformanceCsv(file: string, platform: string, displayName = file): Promise<ConformanceRow[]> {
  return parseConformanceCsv(await readFile(file, 'utf8'), platform, displayName);
}

/** Every test CSV under `dir`, laid out as `dir/<platform>/test/*.csv`, optionally for some platforms only. */
export async function readConformanceTree(dir: string, only?: ReadonlySet<string>): Promise<ConformanceRow[]> {
  const rows: ConformanceRow[] = [];
  const platforms = (await readdir(dir, { withFileTypes: true }))
    .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
    .map((e) => e.name)
    .sort();
  for (const platform of platforms) {
    if (only && !only.has(platform)) continue;
    const testDir = join(dir, platform, 'test');
    try {
      if (!(await stat(testDir)).isDirectory()) continue;
    } catch {
      continue;
    }
    for (const file of (await readdir(testDir)).sort()) {
      if (!file.endsWith('.csv')) continue;
      const path = join(testDir, file);
      rows.push(...(await readConformanceCsv(path, platform, relative(dir, path))));
    }
  }
  return rows;
}

/** Compares what a platform produced with what a row expects (as strings; extra fields fail). */
export function compareFields(expected: Fields, actual: Fields | undefined): string[] {
  const got = actual ?? {};
  const diffs: string[] = [];
  for (const [k, v] of Object.entries(expected)) {
    if (!(k in got)) diffs.push(`${k}: expected ${JSON.stringify(v)}, missing`);
    else if (String(got[k]) !== v) diffs.push(`${k}: expected ${JSON.stringify(v)}, got ${JSON.stringify(String(got[k]))}`);
  }
  for (const [k, v] of Object.entries(got)) {
    if (!(k in expected)) diffs.push(`${k}: not expected, got ${JSON.stringify(String(v))}`);
  }
  return diffs;
}

/** Runs one row through its platform (by folder name, no domain routing, URL as given). */
export function runRow(row: ConformanceRow, platform: CompiledPlatform | undefined): RowResult {
  if (!platform) return { row, ok: false, differences: [`platform ${row.platform} is not loaded`] };
  const ec = { ...row.input };
  const actual = platform.match(ec, ec.url === undefined ? undefined : urlView(ec.url));
  const differences = compareFields(row.expected, actual);
  return { row, ok: differences.length === 0, actual, differences };
}

export function formatFailure(r: RowResult): string {
  const where = `${r.row.file}:${r.row.line}`;
  const lines = [`FAIL ${r.row.platform} ${where} ${r.row.input.url ?? JSON.stringify(r.row.input)}`];
  for (const d of r.differences) lines.push(`  ${d}`);
  return lines.join('\n');
}

export interface ConformanceOptions {
  /** folders of platforms to load, in order (the first of a name wins) */
  readonly platformsDirs: readonly string[];
  /** folder of `<platform>/test/*.csv` */
  readonly csvDir: string;
  readonly only?: ReadonlySet<string>;
  readonly cacheDir: string;
  /** also route every row by its host and check that its own platform wins */
  readonly routing?: boolean;
  readonly allowWildcards?: boolean;
}

export interface ConformanceReport {
  readonly set: PlatformSet;
  readonly shadowed: readonly string[];
  readonly rows: number;
  readonly passed: number;
  readonly failures: readonly RowResult[];
  readonly routing?: RoutingSummary & RoutingVerdict;
}

/**
 * Loads the platforms, runs every row on its own platform and, with `routing`, routes each row
 * by its host as the service would; a row fails when its fields differ or when it is routed to
 * another platform that routing-exceptions.yaml (in the first platforms folder) does not expect.
 */
export async function runConformance(opts: ConformanceOptions): Promise<ConformanceReport> {
  const { sources, problems, shadowed } = await readPlatformSources(opts.platformsDirs, opts.cacheDir, opts.only);
  const set = await compilePlatformSet(sources, 'local', problems);
  const rows = await readConformanceTree(opts.csvDir, opts.only);
  const failures: RowResult[] = [];
  let routing: (RoutingSummary & RoutingVerdict) | undefined;
  const misrouted = new Map<ConformanceRow, string>();
  if (opts.routing) {
    const summary = checkRouting(set, rows, opts.allowWildcards);
    const listed = await readRoutingExceptions(join(opts.platformsDirs[0], 'routing-exceptions.yaml'));
    // With some platforms only, an exception between others (or with a platform not loaded as
    // the winner) cannot happen: it is no news.
    const only = opts.only;
    const exceptions = only ? listed.filter((e) => only.has(e.platform) && only.has(e.winner)) : listed;
    routing = { ...summary, ...judgeRouting(summary, exceptions) };
    for (const r of routing.unexpected) misrouted.set(r.row, formatMisroute(r));
  }
  for (const row of rows) {
    const result = runRow(row, set.platforms.get(row.platform));
    const misroute = misrouted.get(row);
    if (misroute) failures.push({ ...result, ok: false, differences: [...result.differences, misroute] });
    else if (!result.ok) failures.push(result);
  }
  return { set, shadowed, rows: rows.length, passed: rows.length - failures.length, failures, routing };
}
