// The administration page: usage, running jobs, users, and the status and update of the four
// parts, all through the REST routes with the administrator's credentials from the login box.
import { $, h, api, currentUser, formatBytes, formatNumber, historyRows, messageOf, onSessionChange, openLogin, setupLogin } from './common.js';
import { barChart, columnChart } from './charts.js';

const PARTS = ['app', 'platforms', 'middlewares', 'resources'];
const PART_NAMES = { app: 'The service', platforms: 'Platforms', middlewares: 'Middlewares', resources: 'Resources' };
const timers = { jobs: 0, log: 0, runningIds: undefined };

const say = (id, text, kind = '') => {
  const el = $(id);
  el.textContent = text;
  el.className = `notice ${kind}`;
};

// ---------------------------------------------------------------------------- usage

async function loadUsage() {
  const u = await api('/info/usage?days=30&top=10');
  const g = u.general;
  $('#usage-since').textContent = `since ${u.since}`;
  const figure = (label, value) => h('div', { class: 'figure' }, h('dt', {}, label), h('dd', {}, value));
  $('#usage-figures').replaceChildren(
    figure('Jobs', formatNumber(g['Job-IDs'])),
    figure('Lines read', formatNumber(g['nb-lines-input-total'])),
    figure('Events', formatNumber(g['nb-ecs-total'])),
    figure('Rejection rate', `${g['Rejection-Rate-average']} %`),
    figure('Data read', formatBytes(g['bytes-total'])),
  );
  const days = [];
  for (let i = 29; i >= 0; i--) {
    const day = new Date(Date.now() - i * 86_400_000).toISOString().slice(0, 10);
    days.push({ label: day, value: u.days.find((d) => d.day === day)?.events ?? 0 });
  }
  $('#usage-days').replaceChildren(columnChart(days));
  $('#usage-platforms').replaceChildren(u.platforms.length
    ? barChart(u.platforms.map((p) => ({ label: p.platform, value: p.events })))
    : h('p', { class: 'hint' }, 'No event yet.'));
}

// ---------------------------------------------------------------------------- jobs

async function loadHistory() {
  try {
    const jobs = await api('/api/jobs?limit=20');
    $('#history-empty').hidden = jobs.length > 0;
    $('#history-table tbody').replaceChildren(...historyRows(jobs, { withUser: true }));
  } catch (err) {
    $('#history-empty').hidden = false;
    $('#history-empty').textContent = messageOf(err);
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
      h('td', {}, j.user ?? 'anonymous'),
      h('td', {}, new Date(j.startedAt).toLocaleTimeString()),
      h('td', { class: 'num' }, formatBytes(j.bytesRead)),
      h('td', { class: 'num' }, formatNumber(j.linesRead)),
      h('td', { class: 'num' }, formatNumber(j.events)),
      h('td', { class: 'num' }, formatNumber(Object.values(j.rejects).reduce((a, b) => a + b, 0))),
      h('td', {}, h('button', { type: 'button', class: 'link', 'aria-label': `Stop job ${j.id.slice(0, 8)}`, onclick: (e) => void stopJob(e.currentTarget, j) }, 'Stop')),
    )));
  } catch (err) {
    $('#jobs-empty').hidden = false;
    $('#jobs-empty').textContent = messageOf(err);
  }
}

/** Stops one job (its client is told, 5006): the way out of a job held open for ever. */
async function stopJob(button, job) {
  if (!confirm(`Stop job ${job.id.slice(0, 8)} of ${job.user ?? 'an anonymous client'}? Its client gets an error (5006) after the events sent so far.`)) return;
  button.disabled = true;
  try {
    await api(`/api/admin/jobs/${encodeURIComponent(job.id)}`, { method: 'DELETE' });
    say('#jobs-message', `Job ${job.id.slice(0, 8)} stopped.`, 'ok');
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
      actions.push(h('button', { type: 'button', class: 'link', onclick: (e) => act(e.currentTarget, `Changing the group of ${u.username}…`, `Group of ${u.username} changed.`, () => api(`/api/admin/users/${encodeURIComponent(u.username)}`, { method: 'POST', json: { group: other } })) }, `Make ${other}`));
    }
    actions.push(h('button', { type: 'button', class: 'link', onclick: (e) => resetPassword(e.currentTarget, u.username) }, 'New password'));
    if (!u.founder && u.username !== me?.username) {
      actions.push(h('button', { type: 'button', class: 'link danger', onclick: (e) => {
        const button = e.currentTarget;
        if (confirm(`Delete ${u.username}?`)) void act(button, `Deleting ${u.username}…`, `${u.username} deleted.`, () => api(`/api/admin/users/${encodeURIComponent(u.username)}`, { method: 'DELETE' }));
      } }, 'Delete'));
    }
    return h('tr', { dataset: { user: u.username } },
      h('td', {}, u.username, u.founder ? h('span', { class: 'badge' }, ' founder') : null),
      h('td', {}, u.group === 'admin' ? 'Administrator' : 'User'),
      h('td', {}, new Date(u.createdAt).toLocaleDateString()),
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
  await busy(button, `Setting a new password for ${username}…`, async () => {
    const r = await api(`/api/admin/passwords/${encodeURIComponent(username)}`, { method: 'POST' });
    const box = $('#users-message');
    box.className = 'notice ok';
    box.replaceChildren(`New password of ${r.username}: `, h('code', { id: 'new-password' }, r.password), ' — give it to them now, it is not shown again.');
  });
}

function setupUserForm() {
  const form = $('#user-form');
  const button = form.querySelector('button[type="submit"]');
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const body = Object.fromEntries(new FormData(form));
    await act(button, `Adding ${body.userid}…`, `${body.userid} added.`, async () => {
      await api('/api/admin/users', { method: 'POST', json: body });
      form.reset();
    });
  });
}

