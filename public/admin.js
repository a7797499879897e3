// The administration page: usage, running jobs, users, and the status and update of the four
// parts, all through the REST routes with the administrator's credentials from the login box.
import { $, h, api, currentUser, formatBytes, formatNumber, historyRows, live, messageOf, onSessionChange, openLogin, setText, setupLogin, t, tr } from './common.js';
import { formatDate, formatDateTime, formatTime, lang, onLanguageChange } from './i18n.js';
import { barChart, columnChart } from './charts.js';

const PARTS = ['app', 'platforms', 'middlewares', 'resources'];
/** A part's name (`admin.partApp`…), and in a sentence (`admin.partAppLower`…). */
const partName = (part, lower = false) => tr(`admin.part${part[0].toUpperCase()}${part.slice(1)}${lower ? 'Lower' : ''}`);
const timers = { jobs: 0, log: 0, runningIds: undefined };

const say = (id, text, kind = '') => {
  const el = $(id);
  setText(el, text);
  el.className = `notice ${kind}`;
};

// ---------------------------------------------------------------------------- usage

async function loadUsage() {
  const u = await api('/info/usage?days=30&top=10');
  const g = u.general;
  setText($('#usage-since'), tr('admin.since', { date: u.since }));
  const figure = (label, value) => h('div', { class: 'figure' }, h('dt', {}, label), h('dd', {}, value));
  $('#usage-figures').replaceChildren(
    figure(tr('admin.figJobs'), live(() => formatNumber(g['Job-IDs']))),
    figure(tr('admin.figLines'), live(() => formatNumber(g['nb-lines-input-total']))),
    figure(tr('admin.figEvents'), live(() => formatNumber(g['nb-ecs-total']))),
    figure(tr('admin.figRate'), tr('admin.percent', { n: () => (lang() === 'fr' ? String(g['Rejection-Rate-average']).replace('.', ',') : g['Rejection-Rate-average']) })),
    figure(tr('admin.figBytes'), live(() => formatBytes(g['bytes-total']))),
  );
  const days = [];
  for (let i = 29; i >= 0; i--) {
    const day = new Date(Date.now() - i * 86_400_000).toISOString().slice(0, 10);
    days.push({ label: day, value: u.days.find((d) => d.day === day)?.events ?? 0 });
  }
  $('#usage-days').replaceChildren(columnChart(days));
  $('#usage-platforms').replaceChildren(u.platforms.length
    ? barChart(u.platforms.map((p) => ({ label: p.platform, value: p.events })))
    : h('p', { class: 'hint' }, tr('admin.noEvent')));
}

// ---------------------------------------------------------------------------- jobs

async function loadHistory() {
  try {
    const jobs = await api('/api/jobs?limit=20');
    $('#history-empty').hidden = jobs.length > 0;
    $('#history-table tbody').replaceChildren(...historyRows(jobs, { withUser: true }));
  } catch (err) {
    $('#history-empty').hidden = false;
    setText($('#history-empty'), messageOf(err));
  }
}

async function loadJobs() {
  try {
    const jobs = await api('/api/admin/jobs?details=1');
    // a job started or ended: the history has news
    const ids = jobs.map((j) => j.id).join();
    if (ids !== timers.runningIds) {
      timers.runningIds = ids;
      void loadHistory();
    }
    $('#jobs-empty').hidden = jobs.length > 0;
    $('#jobs-table tbody').replaceChildren(...jobs.map((j) => h('tr', { dataset: { job: j.id } },
      h('td', { class: 'mono' }, j.id.slice(0, 8)),
      h('td', {}, j.user ?? tr('anonymous')),
      h('td', {}, live(() => formatTime(j.startedAt))),
      h('td', { class: 'num' }, live(() => formatBytes(j.bytesRead))),
      h('td', { class: 'num' }, live(() => formatNumber(j.linesRead))),
      h('td', { class: 'num' }, live(() => formatNumber(j.events))),
      h('td', { class: 'num' }, live(() => formatNumber(Object.values(j.rejects).reduce((a, b) => a + b, 0)))),
      h('td', {}, h('button', { type: 'button', class: 'link', 'aria-label': tr('admin.stopJob', { id: j.id.slice(0, 8) }), onclick: (e) => void stopJob(e.currentTarget, j) }, tr('admin.stop'))),
    )));
  } catch (err) {
    $('#jobs-empty').hidden = false;
    setText($('#jobs-empty'), messageOf(err));
  }
}

/** Stops one job (its client is told, 5006): the way out of a job held open for ever. */
async function stopJob(button, job) {
  if (!confirm(t('admin.stopConfirm', { id: job.id.slice(0, 8), user: job.user ?? tr('admin.anonymousClient') }))) return;
  button.disabled = true;
  try {
    await api(`/api/admin/jobs/${encodeURIComponent(job.id)}`, { method: 'DELETE' });
    say('#jobs-message', tr('admin.stopped', { id: job.id.slice(0, 8) }), 'ok');
  } catch (err) {
    say('#jobs-message', messageOf(err), 'bad');
  }
  await loadJobs();
}

