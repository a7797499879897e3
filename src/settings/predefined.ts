import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { AUTO_FORMATS } from '../pipeline/formats/auto-detect.js';
import { isProxyFamily } from '../pipeline/formats/compile.js';
import { HEADER_NAME, type RequestHeaders } from '../pipeline/job-headers.js';

/** One predefined setting (reference routes 6.2): a named set of job headers. */
export interface PredefinedSetting {
  readonly fullName: string;
  /** ISO 3166 alpha-2 code or a free label (`Generic`) */
  readonly country: string;
  readonly headers: Readonly<Record<string, string>>;
}

export type PredefinedSettings = Readonly<Record<string, PredefinedSetting>>;

/** Where a setting comes from, lowest precedence first: an id defined again later replaces it. */
export type SettingSource = 'logsift' | 'resources' | 'local' | 'custom';

/** The custom settings (the database's, src/db/custom-settings.ts), as the store reads them. */
export interface CustomSettingsSource {
  /** changes whenever the list does */
  revision(): string;
  list(): ReadonlyArray<PredefinedSetting & { readonly id: string }>;
}

export interface SettingsProblem {
  readonly file: string;
  readonly message: string;
}

export const SETTING_ID = /^[a-z0-9][a-z0-9._-]{0,63}$/i;

/**
 * Headers a setting (or the configured defaults) may not give a job: they describe the request
 * itself or carry credentials.
 */
const NOT_FROM_SETTINGS: ReadonlySet<string> = new Set([
  'host', 'content-type', 'content-length', 'content-encoding', 'transfer-encoding', 'connection',
  'authorization', 'proxy-authorization', 'cookie', 'expect', 'te', 'trailer', 'upgrade',
  'ezpaarse-predefined-settings',
]);

const FORMAT_LABELS: Readonly<Record<string, string>> = { ezproxy: 'EZproxy', apache: 'Apache', squid: 'Squid', bibliopam: 'Bibliopam' };

const AUTO_NAMES = ['EZproxy standard', 'Apache common', 'Apache combined', 'Bibliopam standard', 'Squid native', 'Squid common'];
const AUTO_IDS = ['logsift-ezproxy-standard', 'logsift-apache-common', 'logsift-apache-combined', 'logsift-bibliopam-standard', 'logsift-squid-native', 'logsift-squid-common'];

/**
 * logsift's own set: one setting per standard format it recognises by itself (the auto-detected
 * formats), so that a person can pin a job to one of them. Bibliopam is written as its own family.
 */
export function builtinSettings(): Record<string, PredefinedSetting> {
  const out: Record<string, PredefinedSetting> = {};
  AUTO_FORMATS.forEach((f, i) => {
    const bibliopam = AUTO_IDS[i] === 'logsift-bibliopam-standard';
    out[AUTO_IDS[i]] = Object.freeze({
      fullName: `${AUTO_NAMES[i]} format`,
      country: 'Generic',
      headers: Object.freeze(bibliopam ? { 'Log-Format-bibliopam': 'standard' } : { [`Log-Format-${f.family}`]: f.literal }),
    });
  });
  return out;
}

/** A setting's headers, checked: an object of header name → one-line string (none: `{}`); a message when not. */
function checkHeaders(id: string, raw: unknown): Record<string, string> | string {
  const headers: Record<string, string> = {};
  if (raw === undefined) return headers;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return `${id}: headers must be an object`;
  for (const [name, value] of Object.entries(raw)) {
    if (!HEADER_NAME.test(name)) return `${id}: ${JSON.stringify(name)} is not a header name`;
    if (typeof value !== 'string' || /[\r\n\0]/.test(value)) return `${id}: the value of ${name} must be a one-line string`;
    headers[name] = value;
  }
  return headers;
}

const isObject = (raw: unknown): raw is Record<string, unknown> => typeof raw === 'object' && raw !== null && !Array.isArray(raw);

