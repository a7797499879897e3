import type { PlatformSource } from '../platforms/loader.js';
import type { RuleSpec, SetValue } from '../platforms/rules/types.js';

/**
 * The event vocabulary served by /info/rid, /info/rtype, /info/mime and /info/fields: the
 * reference's codes with a short English gloss, and every code the loaded platforms can produce
 * (the constant values of their rules, the `recognize` lists of their manifests). The lists are
 * open: a platform may emit a code the reference does not know.
 */

export type VocabularyKind = 'rid' | 'rtype' | 'mime' | 'other';
export const VOCABULARY_KINDS: readonly VocabularyKind[] = ['rid', 'rtype', 'mime', 'other'];

export interface VocabularyItem {
  readonly code: string;
  readonly description: string;
  /** the same text, under the key the reference's clients read */
  readonly description_en: string;
  /** part of the reference vocabulary (pipeline reference 8.2–8.5) */
  readonly reference: boolean;
  /** loaded platforms that can produce this code */
  readonly platforms: number;
}

/** Shared between requests: never changed once built. */
export type Vocabulary = Readonly<Record<VocabularyKind, VocabularyItem[]>>;

const RID: ReadonlyArray<readonly [string, string]> = [
  ['title_id', "the publisher's own identifier of the title (KBART title_id)"],
  ['print_identifier', 'ISSN or ISBN of the print edition'],
  ['online_identifier', 'ISSN or ISBN of the electronic edition'],
  ['doi', 'Digital Object Identifier'],
  ['ark', 'Archival Resource Key'],
  ['pii', 'Publisher Item Identifier (Elsevier and others)'],
  ['ppn', 'PICA Production Number of a library catalogue record (SUDOC…)'],
  ['unitid', 'the most precise identifier of what was consulted; the key of double-click removal'],
  ['db_id', 'identifier of a database'],
];

const MIME: ReadonlyArray<readonly [string, string]> = [
  ['PDF', 'PDF document'],
  ['PDFPLUS', 'enhanced or interactive PDF'],
  ['HTML', 'web page'],
  ['LATEX', 'LaTeX source'],
  ['TEXT', 'plain text'],
  ['XML', 'XML document'],
  ['JSON', 'JSON document'],
  ['TEI', 'Text Encoding Initiative XML'],
  ['MODS', 'MODS library metadata'],
  ['MARC', 'MARC catalogue record'],
  ['RIS', 'citation export (RIS)'],
  ['CSV', 'comma- or semicolon-separated table'],
  ['XLS', 'spreadsheet'],
  ['ZIP', 'archive of several files'],
  ['EPUB', 'EPUB e-book'],
  ['KINDLE', 'Kindle e-book'],
  ['MP3', 'audio file'],
  ['JPEG', 'JPEG image'],
  ['TIFF', 'TIFF image'],
  ['GIF', 'GIF image'],
  ['POSTSCRIPT', 'PostScript document'],
  ['PRINT', 'print-formatted view'],
  ['DEEPDYVE', 'reading through the DeepDyve rental platform'],
  ['MISC', 'anything else'],
];

const RTYPE: ReadonlyArray<readonly [string, string]> = [
  ['ARTICLE', 'full text of an article'],
  ['ABS', 'abstract'],
  ['PREVIEW', 'first lines or first page only'],
  ['TOC', 'table of contents'],
  ['SUPPL', 'supplementary material'],
  ['FIGURE', 'a figure'],
  ['TABLE', 'a table'],
  ['GRAPH', 'a graph'],
  ['ISSUE', 'a whole issue'],
  ['ARTICLES_BUNDLE', 'several articles in one download'],
  ['BOOK', 'a whole book'],
  ['BOOK_SECTION', 'a chapter or section of a book'],
  ['BOOK_PAGE', 'a page of a book'],
  ['BOOK_CHAPTERS_BUNDLE', 'several chapters in one download'],
  ['BOOKSERIE', 'summary of a book series'],
  ['HANDBOOK', 'summary of a handbook'],
  ['ENCYCLOPAEDIA_ENTRY', 'an encyclopaedia or dictionary entry'],
  ['PHD_THESIS', 'doctoral thesis'],
  ['MD_THESIS', 'medical thesis'],
  ['MASTER_THESIS', "master's thesis"],
  ['MD_MEMOIRE', 'medical dissertation'],
  ['HABILITATION_THESIS', 'habilitation thesis'],
  ['WORKING_PAPER', 'working paper or preprint'],
  ['REPORT', 'report'],
  ['RECORD', 'a non-bibliographic record'],
  ['RECORD_BUNDLE', 'several records in one download'],
  ['RECORD_VIEW', 'view of a record in a citation database'],
  ['FULL_TEXT_USE', 'use of a full text from a citation database'],
  ['RESULT_CLICK', 'click on a result in a citation database'],
  ['DATASET', 'research data'],
  ['METADATA', 'metadata of a document'],
  ['METADATA_BUNDLE', 'metadata of several documents'],
  ['FICHE_ENTREPRISE', 'company profile'],
  ['ORGANISATION', 'description of an organisation'],
  ['BIO', 'biography'],
  ['MAP', 'map'],
  ['CODE_JURIDIQUE', 'legal code'],
  ['JURISPRUDENCE', 'case law'],
  ['FORMULES', 'legal form templates'],
  ['IMAGE', 'image'],
  ['AUDIO', 'sound recording'],
  ['VIDEO', 'video'],
  ['SEARCH', 'a search'],
  ['FACETED_SEARCH', 'a search refined by facets'],
  ['QUERY', 'a query to a database'],
  ['OPENURL', 'a link-resolver (OpenURL) request'],
  ['LINK', 'a redirection to a document'],
  ['SESSION', 'a login or session start'],
  ['ANALYSIS', 'an analysis run by a tool'],
  ['TOOL', 'use of an online tool'],
  ['EXERCISE', 'an exercise'],
  ['API_JOB', 'a processing request sent to an API'],
  ['ISTEXDL_BUNDLE', 'an ISTEX bulk download'],
  ['OTHER', 'anything else'],
];

