import { REJECT_COUNTERS } from '../pipeline/job-report.js';
import { rejectFileName } from '../pipeline/job-files.js';
import { REJECT_CATEGORIES, type RejectCategory } from '../pipeline/stages/types.js';

/** What each reject category means, for people (the submission page, the HTML report). */
const TEXTS: Readonly<Record<RejectCategory, readonly [label: string, description: string]>> = {
  'unknown-formats': ['Unknown format', 'lines that do not match the log format, or carry no usable date'],
  'ignored-domains': ['Ignored domain', 'requests to hosts left out on purpose (search engines, advertising, content delivery)'],
  'unknown-domains': ['Unknown domain', 'requests to hosts no platform recognises'],
  'unqualified-ecs': ['Not a consultation', 'requests to a known platform that its parser does not take for the consultation of a resource (home and navigation pages, paths it does not know)'],
  'pkb-miss-ecs': ['Not in the knowledge base', 'events kept, whose title the platform’s knowledge base does not know'],
  'duplicate-ecs': ['Double click', 'the same consultation repeated within the double-click window'],
  'unordered-ecs': ['Out of order', 'lines dated before the lines read earlier'],
  'robots-ecs': ['Robot', 'requests made by crawlers and other robots'],
  'ignored-hosts': ['Ignored host', 'requests from client addresses left out on purpose'],
  'filtered-ecs': ['Filtered', 'images, style sheets, scripts and fonts, requests that failed (HTTP status), and lines without a URL, a date or a domain'],
  'unknown-errors': ['Processing error', 'lines that raised an unexpected error (see the traces)'],
};

/** The same in French, for the HTML report read in French (Accept-Language). */
export const REJECT_TEXTS_FR: Readonly<Record<RejectCategory, readonly [label: string, description: string]>> = {
  'unknown-formats': ['Format inconnu', 'lignes qui ne suivent pas le format du log, ou sans date utilisable'],
  'ignored-domains': ['Domaine ignoré', 'requêtes vers des sites écartés exprès (moteurs de recherche, publicité, diffusion de contenu)'],
  'unknown-domains': ['Domaine inconnu', "requêtes vers des sites qu'aucune plateforme ne reconnaît"],
  'unqualified-ecs': ['Pas une consultation', "requêtes vers une plateforme connue que son analyseur ne prend pas pour la consultation d'une ressource (pages d'accueil et de navigation, chemins qu'il ne connaît pas)"],
  'pkb-miss-ecs': ['Absent de la base de connaissances', 'événements gardés, dont la base de connaissances de la plateforme ignore le titre'],
  'duplicate-ecs': ['Double clic', 'la même consultation répétée dans la fenêtre du double clic'],
  'unordered-ecs': ['Dans le désordre', 'lignes datées d’avant les lignes lues plus tôt'],
  'robots-ecs': ['Robot', "requêtes de robots d'indexation et autres automates"],
  'ignored-hosts': ['Hôte ignoré', 'requêtes de postes clients écartés exprès'],
  'filtered-ecs': ['Filtrée', 'images, feuilles de style, scripts et polices, requêtes en échec (statut HTTP), et lignes sans URL, date ou domaine'],
  'unknown-errors': ['Erreur de traitement', 'lignes qui ont causé une erreur inattendue (voir les traces)'],
};

export interface RejectCategoryInfo {
  readonly category: RejectCategory;
  /** the report's counter (section `rejets`) */
  readonly counter: string;
  /** the job file its lines go to when asked for (Reject-Files) */
  readonly file: string;
  readonly label: string;
  readonly description: string;
  /** counted by the rejection rate (reference 4.4) */
  readonly inRejectionRate: boolean;
  /** the lines are kept as events all the same (only counted) */
  readonly kept: boolean;
}

const IN_RATE: ReadonlySet<RejectCategory> = new Set(['unknown-formats', 'unknown-domains', 'unqualified-ecs', 'unknown-errors', 'duplicate-ecs', 'unordered-ecs']);

export const REJECT_INFO: readonly RejectCategoryInfo[] = Object.freeze(REJECT_CATEGORIES.map((category) => Object.freeze({
  category,
  counter: REJECT_COUNTERS[category],
  file: rejectFileName(category),
  label: TEXTS[category][0],
  description: TEXTS[category][1],
  inRejectionRate: IN_RATE.has(category),
  kept: category === 'pkb-miss-ecs',
})));