/** A setting read from a file, checked; a message when it cannot be used. */
function checkSetting(id: string, raw: unknown): PredefinedSetting | string {
  if (!SETTING_ID.test(id)) return `id ${JSON.stringify(id)}: letters, digits, . _ - (64 at most)`;
  if (!isObject(raw)) return `${id}: not an object`;
  const headers = checkHeaders(id, raw.headers);
  if (typeof headers === 'string') return headers;
  return Object.freeze({
    fullName: typeof raw.fullName === 'string' && raw.fullName.trim() ? raw.fullName.slice(0, 200) : id,
    country: typeof raw.country === 'string' ? raw.country.slice(0, 100) : '',
    headers: Object.freeze(headers),
  });
}

/**
 * A custom setting sent to the write routes (`settings` of their body), checked as a file's
 * setting is, but strictly: what a file may leave out or overrun (the name, an overlong country)
 * is refused rather than made up or cut, and so are headers a setting never gives a job.
 * Other fields (the reference's `_id`) are ignored. A message when it cannot be stored.
 */
export function checkCustomSetting(raw: unknown): (PredefinedSetting & { readonly id: string }) | string {
  if (!isObject(raw)) return 'settings must be an object { id, fullName, country, headers }';
  const { id, fullName, country } = raw;
  if (typeof id !== 'string' || !SETTING_ID.test(id)) return `id ${id === undefined ? 'is missing' : JSON.stringify(id)}: 1 to 64 letters, digits, . _ -, beginning with a letter or a digit`;
  if (typeof fullName !== 'string' || !fullName.trim() || fullName.trim().length > 200) return `${id}: fullName must be a text of 1 to 200 characters`;
  if (country !== undefined && (typeof country !== 'string' || country.length > 100)) return `${id}: country must be a text of 100 characters at most`;
  if (raw.headers === undefined) return `${id}: headers are missing (an object of header name → value)`;
  const headers = checkHeaders(id, raw.headers);
  if (typeof headers === 'string') return headers;
  const refused = Object.keys(headers).find((name) => NOT_FROM_SETTINGS.has(name.toLowerCase()));
  if (refused !== undefined) return `${id}: ${refused} cannot come from a predefined setting`;
  return Object.freeze({ id, fullName: fullName.trim(), country: (country as string | undefined)?.trim() ?? '', headers: Object.freeze(headers) });
}

export interface SettingsFiles {
  /** `predefined-settings.json` of the resources part (may be missing) */
  readonly resourcesFile: string;
  /** the institution's folder of `*.json` files (optional) */
  readonly localDir?: string;
}

interface FromFiles {
  readonly signature: string;
  readonly settings: Readonly<Record<string, PredefinedSetting>>;
  readonly sources: Readonly<Record<string, SettingSource>>;
  /** each id's file (logsift's own: `logsift`) */
  readonly origins: Readonly<Record<string, string>>;
  readonly problems: readonly SettingsProblem[];
}

interface Loaded {
  readonly signature: string;
  readonly revision: string;
  readonly fromFiles: FromFiles;
  readonly settings: PredefinedSettings;
  readonly sources: Readonly<Record<string, SettingSource>>;
  readonly problems: readonly SettingsProblem[];
}

/**
 * The predefined settings: logsift's own, then the resources part's `predefined-settings.json`,
 * then the institution's files (PREDEFINED_SETTINGS_DIR), then the custom settings of the
 * database, each replacing ids defined before it. Files are read again only when their
 * modification times change (an update of the resources part, a file dropped in the folder), the
 * custom settings only when their revision does (a write), so asking costs a few `stat` calls.
 */
export class PredefinedSettingsStore {
  private loaded: Loaded | undefined;
  private loading: Promise<Loaded> | undefined;
  /** each file's last content that read as JSON: a file broken since (a torn write) keeps it */
  private readonly lastGood = new Map<string, unknown>();

  constructor(
    private readonly files: SettingsFiles,
    private readonly onProblem: (p: SettingsProblem) => void = () => undefined,
    private readonly custom?: CustomSettingsSource,
  ) {}

  async all(): Promise<PredefinedSettings> {
    return (await this.current()).settings;
  }

  async sources(): Promise<Readonly<Record<string, SettingSource>>> {
    return (await this.current()).sources;
  }