// ---------------------------------------------------------------------------- users

async function loadUsers() {
  const users = await api('/api/admin/users');
  const me = currentUser();
  $('#users-table tbody').replaceChildren(...users.map((u) => {
    const other = u.group === 'admin' ? 'user' : 'admin';
    const actions = [];
    if (!u.founder && u.username !== me?.username) {
      actions.push(h('button', { type: 'button', class: 'link', onclick: (e) => act(e.currentTarget, tr('admin.changingGroup', { user: u.username }), tr('admin.groupChanged', { user: u.username }), () => api(`/api/admin/users/${encodeURIComponent(u.username)}`, { method: 'POST', json: { group: other } })) }, tr(other === 'admin' ? 'admin.makeAdmin' : 'admin.makeUser')));
    }
    actions.push(h('button', { type: 'button', class: 'link', onclick: (e) => resetPassword(e.currentTarget, u.username) }, tr('admin.newPassword')));
    if (!u.founder && u.username !== me?.username) {
      actions.push(h('button', { type: 'button', class: 'link danger', onclick: (e) => {
        const button = e.currentTarget;
        if (confirm(t('admin.deleteConfirm', { user: u.username }))) void act(button, tr('admin.deleting', { user: u.username }), tr('admin.deleted', { user: u.username }), () => api(`/api/admin/users/${encodeURIComponent(u.username)}`, { method: 'DELETE' }));
      } }, tr('admin.delete')));
    }
    return h('tr', { dataset: { user: u.username } },
      h('td', {}, u.username, u.founder ? h('span', { class: 'badge' }, tr('admin.founder')) : null),
      h('td', {}, tr(u.group === 'admin' ? 'admin.groupAdmin' : 'admin.groupUser')),
      h('td', {}, live(() => formatDate(u.createdAt))),
      h('td', { class: 'row' }, actions));
  }));
}

/**
 * Runs a request of the users' card: its button disabled and the message saying what is under
 * way until the answer (an account's password takes argon2 about a second), then what happened.
 */
async function busy(button, doing, run) {
  if (button.disabled) return;
  button.disabled = true;
  button.setAttribute('aria-busy', 'true');
  say('#users-message', doing, 'busy');
  try {
    await run();
  } catch (err) {
    say('#users-message', messageOf(err), 'bad');
  } finally {
    button.disabled = false;
    button.removeAttribute('aria-busy');
  }
}

async function act(button, doing, done, call) {
  await busy(button, doing, async () => {
    await call();
    say('#users-message', done, 'ok');
  });
  await loadUsers().catch(() => undefined);
}

async function resetPassword(button, username) {
  await busy(button, tr('admin.settingPassword', { user: username }), async () => {
    const r = await api(`/api/admin/passwords/${encodeURIComponent(username)}`, { method: 'POST' });
    const box = $('#users-message');
    box.className = 'notice ok';
    box.replaceChildren(...h('span', {}, tr('admin.newPassword1', { user: r.username }), h('code', { id: 'new-password' }, r.password), tr('admin.newPassword2')).childNodes);
  });
}

function setupUserForm() {
  const form = $('#user-form');
  const button = form.querySelector('button[type="submit"]');
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const body = Object.fromEntries(new FormData(form));
    await act(button, tr('admin.adding', { user: body.userid }), tr('admin.added', { user: body.userid }), async () => {
      await api('/api/admin/users', { method: 'POST', json: body });
      form.reset();
    });
  });
}

// ---------------------------------------------------------------------------- updates

const STATE_TEXT = { uptodate: [tr('admin.uptodate'), 'ok'], outdated: [tr('admin.outdated'), 'warn'], upward: [tr('admin.upward'), ''] };

function describe(record) {
  if (!record['is-git-repo']) return [h('p', {}, tr('admin.notGit', { version: record.current ?? '?' }))];
  // Without an origin the comparison is with the part itself: say so rather than "up to date".
  // Nor when the origin could not be asked: the comparison is then with what an earlier fetch left, if any.
  const [text, kind] = !record.origin ? [tr('admin.noOrigin'), 'warn']
    : record.error ? [tr('admin.checkFailed'), 'bad']
      : !record.fetchedAt ? [tr('admin.notChecked'), 'warn']
        : STATE_TEXT[record['from-head']] ?? [record['from-head'] ?? tr('admin.unknown'), ''];
  const yesNo = (value) => tr(value ? 'admin.yes' : 'admin.no');
  const rows = [
    ['installed', record.current], ['origin', record.head], ['latestRelease', record.tag || '—'], ['branch', record.branch],
    ['localChanges', yesNo(record['local-changes'])], ['localCommits', yesNo(record['local-commits'])],
    ['originUrl', record.origin ?? tr('admin.noneConfigured')], ['lastCheck', record.fetchedAt ? live(() => formatDateTime(record.fetchedAt)) : tr('admin.never')],
  ];
  return [
    h('p', {}, h('span', { class: `badge ${kind}` }, text), record.updating ? h('span', { class: 'badge warn' }, tr('admin.updating')) : null),
    record.error ? h('p', { class: `notice ${record.origin ? 'bad' : 'warn'}` }, record.origin ? tr('admin.originFailed', { error: record.error }) : record.error) : null,
    record.buildPending ? h('p', { class: 'notice warn' }, tr('admin.buildPending', { oid: record.buildPending.slice(0, 7) })) : null,
    record.reloadNeeded ? h('p', { class: 'notice warn' }, tr('admin.reloadNeeded', { loaded: record.loadedOid.slice(0, 7), head: record.headOid.slice(0, 7) })) : null,
    h('table', { class: 'kv' }, h('tbody', {}, rows.map(([k, v]) => h('tr', {}, h('td', {}, tr(`admin.${k}`)), h('td', { class: 'mono' }, v ?? '—'))))),
  ];
}

