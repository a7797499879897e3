// The pages' language: French or English. French when the person chose it with the top bar's
// switch (kept in localStorage), else when the browser's first preferred language is French;
// English otherwise. Static texts stay in English in the HTML, marked `data-i18n="key"` (and
// `data-i18n-placeholder`, `data-i18n-aria-label`, `data-i18n-title`, `data-i18n-label`), and are
// replaced by the French of the key; texts built in JS come from t(), or stay live with tr()
// (a message that h() turns into a text node or attribute re-translated when the language changes).
// Server data (reject labels, platform names, API details) is shown as the service sends it.
import { FR, EN } from './i18n-texts.js';

const STORAGE_KEY = 'logsift-lang';
export const LANGUAGES = ['en', 'fr'];

function stored() {
  try {
    const value = localStorage.getItem(STORAGE_KEY);
    return LANGUAGES.includes(value) ? value : null;
  } catch {
    return null;
  }
}

/** The browser's first preferred language, when it is French. */
function browserLanguage() {
  const first = (navigator.languages?.[0] ?? navigator.language ?? '').toLowerCase();
  return first === 'fr' || first.startsWith('fr-') ? 'fr' : 'en';
}

let current = stored() ?? browserLanguage();
const listeners = new Set();

export const lang = () => current;

/** The locale of numbers and dates: the language's. */
export const locale = () => (current === 'fr' ? 'fr-FR' : 'en');

// ---------------------------------------------------------------------------- formatting

const numberFormats = {};
export function formatNumber(n) {
  const l = locale();
  numberFormats[l] ??= new Intl.NumberFormat(l);
  return numberFormats[l].format(Math.round(Number(n) || 0));
}

export function formatBytes(n) {
  const units = current === 'fr' ? ['o', 'Kio', 'Mio', 'Gio', 'Tio'] : ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = Number(n) || 0;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  const digits = unit === 0 ? undefined : value < 10 ? 2 : 1;
  const text = digits === undefined ? String(value) : value.toLocaleString(locale(), { minimumFractionDigits: digits, maximumFractionDigits: digits, useGrouping: false });
  return `${text} ${units[unit]}`;
}

export const formatDateTime = (d) => new Date(d).toLocaleString(locale());
export const formatDate = (d) => new Date(d).toLocaleDateString(locale());
export const formatTime = (d) => new Date(d).toLocaleTimeString(locale());

// ---------------------------------------------------------------------------- texts

/** French typography: a narrow no-break space before « : ; ? ! » (the dictionaries write a plain space). */
const typeset = (text) => (current === 'fr' ? text.replace(/ ([:;?!])/g, '\u202f$1') : text);

/** A var as written in a sentence: numbers in the language's way, functions (formatters) called now. */
function show(value) {
  if (typeof value === 'function') return String(value());
  if (typeof value === 'number') return formatNumber(value);
  if (value instanceof Msg) return value.toString();
  return String(value ?? '');
}

/** The text of a key in the current language (English when French lacks it), with its vars. */
export function t(key, vars = {}) {
  const dict = current === 'fr' ? FR : EN;
  const entry = dict[key] ?? EN[key];
  if (entry === undefined) {
    console.warn(`i18n: no text for ${key}`);
    return key;
  }
  if (typeof entry === 'function') {
    const shown = Object.fromEntries(Object.entries(vars).map(([k, v]) => [k, show(v)]));
    return typeset(entry(vars, shown));
  }
  return typeset(entry).replace(/\{(\w+)\}/g, (m, name) => (name in vars ? show(vars[name]) : m));
}

/** A text to show that follows the language: a key and its vars, or a raw text (server data) as it is. */
export class Msg {
  constructor(key, vars = {}, raw = undefined) {
    this.key = key;
    this.vars = vars;
    this.raw = raw;
  }

  toString() {
    return this.key === null ? String(this.raw) : t(this.key, this.vars);
  }
}

export const tr = (key, vars) => new Msg(key, vars);
export const raw = (text) => new Msg(null, {}, text);
/** A value written by `fn` (a number, a size, a date) in the language of the moment. */
export const live = (fn) => new Msg('value', { v: fn });

/** Nodes showing a Msg: weakly held, re-written when the language changes. */
const bound = new Set();
const bindings = new WeakMap();
let added = 0;

function bind(node, attr, msg) {
  let list = bindings.get(node);
  if (!list) {
    list = [];
    bindings.set(node, list);
    bound.add(new WeakRef(node));
    if (++added % 2000 === 0) for (const ref of bound) if (!ref.deref()) bound.delete(ref);
  }
  const same = list.find((b) => b.attr === attr);
  if (same) same.msg = msg;
  else list.push({ attr, msg });
}

