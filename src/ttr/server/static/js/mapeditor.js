// The map editor (lobby, "Edit a map"): a copy of a built-in, --maps or uploaded map file whose numbers —
// route lengths, colours, tunnels and ferries, ticket values, rule options — are edited in tables. Every
// edit is checked by the server (POST /api/maps, debounced): its error text, or "valid" and the board.
// "Export JSON" downloads the edited file; "Play this map" creates a game on it as an upload does.

import { api } from "./api.js";
import { Board } from "./board.js";
import { h } from "./dom.js";
import { editionName, has, t } from "./i18n.js";

const COLOURS = ["gray", "red", "orange", "yellow", "green", "blue", "purple", "white", "black"];
const CHECK_DELAY = 600; // ms after the last edit
const RETRY_DELAY = 10000; // ms before checking again after a refusal for too many checks

export class MapEditor {
  constructor(lobby) {
    this.lobby = lobby;
    this.node = h("section", { class: "panel map-editor", id: "map-editor", "aria-labelledby": "map-editor-title" });
    this.raw = null; // the edited map file
    this.checked = null; // the server's answer for the current raw, when valid
    this.seq = 0;
    this.timer = null;
  }

  async open(source) {
    this.source = source;
    const ed = this.lobby.editions.find((e) => e.id === source);
    try {
      this.schema = this.schema || (await api("GET", "/api/rule-options")).properties;
      const raw = ed && ed.uploaded ? ed.uploaded : await api("GET", `/api/editions/${encodeURIComponent(source)}/file`);
      this.raw = JSON.parse(JSON.stringify(raw));
    } catch (err) {
      this.raw = null;
      this.loadError = err.message;
      this.render();
      return;
    }
    this.loadError = null;
    if (!ed || !ed.uploaded) { // a copy of a built-in map needs an id of its own (the server refuses built-in ids)
      this.raw.id = `${this.raw.id}-edited`;
      this.raw.name = t("editor.copy_name", { name: this.raw.name });
    }
    this.render();
    this.check(0);
  }

  close() {
    clearTimeout(this.timer);
    this.raw = null;
    this.lobby.editor = null;
    this.lobby.render();
  }

  /** Ask the server whether the edited file is a valid map, `delay` ms from now; later answers win. */
  check(delay = CHECK_DELAY) {
    clearTimeout(this.timer);
    this.checked = null;
    this.setStatus(t("editor.checking"), "pending");
    this.timer = setTimeout(async () => {
      const seq = ++this.seq;
      try {
        const res = await api("POST", "/api/maps", { body: this.raw });
        if (seq !== this.seq) return;
        this.checked = res;
        this.setStatus(t("editor.valid"), "ok");
        this.showBoard(res.map);
      } catch (err) {
        if (seq !== this.seq) return;
        this.setStatus(err.message, "error");
        if (err.status === 429 || err.status === 0) this.timer = setTimeout(() => this.check(0), RETRY_DELAY); // rate limit, network
      }
    }, delay);
  }

  setStatus(text, kind) {
    if (!this.status) return;
    this.status.textContent = text;
    this.status.className = `editor-status ${kind}`;
    this.status.dataset.state = kind;
    if (this.playButton) this.playButton.disabled = kind !== "ok";
  }

  showBoard(map) {
    if (!this.boardHost) return;
    this.boardHost.replaceChildren();
    try {
      this.board = new Board(this.boardHost, map, {});
    } catch (err) {
      this.boardHost.replaceChildren(h("p", { class: "muted" }, String(err && err.message ? err.message : err)));
    }
  }

  edit(fn) {
    fn();
    this.check();
  }

  exportJson() {
    const blob = new Blob([`${JSON.stringify(this.raw, null, 2)}\n`], { type: "application/json" });
    const url = URL.createObjectURL(blob);
    const a = h("a", { href: url, download: `${String(this.raw.id || "map").replace(/[^A-Za-z0-9_-]+/g, "-")}.json` });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  }

  play() {
    if (!this.checked) return;
    const raw = JSON.parse(JSON.stringify(this.raw));
    this.close();
    this.lobby.useUploaded(raw, this.checked, `${raw.id}.json`);
    this.lobby.create();
  }

  // ------------------------------------------------------------------ rendering
  render() {
    const pick = h("select", { id: "editor-source", "aria-label": t("editor.start_from") },
      this.lobby.editions.map((e) => h("option", { value: e.id, selected: e.id === this.source },
        e.uploaded ? t("editor.uploaded", { name: e.name }) : editionName(e.id, e.name))));
    const head = h("div", { class: "editor-head" },
      h("h2", { id: "map-editor-title" }, t("editor.title")),
      h("label", {}, h("span", {}, t("editor.start_from")), pick),
      h("button", { type: "button", class: "button", id: "editor-load", onclick: () => this.open(pick.value) }, t("editor.load")),
      h("button", { type: "button", class: "button", id: "editor-close", onclick: () => this.close() }, t("common.close")));
    if (!this.raw) {
      this.node.replaceChildren(head, this.loadError ? h("p", { class: "map-error", role: "alert" }, this.loadError) : null);
      return;
    }
    this.status = h("p", { class: "editor-status", id: "editor-status", role: "status", "aria-live": "polite" });
    this.boardHost = h("div", { class: "map-preview", id: "editor-preview" });
    this.playButton = h("button", { type: "button", class: "button primary", id: "editor-play", disabled: true, onclick: () => this.play() }, t("editor.play"));
    const text = (key, label) => h("label", {}, h("span", {}, label),
      h("input", { type: "text", id: `editor-${key}`, value: String(this.raw[key] ?? ""), maxlength: "64",
        oninput: (ev) => this.edit(() => { this.raw[key] = ev.target.value; }) }));
    this.node.replaceChildren(head,
      h("p", { class: "hint" }, t("editor.help")),
      h("div", { class: "form-row editor-names" }, text("id", t("editor.id")), text("name", t("editor.name"))),
      h("div", { class: "editor-actions" },
        h("button", { type: "button", class: "button", id: "editor-export", onclick: () => this.exportJson() }, t("editor.export")),
        this.playButton),
      this.status,
      this.boardHost,
      h("details", { class: "editor-section", open: true }, h("summary", {}, t("editor.rules")), this.rulesTable()),
      h("details", { class: "editor-section", open: true }, h("summary", {}, t("editor.routes", { n: this.raw.routes.length })), this.routesTable()),
      h("details", { class: "editor-section", open: true }, h("summary", {}, t("editor.tickets", { n: this.raw.tickets.length })), this.ticketsTable()));
    if (this.checked) { this.setStatus(t("editor.valid"), "ok"); this.showBoard(this.checked.map); }
  }

