// The lobby (/): create a game (edition, seats, bots, hot-seat, house rules), share invitation
// links, and find games to continue, join, watch or replay.

import { AccountPanel } from "./account.js";
import { api, saveToken, savedTokens } from "./api.js";
import { Board } from "./board.js";
import { copyText, h, toast } from "./dom.js";
import { editionName, has, onLanguageChange, t } from "./i18n.js";
import { MapEditor } from "./mapeditor.js";
import { seatName } from "./names.js";

const LEVELS = ["easy", "medium", "hard", "max"]; // until GET /api/levels answers (ttr.bots.LEVELS)
const TUTORIAL_EDITIONS = ["usa", "europe", "nordic", "marklin"];
const NAME_KEY = "ttr.name";
const INVITES_KEY = "ttr.invites";

export async function startLobby(root) {
  const lobby = new Lobby(root);
  await lobby.start();
  return lobby;
}

function saveInvites(gameId, list) {
  const all = JSON.parse(localStorage.getItem(INVITES_KEY) || "{}") || {};
  all[gameId] = list;
  localStorage.setItem(INVITES_KEY, JSON.stringify(all));
}

const MAX_MAP_UPLOAD = 64 * 1024; // the server's body limit (docs/api.md)

class Lobby {
  constructor(root) {
    this.root = root;
    this.editions = [];
    this.form = { edition: "usa", players: 2, seats: [], hotseat: false, public: true, name: "", options: {}, clock: { kind: "none", seconds: 120, hours: 24, on_timeout: "bot", bot_level: "medium" } };
    this.botRatings = {}; // level -> the calibration ladder's rating (GET /api/bot-ratings)
    this.levels = LEVELS; // the levels offered, weakest first (GET /api/levels)
    this.levelStyles = {}; // level -> the server's line on its style (English; translated by level_style.<level>)
    this.lists = { open: [], active: [], finished: [] };
    this.created = null;
  }

  async start() {
    try {
      this.editions = await api("GET", "/api/editions");
    } catch (err) {
      this.root.replaceChildren(h("p", { class: "page-error" }, t("error.server", { message: err.message })));
      return;
    }
    try {
      this.botRatings = (await api("GET", "/api/bot-ratings")).levels || {};
    } catch { /* no figures: plain level names */ }
    try {
      const served = (await api("GET", "/api/levels")).levels || [];
      if (served.length) this.levels = served.map((l) => l.level);
      this.levelStyles = Object.fromEntries(served.map((l) => [l.level, l.style]));
    } catch { /* the built-in list, styles from the translations */ }
    this.setEdition(this.editions[0].id);
    this.account = new AccountPanel(this.editions);
    this.render();
    this.account.start();
    await this.refresh();
    this.timer = setInterval(() => this.refresh(), 5000);
    onLanguageChange(() => { if (this.editor) this.editor.render(); this.render(); });
  }

  edition() {
    return this.editions.find((e) => e.id === this.form.edition);
  }

  setEdition(id) {
    this.form.edition = id;
    this.form.options = {};
    const [lo, hi] = this.edition().players;
    this.setPlayers(Math.min(hi, Math.max(lo, this.form.players || 2)));
  }

  setPlayers(n) {
    this.form.players = n;
    const seats = this.form.seats.slice(0, n);
    while (seats.length < n) seats.push(seats.length === 0 ? { type: "human" } : { type: "bot", level: "medium" });
    this.form.seats = seats;
  }

  async refresh() {
    try {
      const [open, active, finished] = await Promise.all(["open", "active", "finished"].map((s) => api("GET", `/api/games?status=${s}`)));
      this.lists = { open, active, finished };
      this.renderLists();
    } catch {
      // the lists come back on the next refresh
    }
  }

  render() {
    this.nameInput = h("input", {
      type: "text", id: "player-name", maxlength: "32", value: localStorage.getItem(NAME_KEY) || "",
      placeholder: t("lobby.your_name"), oninput: (ev) => localStorage.setItem(NAME_KEY, ev.target.value.trim()),
    });
    this.listHost = h("div", { class: "lobby-lists", id: "lobby-lists" });
    this.root.className = "lobby-page";
    this.root.replaceChildren(
      h("section", { class: "lobby-intro" },
        h("h1", {}, t("lobby.title")),
        h("p", {}, t("lobby.intro")),
        h("label", { class: "name-field" }, h("span", {}, t("lobby.your_name")), this.nameInput)),
      this.renderLearn(),
      this.account ? this.account.node : null,
      h("div", { class: "lobby-columns" }, this.renderForm(), this.listHost),
      this.editor ? this.editor.node : null,
      this.account ? this.account.board : null);
    this.renderLists();
    const ed = this.edition();
    if (ed && ed.board && this.previewHost) {
      try {
        this.previewBoard = new Board(this.previewHost, ed.board, {});
      } catch (err) {
        this.previewHost.replaceChildren(h("p", { class: "muted" }, String(err && err.message ? err.message : err)));
      }
    }
  }

