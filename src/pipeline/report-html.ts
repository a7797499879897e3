import { createHash } from 'node:crypto';
import type { ReportData, ReportValue } from './job-report.js';
import { REJECT_INFO, REJECT_TEXTS_FR } from '../info/rejects.js';
import { STOPPED_FROM_OUTSIDE } from '../status-codes.js';

/**
 * The job report as one self-contained HTML page (reference 6.2 / routes 4.5), for a person:
 * first a summary (lines, events, rejection rate, duration, speed), then what was consulted
 * (events by platform, resource type and format, as inline SVG charts), what was thrown away and
 * why (with the reject files), the settings, the first event, and last every value of the report
 * in the reference's table. No script, no external resource, its stylesheet inline (allowed by
 * its hash), every value escaped: good to read, save or mail as is (`standalone=1` is the same).
 * While the job runs the page reloads itself.
 */

const CSS = `:root{--text:#1d2330;--muted:#5b6577;--line:#dfe4ec;--accent:#2a63c9;--soft:#e7effd;--ok:#1a7541;--bad:#b23434;--warn:#935800;--bg:#f4f6fa}
*{box-sizing:border-box}
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:var(--text);background:var(--bg);line-height:1.45}
main{max-width:62rem;margin:0 auto;padding:1.5rem 1rem 3rem}
header.page{background:#fff;border-bottom:1px solid var(--line);padding:1rem 0}
header.page>div{max-width:62rem;margin:0 auto;padding:0 1rem}
h1{font-size:1.5rem;margin:0 0 .25rem}
h2{font-size:1.15rem;margin:0 0 .75rem}
h3{font-size:.95rem;margin:1rem 0 .4rem;color:var(--muted)}
section{background:#fff;border-radius:10px;box-shadow:0 1px 3px #0b1a3514;padding:1.25rem 1.5rem;margin:0 0 1rem}
a{color:var(--accent)}
code{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.9em}
.meta{color:var(--muted);margin:0;font-size:.92em;overflow-wrap:anywhere}
.state{display:inline-block;vertical-align:middle;padding:.1rem .6rem;border-radius:999px;font-size:.6em;font-weight:600;background:var(--soft);color:var(--accent)}
.state.done{background:#e3f5ea;color:var(--ok)}
.state.failed{background:#fde8e8;color:var(--bad)}
.state.stopped{background:#fff3dc;color:var(--warn)}
.figures{display:flex;flex-wrap:wrap;gap:.75rem;margin:0}
.figures div{flex:1 1 8.5rem;border:1px solid var(--line);border-radius:8px;padding:.6rem .8rem}
.figures dt{font-size:.78em;color:var(--muted);text-transform:uppercase;letter-spacing:.04em}
.figures dd{margin:.15rem 0 0;font-size:1.3rem;font-weight:650;font-variant-numeric:tabular-nums;white-space:nowrap}
.notice{padding:.6rem .8rem;border-radius:6px;margin:.75rem 0 0;background:#fff3dc;color:var(--warn)}
.notice.bad{background:#fde8e8;color:var(--bad)}
.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(22rem,100%),1fr));gap:0 1.5rem}
svg.chart{width:100%;height:auto;display:block}
svg.chart text{fill:var(--text);font-size:12px;font-family:inherit}
svg.chart text.value{fill:var(--muted)}
svg.chart rect{fill:var(--accent)}
svg.chart rect.other{fill:#9db7ea}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:.4rem .55rem;border-bottom:1px solid var(--line);vertical-align:top}
th{font-size:.82em;color:var(--muted);font-weight:600}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.why{color:var(--muted);font-size:.92em}
td.value,td.key{overflow-wrap:anywhere}
.kv td.key{color:var(--muted);width:35%}
details>summary{cursor:pointer;font-weight:600}
#all-values{margin-top:.75rem}
#all-values th,#all-values td{border:1px solid #000;padding:4px;min-width:50px}
#all-values th{background:#B8E5FF;color:var(--text)}
#all-values td.key{background:#DCF1FD;white-space:nowrap}
footer{color:var(--muted);font-size:.85em;text-align:center}
@media (max-width:40rem){section{padding:1rem}main{padding:1rem .5rem 2rem}#rejects thead{display:none}#rejects tr{display:grid;grid-template-columns:1fr auto auto;border-bottom:1px solid var(--line)}#rejects td{border:0}#rejects td.why,#rejects td:last-child{grid-column:1/-1;padding-top:0}#rejects td:last-child:empty{display:none}#all-values td.key{white-space:normal}}
@media print{body{background:#fff}section{box-shadow:none;border:1px solid var(--line);break-inside:avoid}}`;