// ---------------------------------------------------------------------------- updates

const STATE_TEXT = { uptodate: ['up to date', 'ok'], outdated: ['an update is available', 'warn'], upward: ['ahead of the latest release', ''] };

function describe(record) {
  if (!record['is-git-repo']) return [h('p', {}, `Version ${record.current ?? '?'} (not a git checkout: update the package or the image).`)];
  // Without an origin the comparison is with the part itself: say so rather than "up to date".
  // Nor when the origin could not be asked: the comparison is then with what an earlier fetch left, if any.
  const [text, kind] = !record.origin ? ['no origin to compare with', 'warn']
    : record.error ? ['could not check', 'bad']
      : !record.fetchedAt ? ['not checked yet', 'warn']
        : STATE_TEXT[record['from-head']] ?? [record['from-head'] ?? 'unknown', ''];
  const rows = [
    ['Installed', record.current], ['Origin', record.head], ['Latest release', record.tag || '—'], ['Branch', record.branch],
    ['Local changes', record['local-changes'] ? 'yes' : 'no'], ['Local commits', record['local-commits'] ? 'yes' : 'no'],
    ['Origin URL', record.origin ?? 'none configured'], ['Last check', record.fetchedAt ? new Date(record.fetchedAt).toLocaleString() : 'never'],
  ];
  return [
    h('p', {}, h('span', { class: `badge ${kind}` }, text), record.updating ? h('span', { class: 'badge warn' }, ' updating') : null),
    record.error ? h('p', { class: `notice ${record.origin ? 'bad' : 'warn'}` }, record.origin ? `The origin could not be asked: ${record.error}` : record.error) : null,
    record.buildPending ? h('p', { class: 'notice warn' }, `The install and build of ${record.buildPending.slice(0, 7)} did not complete (an update cut off): update again to run them.`) : null,
    record.reloadNeeded ? h('p', { class: 'notice warn' }, `The folder changed under the service (it runs ${record.loadedOid.slice(0, 7)}, the folder is at ${record.headOid.slice(0, 7)}): update to read it again.`) : null,
    h('table', { class: 'kv' }, h('tbody', {}, rows.map(([k, v]) => h('tr', {}, h('td', {}, k), h('td', { class: 'mono' }, v ?? '—'))))),
  ];
}

async function loadPart(part, refresh = false) {
  const box = $(`#part-${part} .status`);
  box.replaceChildren(h('p', { class: 'hint' }, refresh ? 'Asking the origin…' : 'Reading…'));
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
  if (!confirm(part === 'app' ? 'Update the service? It restarts once running jobs have ended.' : `Update ${PART_NAMES[part].toLowerCase()}?`)) return;
  say('#updates-message', `Updating ${PART_NAMES[part].toLowerCase()}…`);
  try {
    await api(`/api/admin/${part}/status?${query}`, { method: 'PUT', json: { to: 'uptodate' } });
    say('#updates-message', part === 'app' ? 'The update started; its log follows.' : `${PART_NAMES[part]} updated.`, 'ok');
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
    else say('#updates-message', `Update: ${log.state}${log.error ? ` (${log.error})` : ''}`, log.state === 'failed' ? 'bad' : 'ok');
  } catch {
    // The service restarts at the end of an update: the log stops answering for a while.
    timers.log = setTimeout(() => followLog(since), 2000);
  }
}

function setupParts() {
  $('#parts').replaceChildren(...PARTS.map((part) => h('fieldset', { id: `part-${part}` },
    h('legend', {}, PART_NAMES[part]),
    h('div', { class: 'status' }),
    h('div', { class: 'row' },
      h('button', { type: 'button', onclick: () => loadPart(part, true) }, 'Check'),
      part === 'app' ? h('select', { name: 'version', 'aria-label': 'Version' }, h('option', { value: 'stable' }, 'latest release'), h('option', { value: 'latest' }, 'latest commit')) : null,
      h('label', { class: 'hint' }, h('input', { type: 'checkbox', name: 'force' }), 'discard local changes'),
      h('button', { type: 'button', class: 'primary', onclick: () => update(part) }, 'Update')),
  )));
}

// ---------------------------------------------------------------------------- start-up

async function show(user) {
  clearInterval(timers.jobs);
  timers.runningIds = undefined;
  const admin = user?.group === 'admin';
  $('#admin').hidden = !admin;
  $('#gate').hidden = admin;
  $('#gate-text').textContent = user ? `${user.username} is not an administrator.` : "Log in with an administrator's address and password.";
  if (!admin) return;
  await Promise.all([loadUsage(), loadJobs(), loadUsers(), ...PARTS.map((p) => loadPart(p))].map((p) => p.catch((err) => console.warn(err))));
  timers.jobs = setInterval(() => void loadJobs(), 2000);
}

setupLogin();
setupUserForm();
setupParts();
$('#gate-login').addEventListener('click', () => openLogin('The administration needs an administrator.'));
onSessionChange((user) => void show(user));
void show(currentUser());
