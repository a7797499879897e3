import { createHash } from 'node:crypto';
import { REJECT_INFO, REJECT_TEXTS_FR } from '../info/rejects.js';

/**
 * The HTML report a person reads (`/{jobID}/job-report.html`): first a summary (lines, events,
 * rejection rate, duration, speed), then what was consulted (events by platform, resource type
 * and format, as inline SVG charts), what was thrown away and why (with the reject files), the
 * settings, the first event, and every value of the report. No script; every value escaped.
 * `standalone`: one file, its stylesheet inlined (allowed by its hash), links absolute.
 */

type Value = string | number | boolean | null | undefined | object;
export type ReportSections = Record<string, Record<string, Value>>;
export type PageLanguage = 'en' | 'fr';

export interface ReportPageOptions {
  readonly lang: PageLanguage;
  /** the job runs: the page reloads itself every few seconds */
  readonly running: boolean;
  /** the stylesheet's text: inlined (one file) when given, else linked (`/report.css`) */
  readonly inlineCss?: string;
  /** a ticket the page was opened with: kept on the links to the job's files */
  readonly ticket?: string;
  /** the long name of a platform code, when the service knows it */
  readonly platformName?: (code: string) => string | undefined;
  /** the table of every section (the reference's layout), put last */
  readonly allValues?: string;
}

export const REFRESH_SECONDS = 5;