/** The Content-Security-Policy of the page: nothing may load or run but its own stylesheet. */
export const REPORT_HTML_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(CSS).digest('base64')}'`,
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const REFRESH_SECONDS = 5;

export type ReportLanguage = 'en' | 'fr';

const TEXT = {
  en: {
    title: 'Execution report', running: 'running', done: 'done', failed: 'failed', stopped: 'stopped',
    runningNote: `The job is still running: this page reloads every ${REFRESH_SECONDS} s.`,
    stoppedNote: 'The job stopped before its end.',
    job: 'Job', started: 'started', lines: 'Lines read', events: 'Events', rate: 'Rejection rate', duration: 'Duration',
    speed: 'Speed', denied: 'Denied', platforms: 'Platforms',
    consulted: 'What was consulted', byPlatform: 'Events by platform', byType: 'By resource type', byFormat: 'By format', none: 'No event.',
    thrown: 'What was thrown away, and why', category: 'Category', count: 'Lines', share: 'Of the lines', why: 'Why', file: 'File',
    deniedRow: 'Denied access', deniedWhy: 'consultations the platform refused (HTTP 401/403, or said so): in a file of their own',
    nothingThrown: 'No line was thrown away.', kept: 'kept as events', download: 'lines',
    rateNote: (rate: string) => `The rejection rate (${rate}) is the reference's: the lines of an unknown format or domain, unqualified, double clicks, out of order or in error, out of the lines read less the filtered ones.`,
    settings: 'Settings', predefined: 'Predefined settings', format: 'Log format', headers: 'Request headers', noneSetting: 'none',
    firstEvent: 'The first event', files: 'Files', allValues: "All the report's values", result: 'Result', report: 'Report (JSON)',
    traces: 'Traces', others: 'others', status: 'Status', alerts: 'Alerts',
    sections: {
      general: 'General', rejets: 'Rejects', stats: 'Statistics', alerts: 'Alerts', files: 'Files',
      first_event: 'First event', headers: 'Request headers', 'platform-versions': 'Platform versions',
      dedoublonnage: 'Double-click removal', notifications: 'Notifications',
    } as Record<string, string>,
  },
  fr: {
    title: "Rapport d'exécution", running: 'en cours', done: 'terminé', failed: 'en échec', stopped: 'arrêté',
    runningNote: `Le traitement est en cours\u202f: cette page se recharge toutes les ${REFRESH_SECONDS} s.`,
    stoppedNote: "Le traitement s'est arrêté avant sa fin.",
    job: 'Traitement', started: 'commencé le', lines: 'Lignes lues', events: 'Événements', rate: 'Taux de rejet', duration: 'Durée',
    speed: 'Vitesse', denied: 'Refusés', platforms: 'Plateformes',
    consulted: 'Ce qui a été consulté', byPlatform: 'Événements par plateforme', byType: 'Par type de ressource', byFormat: 'Par format', none: 'Aucun événement.',
    thrown: 'Ce qui a été écarté, et pourquoi', category: 'Catégorie', count: 'Lignes', share: 'Des lignes', why: 'Pourquoi', file: 'Fichier',
    deniedRow: 'Accès refusés', deniedWhy: 'consultations refusées par la plateforme (HTTP 401/403, ou signalées)\u202f: dans un fichier à part',
    nothingThrown: "Aucune ligne n'a été écartée.", kept: 'gardés comme événements', download: 'lignes',
    rateNote: (rate: string) => `Le taux de rejet (${rate}) est celui de la référence : les lignes de format ou de domaine inconnu, non qualifiées, doubles clics, hors d'ordre ou en erreur, sur les lignes lues moins les lignes filtrées.`,
    settings: 'Paramètres', predefined: 'Paramètres prédéfinis', format: 'Format du log', headers: 'En-têtes de la requête', noneSetting: 'aucun',
    firstEvent: 'Le premier événement', files: 'Fichiers', allValues: 'Toutes les valeurs du rapport', result: 'Résultat', report: 'Rapport (JSON)',
    traces: 'Traces', others: 'autres', status: 'Statut', alerts: 'Alertes',
    sections: {
      general: 'Général', rejets: 'Rejets', stats: 'Statistiques', alerts: 'Alertes', files: 'Fichiers',
      first_event: 'Premier événement', headers: 'En-têtes de la requête', 'platform-versions': 'Versions des plateformes',
      dedoublonnage: 'Dédoublonnage', notifications: 'Notifications',
    } as Record<string, string>,
  },
};