  /** "Learn to play": a tutorial game per built-in edition (you against an easy bot, a guide says what to do). */
  renderLearn() {
    const builtin = this.editions.filter((e) => TUTORIAL_EDITIONS.includes(e.id));
    return h("section", { class: "panel learn", id: "learn" },
      h("h2", {}, t("tutorial.lobby_title")),
      h("p", { class: "hint" }, t("tutorial.lobby_help")),
      h("div", { class: "learn-buttons" }, builtin.map((e) => h("button", {
        type: "button", class: "button", dataset: { edition: e.id }, onclick: () => this.startTutorial(e.id),
      }, t("tutorial.lobby_button", { edition: editionName(e.id, e.name) })))));
  }

  async startTutorial(edition) {
    const me = this.myName();
    try {
      const res = await api("POST", "/api/games", { body: { edition, tutorial: true } });
      const mine = res.seats.find((s) => s.type === "human");
      await api("POST", `/api/games/${encodeURIComponent(res.game_id)}/join`, { token: mine.token, body: { name: me } });
      saveToken(res.game_id, { token: mine.token, seat: mine.seat, name: me, edition, tutorial: true });
      location.href = `/play/${encodeURIComponent(res.game_id)}?token=${encodeURIComponent(mine.token)}&tutorial=1`;
    } catch (err) {
      toast(t("error.refused", { message: err.message }), "error");
    }
  }

  /** A map file from this computer: checked by the server (POST /api/maps), previewed, then played with `map`. */
  async uploadMap(file) {
    this.mapError = null;
    if (!file) return;
    let raw;
    try {
      if (file.size > MAX_MAP_UPLOAD) throw new Error(t("lobby.map_too_big", { kib: MAX_MAP_UPLOAD / 1024 }));
      raw = JSON.parse(await file.text());
    } catch (err) {
      this.mapError = `${file.name}: ${err.message}`;
      this.render();
      return;
    }
    try {
      const res = await api("POST", "/api/maps", { body: raw });
      this.useUploaded(raw, res, file.name);
    } catch (err) {
      this.mapError = `${file.name}: ${err.message}`;
    }
    this.render();
  }

  /** Offer a checked map file (`res` is POST /api/maps's answer) in the edition picker and choose it. */
  useUploaded(raw, res, fileName) {
    this.mapError = null;
    this.editions = this.editions.filter((e) => !e.uploaded && e.id !== res.id);
    this.editions.push({ ...res.edition, uploaded: raw, board: res.map, file: fileName });
    this.setEdition(res.id);
  }

  /** The map editor (mapeditor.js), starting from the chosen edition. */
  openEditor() {
    if (!this.editor) this.editor = new MapEditor(this);
    this.render();
    this.editor.open(this.form.edition).then(() => this.editor && this.editor.node.scrollIntoView({ block: "start" }));
  }

  renderMapUpload(ed) {
    const input = h("input", { type: "file", id: "map-file", accept: ".json,application/json",
      onchange: (ev) => this.uploadMap(ev.target.files[0]) });
    this.previewHost = null;
    let preview = null;
    if (ed && ed.board) {
      this.previewHost = h("div", { class: "map-preview", id: "map-preview" });
      const m = ed.board;
      preview = h("div", { class: "map-preview-panel" },
        h("p", { id: "map-preview-facts" }, t("lobby.map_facts", { name: ed.name, min: ed.players[0], max: ed.players[1],
          cities: m.cities.length, routes: m.routes.length, tickets: m.tickets.length })),
        this.previewHost);
    }
    return h("div", { class: "map-upload" },
      h("label", { class: "upload-label" }, h("span", {}, t("lobby.upload_map")), input),
      h("p", { class: "hint" }, t("lobby.upload_map_help")),
      h("button", { type: "button", class: "button", id: "edit-map", onclick: () => this.openEditor() }, t("lobby.edit_map")),
      this.mapError ? h("p", { class: "map-error", id: "map-error", role: "alert" }, this.mapError) : null,
      preview);
  }

