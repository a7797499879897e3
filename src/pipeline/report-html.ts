import { createHash } from 'node:crypto';
import type { ReportData, ReportValue } from './job-report.js';

/**
 * The job report as one self-contained HTML page (reference 6.2 / routes 4.5): no script, no
 * external resource, inline CSS only, every value escaped. Good to read, save or mail as is.
 */

const CSS = `body{font-family:system-ui,sans-serif;margin:1.5em;color:#111}
h1{font-size:1.4em}
p.state{margin:.5em 0 1em}
table{border-collapse:collapse}
th,td{border:1px solid #000;padding:4px;min-width:50px;text-align:left;vertical-align:top}
th{background:#B8E5FF}
td.key{background:#DCF1FD;white-space:nowrap}
td.value{word-break:break-all}`;

/** The Content-Security-Policy of the page: nothing may load or run but its own stylesheet. */
export const REPORT_HTML_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(CSS).digest('base64')}'`,
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export type ReportLanguage = 'en' | 'fr';

const TEXT: Record<ReportLanguage, { title: string; running: string; done: string; failed: string; sections: Record<string, string> }> = {
  en: {
    title: 'Execution report',
    running: 'The job is still running: reload the page to see its progress.',
    done: 'The job is done.',
    failed: 'The job did not complete.',
    sections: {
      general: 'General', rejets: 'Rejects', stats: 'Statistics', alerts: 'Alerts', files: 'Files',
      first_event: 'First event', headers: 'Request headers', 'platform-versions': 'Platform versions',
      dedoublonnage: 'Double-click removal', notifications: 'Notifications',
    },
  },
  fr: {
    title: "Rapport d'exécution",
    running: 'Le traitement est en cours : rechargez la page pour suivre sa progression.',
    done: 'Le traitement est terminé.',
    failed: "Le traitement ne s'est pas terminé.",
    sections: {
      general: 'Général', rejets: 'Rejets', stats: 'Statistiques', alerts: 'Alertes', files: 'Fichiers',
      first_event: 'Premier événement', headers: 'En-têtes de la requête', 'platform-versions': 'Versions des plateformes',
      dedoublonnage: 'Dédoublonnage', notifications: 'Notifications',
    },
  },
};

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

function valueText(value: ReportValue | undefined): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function valueCell(value: ReportValue | undefined): string {
  const text = valueText(value);
  // Only http(s) URLs become links: the report holds URLs of the job's own files.
  if (/^https?:\/\/[^\s]+$/i.test(text)) {
    const safe = escapeHtml(text);
    return `<a href="${safe}" rel="noreferrer">${safe}</a>`;
  }
  return escapeHtml(text);
}

/** `DD-MM-YYYY HHhmm` from the report's `Job-Date` (kept in the job's own offset). */
export function titleDate(jobDate: ReportValue | undefined): string | undefined {
  const m = typeof jobDate === 'string' ? /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})/.exec(jobDate) : null;
  return m ? `${m[3]}-${m[2]}-${m[1]} ${m[4]}h${m[5]}` : undefined;
}

function sectionLabel(name: string, lang: ReportLanguage): string {
  return TEXT[lang].sections[name] ?? (name.charAt(0).toUpperCase() + name.slice(1));
}

export function renderReportHtml(report: ReportData, lang: ReportLanguage = 'en'): string {
  const t = TEXT[lang];
  const general = report.general ?? {};
  const date = titleDate(general['Job-Date']);
  const title = `${t.title}${date ? ` (${date})` : ''} - logsift`;
  const state = general['Job-Done'] === true ? t.done : general.status !== undefined ? t.failed : t.running;
  const ids = new Set<string>();
  const rows: string[] = [];
  for (const [section, values] of Object.entries(report)) {
    if (typeof values !== 'object' || values === null) continue;
    rows.push(`<tr class="section" id="section-${escapeHtml(section)}"><th colspan="2">${escapeHtml(sectionLabel(section, lang))}</th></tr>`);
    for (const [key, value] of Object.entries(values)) {
      // Row ids are the keys (as in the reference) where unique, else prefixed by the section.
      const id = ids.has(key) ? `${section}.${key}` : key;
      ids.add(id);
      rows.push(`<tr id="${escapeHtml(id)}"><td class="key">${escapeHtml(key)}</td><td class="value">${valueCell(value)}</td></tr>`);
    }
  }
  return `<!DOCTYPE html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<style>${CSS}</style>
</head>
<body>
<h1>${escapeHtml(t.title)}</h1>
<p class="state">${escapeHtml(state)}</p>
<table>
${rows.join('\n')}
</table>
</body>
</html>
`;
}