type Texts = (typeof TEXT)['en'];

/** Request headers that say how the request travelled, not how the job runs: left out of the settings shown. */
const TRANSPORT_HEADERS: ReadonlySet<string> = new Set([
  'host', 'connection', 'content-length', 'content-type', 'transfer-encoding', 'te', 'pragma', 'cache-control', 'origin',
  'referer', 'user-agent', 'accept-encoding', 'accept-language', 'x-requested-with', 'expect', 'dnt', 'priority', 'upgrade-insecure-requests',
]);

/** The report's language from Accept-Language: French when it comes before English, else English. */
export function reportLanguage(acceptLanguage: string | undefined): ReportLanguage {
  let best: { lang: ReportLanguage; q: number } = { lang: 'en', q: 0 };
  for (const item of (acceptLanguage ?? '').split(',')) {
    const [tag, ...params] = item.trim().toLowerCase().split(';');
    const lang = tag.split('-')[0];
    if (lang !== 'en' && lang !== 'fr') continue;
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    if (Number.isFinite(q) && q > best.q) best = { lang, q };
  }
  return best.lang;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

function valueText(value: ReportValue | object | undefined): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

const num = (v: ReportValue | undefined): number => (typeof v === 'number' ? v : Number.parseFloat(valueText(v)) || 0);

/** The report's locale for Intl: numbers, percentages and dates are written as its language writes them. */
const LOCALES: Record<ReportLanguage, string> = { en: 'en-GB', fr: 'fr-FR' };

/** `: ` in English, with the narrow no-break space French puts before the colon. */
const COLONS: Record<ReportLanguage, string> = { en: ': ', fr: '\u202f: ' };

/**
 * The report's `Job-Date` as the report's language writes a date and time (`26 Nov 2026, 13:01`,
 * `26 nov. 2026, 13:01`), at the wall-clock time of the offset the job wrote it in.
 */
export function jobDateText(jobDate: ReportValue | undefined, lang: ReportLanguage): string | undefined {
  const m = typeof jobDate === 'string' ? /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})/.exec(jobDate) : null;
  if (!m) return undefined;
  // The written time as if in UTC, formatted in UTC: the job's own offset, not the server's zone.
  const at = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5])));
  return new Intl.DateTimeFormat(LOCALES[lang], { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }).format(at);
}

export interface ReportFormats {
  readonly number: (n: number) => string;
  /** `n` percent, with at most `digits` decimals */
  readonly percent: (n: number, digits?: 0 | 1 | 2) => string;
}

/** Number and percentage formatting in the report's language. */
export function reportFormats(lang: ReportLanguage): ReportFormats {
  const nf = new Intl.NumberFormat(LOCALES[lang]);
  const pf = [0, 1, 2].map((d) => new Intl.NumberFormat(LOCALES[lang], { style: 'percent', maximumFractionDigits: d }));
  return { number: (n) => nf.format(n), percent: (n, digits = 2) => pf[digits]!.format(n / 100) };
}