  myName() {
    const name = (this.nameInput && this.nameInput.value.trim()) || localStorage.getItem(NAME_KEY) || "";
    return name || t("seat.player_n", { n: 1 });
  }

  renderForm() {
    const f = this.form;
    const ed = this.edition();
    const editions = h("div", { class: "edition-picker", role: "radiogroup", "aria-label": t("lobby.edition") },
      this.editions.map((e) => h("label", { class: `edition-card${e.id === f.edition ? " chosen" : ""}`, dataset: { edition: e.id } },
        h("input", { type: "radio", name: "edition", value: e.id, checked: e.id === f.edition, onchange: () => { this.setEdition(e.id); this.render(); } }),
        h("span", { class: "edition-name" }, editionName(e.id, e.name)),
        h("span", { class: "edition-players" }, t("lobby.players_range", { min: e.players[0], max: e.players[1] })),
        h("span", { class: "edition-blurb" }, has(`edition_blurb.${e.id}`) ? t(`edition_blurb.${e.id}`) : (e.file || t("lobby.custom_map"))))));
    const counts = [];
    for (let n = ed.players[0]; n <= ed.players[1]; n++) counts.push(n);
    const players = h("select", { id: "player-count", onchange: (ev) => { this.setPlayers(Number(ev.target.value)); this.render(); } },
      counts.map((n) => h("option", { value: String(n), selected: n === f.players }, String(n))));
    const seats = h("ol", { class: "seat-list", id: "seat-list" }, f.seats.map((s, i) => {
      const value = s.type === "bot" ? `bot:${s.level}` : s.open && !f.hotseat ? "open" : "human";
      // a bot seat says, under its menu, how that level plays (read with the menu: aria-describedby)
      const style = s.type === "bot" ? h("small", { class: "level-style", id: `seat-style-${i}` }, this.levelStyle(s.level)) : null;
      const select = h("select", {
        class: "seat-type", dataset: { seat: String(i) }, "aria-label": t("lobby.seat_n", { n: i + 1 }),
        "aria-describedby": style ? style.id : null,
        onchange: (ev) => {
          const v = ev.target.value;
          f.seats[i] = v === "human" ? { type: "human" } : v === "open" ? { type: "human", open: true } : { type: "bot", level: v.split(":")[1] };
          this.render();
        },
      }, h("option", { value: "human", selected: value === "human" }, t(i === 0 || f.hotseat ? "lobby.human" : "lobby.invited")),
      // an open seat: anyone in the lobby may take it (an invited seat is reserved for its link)
      i > 0 && !f.hotseat ? h("option", { value: "open", selected: value === "open" }, t("lobby.open_choice")) : null,
      this.levels.map((lv) => h("option", { value: `bot:${lv}`, selected: value === `bot:${lv}`, title: this.levelStyle(lv) }, this.levelLabel(lv))));
      const nameField = s.type === "human" && f.hotseat
        ? h("input", { type: "text", class: "seat-name", maxlength: "32", value: s.name || (i === 0 ? this.myName() : ""), placeholder: t("seat.player_n", { n: i + 1 }), oninput: (ev) => { s.name = ev.target.value; } })
        : null;
      return h("li", {}, h("span", { class: "seat-label" }, t("lobby.seat_n", { n: i + 1 })), select, nameField, style);
    }));
    const options = h("div", { class: "options-grid" }, Object.entries(ed.options || {})
      .filter(([, v]) => typeof v === "number" || typeof v === "boolean")
      .map(([key, def]) => {
        const label = has(`option.${key}`) ? t(`option.${key}`) : key;
        const current = key in f.options ? f.options[key] : def;
        const input = typeof def === "boolean"
          ? h("input", { type: "checkbox", checked: current, dataset: { option: key }, onchange: (ev) => this.setOption(key, ev.target.checked, def) })
          : h("input", { type: "number", value: String(current), min: "0", step: "1", dataset: { option: key }, onchange: (ev) => this.setOption(key, Number(ev.target.value), def) });
        return h("label", { class: "option" }, h("span", {}, label), input);
      }));
    return h("section", { class: "panel new-game", id: "new-game" },
      h("h2", {}, t("lobby.new_game")),
      h("form", { onsubmit: (ev) => { ev.preventDefault(); this.create(); } },
        h("fieldset", {}, h("legend", {}, t("lobby.edition")), editions, this.renderMapUpload(ed)),
        h("div", { class: "form-row" }, h("label", {}, h("span", {}, t("lobby.player_count")), players)),
        h("fieldset", {}, h("legend", {}, t("lobby.seats")), seats,
          h("p", { class: "hint" }, t("lobby.seats_help"))),
        h("div", { class: "form-row checks" },
          h("label", { class: "check" }, h("input", { type: "checkbox", id: "hotseat", checked: f.hotseat, onchange: (ev) => { f.hotseat = ev.target.checked; this.render(); } }),
            h("span", {}, t("lobby.hotseat")), h("small", {}, t("lobby.hotseat_help"))),
          h("label", { class: "check" }, h("input", { type: "checkbox", id: "public", checked: f.public, onchange: (ev) => { f.public = ev.target.checked; } }),
            h("span", {}, t("lobby.public")), h("small", {}, t("lobby.public_help")))),
        this.renderClock(),
        h("div", { class: "form-row" }, h("label", {}, h("span", {}, t("lobby.game_name")),
          h("input", { type: "text", id: "game-name", maxlength: "64", value: f.name, placeholder: t("lobby.game_name_placeholder"), oninput: (ev) => { f.name = ev.target.value; } }))),
        h("details", { class: "house-rules" }, h("summary", {}, t("lobby.house_rules")), h("p", { class: "hint" }, t("lobby.house_rules_help")), options),
        h("button", { type: "submit", class: "button primary big", id: "create-game" }, t("lobby.create"))),
      this.created ? this.renderCreated() : null);
  }

