// Translations: every visible string comes from static/i18n/<lang>.json. Markup carries only keys
// (data-i18n, data-i18n-title, data-i18n-placeholder, data-i18n-aria-label); code calls t(key, params).
// Plurals use "<key>_one" / "<key>_other" chosen with Intl.PluralRules.

export const LANGUAGES = ["en", "pt", "es", "it"];
const STORE_KEY = "ttr.lang";

let lang = "en";
let strings = {};
let fallback = {};
const listeners = new Set();

async function load(code) {
  const res = await fetch(`/static/i18n/${code}.json`, { cache: "no-cache" });
  if (!res.ok) throw new Error(`cannot load ${code}.json: ${res.status}`);
  return res.json();
}

/** The language to start with: a saved choice, else the browser's preferred languages, else English. */
export function preferredLanguage() {
  const saved = localStorage.getItem(STORE_KEY);
  if (saved && LANGUAGES.includes(saved)) return saved;
  for (const tag of navigator.languages || [navigator.language || "en"]) {
    const base = String(tag).toLowerCase().split("-")[0];
    if (LANGUAGES.includes(base)) return base;
  }
  return "en";
}

export async function initI18n() {
  fallback = await load("en");
  await setLanguage(preferredLanguage(), false);
}

export async function setLanguage(code, remember = true) {
  if (!LANGUAGES.includes(code)) code = "en";
  strings = code === "en" ? fallback : await load(code);
  lang = code;
  document.documentElement.lang = code;
  if (remember) localStorage.setItem(STORE_KEY, code);
  applyTranslations(document);
  for (const fn of listeners) fn(code);
}

export function currentLanguage() {
  return lang;
}

export function onLanguageChange(fn) {
  listeners.add(fn);
}

function lookup(key) {
  if (key in strings) return strings[key];
  if (key in fallback) return fallback[key];
  return null;
}

/** Translate `key`, filling {name} placeholders from params; params.count selects the plural form. */
export function t(key, params = {}) {
  let text = null;
  if (typeof params.count === "number") {
    const form = new Intl.PluralRules(lang).select(params.count);
    text = lookup(`${key}_${form}`) ?? lookup(`${key}_other`);
  }
  if (text === null) text = lookup(key);
  if (text === null) {
    console.warn(`missing translation: ${key}`);
    return key;
  }
  return text.replace(/\{(\w+)\}/g, (m, name) => (name in params ? String(params[name]) : m));
}

/** Does a translation exist for `key` (used for optional texts such as rule-option help)? */
export function has(key) {
  return lookup(key) !== null;
}

/** An edition's display name: the translation of a built-in one, else the name a custom map file gives. */
export function editionName(id, name) {
  return has(`edition.${id}`) ? t(`edition.${id}`) : (name || id);
}

export function applyTranslations(root) {
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll("[data-i18n-title]")) el.title = t(el.dataset.i18nTitle);
  for (const el of root.querySelectorAll("[data-i18n-placeholder]")) el.placeholder = t(el.dataset.i18nPlaceholder);
  for (const el of root.querySelectorAll("[data-i18n-aria-label]")) el.setAttribute("aria-label", t(el.dataset.i18nAriaLabel));
}