  async problems(): Promise<readonly SettingsProblem[]> {
    return (await this.current()).problems;
  }

  async get(id: string): Promise<PredefinedSetting | undefined> {
    const settings = await this.all();
    return Object.hasOwn(settings, id) ? settings[id] : undefined;
  }

  /**
   * The id of a setting of the files (logsift's, the resources part's, the institution's) equal
   * to `id` whatever its case, with where it comes from; undefined when none: a custom setting
   * may not take such an id.
   */
  async fileSetting(id: string): Promise<{ id: string; source: SettingSource } | undefined> {
    const { sources } = (await this.current()).fromFiles;
    const lower = id.toLowerCase();
    const found = Object.keys(sources).find((k) => k.toLowerCase() === lower);
    return found === undefined ? undefined : { id: found, source: sources[found] };
  }

  private async listFiles(): Promise<Array<{ file: string; source: SettingSource; mtime: number }>> {
    const out: Array<{ file: string; source: SettingSource; mtime: number }> = [];
    const mtime = async (file: string) => (await stat(file).catch(() => undefined))?.mtimeMs;
    const resources = await mtime(this.files.resourcesFile);
    if (resources !== undefined) out.push({ file: this.files.resourcesFile, source: 'resources', mtime: resources });
    if (this.files.localDir) {
      const names = (await readdir(this.files.localDir).catch(() => [] as string[])).filter((n) => n.endsWith('.json') && !n.startsWith('.')).sort();
      for (const name of names) {
        const file = join(this.files.localDir, name);
        const m = await mtime(file);
        if (m !== undefined) out.push({ file, source: 'local', mtime: m });
      }
    }
    return out;
  }

  private async current(): Promise<Loaded> {
    // Concurrent callers share one check.
    this.loading ??= this.refresh().finally(() => { this.loading = undefined; });
    return this.loading;
  }

  private async refresh(): Promise<Loaded> {
    const files = await this.listFiles();
    const signature = JSON.stringify(files);
    const revision = this.custom?.revision() ?? '';
    if (this.loaded?.signature === signature && this.loaded.revision === revision) return this.loaded;
    const fromFiles = this.loaded?.signature === signature ? this.loaded.fromFiles : await this.readFiles(files, signature);
    const settings: Record<string, PredefinedSetting> = { ...fromFiles.settings };
    const sources: Record<string, SettingSource> = { ...fromFiles.sources };
    const problems: SettingsProblem[] = [...fromFiles.problems];
    for (const { id, fullName, country, headers } of this.custom?.list() ?? []) {
      // A file that gained the id of a custom setting after it was written: the custom one stays in force.
      if (Object.hasOwn(settings, id)) {
        const p = { file: fromFiles.origins[id], message: `${id}: replaced by the custom setting of the same id` };
        problems.push(p);
        this.onProblem(p);
      }
      settings[id] = Object.freeze({ fullName, country, headers });
      sources[id] = 'custom';
    }
    const sorted: Record<string, PredefinedSetting> = {};
    for (const id of Object.keys(settings).sort()) sorted[id] = settings[id];
    this.loaded = { signature, revision, fromFiles, settings: Object.freeze(sorted), sources: Object.freeze(sources), problems };
    return this.loaded;
  }

  private async readFiles(files: ReadonlyArray<{ file: string; source: SettingSource }>, signature: string): Promise<FromFiles> {
    const settings: Record<string, PredefinedSetting> = builtinSettings();
    const sources: Record<string, SettingSource> = {};
    const origins: Record<string, string> = {};
    for (const id of Object.keys(settings)) {
      sources[id] = 'logsift';
      origins[id] = 'logsift';
    }
    const problems: SettingsProblem[] = [];
    for (const { file, source } of files) {
      let data: unknown;
      let broken: string | undefined;
      try {
        data = JSON.parse(await readFile(file, 'utf8'));
        if (typeof data !== 'object' || data === null || Array.isArray(data)) broken = 'must hold an object of settings keyed by id';
      } catch (err) {
        broken = `cannot be read as JSON: ${(err as Error).message}`;
      }
      if (broken !== undefined) {
        const kept = this.lastGood.has(file);
        problems.push({ file, message: kept ? `${broken}; its last readable content is kept` : broken });
        if (!kept) continue;
        data = this.lastGood.get(file);
      } else {
        this.lastGood.set(file, data);
      }
      if (typeof data !== 'object' || data === null) continue;
      for (const [id, raw] of Object.entries(data)) {
        const setting = checkSetting(id, raw);
        if (typeof setting === 'string') {
          problems.push({ file, message: setting });
          continue;
        }
        settings[id] = setting;
        sources[id] = source;
        origins[id] = file;
      }
    }
    for (const p of problems) this.onProblem(p);
    return { signature, settings, sources, origins, problems };
  }
}