  /** The time control: none, real time (seconds per move) or turn-based (hours per move), and what a timeout does. */
  renderClock() {
    const c = this.form.clock;
    const kind = h("select", { id: "clock-kind", onchange: (ev) => { c.kind = ev.target.value; this.render(); } },
      ["none", "realtime", "turnbased"].map((k) => h("option", { value: k, selected: c.kind === k }, t(`lobby.clock_${k}`))));
    const rows = [h("div", { class: "form-row" }, h("label", {}, h("span", {}, t("lobby.clock_kind")), kind))];
    if (c.kind !== "none") {
      const real = c.kind === "realtime";
      const amount = h("input", {
        type: "number", id: "clock-amount", step: "1", min: "1", max: real ? "3600" : "168",
        value: String(real ? c.seconds : c.hours),
        oninput: (ev) => { const n = Math.round(Number(ev.target.value)); if (real) c.seconds = n; else c.hours = n; },
      });
      // short choices (a phone's menu shows the chosen one whole) and the whole meaning of the chosen one under it
      const timeoutHelp = h("small", { class: "level-style", id: "clock-timeout-help" }, t(`lobby.clock_timeout_${c.on_timeout}_help`));
      const onTimeout = h("select", {
        id: "clock-timeout", "aria-describedby": timeoutHelp.id,
        onchange: (ev) => { c.on_timeout = ev.target.value; timeoutHelp.textContent = t(`lobby.clock_timeout_${c.on_timeout}_help`); },
      }, ["bot", "drop"].map((k) => h("option", { value: k, selected: c.on_timeout === k }, t(`lobby.clock_timeout_${k}`))));
      const botStyle = h("small", { class: "level-style", id: "clock-bot-style" }, this.levelStyle(c.bot_level));
      const botLevel = h("select", {
        id: "clock-bot-level", "aria-describedby": botStyle.id,
        onchange: (ev) => { c.bot_level = ev.target.value; botStyle.textContent = this.levelStyle(c.bot_level); },
      }, this.levels.map((lv) => h("option", { value: lv, selected: c.bot_level === lv, title: this.levelStyle(lv) }, this.levelLabel(lv))));
      rows.push(
        h("div", { class: "form-row" }, h("label", {}, h("span", {}, t(real ? "lobby.clock_seconds" : "lobby.clock_hours")), amount)),
        h("div", { class: "form-row" }, h("label", {}, h("span", {}, t("lobby.clock_on_timeout")), onTimeout), timeoutHelp),
        h("div", { class: "form-row" }, h("label", {}, h("span", {}, t("lobby.clock_bot_level")), botLevel), botStyle),
        h("p", { class: "hint" }, t("lobby.clock_help")));
    }
    return h("fieldset", { id: "clock-choice" }, h("legend", {}, t("lobby.clock")), rows);
  }

