import { createHash } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { writeFileAside } from '../write-aside.js';

/** Another version of the parser may read a file otherwise: its entries are not used. */
const PARSER = `yaml ${(createRequire(import.meta.url)('yaml/package.json') as { version: string }).version}`;
const FILE = 'parsed-rules.json';

/** An entry is dropped once it has not been used for this many days (a rules file changed or gone). */
export const KEEP_DAYS = 30;
const DAY_MS = 86_400_000;

interface Entry {
  /** the rules file as parsed, as JSON */
  readonly json: string;
  /** the day (since 1970) of its last use */
  readonly day: number;
}

interface CacheFile {
  readonly parser: string;
  /** by the SHA-1 of the rules file's text */
  readonly entries: Record<string, Entry>;
}

/**
 * The platforms' rules files (YAML) as parsed by an earlier read, by the digest of their text,
 * kept as JSON in one file of the platforms' cache folder. Parsing the YAML of 650 platforms took
 * 0.6 to 1.5 s of CPU at each start of the service (the parser's code not yet optimised then);
 * reading the same rules as JSON takes about 12 ms. What JSON would not give back the same (an
 * infinite or negative zero number, a value that is not a plain object, array or scalar) is not
 * kept. Several sets of platforms may share the folder (a service's, an update's check, tests'),
 * so an entry goes only once unused for KEEP_DAYS. The cache is only a shortcut: a file that
 * cannot be read or written is parsed as before.
 */
export class ParsedRulesCache {
  /** keys of the entries this read used */
  private readonly used = new Set<string>();
  /** entries this read parsed */
  private readonly added = new Map<string, string>();
  private readonly today: number;

  private constructor(private readonly file: string, private readonly known: ReadonlyMap<string, Entry>, now: number) {
    this.today = Math.floor(now / DAY_MS);
  }

  /** `now`: the clock (ms), for tests */
  static async open(cacheDir: string, now = Date.now()): Promise<ParsedRulesCache> {
    const file = join(cacheDir, FILE);
    const known = new Map<string, Entry>();
    try {
      const data = JSON.parse(await readFile(file, 'utf8')) as Partial<CacheFile> | null;
      if (data?.parser === PARSER && data.entries && typeof data.entries === 'object') {
        for (const [key, e] of Object.entries(data.entries)) {
          if (typeof e?.json === 'string' && Number.isInteger(e.day)) known.set(key, { json: e.json, day: e.day });
        }
      }
    } catch {
      // none yet, or damaged: every file is parsed, and the cache written anew
    }
    return new ParsedRulesCache(file, known, now);
  }

  /** A rules file's content, as parseRulesYaml gives it; throws as the parser does. */
  parse(text: string): unknown {
    const key = createHash('sha1').update(text).digest('hex');
    const json = this.known.get(key)?.json ?? this.added.get(key);
    if (json !== undefined) {
      this.used.add(key);
      return JSON.parse(json);
    }
    const value = parseRulesYaml(text);
    const kept = sameAsJson(value);
    if (kept !== undefined) this.added.set(key, kept);
    return value;
  }

  /**
   * Writes the cache when this read changed it: entries added, used for the first time today, or
   * unused for more than KEEP_DAYS (dropped).
   */
  async save(): Promise<void> {
    const entries: Record<string, Entry> = {};
    let changed = this.added.size > 0;
    for (const [key, e] of this.known) {
      if (this.used.has(key)) {
        entries[key] = e.day === this.today ? e : { json: e.json, day: this.today };
        changed ||= e.day !== this.today;
      } else if (this.today - e.day <= KEEP_DAYS) {
        entries[key] = e;
      } else {
        changed = true;
      }
    }
    if (!changed) return;
    for (const [key, json] of this.added) entries[key] = { json, day: this.today };
    try {
      await mkdir(dirname(this.file), { recursive: true });
      // several processes may read platforms at once
      await writeFileAside(this.file, JSON.stringify({ parser: PARSER, entries } satisfies CacheFile));
    } catch {
      // a read-only folder, a full disk: the next start parses the YAML again
    }
  }
}

/** A rules file's content as YAML (merge keys allowed). */
export function parseRulesYaml(text: string): unknown {
  return parseYaml(text, { merge: true });
}

const NOT_JSON = new Error('not kept as JSON');

/** `value` as JSON, when JSON.parse would give back an equal value; otherwise undefined. */
function sameAsJson(value: unknown): string | undefined {
  try {
    return JSON.stringify(value, function check(this: Record<string, unknown>, key: string, v: unknown) {
      // the holder's own value: JSON.stringify has already applied a toJSON (a Date's) to `v`
      const raw = this[key];
      if (typeof raw === 'number' && (!Number.isFinite(raw) || Object.is(raw, -0))) throw NOT_JSON;
      if (raw === undefined || typeof raw === 'function' || typeof raw === 'symbol' || typeof raw === 'bigint') throw NOT_JSON;
      if (typeof raw === 'object' && raw !== null && !Array.isArray(raw) && Object.getPrototypeOf(raw) !== Object.prototype) throw NOT_JSON;
      return v;
    });
  } catch {
    return undefined;
  }
}
