// The submission page: files, settings (form controls ↔ job headers), the format tester, then
// the job: a deferred job (PUT /{id}) whose upload streams from the files, its progress polled
// from /api/jobs/{id}/progress, and links to its result and report at the end.
import {
  $, h, api, ApiError, authHeaders, currentUser, formatBytes, formatDuration, formatNumber, historyRows, live, messageOf,
  onSessionChange, openLogin, raw, reportLink, setText, setupLogin, t, tr, uuid,
} from './common.js';
import { onLanguageChange } from './i18n.js';

const page = {
  files: [],
  settings: {},
  /** ids of the custom settings (written by administrators: they may replace and delete them) */
  custom: new Set(),
  /** the headers the selected predefined setting gave the form, to tell whether it was changed */
  baseline: null,
  /** headers of the setting that no control shows, sent as they are */
  extra: {},
  /** the selected setting's name, and what the note under the selector says of it */
  settingName: '',
  settingNote: null,
  rejects: [],
  app: null,
  job: null,
};

const isGzip = (file) => /\.gz$/i.test(file.name) || /gzip/.test(file.type);
const byName = (a, b) => a.name.localeCompare(b.name, undefined, { sensitivity: 'base', numeric: true });

// ---------------------------------------------------------------------------- files

function addFiles(list) {
  for (const file of list) {
    if (!page.files.some((f) => f.name === file.name && f.size === file.size && f.lastModified === file.lastModified)) page.files.push(file);
  }
  page.files.sort(byName);
  renderFiles();
}

function renderFiles() {
  const list = $('#file-list');
  list.replaceChildren(...page.files.map((file, i) => h('li', {},
    h('span', { class: 'name' }, file.name),
    isGzip(file) ? h('span', { class: 'badge' }, 'gzip') : null,
    h('span', { class: 'size' }, live(() => formatBytes(file.size))),
    h('button', { type: 'button', class: 'link', 'aria-label': tr('app.removeFile', { name: file.name }), onclick: () => { page.files.splice(i, 1); renderFiles(); focusAfterRemoval(i); } }, tr('app.remove')),
  )));
  const total = page.files.reduce((n, f) => n + f.size, 0);
  $('#file-summary').hidden = page.files.length === 0;
  setText($('#file-total'), tr('app.fileTotal', { n: page.files.length, size: () => formatBytes(total) }));
  refresh();
}

/** Keyboard focus stays in the list: on the file that took the removed one's place, else the drop zone. */
function focusAfterRemoval(index) {
  const buttons = [...document.querySelectorAll('#file-list button')];
  (buttons[Math.min(index, buttons.length - 1)] ?? $('#dropzone')).focus();
}

function setupDropzone() {
  const zone = $('#dropzone');
  const input = $('#file-input');
  zone.addEventListener('click', () => input.click());
  zone.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      input.click();
    }
  });
  input.addEventListener('change', () => {
    addFiles(input.files);
    input.value = '';
  });
  for (const type of ['dragenter', 'dragover']) {
    zone.addEventListener(type, (e) => {
      e.preventDefault();
      zone.classList.add('over');
    });
  }
  for (const type of ['dragleave', 'drop']) zone.addEventListener(type, () => zone.classList.remove('over'));
  zone.addEventListener('drop', (e) => {
    e.preventDefault();
    addFiles(e.dataTransfer.files);
  });
  // A file dropped beside the zone must not replace the page.
  window.addEventListener('dragover', (e) => e.preventDefault());
  window.addEventListener('drop', (e) => e.preventDefault());
  $('#clear-files').addEventListener('click', () => {
    page.files = [];
    renderFiles();
  });
  $('#paste').addEventListener('input', refresh);
}

/** The job's inputs: the files, or the pasted text as one file. */
function inputs() {
  if (page.files.length) return page.files;
  const text = $('#paste').value;
  return text.trim() ? [new File([text.endsWith('\n') ? text : `${text}\n`], 'pasted.log', { type: 'text/plain' })] : [];
}

