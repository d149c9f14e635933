// Colours of routes, cards and players, and the colour-blind aids (a pattern and a letter for each
// colour). The letters are language-neutral symbols; the colour *names* live in the i18n files.

export const CARD_COLOURS = ["red", "orange", "yellow", "green", "blue", "purple", "white", "black"];
export const CARD_KINDS = [...CARD_COLOURS, "locomotive", "locomotive_plus4", "passenger"];

export const FILL = {
  red: "#d7263d",
  orange: "#f08a24",
  yellow: "#f2cf3a",
  green: "#3a9d4f",
  blue: "#2f6fd6",
  purple: "#8e4bb3",
  white: "#f4f1ea",
  black: "#2b2b2e",
  gray: "#a6a29a",
  locomotive: "#9a9a9a",
  locomotive_plus4: "#7a6f9b",
  passenger: "#c9a26b",
};

/** `hex` mixed with white: t = 0 is the colour itself, 1 is white. */
export function tint(hex, t) {
  const n = parseInt(hex.slice(1), 16);
  const ch = [(n >> 16) & 255, (n >> 8) & 255, n & 255].map((c) => Math.round(c + (255 - c) * t));
  return `#${ch.map((c) => c.toString(16).padStart(2, "0")).join("")}`;
}

// An unclaimed route space on the board is a flat, pale slot outlined in its printed colour, so that a
// player's train (a full-strength carriage with a dark outline) never reads as a route of that colour:
// every pale slot is at least ΔE 30 (CIELAB) away from every player colour (tests/browser/test_claimed_routes.py
// measures it on screen). Black (a little lighter), white and gray are far from every player colour.
const PALE = 0.42;
export const SLOT_FILL = Object.fromEntries(Object.entries(FILL).map(([k, v]) => [k, k === "black" ? tint(v, 0.2) : k === "white" || k === "gray" ? v : tint(v, PALE)]));
export const SLOT_EDGE = { ...FILL, white: "#8d887b", black: "#111114", gray: "#6e6a62" };

// Text colour that reads on each fill.
export const INK = {
  red: "#fff", orange: "#222", yellow: "#222", green: "#fff", blue: "#fff", purple: "#fff",
  white: "#222", black: "#fff", gray: "#222", locomotive: "#fff", locomotive_plus4: "#fff", passenger: "#222",
};

// One letter per colour (colour-blind mode). K for black, as in printing; L for locomotives.
export const LETTER = {
  red: "R", orange: "O", yellow: "Y", green: "G", blue: "B", purple: "P", white: "W", black: "K",
  gray: "", locomotive: "L", locomotive_plus4: "L", passenger: "",
};

export const PLAYER_COLOURS = ["#1f5fbf", "#d0342c", "#2e9b3a", "#e9b10a", "#7b3fa6"];
export const PLAYER_INK = ["#fff", "#fff", "#fff", "#222", "#fff"];
// Colour-blind mode marks each player's trains with a shape as well as the seat number.
export const PLAYER_SHAPES = ["●", "▲", "■", "◆", "★"];

/** SVG <pattern> definitions, one per card colour, drawn over route spaces in colour-blind mode (dark lines:
 * the route slots they cover are pale). */
export function patternDefs(svgNS) {
  const defs = document.createElementNS(svgNS, "defs");
  const specs = {
    red: '<path d="M0 8 L8 0" stroke="#000" stroke-width="1.4" stroke-opacity=".55"/>',
    orange: '<circle cx="4" cy="4" r="1.5" fill="#000" fill-opacity=".5"/>',
    yellow: '<path d="M0 4 H8" stroke="#000" stroke-width="1.2" stroke-opacity=".5"/>',
    green: '<path d="M4 0 V8" stroke="#000" stroke-width="1.4" stroke-opacity=".45"/>',
    blue: '<path d="M0 0 L8 8 M8 0 L0 8" stroke="#000" stroke-width="1" stroke-opacity=".45"/>',
    purple: '<path d="M0 0 L8 8" stroke="#000" stroke-width="1.4" stroke-opacity=".45"/>',
    white: '<circle cx="4" cy="4" r="1" fill="#000" fill-opacity=".35"/>',
    black: '<path d="M0 4 H8 M4 0 V8" stroke="#fff" stroke-width=".8" stroke-opacity=".6"/>',
  };
  for (const [name, body] of Object.entries(specs)) {
    const p = document.createElementNS(svgNS, "pattern");
    p.setAttribute("id", `cb-${name}`);
    p.setAttribute("patternUnits", "userSpaceOnUse");
    p.setAttribute("width", "8");
    p.setAttribute("height", "8");
    p.innerHTML = body;
    defs.appendChild(p);
  }
  // Locomotive cards and icons: a rainbow.
  const g = document.createElementNS(svgNS, "linearGradient");
  g.setAttribute("id", "rainbow");
  g.setAttribute("x1", "0"); g.setAttribute("x2", "1"); g.setAttribute("y1", "0"); g.setAttribute("y2", "1");
  ["#d7263d", "#f08a24", "#f2cf3a", "#3a9d4f", "#2f6fd6", "#8e4bb3"].forEach((c, i, arr) => {
    const s = document.createElementNS(svgNS, "stop");
    s.setAttribute("offset", String(i / (arr.length - 1)));
    s.setAttribute("stop-color", c);
    g.appendChild(s);
  });
  defs.appendChild(g);
  return defs;
}
