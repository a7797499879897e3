// Shared by the pages: DOM building without HTML strings, API calls with the credentials of the
// login box (kept in memory only: closing the tab forgets them), number formatting, the language.
import {
  Msg, formatBytes, formatDateTime, formatNumber, lang, live, raw, setAttr, setLanguage, setText, setupLanguageSwitch, t, textNode, tr,
} from './i18n.js';

export { formatBytes, formatNumber, live, raw, setText, t, tr };

/**
 * The attributes of a link to a job's HTML report in the pages' language (`?lang=`, which the
 * report takes before the browser's Accept-Language), kept to the language of the moment it is
 * followed; `ticket` stands for the login.
 */
export function reportLink(jobId, ticket) {
  const href = () => {
    const params = new URLSearchParams();
    if (ticket) params.set('ticket', ticket);
    params.set('lang', lang());
    return `/${jobId}/job-report.html?${params}`;
  };
  const follow = (e) => { e.currentTarget.href = href(); };
  return { href: href(), onclick: follow, onauxclick: follow };
}

/** Builds an element; children are nodes or text (never parsed as HTML). */
export function h(tag, attrs = {}, ...children) {
  const svg = tag.startsWith('svg:');
  const node = svg ? document.createElementNS('http://www.w3.org/2000/svg', tag.slice(4)) : document.createElement(tag);
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (value instanceof Msg) setAttr(node, name, value);
    else if (name.startsWith('on') && typeof value === 'function') node.addEventListener(name.slice(2), value);
    else if (name === 'dataset') Object.assign(node.dataset, value);
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : child instanceof Msg ? textNode(child) : document.createTextNode(String(child)));
  }
  return node;
}

export const $ = (selector, root = document) => root.querySelector(selector);


export function formatDuration(ms) {
  let s = Math.round((Number(ms) || 0) / 1000);
  const hours = Math.floor(s / 3600);
  s -= hours * 3600;
  const minutes = Math.floor(s / 60);
  s -= minutes * 60;
  if (hours) return `${hours} h ${minutes} min`;
  if (minutes) return `${minutes} min ${s} s`;
  return `${s} s`;
}

const STATES = ['running', 'done', 'failed', 'aborted', 'interrupted'];

/**
 * Rows of a job history (GET /api/jobs…): when, state, counts and a link to the report, opened
 * with the job's ticket (a link cannot carry the password). `withUser`: a column for the submitter.
 */
export function historyRows(jobs, { withUser = false } = {}) {
  return jobs.map((j) => {
    const started = new Date(j.createdAt);
    return h('tr', { dataset: { job: j.jobId } },
      h('td', { class: 'mono' }, j.jobId.slice(0, 8)),
      withUser ? h('td', {}, j.userId ?? tr('anonymous')) : null,
      h('td', {}, h('time', { datetime: j.createdAt }, live(() => formatDateTime(started)))),
      h('td', { title: j.statusMessage ?? undefined }, STATES.includes(j.state) ? tr(`state.${j.state}`) : j.state),
      h('td', { class: 'num' }, formatNumber(j.linesRead)),
      h('td', { class: 'num' }, formatNumber(j.events)),
      h('td', {}, h('a', { ...reportLink(j.jobId, j.ticket), target: '_blank', rel: 'noopener', 'aria-label': tr('history.reportOf', { id: j.jobId.slice(0, 8) }) }, tr('history.open'))),
    );
  });
}