/** The 1.x view (`/info/form-predefined`): keyed `"<country> - <fullName>"`, the format as Log-Type and Log-Format. */
export function formPredefinedView(settings: PredefinedSettings): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  for (const s of Object.values(settings)) {
    const fields: Record<string, string> = {};
    for (const [name, value] of Object.entries(s.headers)) {
      const m = /^log-format-(.+)$/i.exec(name);
      const family = m?.[1].toLowerCase();
      if (family !== undefined && isProxyFamily(family)) {
        fields['Log-Type'] = FORMAT_LABELS[family];
        fields['Log-Format'] = value;
      } else {
        fields[name] = value;
      }
    }
    out[s.country ? `${s.country} - ${s.fullName}` : s.fullName] = fields;
  }
  return out;
}

function lowerCased(headers: Readonly<Record<string, string>>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [name, value] of Object.entries(headers)) {
    const n = name.toLowerCase();
    if (!NOT_FROM_SETTINGS.has(n)) out.set(n, value);
  }
  return out;
}

const isFormatHeader = (name: string) => name.startsWith('log-format-');

/** A header's value made of nothing but spaces (each value, for one sent several times). */
export function isEmptyHeader(value: string | string[] | undefined): boolean {
  return value !== undefined && (Array.isArray(value) ? value : [value]).every((v) => v.trim() === '');
}

/**
 * An `Accept` that asks for nothing in particular: curl, fetch and most HTTP libraries send
 * the any-type wildcard (or nothing) on every request, which would always hide a setting's output format.
 */
function acceptsAnything(value: string | string[] | undefined): boolean {
  if (value === undefined) return true;
  const any = typeof value === 'string' ? /^\s*\*\/\*\s*(?:;\s*q\s*=\s*([0-9.]+)\s*)?$/i.exec(value) : null;
  // `*/*;q=0` refuses everything: negotiation answers it with 4006
  return any !== null && (any[1] === undefined || Number(any[1]) > 0);
}

/**
 * The headers a job runs with: the request's, then those of its predefined setting it does not
 * carry, then the configured defaults neither gives. A log format counts as one header whatever
 * its family: a request naming a format is not given the setting's format of another family
 * (which would win, ezproxy being read first). An Accept of the any-type wildcard counts as none: the
 * setting's or the defaults' output format applies. So does a header whose value is empty.
 */
export function mergeJobHeaders(
  request: RequestHeaders,
  setting: Readonly<Record<string, string>> | undefined,
  defaults: Readonly<Record<string, string>>,
): Record<string, string | string[] | undefined> {
  const merged: Record<string, string | string[] | undefined> = {};
  // A header with an empty value counts as not given: the setting's or the defaults' applies.
  // Log-Format-bibliopam alone says something empty: the Bibliopam standard format.
  for (const [name, value] of Object.entries(request)) if (name === 'log-format-bibliopam' || !isEmptyHeader(value)) merged[name] = value;
  if (acceptsAnything(merged.accept)) delete merged.accept;
  for (const layer of [setting ?? {}, defaults]) {
    const hasFormat = Object.keys(merged).some(isFormatHeader);
    for (const [name, value] of lowerCased(layer)) {
      if (merged[name] !== undefined) continue;
      if (hasFormat && isFormatHeader(name)) continue;
      merged[name] = value;
    }
  }
  return merged;
}