async function loadPart(part, refresh = false) {
  const box = $(`#part-${part} .status`);
  box.replaceChildren(h('p', { class: 'hint' }, tr(refresh ? 'admin.asking' : 'admin.reading')));
  try {
    // describe() leaves null where a part has nothing to say: replaceChildren would write "null"
    box.replaceChildren(...describe(await api(`/api/admin/${part}/status${refresh ? '?refresh=1' : ''}`)).filter((n) => n !== null));
  } catch (err) {
    box.replaceChildren(h('p', { class: 'notice bad' }, messageOf(err)));
  }
}

async function update(part) {
  const force = $(`#part-${part} input[name="force"]`).checked;
  const query = new URLSearchParams();
  if (force) query.set('force', 'yes');
  if (part === 'app') query.set('version', $('#part-app select[name="version"]').value);
  if (!confirm(part === 'app' ? t('admin.updateAppConfirm') : t('admin.updateConfirm', { part: partName(part, true) }))) return;
  say('#updates-message', tr('admin.updatingPart', { part: partName(part, true) }));
  try {
    await api(`/api/admin/${part}/status?${query}`, { method: 'PUT', json: { to: 'uptodate' } });
    say('#updates-message', part === 'app' ? tr('admin.appUpdateStarted') : tr('admin.partUpdated', { part: partName(part) }), 'ok');
    if (part === 'app') followLog(0);
  } catch (err) {
    say('#updates-message', messageOf(err), 'bad');
  }
  await loadPart(part);
}

async function followLog(since) {
  clearTimeout(timers.log);
  const pre = $('#update-log');
  pre.hidden = false;
  try {
    const log = await api(`/api/admin/app/update-log?since=${since}`);
    pre.textContent += log.lines.map((l) => `${l}\n`).join('');
    // `offset` is the number of the first line sent: the next question starts after the last one
    if (log.state === 'running') timers.log = setTimeout(() => followLog(log.offset + log.lines.length), 1000);
    else say('#updates-message', tr('admin.updateState', { state: log.state, error: log.error ?? '' }), log.state === 'failed' ? 'bad' : 'ok');
  } catch {
    // The service restarts at the end of an update: the log stops answering for a while.
    timers.log = setTimeout(() => followLog(since), 2000);
  }
}

function setupParts() {
  $('#parts').replaceChildren(...PARTS.map((part) => h('fieldset', { id: `part-${part}` },
    h('legend', {}, partName(part)),
    h('div', { class: 'status' }),
    h('div', { class: 'row' },
      h('button', { type: 'button', onclick: () => loadPart(part, true) }, tr('admin.check')),
      part === 'app' ? h('select', { name: 'version', 'aria-label': tr('admin.version') }, h('option', { value: 'stable' }, tr('admin.latestReleaseOption')), h('option', { value: 'latest' }, tr('admin.latestCommit'))) : null,
      h('label', { class: 'hint' }, h('input', { type: 'checkbox', name: 'force' }), tr('admin.discard')),
      h('button', { type: 'button', class: 'primary', onclick: () => update(part) }, tr('admin.update'))),
  )));
}

// ---------------------------------------------------------------------------- start-up

async function show(user) {
  clearInterval(timers.jobs);
  timers.runningIds = undefined;
  const admin = user?.group === 'admin';
  $('#admin').hidden = !admin;
  $('#gate').hidden = admin;
  setText($('#gate-text'), user ? tr('admin.notAdmin', { user: user.username }) : tr('admin.gate'));
  if (!admin) return;
  await Promise.all([loadUsage(), loadJobs(), loadUsers(), ...PARTS.map((p) => loadPart(p))].map((p) => p.catch((err) => console.warn(err))));
  timers.jobs = setInterval(() => void loadJobs(), 2000);
}

setupLogin();
setupUserForm();
setupParts();
$('#gate-login').addEventListener('click', () => openLogin('admin.loginReason'));
onSessionChange((user) => void show(user));
// the charts' numbers are written when they are drawn
onLanguageChange(() => { if (currentUser()?.group === 'admin') void loadUsage().catch((err) => console.warn(err)); });
void show(currentUser());