const OTHER: ReadonlyArray<readonly [string, string]> = [
  ['publication_title', 'title of the journal or book'],
  ['publication_date', 'year or date of publication'],
  ['vol', 'volume'],
  ['issue', 'issue number'],
  ['first_page', 'first page'],
  ['last_page', 'last page'],
];

const REFERENCE: Readonly<Record<VocabularyKind, ReadonlyArray<readonly [string, string]>>> = { rid: RID, rtype: RTYPE, mime: MIME, other: OTHER };

/** Codes of one kind, each with the platforms producing it. */
type Tally = Record<VocabularyKind, Map<string, Set<string>>>;

const isConstant = (v: unknown): v is string | number => (typeof v === 'string' && v !== '' && !v.includes('{')) || typeof v === 'number';

/** The constant values a `set` entry can give (templates are not known before an event). */
function constants(value: SetValue): string[] {
  if (isConstant(value)) return [String(value)];
  if (typeof value === 'object' && value !== null) {
    const out = Object.values(value.map ?? {}).filter(isConstant).map(String);
    if (isConstant(value.default)) out.push(String(value.default));
    return out;
  }
  return [];
}

function walkRules(rules: readonly RuleSpec[] | undefined, platform: string, tally: Tally, ridCodes: ReadonlySet<string>, otherCodes: ReadonlySet<string>): void {
  for (const rule of rules ?? []) {
    for (const [field, value] of Object.entries(rule.set ?? {})) {
      if (field === 'rtype' || field === 'mime') {
        for (const c of constants(value)) add(tally[field], c, platform);
      } else if (ridCodes.has(field)) add(tally.rid, field, platform);
      else if (otherCodes.has(field)) add(tally.other, field, platform);
    }
    walkRules(rule.rules, platform, tally, ridCodes, otherCodes);
  }
}

function add(map: Map<string, Set<string>>, code: string, platform: string): void {
  let set = map.get(code);
  if (!set) map.set(code, (set = new Set()));
  set.add(platform);
}

/** The vocabulary for the loaded platforms: reference codes first (in the reference's order), then the others by code. */
export function buildVocabulary(sources: readonly PlatformSource[]): Vocabulary {
  const tally: Tally = { rid: new Map(), rtype: new Map(), mime: new Map(), other: new Map() };
  const ridCodes = new Set(RID.map(([c]) => c));
  const otherCodes = new Set(OTHER.map(([c]) => c));
  for (const s of sources) {
    const name = s.manifest.name;
    walkRules(s.rules?.rules, name, tally, ridCodes, otherCodes);
    // ezPAARSE manifests say what their parser.js recognises.
    const recognize = s.manifest.recognize as Partial<Record<'rid' | 'rtype' | 'mime', unknown>> | undefined;
    for (const kind of ['rid', 'rtype', 'mime'] as const) {
      const list = recognize?.[kind];
      if (Array.isArray(list)) for (const c of list) if (typeof c === 'string' && c) add(tally[kind], c, name);
    }
  }
  const out = {} as Record<VocabularyKind, VocabularyItem[]>;
  for (const kind of VOCABULARY_KINDS) {
    const items: VocabularyItem[] = [];
    const known = new Set<string>();
    for (const [code, text] of REFERENCE[kind]) {
      known.add(code);
      items.push(item(code, text, true, tally[kind].get(code)?.size ?? 0));
    }
    const extra = [...tally[kind].keys()].filter((c) => !known.has(c)).sort();
    for (const code of extra) items.push(item(code, '', false, tally[kind].get(code)!.size));
    out[kind] = items;
  }
  return Object.freeze(out);
}

function item(code: string, text: string, reference: boolean, platforms: number): VocabularyItem {
  return Object.freeze({ code, description: text, description_en: text, reference, platforms });
}

/** `?sort=asc|desc` of the reference: by code; any value other than `desc` is ascending. */
export function sortItems(items: VocabularyItem[], sort: string | undefined): VocabularyItem[] {
  if (sort === undefined) return items;
  const sorted = [...items].sort((a, b) => (a.code < b.code ? -1 : a.code > b.code ? 1 : 0));
  return sort === 'desc' ? sorted.reverse() : sorted;
}
