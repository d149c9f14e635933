// Train cards as HTML tiles: colour, an icon, a letter (colour-blind mode) and a count.

import { h } from "./dom.js";
import { t } from "./i18n.js";
import { CARD_KINDS, LETTER } from "./colours.js";

const SVG = "http://www.w3.org/2000/svg";

function icon(kind) {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 24 16");
  svg.setAttribute("class", "card-icon");
  svg.setAttribute("aria-hidden", "true");
  if (kind === "passenger") {
    svg.setAttribute("viewBox", "0 0 20 24");
    svg.innerHTML = '<circle cx="10" cy="6" r="4.5" fill="#fff" stroke="#222" stroke-width="1.5"/><path d="M3 23 C3 14 6 11 10 11 C14 11 17 14 17 23 Z" fill="#fff" stroke="#222" stroke-width="1.5"/>';
  } else if (kind === "locomotive" || kind === "locomotive_plus4") {
    svg.innerHTML = '<path d="M2 11 V5 H9 V2 H14 V5 H20 L22 8 V11 Z" fill="#222" stroke="#fff" stroke-width="1.2"/><circle cx="6" cy="13" r="2.2" fill="#222" stroke="#fff"/><circle cx="16" cy="13" r="2.2" fill="#222" stroke="#fff"/>';
  } else {
    svg.innerHTML = '<rect x="2" y="3" width="20" height="8" rx="1.5" fill="rgba(255,255,255,.35)" stroke="rgba(0,0,0,.55)" stroke-width="1.2"/><circle cx="7" cy="13" r="2" fill="#222"/><circle cx="17" cy="13" r="2" fill="#222"/>';
  }
  return svg;
}

export function cardName(kind) {
  return t(`card.${kind}`);
}

/** A card tile. opts: {count, onclick, disabled, title, small, testid}. */
export function cardTile(kind, opts = {}) {
  const tag = opts.onclick ? "button" : "div";
  const node = h(tag, {
    class: `card card-${kind}${opts.small ? " card-small" : ""}`,
    dataset: { kind },
    title: opts.title || cardName(kind),
    "aria-label": opts.count ? `${cardName(kind)} × ${opts.count}` : cardName(kind),
    onclick: opts.onclick || null,
    disabled: opts.disabled || null,
    type: tag === "button" ? "button" : null,
  },
  icon(kind),
  h("span", { class: "card-letter" }, LETTER[kind] || ""),
  kind === "locomotive_plus4" ? h("span", { class: "card-plus4" }, "+4") : null,
  opts.count !== undefined ? h("span", { class: "card-count" }, String(opts.count)) : null);
  return node;
}

/** A payment ({"red": 3, "locomotive": 1}) as a row of small tiles with counts. */
export function paymentChips(cards) {
  const kinds = CARD_KINDS.filter((k) => cards && cards[k]);
  return h("span", { class: "payment" }, kinds.map((k) => cardTile(k, { count: cards[k], small: true })));
}

export function paymentText(cards) {
  return CARD_KINDS.filter((k) => cards && cards[k]).map((k) => `${cards[k]} × ${cardName(k)}`).join(", ");
}

export function sameCards(a, b) {
  const keys = new Set([...Object.keys(a || {}), ...Object.keys(b || {})]);
  for (const k of keys) if ((a?.[k] || 0) !== (b?.[k] || 0)) return false;
  return true;
}
