// Small inline SVG icons (no emoji: not every system has an emoji font).

const NS = "http://www.w3.org/2000/svg";

const PATHS = {
  train: '<path d="M3 15 V8 H10 V5 H15 V8 H20 L22 11 V15 Z" fill="currentColor"/><circle cx="7" cy="17.5" r="2.2" fill="currentColor"/><circle cx="17" cy="17.5" r="2.2" fill="currentColor"/>',
  cards: '<rect x="3" y="5" width="11" height="15" rx="2" fill="none" stroke="currentColor" stroke-width="2"/><rect x="9" y="3" width="11" height="15" rx="2" fill="currentColor"/>',
  ticket: '<path d="M3 7 H21 V10 A2 2 0 0 0 21 14 V17 H3 V14 A2 2 0 0 0 3 10 Z" fill="currentColor"/><path d="M8 9 V15" stroke="#fff" stroke-width="1.4" stroke-dasharray="1.5 1.5"/>',
  station: '<path d="M4 21 V11 L12 4 L20 11 V21 Z" fill="currentColor"/><rect x="10" y="14" width="4" height="7" fill="#fff"/>',
  passenger: '<circle cx="12" cy="6" r="4" fill="currentColor"/><path d="M5 22 C5 13 8 11 12 11 C16 11 19 13 19 22 Z" fill="currentColor"/>',
  token: '<path d="M12 3 L21 12 L12 21 L3 12 Z" fill="currentColor"/>',
  trophy: '<path d="M7 3 H17 V9 A5 5 0 0 1 7 9 Z M5 5 H7 V8 A2 2 0 0 1 5 5 Z M19 5 H17 V8 A2 2 0 0 0 19 5 Z M10 14 H14 V18 H17 V21 H7 V18 H10 Z" fill="currentColor"/>',
  score: '<path d="M12 3 L14.6 9 L21 9.3 L16 13.4 L17.8 20 L12 16.3 L6.2 20 L8 13.4 L3 9.3 L9.4 9 Z" fill="currentColor"/>',
};

export function icon(name, label = null) {
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("class", `icon icon-${name}`);
  if (label) {
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", label);
  } else {
    svg.setAttribute("aria-hidden", "true");
  }
  svg.innerHTML = PATHS[name] || "";
  return svg;
}