/** The page's policy: no script at all; its stylesheet from the service, or inline by hash. */
export function reportPageCsp(inlineCss?: string): string {
  const style = inlineCss === undefined ? "style-src 'self'" : `style-src 'sha256-${createHash('sha256').update(inlineCss).digest('base64')}'`;
  return ["default-src 'none'", style, "img-src 'self' data:", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'"].join('; ');
}

const TEXT = {
  en: {
    title: 'Execution report', running: 'running', done: 'done', failed: 'failed', job: 'Job', started: 'started',
    refreshing: `This page reloads every ${REFRESH_SECONDS} s while the job runs.`,
    lines: 'Lines read', events: 'Events', rate: 'Rejection rate', duration: 'Duration', speed: 'Speed', denied: 'Denied', platforms: 'Platforms',
    consulted: 'What was consulted', byPlatform: 'Events by platform', byType: 'By resource type', byFormat: 'By format', none: 'No event.',
    thrown: 'What was thrown away, and why', category: 'Category', count: 'Lines', share: 'Of the lines', why: 'Why', file: 'Lines',
    deniedRow: 'Denied access', deniedWhy: 'consultations the platform refused (HTTP 401/403, or said so): in a file of their own',
    nothingThrown: 'No line was thrown away.', kept: 'kept as events', download: 'download',
    settings: 'Settings', predefined: 'Predefined settings', format: 'Log format', headers: 'Request headers', noneSetting: 'none',
    firstEvent: 'The first event', files: 'Files', allValues: "All the report's values", result: 'Result', report: 'Report (JSON)', traces: 'Traces',
    others: 'others', status: 'Status', alerts: 'Alerts',
  },
  fr: {
    title: "Rapport d'exécution", running: 'en cours', done: 'terminé', failed: 'en échec', job: 'Traitement', started: 'commencé le',
    refreshing: `Cette page se recharge toutes les ${REFRESH_SECONDS} s tant que le traitement tourne.`,
    lines: 'Lignes lues', events: 'Événements', rate: 'Taux de rejet', duration: 'Durée', speed: 'Vitesse', denied: 'Refusés', platforms: 'Plateformes',
    consulted: 'Ce qui a été consulté', byPlatform: 'Événements par plateforme', byType: 'Par type de ressource', byFormat: 'Par format', none: 'Aucun événement.',
    thrown: 'Ce qui a été écarté, et pourquoi', category: 'Catégorie', count: 'Lignes', share: 'Des lignes', why: 'Pourquoi', file: 'Lignes',
    deniedRow: 'Accès refusés', deniedWhy: 'consultations refusées par la plateforme (HTTP 401/403, ou signalées) : dans un fichier à part',
    nothingThrown: "Aucune ligne n'a été écartée.", kept: 'gardés comme événements', download: 'télécharger',
    settings: 'Paramètres', predefined: 'Paramètres prédéfinis', format: 'Format du log', headers: 'En-têtes de la requête', noneSetting: 'aucun',
    firstEvent: 'Le premier événement', files: 'Fichiers', allValues: 'Toutes les valeurs du rapport', result: 'Résultat', report: 'Rapport (JSON)', traces: 'Traces',
    others: 'autres', status: 'Statut', alerts: 'Alertes',
  },
} as const;

export function escapeText(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const str = (v: Value): string => (v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));
const num = (v: Value): number => (typeof v === 'number' ? v : Number.parseFloat(str(v)) || 0);

/** A link to one of the job's files, with the page's ticket; only http(s) URLs. */
function link(url: Value, text: string, ticket: string | undefined, attrs = ''): string {
  const href = str(url);
  if (!/^https?:\/\/\S+$/i.test(href)) return escapeText(text);
  const full = ticket ? `${href}${href.includes('?') ? '&' : '?'}ticket=${encodeURIComponent(ticket)}` : href;
  return `<a href="${escapeText(full)}" rel="noreferrer"${attrs}>${escapeText(text)}</a>`;
}

/** Horizontal bars, the longest first; past `max` rows the rest are summed in one. */
export function barChart(items: Array<{ label: string; value: number }>, format: (n: number) => string, othersLabel: string, max = 12): string {
  let rows = [...items].filter((i) => i.value > 0).sort((a, b) => b.value - a.value || (a.label < b.label ? -1 : 1));
  const folded = rows.length > max;
  if (folded) {
    const rest = rows.slice(max - 1).reduce((n, i) => n + i.value, 0);
    rows = [...rows.slice(0, max - 1), { label: `${othersLabel} (${rows.length - max + 1})`, value: rest }];
  }
  const width = 560;
  const row = 24;
  const labelWidth = 190;
  const room = width - labelWidth - 80;
  const top = Math.max(1, ...rows.map((r) => r.value));
  const bars = rows.map((r, i) => {
    const y = i * row;
    const w = Math.max(1, (r.value / top) * room);
    const label = r.label.length > 28 ? `${r.label.slice(0, 27)}…` : r.label;
    const other = folded && i === rows.length - 1 ? ' class="other"' : '';
    return `<text x="${labelWidth - 8}" y="${y + 16}" text-anchor="end">${escapeText(label)}</text>`
      + `<rect${other} x="${labelWidth}" y="${y + 4}" width="${w.toFixed(1)}" height="${row - 8}" rx="3"><title>${escapeText(`${r.label}: ${format(r.value)}`)}</title></rect>`
      + `<text class="value" x="${(labelWidth + w + 6).toFixed(1)}" y="${y + 16}">${escapeText(format(r.value))}</text>`;
  });
  const summary = rows.map((r) => `${r.label}: ${format(r.value)}`).join(', ');
  return `<svg class="chart" viewBox="0 0 ${width} ${Math.max(row, rows.length * row)}" role="img" aria-label="${escapeText(summary)}">${bars.join('')}</svg>`;
}

/** Counters of a section whose keys start with `prefix` (`platform-sd` → `sd`). */
function counters(section: Record<string, Value> | undefined, prefix: string): Array<{ code: string; value: number }> {
  return Object.entries(section ?? {})
    .filter(([k, v]) => k.startsWith(prefix) && typeof v === 'number')
    .map(([k, v]) => ({ code: k.slice(prefix.length), value: v as number }));
}

function kvTable(entries: Array<[string, Value]>, id: string): string {
  const rows = entries.map(([k, v]) => `<tr><td class="key">${escapeText(k)}</td><td class="value">${escapeText(str(v))}</td></tr>`);
  return `<table class="kv" id="${id}"><tbody>${rows.join('')}</tbody></table>`;
}

/** `DD-MM-YYYY HH'h'mm` of the report's Job-Date (in the job's own offset). */
function displayDate(jobDate: Value): string | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})/.exec(str(jobDate));
  return m ? `${m[3]}-${m[2]}-${m[1]} ${m[4]}h${m[5]}` : undefined;
}