export interface ReportHtmlOptions {
  /** the job runs in this service: the page reloads itself (default: the report is not done and has no status) */
  readonly running?: boolean;
  /** a result file is there (a deferred job): the page links to it */
  readonly result?: boolean;
  /** a ticket the page was opened with: kept on the links to this job's files */
  readonly ticket?: string;
  /** the long name of a platform code, when the service knows it */
  readonly platformName?: (code: string) => string | undefined;
}

/**
 * Links only for http(s) URLs (the report holds URLs of the job's own files); a ticket is added
 * to those of this job.
 */
function linker(jobId: string, ticket: string | undefined) {
  return (value: ReportValue | undefined, text = valueText(value), attrs = ''): string => {
    const url = valueText(value);
    if (!/^https?:\/\/\S+$/i.test(url)) return escapeHtml(text);
    const own = ticket !== undefined && jobId !== '' && url.includes(`/${jobId}`);
    const href = own ? `${url}${url.includes('?') ? '&' : '?'}ticket=${encodeURIComponent(ticket)}` : url;
    return `<a href="${escapeHtml(href)}" rel="noreferrer"${attrs}>${escapeHtml(text)}</a>`;
  };
}

/**
 * Width of a text in em, from the widths of common sans-serif fonts (Arial, Helvetica, DejaVu
 * Sans), rounded up: the report has no script to measure with, so a label cut to this fits
 * whichever of them a reader's system picks.
 */