  /** One line on how a level plays: the translation of the server's line (GET /api/levels), else that line. */
  levelStyle(lv) {
    return has(`level_style.${lv}`) ? t(`level_style.${lv}`) : (this.levelStyles[lv] || "");
  }

  /** "Bot (medium ≈ 25.0)": the level and its rating (mu) on the players' scale (the calibration ladder, docs/client.md). */
  levelLabel(lv) {
    const r = this.botRatings[lv];
    return r ? t("lobby.bot_level_rated", { level: t(`level.${lv}`), rating: r.mu.toFixed(1) }) : t("lobby.bot_level", { level: t(`level.${lv}`) });
  }

  /** The `clock` of POST /api/games, or null for none. */
  clockBody() {
    const c = this.form.clock;
    if (c.kind === "none") return null;
    const body = { kind: c.kind, on_timeout: c.on_timeout, bot_level: c.bot_level };
    if (c.kind === "realtime") body.seconds = c.seconds;
    else body.hours = c.hours;
    return body;
  }

  setOption(key, value, def) {
    if (value === def) delete this.form.options[key];
    else this.form.options[key] = value;
  }

  async create() {
    const f = this.form;
    const me = this.myName();
    const seats = f.seats.map((s, i) => {
      if (s.type === "bot") return { type: "bot", level: s.level };
      if (f.hotseat) return { type: "human", name: (s.name || (i === 0 ? me : "")).trim() || t("seat.player_n", { n: i + 1 }) };
      return i > 0 && s.open ? { type: "human", open: true } : { type: "human" };
    });
    const humans = seats.filter((s) => s.type === "human").length;
    if (!humans) { toast(t("lobby.need_human"), "error"); return; }
    const body = { edition: f.edition, players: f.players, seats, hotseat: f.hotseat, public: f.public, options: f.options };
    const chosen = this.edition();
    if (chosen && chosen.uploaded) { delete body.edition; body.map = chosen.uploaded; } // stored with the game
    if (f.name.trim()) body.name = f.name.trim();
    const clock = this.clockBody();
    if (clock) body.clock = clock;
    let res;
    try {
      res = await api("POST", "/api/games", { body });
    } catch (err) {
      toast(t("error.refused", { message: err.message }), "error");
      return;
    }
    if (f.hotseat) {
      saveToken(res.game_id, { token: res.hotseat_token, hotseat: true, edition: f.edition });
      location.href = `/play/${encodeURIComponent(res.game_id)}?token=${encodeURIComponent(res.hotseat_token)}`;
      return;
    }
    const humanSeats = res.seats.filter((s) => s.type === "human");
    const mine = humanSeats[0];
    try {
      await api("POST", `/api/games/${encodeURIComponent(res.game_id)}/join`, { token: mine.token, body: { name: me } });
    } catch (err) {
      toast(t("error.refused", { message: err.message }), "error");
    }
    saveToken(res.game_id, { token: mine.token, seat: mine.seat, name: me, edition: f.edition });
    const others = humanSeats.slice(1).map((s) => ({ seat: s.seat, join_url: s.join_url, open: !!s.open }));
    saveInvites(res.game_id, others);
    const playUrl = `/play/${encodeURIComponent(res.game_id)}?token=${encodeURIComponent(mine.token)}`;
    if (!others.length) {
      location.href = playUrl;
      return;
    }
    this.created = { gameId: res.game_id, playUrl, invites: others };
    this.render();
  }

  renderCreated() {
    const c = this.created;
    return h("div", { class: "created", id: "created" },
      h("h3", {}, t("lobby.created")),
      h("p", {}, t("lobby.invite_help")),
      h("ul", { class: "invite-list" }, c.invites.map((inv) => {
        if (inv.open) return h("li", { class: "open-seat" }, h("span", {}, t("lobby.seat_n", { n: inv.seat + 1 })), h("span", { class: "muted" }, t("lobby.open_seat_help")));
        const url = new URL(inv.join_url, location.href).href;
        return h("li", {}, h("span", {}, t("lobby.seat_n", { n: inv.seat + 1 })),
          h("input", { type: "text", readonly: true, value: url, class: "invite-url", onfocus: (ev) => ev.target.select() }),
          h("button", { type: "button", class: "button", onclick: async () => toast((await copyText(url)) ? t("common.copied") : url, "ok") }, t("common.copy")));
      })),
      h("a", { class: "button primary", href: c.playUrl, id: "go-to-game" }, t("lobby.go_to_game")));
  }

