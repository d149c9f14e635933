// A player's profile (/players/{name}): ratings, the rating history drawn as an inline SVG line chart (no
// library), games played and won per edition, the statistics the server computes from the records
// (GET /api/players/{name}: the engine's own counting, never re-computed here), and recent games linking
// to their replays. Every name and text goes in as text nodes (h(), createElementNS + textContent).

import { api } from "./api.js";
import { h } from "./dom.js";
import { has, onLanguageChange, t } from "./i18n.js";

const SVG = "http://www.w3.org/2000/svg";
const SERIES_COLOURS = ["#1565c0", "#c62828", "#2e7d32", "#6a1b9a", "#ef6c00", "#00838f", "#5d4037", "#ad1457"];

function s(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  for (const c of children) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return node;
}

function editionLabel(id) {
  return has(`edition.${id}`) ? t(`edition.${id}`) : id;
}

/**
 * The rating history as series per (edition, class): [{key, label, points: [{x, y: ordinal, ...}]}]. With a
 * `start` (the rating before a series' first game: the server's history_start), game i is at x = i + 1 and each
 * series begins with a start point at the x before its first game, so that even one game draws a line.
 */
export function historySeries(history, start = null) {
  const out = new Map();
  const shift = start === null ? 0 : 1;
  history.forEach((hst, i) => {
    const key = `${hst.edition}/${hst.class}`;
    if (!out.has(key)) {
      out.set(key, { key, label: `${editionLabel(hst.edition)} ${hst.class}`, points: [] });
      if (start !== null) out.get(key).points.push({ x: i, y: start, start: true });
    }
    out.get(key).points.push({ x: i + shift, y: hst.ordinal, at: hst.at, rank: hst.rank, game: hst.game_id });
  });
  return [...out.values()];
}

/** An inline SVG line chart of the rating (ordinal) after each rated game, one line per edition and class. */
export function ratingChart(history, start = null, width = 640, height = 240) {
  const series = historySeries(history, start);
  const pad = { l: 44, r: 12, t: 12, b: 28 };
  const first = start === null ? 1 : 0; // the x axis counts games: 0 = before the first one
  const n = Math.max(history.length + 1 - first, 2);
  const ys = history.map((p) => p.ordinal).concat([0]);
  let lo = Math.floor(Math.min(...ys) - 1), hi = Math.ceil(Math.max(...ys) + 1);
  if (hi - lo < 4) { hi += 2; lo -= 2; }
  const X = (x) => pad.l + ((x - first) / (n - 1)) * (width - pad.l - pad.r);
  const Y = (v) => pad.t + (1 - (v - lo) / (hi - lo)) * (height - pad.t - pad.b);
  const svg = s("svg", { class: "rating-chart", id: "rating-chart", viewBox: `0 0 ${width} ${height}`, role: "img", "aria-labelledby": "rating-chart-title" });
  svg.append(s("title", { id: "rating-chart-title" }, t("profile.chart_title", { count: history.length })));
  const step = Math.max(1, Math.ceil((hi - lo) / 5));
  for (let v = Math.ceil(lo / step) * step; v <= hi; v += step) {
    svg.append(s("line", { class: "grid", x1: pad.l, x2: width - pad.r, y1: Y(v), y2: Y(v) }),
      s("text", { class: "axis", x: pad.l - 6, y: Y(v) + 4, "text-anchor": "end" }, String(v)));
  }
  svg.append(s("text", { class: "axis", x: pad.l, y: height - 8 }, String(first)),
    s("text", { class: "axis", x: width - pad.r, y: height - 8, "text-anchor": "end" }, String(history.length)));
  series.forEach((ser, k) => {
    const colour = SERIES_COLOURS[k % SERIES_COLOURS.length];
    const d = ser.points.map((p, i) => `${i ? "L" : "M"}${X(p.x).toFixed(1)},${Y(p.y).toFixed(1)}`).join(" ");
    svg.append(s("path", { class: "series", d, stroke: colour, fill: "none", "stroke-width": 2, "data-series": ser.key }));
    for (const p of ser.points) {
      if (p.start) { // where the line starts: hollow, with its own tooltip
        svg.append(s("circle", { class: "start", cx: X(p.x).toFixed(1), cy: Y(p.y).toFixed(1), r: 3, fill: "#fff", stroke: colour, "stroke-width": 1.5, "data-series": ser.key },
          s("title", {}, t("profile.start_point", { rating: p.y.toFixed(1) }))));
        continue;
      }
      svg.append(s("circle", { class: "point", cx: X(p.x).toFixed(1), cy: Y(p.y).toFixed(1), r: 3, fill: colour, "data-series": ser.key, "data-ordinal": p.y },
        s("title", {}, t("profile.point", { rating: p.y.toFixed(1), rank: p.rank, date: new Date(p.at).toLocaleDateString() }))));
    }
  });
  const legend = h("ul", { class: "chart-legend" }, series.map((ser, k) => h("li", {},
    h("span", { class: "swatch", style: { background: SERIES_COLOURS[k % SERIES_COLOURS.length] } }), ser.label)));
  return h("figure", { class: "rating-history" }, svg, legend);
}