/** The first lines of the first input (decompressed), for the format tester. */
async function firstLines(max = 20) {
  const file = inputs()[0];
  if (!file) return '';
  let stream = file.stream();
  if (isGzip(file)) stream = stream.pipeThrough(new DecompressionStream('gzip'));
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let complete = false;
  try {
    while (text.length < 48 * 1024) {
      const { value, done } = await reader.read();
      if (done) {
        complete = true;
        break;
      }
      text += decoder.decode(value, { stream: true });
      if (text.split('\n').length > max + 1) break;
    }
  } catch (err) {
    // A .gz that is not gzip ("incorrect header check"), a file gone from the disk
    throw new Error(t(isGzip(file) ? 'app.unreadableGzip' : 'app.unreadable', { name: file.name, error: err.message }));
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  const lines = text.split('\n');
  if (!complete) lines.pop(); // a line cut by the read
  return lines.filter((l) => l.trim()).slice(0, max).join('\n');
}

// ---------------------------------------------------------------------------- settings

/** The words the service reads as yes and as no in a yes/no header (src/pipeline/job-headers.ts). */
const YES_WORDS = ['true', '1', 'yes', 'on'];
const NO_WORDS = ['false', '0', 'no', 'off'];
const controls = () => [...document.querySelectorAll('#step-settings [data-header]')];

const SIMPLE = ['Date-Format', 'Request-Charset', 'Accept', 'Crypted-Fields', 'Response-Charset', 'Traces-Level', 'Force-Parser',
  'Double-Click-HTML', 'Double-Click-PDF', 'Double-Click-MISC', 'Double-Click-Strategy'];

/** The job headers the form stands for (without the predefined setting's id). */
function formHeaders() {
  const headers = {};
  const value = (id) => $(`#${id}`).value.trim();
  const proxy = value('proxy');
  const format = value('format');
  if (proxy && (format || proxy === 'bibliopam')) headers[`Log-Format-${proxy}`] = format || 'standard';
  for (const el of controls()) {
    const name = el.dataset.header;
    if (SIMPLE.includes(name) && el.value.trim()) headers[name] = el.value.trim();
  }
  const list = (id, sign) => value(id).split(',').map((f) => f.trim()).filter(Boolean).map((f) => sign + f.replace(/^[+-]/, ''));
  const fields = [...list('fields-add', '+'), ...list('fields-remove', '-')];
  if (fields.length) headers['Output-Fields'] = fields.join(',');
  if ($('#clean-only').checked) headers['Clean-Only'] = 'true';
  if ($('#compress').checked) headers['Response-Encoding'] = 'gzip';
  if ($('#dc-off').checked) headers['Double-Click-Removal'] = 'false';
  const rejects = [...document.querySelectorAll('#reject-choices input:checked')].map((c) => c.value);
  if (rejects.length) headers['Reject-Files'] = rejects.length === page.rejects.length ? 'all' : rejects.join(',');
  return { ...headers, ...page.extra };
}

/** Everything sent: the form's headers, and the setting's id while the form still shows it unchanged. */
function jobHeaders() {
  const headers = formHeaders();
  const id = $('#predefined').value;
  if (id && !modified()) headers['ezPAARSE-Predefined-Settings'] = id;
  return headers;
}

/** A header the setting gave was changed or removed (adding headers keeps the setting). */
function modified() {
  if (page.baseline === null) return false;
  const now = formHeaders();
  return Object.entries(page.baseline).some(([k, v]) => now[k] !== v);
}

function resetControls() {
  for (const el of controls()) {
    if (el.type === 'checkbox') el.checked = false;
    else el.value = '';
  }
  for (const c of document.querySelectorAll('#reject-choices input')) c.checked = false;
  page.extra = {};
}

/** A value a select does not offer yet (a charset of a setting): added, so the form can show it. */
function selectValue(select, value) {
  if (![...select.options].some((o) => o.value === value)) select.append(h('option', { value }, value));
  select.value = value;
}

/** Spreads a setting's headers into the controls; the rest is kept as extra headers. */
function applySetting(id) {
  resetControls();
  page.baseline = null;
  const setting = page.settings[id];
  if (setting) {
    for (const [rawName, value] of Object.entries(setting.headers)) {
      const name = rawName.toLowerCase();
      const format = /^log-format-(ezproxy|apache|squid|bibliopam)$/.exec(name);
      const simple = SIMPLE.find((s) => s.toLowerCase() === name);
      if (format) {
        $('#proxy').value = format[1];
        $('#format').value = value;
      } else if (simple) {
        const el = controls().find((c) => c.dataset.header === simple);
        if (el.tagName === 'SELECT') selectValue(el, name === 'traces-level' ? value.toLowerCase() : value);
        else el.value = value;
      } else if (name === 'output-fields') {
        const items = value.split(',').map((f) => f.trim()).filter(Boolean);
        $('#fields-add').value = items.filter((f) => !f.startsWith('-')).map((f) => f.replace(/^\+/, '')).join(', ');
        $('#fields-remove').value = items.filter((f) => f.startsWith('-')).map((f) => f.slice(1)).join(', ');
      } else if (name === 'clean-only' && YES_WORDS.includes(value.trim().toLowerCase())) {
        $('#clean-only').checked = true;
      } else if (name === 'response-encoding' && /gzip/i.test(value)) {
        $('#compress').checked = true;
      } else if (name === 'double-click-removal' && NO_WORDS.includes(value.trim().toLowerCase())) {
        $('#dc-off').checked = true;
      } else if (name === 'reject-files') {
        const wanted = value.toLowerCase().split(',').map((v) => v.trim());
        for (const c of document.querySelectorAll('#reject-choices input')) c.checked = wanted.includes('all') || wanted.includes(c.value);
      } else {
        page.extra[rawName] = value;
      }
    }
    page.baseline = formHeaders();
  }
  page.settingName = setting ? `${setting.fullName}${setting.country ? ` (${setting.country})` : ''}` : '';
  page.settingNote = setting
    ? tr('app.settingApplied', { name: page.settingName, n: Object.keys(setting.headers).length })
    : tr('app.settingNote');
  refresh();
}

function renderExtra() {
  const box = $('#extra-headers');
  const entries = Object.entries(page.extra);
  box.replaceChildren();
  if (!entries.length) return;
  box.append(h('h3', {}, tr('app.otherHeaders')),
    h('table', { class: 'kv' }, h('tbody', {}, entries.map(([k, v]) => h('tr', {}, h('td', {}, k), h('td', { class: 'mono' }, v))))));
}

const shellQuote = (s) => `'${String(s).replace(/'/g, `'\\''`)}'`;

function renderCommand() {
  const headers = jobHeaders();
  const lines = [`curl -X POST ${shellQuote(`${location.origin}/`)}`];
  if (currentUser()) lines.push(`  -u ${shellQuote(`${currentUser().username}:PASSWORD`)}`);
  for (const [k, v] of Object.entries(headers)) lines.push(`  -H ${shellQuote(`${k}: ${v}`)}`);
  const files = inputs();
  for (const f of files) lines.push(`  -F ${shellQuote(`files[]=@${f.name}`)}`);
  if (!files.length) lines.push("  -F 'files[]=@access.log'");
  lines.push('  -o result');
  $('#command').textContent = lines.join(' \\\n');
}

/** After any change: the format field, the command, the start button. */
function refresh() {
  const proxy = $('#proxy').value;
  $('#format').disabled = !proxy;
  $('#format').placeholder = { ezproxy: '%h %l %u %t "%r" %s %b', apache: '%h %l %u %t "%r" %>s %b', squid: '%ts.%03tu %6tr %>a %Ss/%03>Hs %<st %rm %ru %[un %Sh/%<a %mt', bibliopam: 'standard' }[proxy] ?? t('app.formatFirst');
  // a type without its format sends nothing: the job recognises the format, as with no type
  setText($('#format-note'), proxy && proxy !== 'bibliopam' && !$('#format').value.trim() ? tr('app.formatEmpty') : '');
  const id = $('#predefined').value;
  const changed = Boolean(id) && modified();
  const note = $('#predefined-note');
  note.classList.toggle('warn', changed);
  setText(note, changed ? tr('app.settingChanged', { name: page.settingName }) : page.settingNote ?? tr('app.settingNote'));
  $('#predefined-reset').hidden = !changed;
  renderSettingAdmin();
  renderExtra();
  renderCommand();
  const ready = inputs().length > 0 && !page.job;
  $('#start').disabled = !ready;
  setText($('#start-hint'), page.job ? tr('app.jobRunning') : ready ? tr('app.inputsReady', { n: inputs().length }) : tr('app.chooseInput'));
}

// ---------------------------------------------------------------------------- custom settings (administrators)

const isAdmin = () => currentUser()?.group === 'admin';

/** The custom setting of an id whatever its case (the service refuses a second one so). */
const customId = (id) => [...page.custom].find((c) => c.toLowerCase() === id.toLowerCase());

/** A refusal as a sentence, with the service's detail (which setting clashes, which field is wrong). */
function explain(err) {
  const sentence = messageOf(err);
  const detail = err?.body?.detail;
  return detail && sentence.key !== null ? tr('app.sentenceDetail', { sentence, detail }) : sentence;
}

function openSaveDialog() {
  const form = $('#setting-form');
  form.reset();
  $('#setting-error').textContent = '';
  // A custom setting chosen: its id and name, to save the changes over it.
  const id = $('#predefined').value;
  const setting = page.custom.has(id) ? page.settings[id] : undefined;
  if (setting) {
    form.elements.id.value = id;
    form.elements.fullName.value = setting.fullName;
    form.elements.country.value = setting.country;
  }
  $('#setting-dialog').showModal();
  form.elements[setting ? 'fullName' : 'id'].focus();
}

/** POST, or PUT over the custom setting of the same id once the administrator confirms; then chosen in the selector. */
async function saveSetting(event) {
  event.preventDefault();
  const form = $('#setting-form');
  const data = new FormData(form);
  const id = String(data.get('id')).trim();
  // the setting's own id is never part of it
  const headers = Object.fromEntries(Object.entries(formHeaders()).filter(([k]) => k.toLowerCase() !== 'ezpaarse-predefined-settings'));
  const settings = { id, fullName: String(data.get('fullName')).trim(), country: String(data.get('country')).trim(), headers };
  const existing = customId(id);
  if (existing && !confirm(t('app.replaceConfirm', { id: existing, name: page.settings[existing]?.fullName ?? '' }))) return;
  const button = form.querySelector('button[type="submit"]');
  button.disabled = true;
  $('#setting-error').textContent = '';
  try {
    const saved = existing
      ? await api(`/info/predefined-settings/custom/${encodeURIComponent(existing)}`, { method: 'PUT', json: { settings } })
      : await api('/info/predefined-settings/custom', { method: 'POST', json: { settings } });
    $('#setting-dialog').close();
    await loadSettings();
    chooseSetting(saved.id);
    setText($('#setting-admin-note'), tr(existing ? 'app.settingReplaced' : 'app.settingSaved', { name: saved.fullName, id: saved.id }));
  } catch (err) {
    setText($('#setting-error'), explain(err));
  } finally {
    button.disabled = false;
  }
}

async function deleteSetting() {
  const id = $('#predefined').value;
  if (!page.custom.has(id) || !confirm(t('app.deleteConfirm', { name: page.settings[id].fullName, id }))) return;
  try {
    await api(`/info/predefined-settings/custom/${encodeURIComponent(id)}`, { method: 'DELETE' });
  } catch (err) {
    setText($('#setting-admin-note'), explain(err));
    return;
  }
  await loadSettings().catch(() => undefined);
  applyWithoutSetting();
  setText($('#setting-admin-note'), tr('app.settingDeleted', { id }));
}

/** The custom settings as a file, in the shape of a predefined-settings.json (id → fullName, country, headers). */
function exportSettings() {
  const ids = [...page.custom].sort();
  if (ids.length === 0) {
    setText($('#setting-admin-note'), tr('app.exportNone'));
    return;
  }
  const out = Object.fromEntries(ids.map((id) => [id, { fullName: page.settings[id].fullName, country: page.settings[id].country, headers: page.settings[id].headers }]));
  const url = URL.createObjectURL(new Blob([`${JSON.stringify(out, null, 2)}\n`], { type: 'application/json' }));
  const a = h('a', { href: url, download: 'custom-predefined-settings.json', hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  setText($('#setting-admin-note'), tr('app.exported', { n: ids.length }));
}

/**
 * A settings file (a predefined-settings.json, or an export) into the custom settings: new ids
 * created, custom ones replaced once the administrator confirms, the others refused with the
 * service's reason (an id of the files' settings, a bad header).
 */
async function importSettings(file) {
  let entries;
  try {
    const parsed = JSON.parse(await file.text());
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
    entries = Object.entries(parsed);
  } catch {
    setText($('#setting-admin-note'), tr('app.importUnreadable'));
    return;
  }
  const existing = entries.map(([id]) => customId(id)).filter(Boolean);
  const replace = existing.length > 0 && confirm(t('app.importReplaceConfirm', { n: existing.length, ids: existing.join(', ') }));
  const counts = { added: 0, replaced: 0, refused: 0 };
  const reasons = [];
  for (const [id, value] of entries) {
    const settings = { ...(typeof value === 'object' && value !== null ? value : {}), id };
    const current = customId(id);
    if (current && !replace) {
      counts.refused++;
      continue;
    }
    try {
      if (current) await api(`/info/predefined-settings/custom/${encodeURIComponent(current)}`, { method: 'PUT', json: { settings } });
      else await api('/info/predefined-settings/custom', { method: 'POST', json: { settings } });
      counts[current ? 'replaced' : 'added']++;
    } catch (err) {
      counts.refused++;
      if (err instanceof ApiError) reasons.push(`${id}: ${err.body?.detail ?? err.body?.message ?? err.status}`);
    }
  }
  await loadSettings().catch(() => undefined);
  setText($('#setting-admin-note'), tr('app.imported', { ...counts, reasons: reasons.slice(0, 5).join('; ') }));
}

/** The selector back to none, the form's values kept (a deleted setting's included). */
function applyWithoutSetting() {
  $('#predefined').value = '';
  page.baseline = null;
  page.settingName = '';
  page.settingNote = tr('app.settingNote');
  refresh();
}

/** The administrator's buttons: shown to administrators; Delete for a custom setting chosen. */
function renderSettingAdmin() {
  $('#setting-admin').hidden = !isAdmin();
  $('#setting-delete').hidden = !page.custom.has($('#predefined').value);
}

// ---------------------------------------------------------------------------- format tester

/**
 * Runs `run` on the first lines of the first input, showing in the tester's box what it gives,
 * or why it could not: no input, a request too costly (`tooCostly`: what to say), another error.
 */
async function onFirstLines(working, tooCostly, run) {
  const out = $('#tester-out');
  out.replaceChildren(h('p', { class: 'hint' }, working));
  try {
    const logLines = await firstLines();
    if (!logLines) {
      out.replaceChildren(h('p', { class: 'notice warn' }, tr('app.noLines')));
      return;
    }
    out.replaceChildren(...await run(logLines));
  } catch (err) {
    out.replaceChildren(h('p', { class: 'notice bad' }, err instanceof ApiError && err.status === 422 ? tooCostly : messageOf(err)));
  }
}

function testFormat() {
  return onFirstLines(tr('app.testing'), tr('app.testTooCostly'), async (logLines) => {
    const body = { logLines };
    const proxy = $('#proxy').value;
    if (proxy) body.proxy = proxy;
    if ($('#format').value.trim()) body.format = $('#format').value.trim();
    if ($('#date-format').value.trim()) body.dateFormat = $('#date-format').value.trim();
    const r = await api('/api/format/logparser', { method: 'PUT', json: body });
    return renderTest(r, logLines.split('\n')[0], body.dateFormat);
  });
}

/** The predefined settings whose log format reads the first lines, each with a button to choose it. */
function discoverFormat() {
  return onFirstLines(tr('app.discovering'), tr('app.discoverTooCostly'), async (logLines) => {
    const r = await api('/api/format/discover', { method: 'PUT', json: { logLines } });
    if (r.settings.length === 0) {
      return [h('p', { class: 'notice warn', id: 'discover-verdict' }, tr('app.discoverNone', { n: r.tested }))];
    }
    return [
      h('p', { class: 'notice ok', id: 'discover-verdict' }, tr('app.discoverSome', { n: r.settings.length })),
      h('ul', { class: 'discovered' }, r.settings.slice(0, 20).map((s) => h('li', { dataset: { setting: s.id } },
        h('button', { type: 'button', onclick: () => chooseSetting(s.id) }, tr('app.use')), ' ',
        tr('app.discoverItem', { name: s.fullName, country: s.country || tr('app.noCountry'), matching: s.matching, n: r.tested }), h('code', {}, s.format)))),
      ...(r.settings.length > 20 ? [h('p', { class: 'hint' }, tr('app.discoverMore', { n: r.settings.length - 20 }))] : []),
    ];
  });
}

/** Shows only the predefined settings whose name, id or country holds every word typed (accents ignored). */
function filterSettings(query) {
  const fold = (text) => text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
  const words = fold(query).split(/\s+/).filter(Boolean);
  let shown = 0;
  let total = 0;
  for (const group of $('#predefined').querySelectorAll('optgroup')) {
    let inGroup = 0;
    for (const option of group.querySelectorAll('option')) {
      const text = fold(`${option.textContent} ${group.label}`);
      option.hidden = !words.every((w) => text.includes(w));
      total++;
      if (!option.hidden) inGroup++;
    }
    group.hidden = inGroup === 0;
    shown += inGroup;
  }
  setText($('#predefined-count'), words.length ? tr('app.settingsMatch', { shown, total }) : '');
}

function chooseSetting(id) {
  $('#predefined').value = id;
  applySetting(id);
  $('#predefined').focus();
}

function renderTest(r, line, dateFormat) {
  const nodes = [];
  if (r.strictMatch && !r.recognised) {
    // As a job counts lines: the format matches, but a line whose date does not read is rejected (4003).
    const reason = r.ec?.datetime === undefined && r.ec?.timestamp === undefined && r.ec?.epoch === undefined
      ? [tr('app.noDate1'), h('code', {}, '%t'), tr('app.noDate2')]
      : [tr('app.badDate1'), h('code', {}, dateFormat ?? $('#date-format').placeholder), tr('app.badDate2')];
    nodes.push(h('p', { class: 'notice bad', id: 'tester-verdict' }, tr('app.notRecognised1', { proxy: r.proxy }), h('code', {}, r.format),
      tr('app.notRecognised2'), ...reason, tr('app.notRecognised3', { matching: r.lines.matching, tested: r.lines.tested })));
  } else if (r.strictMatch) {
    nodes.push(h('p', { class: 'notice ok', id: 'tester-verdict' }, tr(r.autoDetect ? 'app.recognised' : 'app.formatMatches', { proxy: r.proxy }), h('code', {}, r.format),
      tr('app.linesMatch', { matching: r.lines.matching, tested: r.lines.tested })));
  }
  if (r.strictMatch) {
    if (r.autoDetect && r.recognised) {
      nodes.push(h('button', { type: 'button', onclick: () => { $('#proxy').value = r.proxy; $('#format').value = r.format; refresh(); } }, tr('app.useFormat')));
    }
    if (r.missing.length) nodes.push(h('p', { class: 'notice warn' }, tr('app.missing', { fields: r.missing.join(', ') })));
    nodes.push(h('h3', {}, tr('app.firstEvent')),
      h('table', { class: 'kv' }, h('tbody', {}, Object.entries(r.ec).map(([k, v]) => h('tr', {}, h('td', {}, k), h('td', { class: 'mono' }, String(v)))))));
  } else if (r.autoDetect) {
    nodes.push(h('p', { class: 'notice warn' }, tr('app.noKnownFormat')));
  } else {
    nodes.push(h('p', { class: 'notice bad' }, tr('app.formatBreaks')),
      h('pre', {}, h('mark', {}, line.slice(0, r.breakAt.line)), h('span', { class: 'broken' }, line.slice(r.breakAt.line))),
      h('pre', {}, h('mark', {}, r.formatBreak), h('span', { class: 'broken' }, r.format.slice(r.breakAt.format))));
  }
  return nodes;
}

// ---------------------------------------------------------------------------- the job

const labelOf = (category) => page.rejects.find((r) => r.category === category) ?? { label: category, description: '' };

/** The job's badge: a state of state.* (running, done, failed, aborted) or cancelled. */
function setState(state, kind = '') {
  const badge = $('#job-state');
  setText(badge, tr(state === 'cancelled' ? 'app.cancelledState' : `state.${state}`));
  badge.className = `badge ${kind}`;
}

function showProgress(p) {
  setText($('#fig-lines'), live(() => formatNumber(p.linesRead)));
  setText($('#fig-events'), live(() => formatNumber(p.events)));
  setText($('#fig-denied'), live(() => formatNumber(p.denied)));
  const rejected = Object.entries(p.rejects).filter(([c]) => !labelOf(c).kept).reduce((n, [, v]) => n + v, 0);
  setText($('#fig-rejected'), live(() => formatNumber(rejected)));
  setText($('#fig-speed'), p.linesRead ? tr('app.speed', { n: p.linesPerSecond }) : '–');
  $('#fig-elapsed').textContent = formatDuration(p.elapsedMs);
  const rows = Object.entries(p.rejects).filter(([, n]) => n > 0).sort((a, b) => b[1] - a[1]);
  $('#rejects-table').hidden = rows.length === 0;
  $('#rejects-table tbody').replaceChildren(...rows.map(([c, n]) => h('tr', { dataset: { category: c } },
    h('td', {}, labelOf(c).label), h('td', { class: 'num' }, live(() => formatNumber(n))), h('td', { class: 'hint' }, labelOf(c).description))));
}

function showUpload(loaded, total) {
  const percent = total ? Math.min(100, Math.round((loaded * 100) / total)) : 0;
  $('#upload-bar > div').style.width = `${percent}%`;
  $('#upload-bar').setAttribute('aria-valuenow', String(percent));
  setText($('#fig-sent'), live(() => formatBytes(loaded)));
  if (page.job?.phase === 'upload') setText($('#status-line'), tr('app.sending', { percent, size: () => formatBytes(total) }));
}

/**
 * Links to the job's files; a ticket stands for the login in links (they cannot carry a password).
 * The result is the main action of a job that worked; for one that failed or was cancelled, the
 * report (which says why), the result then only what was written before the end.
 */
function showResult(job, p, ok) {
  const q = p.ticket ? `?ticket=${encodeURIComponent(p.ticket)}` : '';
  const base = `/${job.id}`;
  const links = [];
  if (p.result && ok) links.push(h('a', { class: 'primary', href: `${base}${q}`, id: 'download-result', download: '' }, tr('app.download', { n: p.events })));
  links.push(h('a', { class: ok ? undefined : 'primary', ...reportLink(job.id, p.ticket), id: 'open-report', target: '_blank', rel: 'noopener' }, tr(ok ? 'app.openReport' : 'app.openReportWhy')));
  if (p.result && !ok && p.events > 0) links.push(h('a', { href: `${base}${q}`, id: 'download-result', download: '' }, tr('app.partial', { n: p.events })));
  links.push(h('a', { href: `${base}/job-report.json${q}`, id: 'report-json' }, tr('app.reportJson')));
  links.push(h('a', { href: `${base}/job-traces.log${q}`, id: 'traces' }, tr('app.traces')));
  for (const category of job.rejectFiles) {
    const n = p.rejects[category] ?? 0;
    links.push(h('a', { href: `${base}/lines-${category}.log${q}`, dataset: { rejectFile: category } }, tr('app.rejectFile', { label: labelOf(category).label, n })));
  }
  $('#result-links').replaceChildren(...links);
}

/**
 * The end of the job's traces file (its last 30 lines), while the Traces box is open: what the job
 * says as it goes (files read, formats, alerts), asked by a byte range so that a long job's
 * traces are never read whole.
 */
async function tailTraces(job) {
  if (!$('#live-traces').open) return;
  try {
    const res = await fetch(`/${job.id}/job-traces.log`, { headers: { ...authHeaders(), Range: 'bytes=-8192' } });
    if (!res.ok) return;
    let text = await res.text();
    // a range that starts inside the file starts inside a line
    if (res.status === 206 && !/^bytes 0-/.test(res.headers.get('Content-Range') ?? '')) text = text.slice(text.indexOf('\n') + 1);
    $('#traces-tail').textContent = text.split('\n').filter(Boolean).slice(-30).join('\n');
  } catch (err) {
    console.warn('traces', err);
  }
}

async function poll(job) {
  try {
    const p = await api(`/api/jobs/${job.id}/progress`);
    job.last = p;
    showProgress(p);
    void tailTraces(job);
    if (p.running && job.phase !== 'upload') setText($('#status-line'), tr('app.processingLast'));
    if (!p.running && p.state !== 'done' && job.phase !== 'ended' && !job.ended && !job.cancelled) {
      // The job failed or was aborted while files were still going: sending the rest is for
      // nothing (the answer comes only once all is sent), so stop now and say why.
      job.ended = p;
      job.xhr?.abort();
    }
    return p;
  } catch (err) {
    if (!(err instanceof ApiError && err.status === 404)) console.warn('progress', err);
    return undefined;
  }
}

/**
 * The job's progress once it has ended: a cancelled upload's job records its end a moment after
 * the connection closes, and a progress still saying "running" would show no partial result.
 */
async function finalProgress(job) {
  let p = await poll(job);
  for (let i = 0; i < 40 && p?.running; i++) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    p = await poll(job);
  }
  return p;
}

function finish(job, outcome) {
  clearInterval(job.timer);
  page.job = null;
  $('#cancel').hidden = true;
  $('#again').hidden = false;
  const bar = $('#upload-bar');
  bar.classList.toggle('done', outcome.ok);
  bar.classList.toggle('failed', !outcome.ok);
  if (outcome.ok) {
    $('#upload-bar > div').style.width = '100%';
    setState('done', 'ok');
    setText($('#status-line'), tr('app.finished', { lines: outcome.progress.linesRead, events: outcome.progress.events }));
  } else {
    setState(outcome.cancelled ? 'cancelled' : 'failed', outcome.cancelled ? 'warn' : 'bad');
    setText($('#status-line'), tr(outcome.cancelled ? 'app.cancelled' : 'app.failed'));
    setText($('#job-error'), outcome.message ?? '');
  }
  if (outcome.progress) showResult(job, outcome.progress, outcome.ok);
  void tailTraces(job);
  refresh();
  void loadHistory();
}

/** The logged user's last jobs, with links to their reports; hidden without a login. */
async function loadHistory() {
  const user = currentUser();
  $('#history').hidden = !user;
  if (!user) {
    $('#history-table tbody').replaceChildren();
    return;
  }
  try {
    const jobs = await api(`/api/jobs/${encodeURIComponent(user.username)}?limit=10`);
    $('#history-empty').hidden = jobs.length > 0;
    setText($('#history-empty'), tr('history.none'));
    $('#history-table tbody').replaceChildren(...historyRows(jobs));
  } catch (err) {
    $('#history-empty').hidden = false;
    setText($('#history-empty'), messageOf(err));
  }
}

async function start() {
  const files = inputs();
  if (!files.length || page.job) return;
  if (page.app?.jobsNeedLogin && !currentUser()) {
    openLogin('app.loginToProcess');
    return;
  }
  const headers = jobHeaders();
  const rejectFiles = (headers['Reject-Files'] ?? '') === 'all' ? page.rejects.map((r) => r.category) : (headers['Reject-Files'] ?? '').split(',').filter(Boolean);
  const job = { id: uuid(), phase: 'upload', rejectFiles, cancelled: false };
  page.job = job;
  page.shownJob = job;
  const total = files.reduce((n, f) => n + f.size, 0);
  $('#step-progress').hidden = false;
  $('#job-id').textContent = job.id;
  $('#traces-tail').textContent = '';
  $('#job-error').textContent = '';
  $('#result-links').replaceChildren();
  $('#cancel').hidden = false;
  $('#again').hidden = true;
  $('#upload-bar').classList.remove('done', 'failed');
  setState('running');
  showUpload(0, total);
  showProgress({ linesRead: 0, events: 0, denied: 0, rejects: {}, linesPerSecond: 0, elapsedMs: 0 });
  $('#step-progress').scrollIntoView({ behavior: 'smooth', block: 'start' });
  refresh();

  // Multipart of File parts: the browser streams them from disk.
  const form = new FormData();
  for (const f of files) form.append('files[]', f, f.name);
  const xhr = new XMLHttpRequest();
  job.xhr = xhr;
  xhr.open('PUT', `/${job.id}`);
  for (const [k, v] of Object.entries({ ...headers, ...authHeaders() })) xhr.setRequestHeader(k, v);
  xhr.upload.addEventListener('progress', (e) => showUpload(e.loaded, e.lengthComputable ? e.total : total));
  xhr.upload.addEventListener('load', () => {
    job.phase = 'processing';
    showUpload(total, total);
    setText($('#status-line'), tr('app.allSent'));
  });
  job.timer = setInterval(() => void poll(job), 1000);
  const ended = new Promise((resolve) => xhr.addEventListener('loadend', resolve));
  xhr.send(form);
  await ended;
  job.phase = 'ended';
  if (job.ended) return finish(job, { ok: false, message: endedMessage(job.ended), progress: job.ended });
  const progress = await finalProgress(job);
  if (job.cancelled) return finish(job, { ok: false, cancelled: true, progress });
  let body = null;
  try {
    body = JSON.parse(xhr.responseText);
  } catch { /* the heartbeat dots of a deferred job */ }
  if (xhr.status === 401) {
    finish(job, { ok: false, message: tr('app.loginNeeded'), progress: undefined });
    openLogin('app.loginToProcess');
    return;
  }
  if (xhr.status !== 200) {
    return finish(job, { ok: false, message: body?.message ? raw(body.message) : tr('app.answered', { status: xhr.status ? String(xhr.status) : tr('app.nothing') }), progress });
  }
  const ok = progress && progress.state === 'done';
  finish(job, { ok, message: progress ? endedMessage(progress) : undefined, progress });
}

/** Why a job ended that did not end well, from its progress. */
function endedMessage(p) {
  if (p.status) return raw(`${p.status.code}: ${p.status.message}`);
  return p.state === 'aborted' ? tr('app.aborted') : p.state === 'done' ? undefined : tr('app.ended', { state: p.state });
}

function cancel() {
  const job = page.job;
  if (!job) return;
  job.cancelled = true;
  job.xhr?.abort();
}

// ---------------------------------------------------------------------------- start-up

/** The predefined settings (and which are custom), into the selector: custom ones first, then by country. */
async function loadSettings() {
  const [settings, listed] = await Promise.all([api('/info/predefined-settings'), api('/info/predefined-settings/custom').catch(() => [])]);
  page.settings = settings;
  page.custom = new Set(listed.filter((s) => s.source === 'custom').map((s) => s.id));
  const groups = new Map();
  const option = (id, s) => h('option', { value: id }, `${s.fullName} (${id}${s.country ? `, ${s.country}` : ''})`);
  const custom = [];
  for (const [id, s] of Object.entries(settings)) {
    if (page.custom.has(id)) {
      custom.push(option(id, s));
      continue;
    }
    const key = s.country || t('app.otherCountry');
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(h('option', { value: id }, `${s.fullName} (${id})`));
  }
  const select = $('#predefined');
  const chosen = select.value;
  select.replaceChildren(h('option', { value: '' }, tr('app.noSetting')),
    custom.length ? h('optgroup', { label: tr('app.customSettings') }, custom) : null,
    ...[...groups.keys()].sort().map((g) => h('optgroup', { label: g }, groups.get(g))));
  select.value = Object.hasOwn(settings, chosen) ? chosen : '';
  filterSettings($('#predefined-search').value);
}

async function load() {
  const [app, rejects, platforms] = await Promise.all([
    api('/info/app'), api('/info/rejects'), api('/info/platforms').catch(() => []), loadSettings(),
  ]);
  page.app = app;
  page.rejects = rejects;
  const showLoginNeeded = () => { $('#login-needed').hidden = !(app.jobsNeedLogin && !currentUser()); };
  showLoginNeeded();
  onSessionChange(() => { showLoginNeeded(); refresh(); void loadHistory(); });
  void loadHistory();

  $('#force-parser').append(...platforms.map((p) => h('option', { value: p.name }, `${p.longname ?? p.name} (${p.name})`)));
  $('#reject-choices').replaceChildren(...rejects.filter((r) => !r.kept).map((r) => h('label', { title: r.description },
    h('input', { type: 'checkbox', value: r.category, name: 'reject' }), r.label)));
}

setupLogin();
setupDropzone();
$('#predefined').addEventListener('change', (e) => applySetting(e.target.value));
$('#predefined-search').addEventListener('input', (e) => filterSettings(e.target.value));
$('#predefined-reset').addEventListener('click', () => {
  applySetting($('#predefined').value);
  $('#predefined').focus();
});
$('#step-settings').addEventListener('input', refresh);
$('#step-settings').addEventListener('change', refresh);
$('#setting-save-open').addEventListener('click', openSaveDialog);
$('#setting-form').addEventListener('submit', (e) => void saveSetting(e));
$('#setting-cancel').addEventListener('click', () => $('#setting-dialog').close());
$('#setting-delete').addEventListener('click', () => void deleteSetting());
$('#settings-export').addEventListener('click', exportSettings);
$('#settings-import-open').addEventListener('click', () => $('#settings-import').click());
$('#settings-import').addEventListener('change', (e) => {
  const [file] = e.target.files;
  e.target.value = '';
  if (file) void importSettings(file);
});
$('#test-format').addEventListener('click', () => void testFormat());
$('#discover-format').addEventListener('click', () => void discoverFormat());
$('#live-traces').addEventListener('toggle', () => { if (page.shownJob) void tailTraces(page.shownJob); });
$('#start').addEventListener('click', () => void start());
$('#cancel').addEventListener('click', cancel);
$('#again').addEventListener('click', () => {
  $('#step-progress').hidden = true;
  page.files = [];
  $('#paste').value = '';
  renderFiles();
  $('#step-files').scrollIntoView({ behavior: 'smooth' });
});
// the settings' groups ("Other"), the format's placeholder, the figures of a job are written when they are drawn
onLanguageChange(() => {
  refresh();
  if (page.shownJob?.last && !page.job) showProgress(page.shownJob.last);
  void loadSettings().then(refresh, () => undefined);
});
$('#login-needed-open').addEventListener('click', () => openLogin('app.loginToProcess'));
load().then(refresh, (err) => {
  setText($('#start-hint'), tr('app.noAnswer', { error: messageOf(err) }));
});