  async joinGame(game) {
    try {
      const res = await api("POST", `/api/games/${encodeURIComponent(game.game_id)}/join`, { body: { name: this.myName() } });
      saveToken(game.game_id, { token: res.token, seat: res.seat, name: this.myName(), edition: game.edition });
      location.href = `/play/${encodeURIComponent(game.game_id)}?token=${encodeURIComponent(res.token)}`;
    } catch (err) {
      toast(t("error.refused", { message: err.message }), "error");
    }
  }

  gameRow(g, actions) {
    const seats = g.seats.map((s) => {
      const label = s.type === "bot" ? t("lobby.bot_level", { level: t(`level.${s.level || "medium"}`) })
        : s.joined ? seatName(g, s.seat) : s.open ? t("lobby.free_seat") : t("lobby.reserved_seat");
      return h("span", { class: `seat-pill ${s.type}${s.joined ? "" : s.open ? " free" : " reserved"}`, title: s.joined || s.open ? null : t("lobby.reserved_help") }, label);
    });
    return h("li", { class: "game-row", dataset: { game: g.game_id } },
      h("div", { class: "game-row-main" },
        h("b", {}, g.name || editionName(g.edition, g.edition_name)),
        g.name ? h("span", { class: "muted" }, ` · ${editionName(g.edition, g.edition_name)}`) : null,
        g.hotseat ? h("span", { class: "tag" }, t("lobby.hotseat_tag")) : null,
        h("div", { class: "seats" }, seats)),
      h("div", { class: "game-row-actions" }, actions));
  }

  renderLists() {
    if (!this.listHost) return;
    const mine = savedTokens();
    const all = [...this.lists.open, ...this.lists.active, ...this.lists.finished];
    const byId = new Map(all.map((g) => [g.game_id, g]));
    const myGames = Object.entries(mine).sort((a, b) => String(b[1].at).localeCompare(String(a[1].at))).slice(0, 12);
    const section = (id, title, items, empty) => h("section", { class: "panel game-list", id },
      h("h2", {}, title), items.length ? h("ul", {}, items) : h("p", { class: "muted" }, empty));
    const myItems = myGames.map(([gid, info]) => {
      const g = byId.get(gid);
      const label = g ? (g.name || editionName(g.edition, g.edition_name)) : editionName(info.edition || "usa");
      const status = g ? t(`status.${g.status}`) : "";
      return h("li", { class: "game-row", dataset: { game: gid } },
        h("div", { class: "game-row-main" }, h("b", {}, label), " ", h("span", { class: "muted" }, status)),
        h("div", { class: "game-row-actions" },
          h("a", { class: "button primary", href: `/play/${encodeURIComponent(gid)}?token=${encodeURIComponent(info.token)}` }, g && g.status === "finished" ? t("lobby.results") : t("lobby.continue"))));
    });
    this.listHost.replaceChildren(
      section("my-games", t("lobby.my_games"), myItems, t("lobby.no_my_games")),
      section("open-games", t("lobby.open_games"), this.lists.open.filter((g) => !mine[g.game_id]).map((g) => this.gameRow(g, [
        g.seats.some((s) => s.open) ? h("button", { type: "button", class: "button primary join", onclick: () => this.joinGame(g) }, t("lobby.join"))
          : h("span", { class: "muted" }, t("lobby.invitation_only")),
        h("a", { class: "button", href: `/play/${encodeURIComponent(g.game_id)}?watch=1` }, t("lobby.watch"))])), t("lobby.no_open")),
      section("active-games", t("lobby.active_games"), this.lists.active.slice(0, 20).map((g) => this.gameRow(g, [
        h("a", { class: "button", href: `/play/${encodeURIComponent(g.game_id)}?watch=1` }, t("lobby.watch"))])), t("lobby.no_active")),
      section("finished-games", t("lobby.finished_games"), this.lists.finished.slice(0, 20).map((g) => this.gameRow(g, [
        h("a", { class: "button", href: `/replay/${encodeURIComponent(g.game_id)}` }, t("lobby.replay")),
        h("a", { class: "button", href: `/play/${encodeURIComponent(g.game_id)}?watch=1` }, t("lobby.results"))])), t("lobby.no_finished")));
  }
}