/** A text node showing `msg` (a Msg, or a key with vars), in the language of the moment. */
export function textNode(msg, vars) {
  const m = msg instanceof Msg ? msg : tr(msg, vars);
  const node = document.createTextNode(m.toString());
  bind(node, null, m);
  return node;
}

/** An attribute showing a Msg. */
export function setAttr(el, attr, msg) {
  el.setAttribute(attr, msg.toString());
  bind(el, attr, msg);
}

/** The element's text: a Msg (kept in the language), or a plain text (a string, a key with vars). */
export function setText(el, msg, vars) {
  if (msg instanceof Msg) el.replaceChildren(textNode(msg));
  else if (vars !== undefined) el.replaceChildren(textNode(tr(msg, vars)));
  else el.textContent = msg ?? '';
}

function rebind() {
  for (const ref of bound) {
    const node = ref.deref();
    if (!node) {
      bound.delete(ref);
      continue;
    }
    for (const { attr, msg } of bindings.get(node) ?? []) {
      if (attr === null) node.data = msg.toString();
      else node.setAttribute(attr, msg.toString());
    }
  }
}

// ---------------------------------------------------------------------------- static HTML

const ATTRIBUTES = ['placeholder', 'aria-label', 'title', 'label'];
/** The English of the HTML, kept from the first pass: text nodes → their text, elements → their attributes. */
const englishTexts = new WeakMap();
const englishAttrs = new WeakMap();

/** The element's own texts (its direct text nodes holding more than blanks), which a key translates in order. */
const ownTexts = (el) => [...el.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE && n.data.trim());

/**
 * Puts the texts of the marked elements in the current language. A key's French is a string
 * (the element's first own text) or an array (its own texts in order, its child elements kept:
 * a label keeps its input, a sentence its <code>). Blanks around a text are kept.
 */
export function translatePage(root = document) {
  for (const el of root.querySelectorAll('[data-i18n]')) {
    const texts = ownTexts(el);
    for (const node of texts) if (!englishTexts.has(node)) englishTexts.set(node, node.data);
    const french = current === 'fr' ? FR[el.dataset.i18n] : undefined;
    if (current === 'fr' && french === undefined) console.warn(`i18n: no French for ${el.dataset.i18n}`);
    const parts = Array.isArray(french) ? french : french === undefined ? [] : [french];
    texts.forEach((node, i) => {
      const english = englishTexts.get(node);
      const part = parts[i];
      if (part === undefined) node.data = english;
      else node.data = english.match(/^\s*/)[0] + typeset(part) + english.match(/\s*$/)[0];
    });
  }
  for (const attr of ATTRIBUTES) {
    for (const el of root.querySelectorAll(`[data-i18n-${attr}]`)) {
      let english = englishAttrs.get(el);
      if (!english) englishAttrs.set(el, (english = {}));
      if (!(attr in english)) english[attr] = el.getAttribute(attr);
      const french = current === 'fr' ? FR[el.getAttribute(`data-i18n-${attr}`)] : undefined;
      el.setAttribute(attr, french === undefined ? english[attr] : typeset(french));
    }
  }
  document.documentElement.lang = current;
}

// ---------------------------------------------------------------------------- the switch

export function onLanguageChange(listener) {
  listeners.add(listener);
}

/** Changes the language: remembered, the page's texts re-written in place, the listeners told. */
export function setLanguage(language) {
  if (!LANGUAGES.includes(language)) return;
  try {
    localStorage.setItem(STORAGE_KEY, language);
  } catch { /* a browser without storage: for this page only */ }
  if (language === current) return;
  current = language;
  translatePage();
  rebind();
  for (const listener of listeners) listener(current);
}

/**
 * The switch: a button naming the other language ("FR" on an English page), in the top bar (or
 * at the top of a page without one).
 */
export function setupLanguageSwitch() {
  const button = document.createElement('button');
  button.type = 'button';
  button.id = 'lang-switch';
  button.className = 'lang-switch';
  const render = () => {
    const other = current === 'fr' ? 'en' : 'fr';
    button.textContent = other.toUpperCase();
    button.lang = other;
    button.setAttribute('aria-label', other === 'fr' ? 'Afficher les pages en français' : 'Show the pages in English');
    button.title = button.getAttribute('aria-label');
  };
  button.addEventListener('click', () => setLanguage(current === 'fr' ? 'en' : 'fr'));
  onLanguageChange(render);
  render();
  const bar = document.querySelector('.topbar');
  if (bar) bar.append(button);
  else {
    const row = document.createElement('div');
    row.className = 'lang-row';
    row.append(button);
    document.querySelector('main')?.prepend(row);
  }
  return button;
}

translatePage();