/** A version 4 UUID from the browser's random generator (crypto.randomUUID needs HTTPS). */
export function uuid() {
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const hex = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** What the login box knows: the Authorization header and the user, or nothing. */
const session = { authorization: null, user: null, listeners: new Set() };

export const currentUser = () => session.user;

/** Headers every API request carries: the credentials, and a request not to get the browser's own login dialog. */
export function authHeaders() {
  const headers = { 'X-Requested-With': 'XMLHttpRequest' };
  if (session.authorization) headers.Authorization = session.authorization;
  return headers;
}

export class ApiError extends Error {
  constructor(status, body) {
    super(body?.message ?? `HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
}

/** A JSON API call; throws ApiError with the answer's body for any status but 2xx. */
export async function api(path, { method = 'GET', json, body, headers = {} } = {}) {
  const init = { method, headers: { ...authHeaders(), ...headers } };
  if (json !== undefined) {
    init.body = JSON.stringify(json);
    init.headers['Content-Type'] = 'application/json';
  } else if (body !== undefined) {
    init.body = body;
  }
  const res = await fetch(path, init);
  const text = await res.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = text;
  }
  if (!res.ok) {
    if (res.status === 401 && session.authorization) setSession(null, null);
    throw new ApiError(res.status, data);
  }
  return data;
}

function setSession(authorization, user) {
  session.authorization = authorization;
  session.user = user;
  for (const listener of session.listeners) listener(user);
}

export function onSessionChange(listener) {
  session.listeners.add(listener);
}

/** Checks an address and a password with the service; keeps them in memory when they are right. */
export async function logIn(username, password) {
  const bytes = new TextEncoder().encode(`${username}:${password}`);
  const authorization = `Basic ${btoa(String.fromCharCode(...bytes))}`;
  const res = await fetch('/api/auth/session', { headers: { Authorization: authorization, 'X-Requested-With': 'XMLHttpRequest' } });
  const data = await res.json().catch(() => null);
  if (!res.ok) throw new ApiError(res.status, data);
  setSession(authorization, data.user);
  return data.user;
}

export function logOut() {
  setSession(null, null);
}

/** The API's error codes (`message` of an error answer) that have a sentence (`api.<code>` in i18n-texts.js). */
export const MESSAGES = Object.fromEntries([
  'invalidCredentials', 'authenticationRequired', 'tooManyFailures', 'forbidden', 'crossSiteRequest', 'fillAllFields',
  'invalidAddress', 'passwordDoesNotMatch', 'weakPassword', 'invalidPassword', 'wrongPassword', 'registrationClosed',
  'userAlreadyExists', 'userNotFound', 'lastAdmin', 'protectedAccount', 'cannotDeleteYourself', 'cannotChangeYourOwnGroup',
  'invalidGroup', 'badSection', 'alreadyExists', 'settingNotFound', 'internalError',
].map((code) => [code, tr(`api.${code}`)]));

/** The sentence of an API error code, in the page's language (a Msg), or undefined for a code without one. */
export const messageOfCode = (code) => (typeof code === 'string' && Object.hasOwn(MESSAGES, code) ? MESSAGES[code] : undefined);

/**
 * What to tell a person about a failed call: the sentence of its code, else the answer's detail
 * (the service's words, shown as they are). A Msg: shown with h() or setText(), it follows the language.
 */
export const messageOf = (err) => messageOfCode(err?.body?.message) ?? raw(err?.body?.detail ?? err?.body?.message ?? err?.message ?? String(err));

function loginDialog() {
  return h('dialog', { id: 'login-dialog', 'aria-labelledby': 'login-title' },
    h('form', { id: 'login-form' },
      h('h2', { id: 'login-title' }, tr('login.title')),
      h('p', { class: 'hint', id: 'login-reason' }),
      h('label', {}, tr('login.address'), h('input', { name: 'username', type: 'email', autocomplete: 'username', required: true })),
      h('label', {}, tr('login.password'), h('input', { name: 'password', type: 'password', autocomplete: 'current-password', required: true })),
      h('p', { class: 'notice bad', id: 'login-error', role: 'alert' }),
      h('div', { class: 'row' }, h('button', { type: 'submit', class: 'primary' }, tr('login.submit')), h('button', { type: 'button', id: 'login-cancel' }, tr('cancel'))),
      h('p', { class: 'hint' }, tr('login.memory'))));
}

function passwordDialog() {
  return h('dialog', { id: 'password-dialog', 'aria-labelledby': 'password-title' },
    h('form', { id: 'password-form' },
      h('h2', { id: 'password-title' }, tr('password.title')),
      h('label', {}, tr('password.current'), h('input', { name: 'oldPassword', type: 'password', autocomplete: 'current-password', required: true })),
      h('label', {}, tr('password.new'), h('input', { name: 'newPassword', type: 'password', autocomplete: 'new-password', required: true, minlength: 10 })),
      h('label', {}, tr('password.again'), h('input', { name: 'confirm', type: 'password', autocomplete: 'new-password', required: true, minlength: 10 })),
      h('p', { class: 'hint' }, tr('password.rule')),
      h('p', { class: 'notice bad', id: 'password-error', role: 'alert' }),
      h('div', { class: 'row' }, h('button', { type: 'submit', class: 'primary' }, tr('password.submit')), h('button', { type: 'button', id: 'password-cancel' }, tr('cancel')))));
}

/** POST /api/admin/profile (section password), then the page's requests go on with the new password. */
async function changePassword(form) {
  const data = new FormData(form);
  const fields = { oldPassword: String(data.get('oldPassword')), newPassword: String(data.get('newPassword')), confirm: String(data.get('confirm')) };
  await api('/api/admin/profile', { method: 'POST', json: { section: 'password', ...fields } });
  await logIn(session.user.username, fields.newPassword);
}

/** The top bar's session area (#session), the login dialog and the password dialog, added to the page. */
export function setupLogin() {
  setupLanguageSwitch();
  document.body.append(loginDialog(), passwordDialog());
  const area = $('#session');
  const dialog = $('#login-dialog');
  const form = $('#login-form');
  const error = $('#login-error');
  const render = () => {
    area.replaceChildren();
    if (session.user) {
      area.append(
        h('span', { id: 'logged-user' }, tr('session.as', { user: session.user.username })),
        h('button', { type: 'button', class: 'link', id: 'password-open', onclick: () => { $('#password-error').textContent = ''; $('#password-dialog').showModal(); } }, tr('session.password')),
        h('button', { type: 'button', class: 'link', id: 'logout', onclick: () => logOut() }, tr('session.logout')),
        h('span', { id: 'session-notice', class: 'hint', role: 'status' }));
    } else {
      area.append(h('button', { type: 'button', id: 'login-open', onclick: () => openLogin() }, tr('login.open')));
    }
  };
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    error.textContent = '';
    const data = new FormData(form);
    try {
      await logIn(String(data.get('username')).trim(), String(data.get('password')));
      form.reset();
      dialog.close();
    } catch (err) {
      setText(error, messageOf(err));
    }
  });
  $('#login-cancel').addEventListener('click', () => dialog.close());
  const passwordForm = $('#password-form');
  passwordForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    $('#password-error').textContent = '';
    const button = passwordForm.querySelector('button[type="submit"]');
    button.disabled = true;
    try {
      await changePassword(passwordForm);
      passwordForm.reset();
      $('#password-dialog').close();
      setText($('#session-notice'), tr('password.changed'));
    } catch (err) {
      setText($('#password-error'), messageOf(err));
    } finally {
      button.disabled = false;
    }
  });
  $('#password-cancel').addEventListener('click', () => { passwordForm.reset(); $('#password-dialog').close(); });
  onSessionChange(render);
  render();
}

/** The login dialog; `reason` (a Msg, or a key of i18n-texts.js) says why under its title. */
export function openLogin(reason = '') {
  setText($('#login-reason'), typeof reason === 'string' && reason ? tr(reason) : reason);
  $('#login-error').textContent = '';
  $('#login-dialog').showModal();
  $('#login-form [name="username"]').focus();
}

export { setLanguage, setupLanguageSwitch };
