import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { parse as parseCsv } from 'fast-csv';
import { urlView } from './url-view.js';
import type { CompiledPlatform } from './loader.js';
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

function cleanHeader(h: string): string {
  return h.replace(/^\uFEFF/, '').trim();
}

/** Cleans header names; of a repeated column only the last is read (some shared files repeat columns). */
function uniqueHeaders(raw: Array<string | null | undefined>): Array<string | undefined> {
  const names = raw.map((h) => (typeof h === 'string' ? cleanHeader(h) : undefined));
  return names.map((h, i) => (h !== undefined && names.indexOf(h, i + 1) < 0 ? h : undefined));
}

/** Reads one test CSV (`;`-separated, header row, BOM tolerated, ragged rows tolerated). */
export function readConformanceCsv(file: string, platform: string, displayName = file): Promise<ConformanceRow[]> {
  return new Promise((resolve, reject) => {
    const rows: ConformanceRow[] = [];
    let line = 1;
    createReadStream(file)
      .pipe(parseCsv({ delimiter: ';', headers: uniqueHeaders, ignoreEmpty: true, discardUnmappedColumns: true }))
      .on('error', reject)
      .on('data', (record: Record<string, string | undefined>) => {
        line++;
        const input: Record<string, string> = {};
        const expected: Fields = {};
        for (const [key, raw] of Object.entries(record)) {
          const value = raw ?? '';
          if (value === '') continue;
          if (key.startsWith('in-')) input[key.slice(3)] = value;
          else if (key.startsWith('out-')) expected[key.slice(4)] = value;
        }
        rows.push({ platform, file: displayName, line, input, expected });
      })
      .on('end', () => resolve(rows));
  });
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