  number(value, label, set, { min = 0, max = null, id = null } = {}) {
    return h("input", { type: "number", step: "1", min: String(min), max: max === null ? null : String(max), id,
      value: String(value ?? ""), "aria-label": label, class: "editor-number",
      oninput: (ev) => this.edit(() => set(ev.target.value === "" ? null : Number(ev.target.value))) });
  }

  rulesTable() {
    const rules = this.raw.rules || {};
    const rows = Object.entries(rules).map(([key, value]) => {
      const spec = (this.schema && this.schema[key]) || {};
      const label = has(`option.${key}`) ? t(`option.${key}`) : key;
      const set = (v) => { rules[key] = v; };
      let input;
      if (typeof value === "boolean") {
        input = h("input", { type: "checkbox", checked: value, "aria-label": label, dataset: { rule: key },
          onchange: (ev) => this.edit(() => set(ev.target.checked)) });
      } else if (spec.enum) {
        input = h("select", { "aria-label": label, dataset: { rule: key }, onchange: (ev) => this.edit(() => set(ev.target.value)) },
          spec.enum.map((v) => h("option", { value: v, selected: v === value }, v)));
      } else if (typeof value === "number") {
        input = this.number(value, label, set, { min: spec.minimum ?? 0, max: spec.maximum ?? null });
        input.dataset.rule = key;
      } else { // lists and objects (players, station_costs, ticket policies, route_points) as JSON text
        input = h("input", { type: "text", class: "editor-json", value: JSON.stringify(value), "aria-label": label, dataset: { rule: key },
          oninput: (ev) => {
            try {
              const v = JSON.parse(ev.target.value);
              this.edit(() => set(v));
            } catch (err) {
              clearTimeout(this.timer);
              this.checked = null;
              this.setStatus(`rules.${key}: ${t("editor.bad_json")} (${err.message})`, "error");
            }
          } });
      }
      const range = spec.minimum !== undefined && spec.maximum !== undefined ? `${spec.minimum}–${spec.maximum}` : "";
      return h("tr", {}, h("th", { scope: "row" }, label, h("small", { class: "muted" }, ` ${key}`)), h("td", {}, input), h("td", { class: "muted" }, range));
    });
    return h("table", { class: "editor-table", id: "editor-rules" }, h("tbody", {}, rows));
  }

  routesTable() {
    const rows = this.raw.routes.map((r, i) => {
      const name = r.id || `${r.a}-${r.b}`;
      const colour = h("select", { "aria-label": t("editor.colour_of", { route: name }), class: "editor-colour",
        onchange: (ev) => this.edit(() => { r.color = ev.target.value; }) },
      COLOURS.map((c) => h("option", { value: c, selected: c === r.color }, has(`colour.${c}`) ? t(`colour.${c}`) : c)));
      const tunnel = h("input", { type: "checkbox", checked: !!r.tunnel, "aria-label": t("editor.tunnel_of", { route: name }),
        onchange: (ev) => this.edit(() => { if (ev.target.checked) r.tunnel = true; else delete r.tunnel; }) });
      const ferry = this.number(r.ferry || 0, t("editor.ferry_of", { route: name }), (v) => { if (v) r.ferry = v; else delete r.ferry; });
      return h("tr", { dataset: { route: name } },
        h("th", { scope: "row" }, name),
        h("td", {}, this.number(r.length, t("editor.length_of", { route: name }), (v) => { r.length = v; }, { min: 1, max: 20, id: `route-length-${i}` })),
        h("td", {}, colour), h("td", {}, tunnel), h("td", {}, ferry));
    });
    return h("table", { class: "editor-table", id: "editor-routes" },
      h("thead", {}, h("tr", {}, ["editor.route", "editor.length", "editor.colour", "editor.tunnel", "editor.ferry"].map((k) => h("th", { scope: "col" }, t(k))))),
      h("tbody", {}, rows));
  }

  ticketsTable() {
    const rows = this.raw.tickets.map((tk, i) => {
      const name = tk.id || `${tk.a}-${tk.b}`;
      return h("tr", { dataset: { ticket: name } },
        h("th", { scope: "row" }, name), h("td", {}, tk.deck || ""),
        h("td", {}, this.number(tk.points, t("editor.points_of", { ticket: name }), (v) => { tk.points = v; }, { min: 0, id: `ticket-points-${i}` })));
    });
    return h("table", { class: "editor-table", id: "editor-tickets" },
      h("thead", {}, h("tr", {}, ["editor.ticket", "editor.deck", "editor.points"].map((k) => h("th", { scope: "col" }, t(k))))),
      h("tbody", {}, rows));
  }
}