export function renderReportPage(report: ReportSections, opts: ReportPageOptions): string {
  const t = TEXT[opts.lang];
  const nf = new Intl.NumberFormat(opts.lang === 'fr' ? 'fr-FR' : 'en-GB');
  const fmt = (n: number) => nf.format(n);
  const g = report.general ?? {};
  const rejets = report.rejets ?? {};
  const stats = report.stats ?? {};
  const done = g['Job-Done'] === true;
  const failed = !done && g.status !== undefined && g.status !== null;
  const state = done ? 'done' : failed ? 'failed' : 'running';
  const date = displayDate(g['Job-Date']);
  const lines = num(g['nb-lines-input']);
  const ticket = opts.ticket;

  const figure = (id: string, label: string, value: string) => `<div><dt>${escapeText(label)}</dt><dd id="${id}">${escapeText(value)}</dd></div>`;
  const summary = [
    figure('fig-lines', t.lines, fmt(lines)),
    figure('fig-events', t.events, fmt(num(g['nb-ecs']))),
    figure('fig-rejection-rate', t.rate, str(g['Rejection-Rate']).trim() || '0 %'),
    figure('fig-duration', t.duration, str(g['Job-Duration']).trim()),
    figure('fig-speed', t.speed, str(g['process-speed']).replace('lignes/s', opts.lang === 'fr' ? 'lignes/s' : 'lines/s').trim()),
    figure('fig-denied', t.denied, fmt(num(g['nb-denied-ecs']))),
    figure('fig-platforms', t.platforms, fmt(num(stats.platforms))),
  ].join('');
  const notices: string[] = [];
  if (failed) notices.push(`<p class="notice bad" id="job-status">${escapeText(`${t.status} ${str(g.status)}: ${str(g['status-message'])}`)}</p>`);
  const alerts = Object.entries(report.alerts ?? {}).filter(([k]) => /^alert-\d+$/.test(k));
  if (alerts.length) notices.push(`<div class="notice" id="alerts"><strong>${escapeText(t.alerts)}</strong><ul>${alerts.map(([, v]) => `<li>${escapeText(str(v))}</li>`).join('')}</ul></div>`);

  const platformItems = counters(stats, 'platform-').map(({ code, value }) => {
    const name = opts.platformName?.(code);
    return { label: name && name !== code ? `${name} (${code})` : code, value };
  });
  const chart = (title: string, id: string, items: Array<{ label: string; value: number }>) =>
    `<div id="${id}"><h3>${escapeText(title)}</h3>${items.some((i) => i.value > 0) ? barChart(items, fmt, t.others) : `<p class="meta">${escapeText(t.none)}</p>`}</div>`;
  const charts = [
    chart(t.byPlatform, 'chart-platforms', platformItems),
    chart(t.byType, 'chart-rtype', counters(stats, 'rtype-').map(({ code, value }) => ({ label: code, value }))),
    chart(t.byFormat, 'chart-mime', counters(stats, 'mime-').map(({ code, value }) => ({ label: code, value }))),
  ].join('');

  const percent = (n: number) => (lines > 0 ? `${(Math.round((n * 1000) / lines) / 10).toLocaleString(opts.lang === 'fr' ? 'fr-FR' : 'en-GB')} %` : '–');
  const rejectRows = REJECT_INFO.map((info) => {
    const n = num(rejets[info.counter]);
    const [label, why] = opts.lang === 'fr' ? REJECT_TEXTS_FR[info.category] : [info.label, info.description];
    const file = rejets[`url-${info.category}`];
    const cell = file !== undefined ? link(file, t.download, ticket, ` data-reject-file="${info.category}"`) : '';
    return { n, html: `<tr id="reject-${info.category}"${n === 0 ? ' class="zero"' : ''}><td>${escapeText(label)}${info.kept ? ` <small>(${escapeText(t.kept)})</small>` : ''}</td><td class="num">${fmt(n)}</td><td class="num">${percent(n)}</td><td class="why">${escapeText(why)}</td><td>${cell}</td></tr>` };
  }).filter((r) => r.n > 0).map((r) => r.html);
  const denied = num(g['nb-denied-ecs']);
  if (denied > 0) {
    rejectRows.push(`<tr id="reject-denied"><td>${escapeText(t.deniedRow)}</td><td class="num">${fmt(denied)}</td><td class="num">${percent(denied)}</td><td class="why">${escapeText(t.deniedWhy)}</td><td>${link(g['url-denied-ecs'], t.download, ticket)}</td></tr>`);
  }
  const thrown = rejectRows.length
    ? `<table id="rejects"><thead><tr><th>${t.category}</th><th class="num">${t.count}</th><th class="num">${t.share}</th><th>${t.why}</th><th>${t.file}</th></tr></thead><tbody>${rejectRows.join('')}</tbody></table>`
    : `<p class="meta">${escapeText(t.nothingThrown)}</p>`;

  const settings: Array<[string, Value]> = [
    [t.predefined, g['predefined-settings'] === false || g['predefined-settings'] === undefined ? t.noneSetting : g['predefined-settings']],
    [t.format, [g['input-format-proxy'], g['input-format-literal']].filter((v) => v !== null && v !== undefined && v !== '').map(str).join(': ')],
  ];
  const headers = Object.entries(report.headers ?? {}).filter(([k]) => k !== 'content-length' && k !== 'host');
  const files = Object.values(report.files ?? {}).map(str);
  const firstEvent = Object.entries(report.first_event ?? {});
  const links = [
    g['result-file-ecs'] !== undefined && done ? link(g['result-file-ecs'], t.result, ticket) : '',
    link(g['URL-Report'], t.report, ticket),
    link(g['URL-Traces'], t.traces, ticket),
  ].filter(Boolean).join(' · ');

  const title = `${t.title}${date ? ` (${date})` : ''} - logsift`;
  const style = opts.inlineCss !== undefined ? `<style>${opts.inlineCss}</style>` : '<link rel="stylesheet" href="/report.css">';
  const refresh = opts.running ? `<meta http-equiv="refresh" content="${REFRESH_SECONDS}">` : '';
  return `<!DOCTYPE html>
<html lang="${opts.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
${refresh}<title>${escapeText(title)}</title>
${style}
</head>
<body>
<header class="page"><div>
<h1>${escapeText(t.title)} <span class="state ${state}" id="job-state">${escapeText(t[state])}</span></h1>
<p class="meta">${escapeText(t.job)} <code>${escapeText(str(g['Job-ID']))}</code>${date ? ` · ${escapeText(t.started)} ${escapeText(date)}` : ''}${files.length ? ` · ${escapeText(t.files)}: ${escapeText(files.join(', '))}` : ''}</p>
${opts.running ? `<p class="meta">${escapeText(t.refreshing)}</p>` : ''}
</div></header>
<main>
<section id="summary"><dl class="figures">${summary}</dl>${notices.join('')}</section>
<section id="consulted"><h2>${escapeText(t.consulted)}</h2><div class="charts">${charts}</div></section>
<section id="thrown"><h2>${escapeText(t.thrown)}</h2>${thrown}</section>
<section id="settings"><h2>${escapeText(t.settings)}</h2>${kvTable(settings, 'settings-table')}${headers.length ? `<h3>${escapeText(t.headers)}</h3>${kvTable(headers, 'headers-table')}` : ''}</section>
${firstEvent.length ? `<section id="first-event"><h2>${escapeText(t.firstEvent)}</h2>${kvTable(firstEvent, 'first-event-table')}</section>` : ''}
<section id="links"><p>${links}</p>${opts.allValues ? `<details class="all"><summary>${escapeText(t.allValues)}</summary>${opts.allValues}</details>` : ''}</section>
<footer>logsift ${escapeText(str(g['logsift-version'] ?? g['ezPAARSE-version']))} · platforms ${escapeText(str(g['platforms-version']))}</footer>
</main>
</body>
</html>
`;
}