export function textWidthEm(text: string): number {
  let em = 0;
  for (const c of text) {
    if (/[iljI.,:;'|!]/.test(c)) em += 0.3;
    else if (/[ ftr()[\]\-/]/.test(c)) em += 0.4;
    else if (/[mwMW@%]/.test(c)) em += 0.95;
    else if (/[A-Z&]/.test(c)) em += 0.74;
    else em += 0.6;
  }
  return em;
}

/** The label as it fits in `width` (at `fontSize`): whole, or cut with an ellipsis at the end. */
export function fitLabel(label: string, width: number, fontSize: number): string {
  const room = width / fontSize;
  if (textWidthEm(label) <= room) return label;
  const chars = [...label];
  let n = chars.length;
  while (n > 0 && textWidthEm(`${chars.slice(0, n).join('').trimEnd()}…`) > room) n--;
  return `${chars.slice(0, n).join('').trimEnd()}…`;
}

/** Horizontal bars, the longest first; past `max` rows the rest are summed in one. */
export function barChart(items: Array<{ label: string; value: number }>, format: (n: number) => string, othersLabel: string, max = 12, colon = ': '): string {
  let rows = items.filter((i) => i.value > 0).sort((a, b) => b.value - a.value || (a.label < b.label ? -1 : 1));
  const folded = rows.length > max;
  if (folded) {
    const rest = rows.slice(max - 1);
    rows = [...rows.slice(0, max - 1), { label: `${othersLabel} (${rest.length})`, value: rest.reduce((n, i) => n + i.value, 0) }];
  }
  const width = 460;
  const row = 24;
  const labelWidth = 160;
  // the labels' font size in the viewBox's units (the stylesheet's 12px): what the label area holds
  const fontSize = 12;
  const room = width - labelWidth - 80;
  const top = Math.max(1, ...rows.map((r) => r.value));
  const bars = rows.map((r, i) => {
    const y = i * row;
    const w = Math.max(1, (r.value / top) * room);
    const label = fitLabel(r.label, labelWidth - 8, fontSize);
    const full = escapeHtml(`${r.label}${colon}${format(r.value)}`);
    const other = folded && i === rows.length - 1 ? ' class="other"' : '';
    return `<text x="${labelWidth - 8}" y="${y + 16}" text-anchor="end"><title>${full}</title>${escapeHtml(label)}</text>`
      + `<rect${other} x="${labelWidth}" y="${y + 4}" width="${w.toFixed(1)}" height="${row - 8}" rx="3"><title>${full}</title></rect>`
      + `<text class="value" x="${(labelWidth + w + 6).toFixed(1)}" y="${y + 16}">${escapeHtml(format(r.value))}</text>`;
  });
  const summary = rows.map((r) => `${r.label}${colon}${format(r.value)}`).join(', ');
  return `<svg class="chart" viewBox="0 0 ${width} ${Math.max(row, rows.length * row)}" role="img" aria-label="${escapeHtml(summary)}">${bars.join('')}</svg>`;
}

/** Counters of a section whose keys start with `prefix` (`platform-sd` → `sd`). */
function counters(section: Record<string, ReportValue> | undefined, prefix: string): Array<{ code: string; value: number }> {
  return Object.entries(section ?? {})
    .filter(([k, v]) => k.startsWith(prefix) && typeof v === 'number')
    .map(([k, v]) => ({ code: k.slice(prefix.length), value: v as number }));
}

function kvTable(entries: Array<[string, ReportValue | object | undefined]>, id: string): string {
  const rows = entries.map(([k, v]) => `<tr><td class="key">${escapeHtml(k)}</td><td class="value">${escapeHtml(valueText(v))}</td></tr>`);
  return `<table class="kv" id="${id}"><tbody>${rows.join('')}</tbody></table>`;
}

/** Every value of the report, one header row per section and one row per key (the reference's layout). */
function allValuesTable(report: ReportData, t: Texts, link: ReturnType<typeof linker>, result: boolean): string {
  const ids = new Set<string>();
  const rows: string[] = [];
  for (const [section, values] of Object.entries(report)) {
    if (typeof values !== 'object' || values === null) continue;
    const label = t.sections[section] ?? section.charAt(0).toUpperCase() + section.slice(1);
    rows.push(`<tr class="section" id="section-${escapeHtml(section)}"><th colspan="2">${escapeHtml(label)}</th></tr>`);
    for (const [key, value] of Object.entries(values)) {
      // Row ids are the keys (as in the reference) where unique, else prefixed by the section.
      const id = ids.has(key) ? `${section}.${key}` : key;
      ids.add(id);
      // only a deferred job keeps its result file: the URL of another's answers 404, so it is no link
      const shown = key === 'result-file-ecs' && !result ? escapeHtml(valueText(value)) : link(value);
      rows.push(`<tr id="${escapeHtml(id)}"><td class="key">${escapeHtml(key)}</td><td class="value">${shown}</td></tr>`);
    }
  }
  return `<table id="all-values">\n${rows.join('\n')}\n</table>`;
}

/** What was thrown away: a row per category with lines, the share of the lines read, why, and its file. */
function rejectsTable(report: ReportData, lang: ReportLanguage, t: Texts, fmt: ReportFormats, link: ReturnType<typeof linker>): string {
  const g = report.general ?? {};
  const rejets = report.rejets ?? {};
  const lines = num(g['nb-lines-input']);
  const percent = (n: number) => (lines > 0 ? fmt.percent((n * 100) / lines, 1) : '–');
  const row = (id: string, label: string, n: number, why: string, file: string) =>
    `<tr id="${id}"><td>${label}</td><td class="num">${fmt.number(n)}</td><td class="num">${percent(n)}</td><td class="why">${escapeHtml(why)}</td><td>${file}</td></tr>`;
  const rows: string[] = [];
  for (const info of REJECT_INFO) {
    const n = num(rejets[info.counter]);
    if (n === 0) continue;
    const [label, why] = lang === 'fr' ? REJECT_TEXTS_FR[info.category] : [info.label, info.description];
    const url = rejets[`url-${info.category}`];
    const file = url === undefined ? '' : link(url, t.download, ` data-reject-file="${info.category}"`);
    rows.push(row(`reject-${info.category}`, `${escapeHtml(label)}${info.kept ? ` <small>(${escapeHtml(t.kept)})</small>` : ''}`, n, why, file));
  }
  const denied = num(g['nb-denied-ecs']);
  if (denied > 0) rows.push(row('reject-denied', escapeHtml(t.deniedRow), denied, t.deniedWhy, link(g['url-denied-ecs'], t.download)));
  if (rows.length === 0) return `<p class="meta">${escapeHtml(t.nothingThrown)}</p>`;
  return `<table id="rejects"><thead><tr><th>${escapeHtml(t.category)}</th><th class="num">${escapeHtml(t.count)}</th><th class="num">${escapeHtml(t.share)}</th><th>${escapeHtml(t.why)}</th><th>${escapeHtml(t.file)}</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

export function renderReportHtml(report: ReportData, lang: ReportLanguage = 'en', opts: ReportHtmlOptions = {}): string {
  const t = TEXT[lang];
  const formats = reportFormats(lang);
  const fmt = formats.number;
  const colon = COLONS[lang];
  const g = report.general ?? {};
  const stats = report.stats ?? {};
  const done = g['Job-Done'] === true;
  const ended = !done && g.status !== undefined && g.status !== null;
  // ended from outside (its client gone or not reading, the service stopping): not a failure
  const stoppedFromOutside = ended && STOPPED_FROM_OUTSIDE.has(Number(g.status));
  const failed = ended && !stoppedFromOutside;
  const running = opts.running ?? (!done && !ended);
  const state = done ? 'done' : failed ? 'failed' : running ? 'running' : 'stopped';
  const date = jobDateText(g['Job-Date'], lang);
  const link = linker(valueText(g['Job-ID']), opts.ticket);

  const figure = (id: string, label: string, value: string) => `<div><dt>${escapeHtml(label)}</dt><dd id="${id}">${escapeHtml(value)}</dd></div>`;
  // `4626 lignes/s` in the JSON (the reference's text): its number written as the language writes numbers
  const speedText = valueText(g['process-speed']).trim();
  const speedValue = /^(\d+(?:\.\d+)?) lignes\/s$/.exec(speedText);
  const speed = speedValue ? `${fmt(Number(speedValue[1]))} ${lang === 'fr' ? 'lignes/s' : 'lines/s'}` : speedText;
  // `12.5 %` in the JSON, written as a percentage of the report's language
  const rateText = valueText(g['Rejection-Rate']).trim();
  const rateValue = /^(\d+(?:\.\d+)?) ?%$/.exec(rateText);
  const rate = rateValue ? formats.percent(Number(rateValue[1])) : rateText || formats.percent(0);
  const summary = [
    figure('fig-lines', t.lines, fmt(num(g['nb-lines-input']))),
    figure('fig-events', t.events, fmt(num(g['nb-ecs']))),
    figure('fig-rejection-rate', t.rate, rate),
    figure('fig-duration', t.duration, valueText(g['Job-Duration']).trim()),
    figure('fig-speed', t.speed, speed),
    figure('fig-denied', t.denied, fmt(num(g['nb-denied-ecs']))),
    figure('fig-platforms', t.platforms, fmt(num(stats.platforms))),
  ].join('');
  const notices: string[] = [];
  if (ended) notices.push(`<p class="notice${failed ? ' bad' : ''}" id="job-status">${escapeHtml(`${t.status} ${valueText(g.status)}${colon}${valueText(g['status-message'])}`)}</p>`);
  const alerts = Object.entries(report.alerts ?? {}).filter(([k]) => /^alert-\d+$/.test(k));
  if (alerts.length) notices.push(`<div class="notice" id="alerts"><strong>${escapeHtml(t.alerts)}</strong><ul>${alerts.map(([, v]) => `<li>${escapeHtml(valueText(v))}</li>`).join('')}</ul></div>`);

  const chart = (title: string, id: string, items: Array<{ label: string; value: number }>) =>
    `<div id="${id}"><h3>${escapeHtml(title)}</h3>${items.some((i) => i.value > 0) ? barChart(items, fmt, t.others, 12, colon) : `<p class="meta">${escapeHtml(t.none)}</p>`}</div>`;
  const platformItems = counters(stats, 'platform-').map(({ code, value }) => {
    const name = opts.platformName?.(code);
    return { label: name && name !== code ? `${name} (${code})` : code, value };
  });
  const charts = [
    chart(t.byPlatform, 'chart-platforms', platformItems),
    chart(t.byType, 'chart-rtype', counters(stats, 'rtype-').map(({ code, value }) => ({ label: code, value }))),
    chart(t.byFormat, 'chart-mime', counters(stats, 'mime-').map(({ code, value }) => ({ label: code, value }))),
  ].join('');

  const setting = g['predefined-settings'];
  const settings: Array<[string, ReportValue | undefined]> = [
    [t.predefined, setting === false || setting === undefined || setting === null ? t.noneSetting : setting],
    [t.format, [g['input-format-proxy'], g['input-format-literal']].filter((v) => v !== null && v !== undefined && v !== '').map(valueText).join(colon)],
  ];
  const headers = Object.entries(report.headers ?? {}).filter(([k, v]) => !TRANSPORT_HEADERS.has(k) && !k.startsWith('sec-') && !(k === 'accept' && v === '*/*'));
  const files = Object.values(report.files ?? {}).map(valueText);
  const firstEvent = Object.entries(report.first_event ?? {});
  const links = [
    opts.result && g['result-file-ecs'] !== undefined ? link(g['result-file-ecs'], t.result) : '',
    link(g['URL-Report'], t.report),
    link(g['URL-Traces'], t.traces),
  ].filter(Boolean).join(' · ');
  const note = state === 'running' ? t.runningNote : state === 'stopped' ? t.stoppedNote : '';

  const title = `${t.title}${date ? ` (${date})` : ''} - logsift`;
  return `<!DOCTYPE html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
${state === 'running' ? `<meta http-equiv="refresh" content="${REFRESH_SECONDS}">\n` : ''}<title>${escapeHtml(title)}</title>
<style>${CSS}</style>
</head>
<body>
<header class="page"><div>
<h1>${escapeHtml(t.title)} <span class="state ${state}" id="job-state">${escapeHtml(t[state])}</span></h1>
<p class="meta">${escapeHtml(t.job)} <code>${escapeHtml(valueText(g['Job-ID']))}</code>${date ? ` · ${escapeHtml(t.started)} ${escapeHtml(date)}` : ''}${files.length ? ` · ${escapeHtml(t.files)}${colon}${escapeHtml(files.join(', '))}` : ''}</p>
${note ? `<p class="meta state-note">${escapeHtml(note)}</p>\n` : ''}</div></header>
<main>
<section id="summary"><dl class="figures">${summary}</dl>${notices.join('')}</section>
<section id="consulted"><h2>${escapeHtml(t.consulted)}</h2><div class="charts">${charts}</div></section>
<section id="thrown"><h2>${escapeHtml(t.thrown)}</h2>${rejectsTable(report, lang, t, formats, link)}<p class="meta" id="rate-note">${escapeHtml(t.rateNote(rate))}</p></section>
<section id="settings"><h2>${escapeHtml(t.settings)}</h2>${kvTable(settings, 'settings-table')}${headers.length ? `<h3>${escapeHtml(t.headers)}</h3>${kvTable(headers, 'headers-table')}` : ''}</section>
${firstEvent.length ? `<section id="first-event"><h2>${escapeHtml(t.firstEvent)}</h2>${kvTable(firstEvent, 'first-event-table')}</section>\n` : ''}<section id="links"><p>${links}</p><details class="all"><summary>${escapeHtml(t.allValues)}</summary>${allValuesTable(report, t, link, opts.result === true)}</details></section>
<footer>logsift ${escapeHtml(valueText(g['logsift-version'] ?? g['ezPAARSE-version']))} · platforms ${escapeHtml(valueText(g['platforms-version']))}</footer>
</main>
</body>
</html>
`;
}
