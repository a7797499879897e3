import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';

/** Another version of the parser may read a file otherwise: its entries are not used. */
const PARSER = `yaml ${(createRequire(import.meta.url)('yaml/package.json') as { version: string }).version}`;
const FILE = 'parsed-rules.json';

interface CacheFile {
  readonly parser: string;
  /** the JSON of each rules file as parsed, by the SHA-1 of its text */
  readonly entries: Record<string, string>;
}

/**
 * The platforms' rules files (YAML) as parsed by an earlier read, by the digest of their text,
 * kept as JSON in one file of the platforms' cache folder. Parsing the YAML of 650 platforms took
 * 0.6 to 1.5 s of CPU at each start of the service (the parser's code not yet optimised then);
 * reading the same rules as JSON takes about 12 ms. What JSON would not give back the same (an
 * infinite or negative zero number, a value that is not a plain object, array or scalar) is not
 * kept. The cache is only a shortcut: a file that cannot be read or written is parsed as before.
 */
export class ParsedRulesCache {
  /** the entries this read used or added, by key */
  private readonly used = new Map<string, string>();
  private added = 0;

  private constructor(private readonly file: string, private readonly known: ReadonlyMap<string, string>) {}

  static async open(cacheDir: string): Promise<ParsedRulesCache> {
    const file = join(cacheDir, FILE);
    const known = new Map<string, string>();
    try {
      const data = JSON.parse(await readFile(file, 'utf8')) as Partial<CacheFile> | null;
      if (data?.parser === PARSER && data.entries && typeof data.entries === 'object') {
        for (const [key, json] of Object.entries(data.entries)) if (typeof json === 'string') known.set(key, json);
      }
    } catch {
      // none yet, or damaged: every file is parsed, and the cache written anew
    }
    return new ParsedRulesCache(file, known);
  }

  /** A rules file's content, as parseRulesYaml gives it; throws as the parser does. */
  parse(text: string): unknown {
    const key = createHash('sha1').update(text).digest('hex');
    const json = this.used.get(key) ?? this.known.get(key);
    if (json !== undefined) {
      this.used.set(key, json);
      return JSON.parse(json);
    }
    const value = parseRulesYaml(text);
    const kept = sameAsJson(value);
    if (kept !== undefined) {
      this.used.set(key, kept);
      this.added++;
    }
    return value;
  }

  /**
   * Writes the cache when this read changed it. `complete`: every platform was read, so that the
   * entries it did not use belong to files that changed or went, and are dropped; after a partial
   * read (some platforms only) they are kept.
   */
  async save(complete: boolean): Promise<void> {
    const dropped = complete ? [...this.known.keys()].filter((k) => !this.used.has(k)).length : 0;
    if (this.added === 0 && dropped === 0) return;
    const entries: Record<string, string> = complete ? {} : Object.fromEntries(this.known);
    for (const [key, json] of this.used) entries[key] = json;
    const tmp = `${this.file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      await mkdir(join(this.file, '..'), { recursive: true });
      // written aside then renamed: several processes may read platforms at once
      await writeFile(tmp, JSON.stringify({ parser: PARSER, entries } satisfies CacheFile));
      await rename(tmp, this.file);
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