function table(headers, rows, attrs = {}) {
  return h("div", { class: "table-scroll", tabindex: "0", role: "region", "aria-label": attrs["aria-label"] || "" },
    h("table", attrs, h("thead", {}, h("tr", {}, headers.map((x) => h("th", { scope: "col" }, x)))),
      h("tbody", {}, rows.map((r) => h("tr", {}, r.map((c, i) => (i === 0 ? h("th", { scope: "row" }, c) : h("td", {}, c))))))));
}

function statLabel(key) {
  return has(`stat.${key}`) ? t(`stat.${key}`) : key.replaceAll("_", " ");
}

class ProfilePage {
  constructor(root, name) {
    this.root = root;
    this.name = name;
    this.data = null;
  }

  async start() {
    this.root.replaceChildren(h("div", { class: "loading" }, t("common.loading")));
    try {
      this.data = await api("GET", `/api/players/${encodeURIComponent(this.name)}`);
    } catch (err) {
      this.root.replaceChildren(h("div", { class: "page-error" }, h("h1", {}, t("profile.unknown", { name: this.name })), h("p", {}, err.message),
        h("a", { href: "/", class: "button" }, t("nav.lobby"))));
      return;
    }
    this.render();
    onLanguageChange(() => this.render());
  }

  render() {
    const d = this.data;
    document.title = `${d.name} · ${t("app.title")}`;
    const editions = Object.entries(d.editions);
    const ratings = d.ratings.length
      ? table([t("profile.edition"), t("account.rating"), t("account.games"), t("profile.wins")], // "USA 2p": as the chart's legend; fits a phone
        d.ratings.map((r) => [`${editionLabel(r.edition)} ${r.class}`, r.ordinal.toFixed(1), String(r.games), String(r.wins)]), { id: "profile-ratings", "aria-label": t("profile.ratings") })
      : h("p", { class: "hint" }, t("account.no_ratings"));
    const chart = d.history.length ? ratingChart(d.history, d.history_start ?? null) : h("p", { class: "hint", id: "no-history" }, t("profile.no_history"));
    const perEdition = editions.length
      ? table([t("profile.edition"), t("account.games"), t("profile.won"), t("profile.rated_games")],
        editions.map(([id, e]) => [editionLabel(id), String(e.games), String(e.won), String(e.rated_games)]), { id: "profile-editions", "aria-label": t("profile.per_edition") })
      : h("p", { class: "hint" }, t("account.no_games"));
    const keys = [...new Set(editions.flatMap(([, e]) => Object.keys(e.totals)))];
    const stats = keys.length
      ? table([t("profile.statistic"), ...editions.flatMap(([id]) => [t("profile.total_in", { edition: editionLabel(id) }), t("profile.average_in", { edition: editionLabel(id) })])],
        [...keys.map((k) => [statLabel(k), ...editions.flatMap(([, e]) => [k in e.totals ? String(e.totals[k]) : "—", k in e.averages ? String(e.averages[k]) : "—"])]),
          [statLabel("average_route_length"), ...editions.flatMap(([, e]) => ["", e.average_route_length === null ? "—" : String(e.average_route_length)])]],
        { id: "profile-stats", "aria-label": t("profile.statistics") })
      : null;
    const recent = d.recent_games.length
      ? h("ul", { class: "recent-games", id: "recent-games" }, d.recent_games.map((g) => h("li", {},
        h("a", { href: `/replay/${encodeURIComponent(g.game_id)}`, class: "replay-link" }, t("profile.game_line", { edition: editionLabel(g.edition), players: g.players })),
        " ", t("profile.result", { rank: g.rank ?? "—", score: g.score ?? "—" }),
        g.rated ? h("span", { class: "badge rated" }, t("account.rated")) : null,
        g.finished_at ? h("span", { class: "hint" }, " ", new Date(g.finished_at).toLocaleDateString()) : null)))
      : h("p", { class: "hint" }, t("account.no_games"));
    this.root.replaceChildren(h("div", { class: "profile-page", id: "profile" },
      h("h1", {}, t("profile.title", { name: d.name })),
      h("a", { href: "/", class: "button ghost" }, t("nav.lobby")),
      h("section", { class: "panel" }, h("h2", {}, t("profile.ratings")), ratings),
      h("section", { class: "panel" }, h("h2", {}, t("profile.history")), chart),
      h("section", { class: "panel" }, h("h2", {}, t("profile.per_edition")), perEdition),
      stats ? h("section", { class: "panel" }, h("h2", {}, t("profile.statistics")), stats) : null,
      h("section", { class: "panel" }, h("h2", {}, t("profile.recent")), recent)));
  }
}

export async function startProfile(root, name) {
  const page = new ProfilePage(root, name);
  await page.start();
  return page;
}
