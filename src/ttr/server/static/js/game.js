// The game page (/play/{id}): board, market, hand, tickets, players, log, and the dialogs that
// walk a player through every decision. State comes from the server (GET /state, then WebSocket
// updates); every decision is sent as one action and the server's answer is shown as it is.

import { api, ApiError, GameSocket, mapPath, saveToken, savedTokens } from "./api.js";
import { Board } from "./board.js";
import { cardName, cardTile } from "./cards.js";
import { CARD_KINDS, PLAYER_COLOURS, PLAYER_SHAPES } from "./colours.js";
import { h, toast } from "./dom.js";
import { closedText, describeEvent } from "./eventlog.js";
import { editionName, onLanguageChange, t } from "./i18n.js";
import { analyseLegal } from "./legal.js";
import { cityName, describeRoute, routeName, seatName, ticketLabel } from "./names.js";
import { endNodes } from "./network.js";
import { icon } from "./icons.js";
import { quickClaim } from "./payment.js";
import { finalSheet } from "./scoresheet.js";
import { ScoreWalk } from "./scorewalk.js";
import * as motion from "./motion.js";
import * as sheets from "./sheets.js";
import { ChatPanel, clockNodes } from "./tablepanel.js";
import { notifyTurn } from "./notify.js";

export async function startGame(root, gameId, params) {
  const game = new GameClient(root, gameId, params);
  await game.start();
  return game;
}

export class GameClient {
  constructor(root, gameId, params) {
    this.root = root;
    this.id = gameId;
    this.params = params;
    const saved = savedTokens()[gameId];
    this.watch = params.get("watch") === "1";
    this.token = this.watch ? null : params.get("token") || (saved && saved.token) || null;
    if (this.token && params.get("token")) saveToken(gameId, { token: this.token });
    this.state = null;
    this.summary = null;
    this.map = null;
    this.log = [];
    this.logSeq = 0;
    this.sheet = null; // the dialog the player opened (claim, station, passenger trip, ticket mix)
    this.busy = false;
    this.shownSeat = null; // hot-seat: whose cards are on screen
    this.coverFor = null; // hot-seat: seat waiting behind the "pass the device" cover
    this.finalDismissed = false;
    this.pathOwner = null; // final screen: whose longest path is drawn
    this.walk = null; // the scoring walk-through while it plays (scorewalk.js)
    this.walked = false; // played (or skipped) once on this page
    this.walkStepMs = 1100; // each of its steps (the browser tests shorten it)
  }

  get view() { return this.state ? this.state.view : null; }
  get mySeat() { return this.state ? this.state.seat : null; }
  get hotseat() { return !!(this.summary && this.summary.hotseat) && this.state && this.state.seats_controlled.length > 1; }

  async start() {
    this.root.replaceChildren(h("div", { class: "loading", i18n: "common.loading" }, t("common.loading")));
    // the first render waits for four answers: ask for the state and the log at once with the summary, the map as
    // soon as the summary names it (one round trip after another only where one answer names the next question)
    const gid = encodeURIComponent(this.id);
    const stateP = this.token ? this.fetchState().then(() => null, (err) => err) : null;
    const logP = api("GET", `/api/games/${gid}/log?since=0`, { token: this.token }).catch(() => null);
    try {
      this.summary = await api("GET", `/api/games/${gid}`);
      this.map = await api("GET", mapPath(this.id, this.summary));
    } catch (err) {
      this.root.replaceChildren(h("div", { class: "page-error" }, h("h1", {}, t("error.no_game")), h("p", {}, err.message),
        h("a", { href: "/", class: "button" }, t("nav.lobby"))));
      return;
    }
    let logged = this.token ? null : await logP;
    if (this.token) {
      const err = await stateP;
      if (err instanceof ApiError && (err.status === 401 || err.status === 403)) {
        toast(t("error.bad_token"), "error");
        this.token = null;
      } else if (err) throw err;
      else logged = await logP;
    }
    if (!this.token) await this.fetchState();
    performance.mark("ttr-data"); // the phases of the first render (tests/browser/test_motion.py reports them)
    this.buildLayout();
    performance.mark("ttr-board-built");
    await this.loadLog(logged);
    this.connect();
    if (this.token && (this.params.get("tutorial") === "1" || (savedTokens()[this.id] || {}).tutorial)) { // the first-game tutorial
      const { Tutorial } = await import("./tutorial.js");
      this.tutorial = new Tutorial(this);
      saveToken(this.id, { tutorial: true });
    }
    this.render();
    performance.mark("ttr-rendered");
    requestAnimationFrame(() => performance.mark("ttr-board-drawn")); // first render of the game page (measured by the tests)
    onLanguageChange(() => { this.buildLayout(); this.render(); this.renderLog(); });
    document.addEventListener("keydown", (ev) => this.onKey(ev));
  }

  // ---------------------------------------------------------------- keyboard
  /**
   * Keyboard play (the keys table is in docs/client.md and in *How to play*): 1–5 take a face-up card, D draws
   * from the deck, T draws tickets, R / Shift+R move the focus to the next / previous route you can claim (or city
   * you can pick), Enter on it opens its dialog; in a dialog 1–9 pick the n-th choice, A keeps every ticket,
   * Enter confirms, Escape cancels; S builds a station, M moves a passenger, P passes, U undoes, ? opens the help.
   */
  onKey(ev) {
    if (ev.ctrlKey || ev.metaKey || ev.altKey || ev.defaultPrevented || !this.state || !this.els) return;
    if (this.walk && this.walk.active) { // the scoring walk-through: Escape skips it, other keys wait for it
      if (ev.key === "Escape") { ev.preventDefault(); this.walk.skip(); }
      return;
    }
    const target = ev.target instanceof Element ? ev.target : null;
    if (target && target.closest("input, select, textarea, [contenteditable]") && ev.key !== "Escape" && ev.key !== "Enter") return;
    const modal = document.querySelector(".modal");
    if (ev.key === "Escape" && modal) { ev.preventDefault(); modal.remove(); return; }
    if (modal || this.covered) return; // the help box, or the hot-seat cover (its button has the focus)
    const sheet = this.els.sheet.hidden ? null : this.els.sheet.querySelector(".sheet-box");
    const key = ev.key.length === 1 ? ev.key.toLowerCase() : ev.key;
    const onControl = target && target.closest("button, a, [role=button], input, label, li[tabindex]");
    if (sheet) {
      if (key === "Escape") {
        const cancel = sheet.querySelector("#sheet-cancel");
        if (cancel) { ev.preventDefault(); cancel.click(); }
        return;
      }
      if (key === "Enter" && !onControl) { // Enter on a button presses that button; elsewhere, the dialog's confirm
        const confirm = sheet.querySelector(":is(#confirm-claim, #confirm-station, #confirm-keep, #tunnel-pay):not([disabled])");
        if (confirm) { ev.preventDefault(); confirm.click(); }
        return;
      }
      if (/^[1-9]$/.test(key)) {
        const choices = sheet.querySelectorAll(".offer input[type=checkbox], .mix-options button, #place-sheet .sheet-foot button, .move-list li");
        const pick = choices[Number(key) - 1];
        if (pick) { ev.preventDefault(); pick.click(); pick.focus(); }
        return;
      }
      if (key === "a") { const all = sheet.querySelector("#keep-all"); if (all) { ev.preventDefault(); all.click(); } return; }
      if (key === "r") { ev.preventDefault(); this.cycleFocus(ev.shiftKey ? -1 : 1, "g.city.pickable"); return; } // a dialog asking for a city
      return;
    }
    if (key === "Escape" && this.pinnedTicket) { document.querySelector(`#my-tickets [data-ticket="${this.pinnedTicket}"]`)?.click(); return; }
    const act = {
      d: () => this.onDeck(),
      t: () => this.onDrawTickets(),
      r: () => this.cycleFocus(ev.shiftKey ? -1 : 1),
      s: () => this.els.actions.querySelector("#build-station:not([disabled])")?.click(),
      m: () => this.els.actions.querySelector("#move-passenger:not([disabled])")?.click(),
      p: () => this.els.actions.querySelector("#pass")?.click(),
      u: () => { if (!this.els.undo.hidden) this.undo(); },
      "?": () => sheets.showHelp(this),
    }[key];
    if (/^[1-5]$/.test(key) && this.view.market) { ev.preventDefault(); this.onMarket(Number(key) - 1); return; }
    if (act) { ev.preventDefault(); act(); }
  }

  /** Move the keyboard focus to the next (dir 1) or previous (-1) route that can be claimed or city that can be picked. */
  cycleFocus(dir, selector = "g.route.claimable, g.city.pickable") {
    const list = [...this.board.host.querySelectorAll(selector)];
    if (!list.length) {
      const why = this.notMyTurnReason();
      this.explain(why || t("keys.nothing_to_pick"));
      return;
    }
    const at = list.indexOf(document.activeElement && document.activeElement.closest ? document.activeElement.closest("g.route, g.city") : null);
    const next = list[at < 0 ? (dir > 0 ? 0 : list.length - 1) : (at + dir + list.length) % list.length];
    next.focus();
    const id = next.dataset.route;
    const route = id ? this.map.routes.find((r) => r.id === id) : null;
    this.board.reveal(route ? { routes: [id], cities: [route.a, route.b] } : { cities: [next.dataset.city] }, this.sheetCover());
  }

  // ---------------------------------------------------------------- server
  async fetchState(seat = null) {
    if (!this.token) {
      const s = await api("GET", `/api/games/${encodeURIComponent(this.id)}/spectate`);
      this.setState({ seq: s.seq, seat: null, seats_controlled: [], view: s.view, legal: [], can_undo: false, summary: s.summary || this.summary, closed_routes: s.closed_routes });
      return;
    }
    const q = seat !== null && seat !== undefined ? `?seat=${seat}` : "";
    const s = await api("GET", `/api/games/${encodeURIComponent(this.id)}/state${q}`, { token: this.token });
    this.setState(s);
  }

  setState(s) {
    if (this.state && s.seq < this.state.seq && s.seat === this.state.seat) return; // an older answer arrived late
    if (this.state && s.seq < (this.actedSeq ?? 0) && s.seat === this.state.seat) return; // older than our own last action
    this.state = s;
    if (s.summary) this.summary = s.summary;
    if (s.seat !== null && s.seat !== undefined && !this.hotseat) saveToken(this.id, { token: this.token, seat: s.seat, edition: this.summary.edition });
    if (this.hotseat) saveToken(this.id, { token: this.token, hotseat: true, edition: this.summary.edition });
  }

  /** The seats that may act now: in setup every seat still choosing its tickets (in any order), else the player to move. */
  get toAct() {
    const v = this.view;
    if (!v || v.phase === "over") return [];
    return v.to_act || [v.current];
  }

  /** Hot-seat: the seat whose cards should be on screen — the first seat of ours that may act, else the last one shown. */
  desiredSeat() {
    const v = this.view;
    if (!this.hotseat || !v) return this.mySeat;
    const acting = this.toAct.find((seat) => this.state.seats_controlled.includes(seat));
    if (acting !== undefined) return acting;
    return this.shownSeat ?? this.mySeat;
  }

  async loadLog(prefetched = null) {
    try {
      const res = prefetched || await api("GET", `/api/games/${encodeURIComponent(this.id)}/log?since=0`, { token: this.token });
      this.log = [];
      this.logSeq = 0;
      for (const item of res.events || []) this.addLog(item.seq, item.event);
      if (prefetched && this.state && this.logSeq < this.state.seq) { // asked with the state: events may have come between
        const more = await api("GET", `/api/games/${encodeURIComponent(this.id)}/log?since=${this.logSeq}`, { token: this.token });
        for (const item of more.events || []) this.addLog(item.seq, item.event);
      }
    } catch {
      // the log is a convenience: the game works without it
    }
    this.renderLog();
  }

  addLog(seq, ev) {
    if (seq <= this.logSeq) return;
    this.logSeq = seq;
    this.log.push({ seq, ev }); // worded when drawn (renderLog), so a language switch re-words the whole log
  }

  connect() {
    if (this.socket) this.socket.close();
    this.socket = new GameSocket(this.id, {
      token: this.token,
      seat: this.hotseat ? null : this.mySeat,
      since: this.state ? this.state.seq : 0,
      chat: true,
      onUpdate: (msg) => this.onUpdate(msg),
      onChat: (messages) => {
        if (this.chat) this.chat.receive(messages);
        else { this.chatMessages = this.chatMessages || new Map(); for (const m of messages) this.chatMessages.set(m.id, m); }
      },
      onError: (err) => toast(t("error.refused", { message: err.message || err.code }), "error"),
      onStatus: (status) => {
        this.online = status === "online";
        document.body.classList.toggle("offline", !this.online);
        if (this.online) this.fetchState(this.hotseat ? this.desiredSeat() : null).then(() => this.render()).catch(() => {});
      },
    });
  }

  async onUpdate(msg) {
    let undo = false;
    const before = this.beforeUpdate();
    const news = [];
    for (const item of msg.events || []) {
      if (item.event && item.event.type === "undo") undo = true;
      if (item.seq > this.logSeq && item.event) news.push(item.event);
      this.addLog(item.seq, item.event || {});
    }
    if (msg.state) this.setState(msg.state);
    if (this.hotseat) {
      const want = this.desiredSeat();
      if (want !== this.mySeat) {
        try { await this.fetchState(want); } catch { /* shown on next update */ }
      }
    }
    if (undo) await this.loadLog();
    this.render();
    this.renderLog();
    // two frames later: the update's own style, layout and paint are done before anything moves
    const now = this.state; // what this update showed (another one may arrive before its animations start)
    if (!undo) requestAnimationFrame(() => requestAnimationFrame(() => this.animate(before, news, now)));
  }

  /** What the animations of an update start from: the scores, whose turn it was, where the market cards and the deck are. */
  beforeUpdate() {
    if (!this.state || !this.els) return null;
    const rect = (el) => (el ? el.getBoundingClientRect() : null);
    return {
      scores: this.view.public.map((p) => p.score),
      myTurn: this.isMyTurn(),
      slots: [...this.els.market.querySelectorAll(".card")].map(rect),
      deck: rect(this.els.deck.querySelector("#deck")),
    };
  }

  /** Animations and sounds for the events of an update (motion.js: skipped with reduced motion, silent when muted). */
  animate(before, events, st) {
    if (!before || !st || !st.view) return;
    const fresh = st === this.state; // the page still shows this update: its score and turn changes are on screen
    for (const ev of events) {
      if (ev.type === "claim") { // the trains dropping in mark a new claim; with less motion, a short flash does
        if (motion.reduceMotion()) this.board.flash(ev.route);
        else motion.placeTrains(this.board.routeEls.get(ev.route));
        motion.sound("claim");
      } else if (ev.type === "tunnel_reveal") {
        motion.sound("tunnel");
      } else if (ev.type === "game_over") {
        motion.sound("end");
      } else if ((ev.type === "draw_faceup" || (ev.type === "draw_blind" && ev.card)) && ev.player === this.mySeat && !this.covered) {
        const from = ev.type === "draw_faceup" ? before.slots[ev.slot] : before.deck;
        const target = this.els.hand.querySelector(`.card[data-kind="${ev.card}"]`) || this.els.hand;
        motion.flyCard(cardTile(ev.card), from, target.getBoundingClientRect());
      }
    }
    if (!fresh) return;
    st.view.public.forEach((p, seat) => {
      const delta = p.score - (before.scores[seat] ?? p.score);
      if (delta) motion.scoreChange(this.els.players.querySelector(`.player[data-seat="${seat}"] .stat.score b`), delta);
    });
    if (!before.myTurn && this.isMyTurn()) {
      motion.sound("turn");
      notifyTurn(t("notify.your_turn_in", { game: this.summary.name || editionName(this.summary.edition, this.summary.edition_name) }), `ttr-${this.id}`, `/play/${encodeURIComponent(this.id)}`);
    }
  }

  async send(action) {
    if (this.busy) return false;
    this.busy = true;
    this.root.classList.add("busy");
    try {
      const body = { action, expected_seq: this.state.seq };
      if (this.mySeat !== null) body.seat = this.mySeat;
      const res = await api("POST", `/api/games/${encodeURIComponent(this.id)}/actions`, { token: this.token, body });
      this.actedSeq = res.seq; // setup: an update of another seat's choice may still arrive without ours
      this.sheet = null;
      if (!this.online) await this.fetchState(this.desiredSeat());
      return true;
    } catch (err) {
      toast(t("error.refused", { message: err.message }), "error");
      if (err.code === "state_changed" || err.code === "not_your_turn") await this.fetchState(this.desiredSeat()).catch(() => {});
      return false;
    } finally {
      this.busy = false;
      this.root.classList.remove("busy");
      this.render();
    }
  }

  async undo() {
    try {
      const body = this.mySeat !== null ? { seat: this.mySeat } : {};
      await api("POST", `/api/games/${encodeURIComponent(this.id)}/undo`, { token: this.token, body });
      this.sheet = null;
      toast(t("game.undone"), "ok");
      if (!this.online) { await this.fetchState(this.desiredSeat()); await this.loadLog(); this.render(); }
    } catch (err) {
      toast(t("error.refused", { message: err.message }), "error");
    }
  }

  /** Offer the same table again, or accept the offer: the first call makes the new game; go to our seat in it. */
  async rematch() {
    let res;
    try {
      res = await api("POST", `/api/games/${encodeURIComponent(this.id)}/rematch`, { token: this.token });
    } catch (err) {
      toast(t("error.refused", { message: err.message }), "error");
      return;
    }
    const edition = this.summary.edition;
    if (res.hotseat_token) saveToken(res.game_id, { token: res.hotseat_token, hotseat: true, edition });
    else saveToken(res.game_id, { token: res.token, seat: res.seat, name: (savedTokens()[this.id] || {}).name, edition });
    location.href = res.join_url;
  }

  async join(name) {
    try {
      const res = await api("POST", `/api/games/${encodeURIComponent(this.id)}/join`, { token: this.token, body: { name } });
      this.token = res.token;
      saveToken(this.id, { token: res.token, seat: res.seat, name, edition: this.summary.edition });
      await this.fetchState();
      this.connect();
      this.render();
    } catch (err) {
      toast(t("error.refused", { message: err.message }), "error");
    }
  }

  // ---------------------------------------------------------------- layout
  buildLayout() {
    const keepBoard = this.board;
    const boardHost = keepBoard ? keepBoard.host : h("div", { class: "board-host", id: "board" });
    this.els = {
      players: h("div", { class: "players", id: "players" }),
      tickets: h("ul", { class: "ticket-list", id: "my-tickets" }),
      market: h("div", { class: "market", id: "market" }),
      deck: h("div", { class: "decks", id: "decks" }),
      hand: h("div", { class: "hand", id: "hand" }),
      actions: h("div", { class: "extra-actions", id: "extra-actions" }),
      log: h("ol", { class: "log", id: "log", tabindex: "0", "aria-label": t("game.log") }), // it scrolls: reachable by keyboard (axe: scrollable-region-focusable)
      sheet: h("div", { class: "sheet", id: "sheet", hidden: true }),
      walk: this.els && this.els.walk ? this.els.walk : h("div", { class: "walk-overlay", id: "walk", hidden: true }), // kept (a walk may be playing)
      waiting: h("div", { class: "waiting", id: "waiting", hidden: true }),
      banner: h("div", { class: "turn-banner", id: "turn-banner", role: "status", "aria-live": "polite" }),
      undo: h("button", { class: "button undo", id: "undo", type: "button", hidden: true, onclick: () => this.undo() }, "↶ ", t("game.undo")),
    };
    const zoom = h("div", { class: "zoom-controls" },
      h("button", { type: "button", title: t("board.zoom_in"), "aria-label": t("board.zoom_in"), onclick: () => this.board.zoomBy(1.4) }, "+"),
      h("button", { type: "button", title: t("board.zoom_out"), "aria-label": t("board.zoom_out"), onclick: () => this.board.zoomBy(1 / 1.4) }, "−"),
      h("button", { type: "button", title: t("board.fit"), "aria-label": t("board.fit"), onclick: () => this.board.fit() }, "⤢"));
    const editionTitle = h("span", { class: "game-title" }, editionName(this.summary.edition, this.summary.edition_name), this.summary.name ? ` · ${this.summary.name}` : "");
    const layout = h("div", { class: "game-layout" },
      h("section", { class: "area-status" }, editionTitle, this.els.banner, this.els.undo,
        h("button", { type: "button", class: "button ghost", onclick: () => sheets.showHelp(this) }, "? ", t("game.help"))),
      h("section", { class: "area-left panel" },
        h("h2", {}, t("game.players")), this.els.players,
        h("h2", { id: "tickets-heading" }, t(this.watching ? "game.tickets" : "game.my_tickets")), this.els.tickets),
      h("section", { class: "area-board" }, boardHost, zoom, this.els.waiting),
      h("section", { class: "area-right panel" },
        h("h2", {}, t("game.market")), this.els.market, this.els.deck, this.els.actions,
        h("h2", {}, t("game.log")), this.els.log, (this.chat = new ChatPanel(this, { replay: this.isReplay === true })).node),
      h("section", { class: "area-hand panel" }, h("h2", { id: "hand-heading" }, t(this.watching ? "game.cards" : "game.my_cards")), this.els.hand),
      this.els.sheet, this.els.walk); // docked over the right column on wide screens, a bottom sheet on narrow ones (app.css)
    this.sheetKey = null;
    this.root.replaceChildren(layout);
    this.root.className = "game-page";
    this.cover = h("div", { class: "cover", id: "cover", hidden: true });
    this.final = h("div", { class: "final-overlay", id: "final", hidden: true });
    this.root.append(this.cover, this.final);
    if (!keepBoard) {
      this.board = new Board(boardHost, this.map, {
        onRoute: (id) => this.onRoute(id),
        onCity: (id) => this.onCity(id),
        describeRoute: (r) => this.describeRouteWithOwner(r),
        describeCity: (c) => this.describeCity(c),
        tipAvoid: () => (this.els.sheet.hidden ? null : this.els.sheet), // a tooltip never covers a dialog
      });
    }
    if (this.board.svg) this.board.svg.setAttribute("aria-label", t("board.label", { edition: t(`edition.${this.summary.edition}`) }));
  }

  /** The scoring walk-through's panel if it lies over the board (narrow screens), else null. */
  walkCover() {
    const w = this.els && this.els.walk;
    if (!w || w.hidden || !this.board) return null;
    const a = w.getBoundingClientRect(), b = this.board.host.getBoundingClientRect();
    return a.width > 0 && a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom ? w : null;
  }

  /** Play the scoring walk-through now? Once per game and tab, at the end, unless motion is reduced (then: the sheet). */
  walkWanted() {
    const v = this.view;
    if (this.walked || this.finalDismissed || motion.reduceMotion() || !v.result || !(this.state.final_report || []).length) return false;
    try { if (sessionStorage.getItem(`ttr.walked.${this.id}`)) return false; } catch { /* storage disabled */ }
    return true;
  }

  startWalk() {
    this.walked = true;
    try { sessionStorage.setItem(`ttr.walked.${this.id}`, "1"); } catch { /* storage disabled */ }
    if (this.board.tooltip) this.board.tooltip.hidden = true;
    this.walk = new ScoreWalk(this, this.els.walk, { stepMs: this.walkStepMs });
    const bottom = getComputedStyle(this.els.walk).position === "fixed"; // a bottom sheet: the map above it, in sight
    if (bottom) {
      const bar = document.querySelector(".topbar");
      const top = this.board.host.getBoundingClientRect().top - (bar ? bar.getBoundingClientRect().bottom : 0);
      if (Math.abs(top) > 2) window.scrollBy(0, top);
      document.documentElement.style.setProperty("--sheet-h", `${Math.ceil(this.els.walk.getBoundingClientRect().height)}px`);
    }
    this.walk.start();
  }

  walkEnded(walk) {
    this.lastWalk = walk; // what it showed (tests)
    this.walk = null;
    document.documentElement.style.setProperty("--sheet-h", "0px");
    this.render();
  }

  /** The open dialog if it lies over the board (the bottom sheet of narrow screens), else null. */
  sheetCover() {
    const sheet = this.els && this.els.sheet;
    if (!sheet || sheet.hidden || !this.board) return null;
    const a = sheet.getBoundingClientRect(), b = this.board.host.getBoundingClientRect();
    const over = a.width > 0 && a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
    return over ? sheet : null;
  }

  /**
   * Keep what a dialog is about in sight: on a narrow screen, scroll the board up under the top bar and
   * pan/zoom the map so those cities and routes lie in the part of the board above the bottom sheet; on a
   * wide screen (dialog docked beside the map) only pan if they are out of view.
   */
  focusBoard(targets) {
    if (!targets.cities.length && !targets.routes.length) return;
    if (getComputedStyle(this.els.sheet).position === "fixed") {
      const bar = document.querySelector(".topbar");
      const top = this.board.host.getBoundingClientRect().top - (bar ? bar.getBoundingClientRect().bottom : 0);
      if (Math.abs(top) > 2) window.scrollBy(0, top);
    }
    this.board.reveal(targets, this.sheetCover());
  }

  /** A ticket's cities on the board (every border point of a Märklin country). */
  ticketCities(tk) {
    return [...endNodes(this.map, tk.a), ...endNodes(this.map, tk.b)];
  }

  describeRouteWithOwner(r) {
    const owner = this.view && this.view.routes[r.id];
    const base = describeRoute(this.map, r);
    return owner !== undefined ? `${base} — ${t("route.owned_by", { player: seatName(this.summary, owner) })}` : base;
  }

  describeCity(c) {
    const parts = [c.name];
    const v = this.view;
    if (!v) return c.name;
    if (v.stations && v.stations[c.id] !== undefined) parts.push(t("city.station_of", { player: seatName(this.summary, v.stations[c.id]) }));
    const m = v.merchandise && v.merchandise[c.id];
    if (m && m.length) parts.push(t("city.merchandise", { tokens: m.join(" / ") }));
    return parts.join(" — ");
  }

  // ---------------------------------------------------------------- rendering
  render() {
    if (!this.state || !this.els) return;
    this.legal = analyseLegal(this.state.legal || []);
    const v = this.view;
    if (v.phase === "over" && v.result && this.pathOwner === null) this.pathOwner = (v.result.winners || [0])[0];
    this.renderCover(); // first: while the device is being passed, nothing secret is drawn
    this.renderBoard();
    this.renderBanner();
    this.renderPlayers();
    this.renderTickets();
    this.renderMarket();
    this.renderHand();
    this.renderActions();
    this.renderWaiting();
    this.renderSheet();
    this.renderFinal();
    const known = [...(v.tickets || []), ...(v.offered || [])].some((tk) => tk.id === this.pinnedTicket);
    if (this.pinnedTicket && !known) { this.pinnedTicket = null; this.board.highlightCities([]); }
    if (this.tutorial) this.tutorial.update();
  }

  /** Each ticket's live status ("done", "station", "open") and completed path, as the engine scores it now
   * (the state's `ticket_report`; a ticket it does not list is open). */
  ticketReport(tickets) {
    const byId = new Map((this.state.ticket_report || []).map((x) => [x.id, x]));
    return tickets.map((tk) => byId.get(tk.id) || { id: tk.id, status: "open", path: [] });
  }

  isMyTurn() {
    const v = this.view;
    return !!v && this.mySeat !== null && this.toAct.includes(this.mySeat) && this.summary.status === "active";
  }

  renderBoard() {
    const v = this.view;
    this.board.setState({ owners: v.routes || {}, stations: v.stations || {}, passengers: v.public.map((p) => p.passengers || []), merchandise: v.merchandise || {}, closed: this.state.closed_routes || [] });
    const mine = this.covered || this.mySeat === null ? [] : v.tickets || []; // destinations and completed paths (board.js)
    const report = this.ticketReport(mine);
    this.board.setTickets(mine.map((tk, i) => ({ id: tk.id, cities: [...endNodes(this.map, tk.a), ...endNodes(this.map, tk.b)], done: report[i].status !== "open", routes: report[i].path })));
    const claimable = new Set(this.isMyTurn() && v.phase === "turn" ? this.legal.claims.keys() : []);
    let pick = new Set();
    if (this.sheet && this.sheet.kind === "station-pick") pick = new Set(this.legal.stations.keys());
    if (this.isMyTurn() && v.phase === "place_passenger") pick = new Set(this.legal.place.filter(Boolean));
    this.board.setPlayable({ claimable, pickCities: pick });
    this.board.select(this.sheet && this.sheet.kind === "claim" ? this.sheet.route : null);
    const paths = [];
    if (this.sheet && this.sheet.kind === "moves" && this.sheet.hover) paths.push({ routes: this.sheet.hover.path, kind: "trail" });
    if (this.walk && this.walk.active) paths.push(...this.walk.paths);
    else if (v.phase === "over" && v.result && this.pathOwner !== null) {
      const res = v.result.players[this.pathOwner];
      if (res) paths.push({ routes: res.longest_path_routes || [], kind: "longest" });
    }
    this.board.showPaths(paths);
  }

  renderBanner() {
    const v = this.view;
    const b = this.els.banner;
    b.replaceChildren();
    b.className = "turn-banner";
    let text;
    const current = v.current;
    const currentName = seatName(this.summary, current);
    if (this.summary.status === "abandoned") { // closed by the server's expiry sweep: say why, offer the way out
      b.classList.add("closed");
      b.append(h("span", { class: "turn-text", id: "turn-text" }, closedText(this.summary.closed_reason)),
        h("a", { class: "banner-link", href: "/" }, t("nav.lobby")));
      this.els.undo.hidden = true;
      document.title = t("app.title");
      if (!this.closedShown) { // once: a dialog may have scrolled the page (focusBoard) and hidden the banner
        this.closedShown = true;
        requestAnimationFrame(() => {
          const bar = document.querySelector(".topbar");
          const above = b.getBoundingClientRect().top - (bar ? bar.getBoundingClientRect().bottom : 0);
          if (above < 0) window.scrollBy(0, above - 8);
        });
      }
      return;
    }
    if (this.summary.status === "open") {
      text = t("banner.waiting_players");
    } else if (v.phase === "over") {
      const winners = (v.result && v.result.winners) || [];
      text = winners.length > 1 ? t("banner.over_tie", { players: winners.map((w) => seatName(this.summary, w)).join(", ") })
        : t("banner.over", { player: seatName(this.summary, winners[0] ?? 0) });
      b.classList.add("over");
    } else if (this.isMyTurn()) {
      b.classList.add("mine");
      text = this.promptForPhase();
    } else {
      const choosing = this.toAct.map((seat) => seatName(this.summary, seat));
      text = v.phase !== "setup" ? t("banner.other_turn", { player: currentName })
        : choosing.length > 1 ? t("banner.others_setup", { players: choosing.join(", ") })
          : t("banner.other_setup", { player: choosing[0] ?? currentName });
    }
    if (v.phase !== "over" && current !== null && current !== undefined) {
      b.style.setProperty("--turn-colour", PLAYER_COLOURS[current % PLAYER_COLOURS.length]);
      b.append(h("span", { class: "turn-dot" }, PLAYER_SHAPES[current % PLAYER_SHAPES.length]));
    }
    b.append(h("span", { class: "turn-text", id: "turn-text" }, text), ...clockNodes(this));
    if (v.final_turns !== null && v.final_turns !== undefined && v.final_turns >= 0 && v.phase !== "over") {
      b.append(h("span", { class: "final-round" }, t("banner.final_round", { count: v.final_turns })));
    }
    this.els.undo.hidden = !this.state.can_undo;
    document.title = this.isMyTurn() ? t("title.your_turn", { title: t("app.title") }) : t("app.title"); // visible from other tabs
  }

  promptForPhase() {
    const v = this.view;
    const r = this.map.rules || {};
    switch (v.phase) {
      case "setup":
        return this.legal.ticketDraws.length ? t("prompt.setup_mix") : t("prompt.keep", { count: this.legal.keepMin });
      case "keep_tickets": return t("prompt.keep", { count: this.legal.keepMin });
      case "second_card": return t("prompt.second_card");
      case "tunnel": return t("prompt.tunnel");
      case "place_passenger": return t("prompt.place_passenger");
      case "turn":
        if (this.legal.pass) return t("prompt.pass");
        if (r.stations) return t("prompt.turn_stations");
        if (r.passengers) return t("prompt.turn_passengers");
        return t("prompt.turn");
      default: return "";
    }
  }

  renderPlayers() {
    const v = this.view;
    const r = this.map.rules || {};
    const host = this.els.players;
    const playing = (seat) => this.toAct.includes(seat) && this.summary.status === "active";
    host.replaceChildren();
    v.public.forEach((p, seat) => {
      const isMe = seat === this.mySeat;
      const seatInfo = this.summary.seats[seat] || {};
      const stats = [
        h("span", { class: "stat score", title: t("player.score") }, icon("score"), h("b", {}, String(p.score)), " ", t("player.points_short")),
        h("span", { class: "stat", title: t("player.trains") }, icon("train", t("player.trains")), String(p.trains)),
        h("span", { class: "stat", title: t("player.cards") }, icon("cards", t("player.cards")), String(p.cards)),
        h("span", { class: "stat", title: t("player.tickets") }, icon("ticket", t("player.tickets")), String(p.tickets)),
      ];
      if (r.stations) stats.push(h("span", { class: "stat", title: t("player.stations") }, icon("station", t("player.stations")), String(p.stations)));
      if (r.passengers) {
        const left = (p.passengers || []).filter((c) => c !== "gone").length;
        stats.push(h("span", { class: "stat", title: t("player.passengers") }, icon("passenger", t("player.passengers")), String(left)));
        if ((p.tokens || []).length) stats.push(h("span", { class: "stat", title: t("player.tokens") }, icon("token", t("player.tokens")), (p.tokens || []).join("+")));
      }
      const row = h("div", {
        class: `player${playing(seat) ? " current" : ""}${isMe ? " me" : ""}`,
        dataset: { seat: String(seat) },
        style: { "--player": PLAYER_COLOURS[seat % PLAYER_COLOURS.length] },
      },
      h("span", { class: "player-chip", "aria-hidden": "true" }, PLAYER_SHAPES[seat % PLAYER_SHAPES.length]),
      h("span", { class: "player-name" }, seatName(this.summary, seat),
        isMe ? h("span", { class: "tag" }, t("player.you")) : null,
        seatInfo.type === "bot" ? h("span", { class: "tag bot" }, t("player.bot")) : null,
        seatInfo.type === "human" && !seatInfo.joined ? h("span", { class: "tag" }, t("player.not_joined")) : null),
      playing(seat) ? h("span", { class: "now-playing" }, t("player.playing")) : null,
      h("div", { class: "player-stats" }, stats));
      host.append(row);
    });
  }

  get covered() { return this.coverFor !== null && this.hotseat; }

  /** A spectator or the replay viewer: no seat of ours, so the page's wording is neutral ("Tickets", not "My tickets"). */
  get watching() { return this.watch || !this.token || (this.state && this.state.seat === null); }

  renderTickets() {
    const v = this.view;
    const host = this.els.tickets;
    host.replaceChildren();
    if (this.covered) return;
    const tickets = v.tickets || [];
    if (this.mySeat === null) {
      if (v.phase === "over" && v.result) this.allTickets(host); // the end reveals everyone's tickets
      else host.append(h("li", { class: "empty" }, t("tickets.watching")));
      return;
    }
    if (!tickets.length) {
      host.append(h("li", { class: "empty" }, t("tickets.none")));
      return;
    }
    let status = this.ticketReport(tickets).map((x) => x.status);
    const final = v.result && v.result.players[this.mySeat];
    if (final) { // the game is over: the engine's verdict, ticket by ticket
      const done = new Map(final.tickets.map((x) => [x.id, x.completed]));
      status = tickets.map((tk, i) => (done.get(tk.id) ? (status[i] === "station" ? "station" : "done") : "failed"));
    }
    tickets.forEach((tk, i) => {
      host.append(this.ticketItem(tk, status[i]));
    });
  }

  /** Watching a finished game (spectator, end of a replay): every player's tickets and whether each was completed. */
  allTickets(host) {
    for (const res of this.view.result.players) {
      const list = res.tickets || [];
      const done = list.filter((x) => x.completed).length;
      host.append(h("li", { class: "ticket-owner", dataset: { seat: String(res.player) }, style: { "--player": PLAYER_COLOURS[res.player % PLAYER_COLOURS.length] } },
        h("span", { class: "player-chip", "aria-hidden": "true" }, PLAYER_SHAPES[res.player % PLAYER_SHAPES.length]),
        t("tickets.player_done", { player: seatName(this.summary, res.player), done, count: list.length })));
      for (const x of list) {
        const tk = this.map.tickets.find((m) => m.id === x.id) || { id: x.id, a: x.id, b: "", points: x.points };
        const item = this.ticketItem({ ...tk, points: x.points ?? tk.points }, x.completed ? "done" : "failed");
        item.dataset.seat = String(res.player);
        host.append(item);
      }
    }
  }

  ticketItem(tk, status) {
    const icon = { done: "✔", station: "⌂", open: "○", failed: "✘" }[status];
    const label = { done: t("tickets.connected"), station: t("tickets.with_station"), open: t("tickets.not_yet"), failed: t("tickets.failed") }[status];
    const item = h("li", { class: `ticket ${status}`, tabindex: "0", dataset: { ticket: tk.id } },
      h("span", { class: "ticket-status", title: label, "aria-label": label }, icon),
      h("span", { class: "ticket-name" }, ticketLabel(this.map, tk)),
      h("span", { class: "ticket-points" }, String(tk.points)),
      h("span", { class: "sr-only" }, label));
    this.hoverCities(item, tk);
    item.addEventListener("click", () => this.board.pinTicket(tk.id)); // a tap (or click) keeps its path lit; again: off
    return item;
  }

  /**
   * Hovering (or focusing) a ticket lights up its two cities on the board; tapping or clicking it keeps
   * them lit until it is tapped again or another ticket is (touch screens have no hover).
   */
  hoverCities(node, tk) {
    const on = () => {
      const cities = this.ticketCities(tk);
      this.board.highlightCities(cities, tk.id);
      this.board.reveal({ cities }, this.sheetCover());
    };
    const off = () => {
      if (this.pinnedTicket === tk.id) return;
      this.board.highlightCities(this.pinnedTicket ? this.ticketCities(this.pinnedCities) : [], this.pinnedTicket);
    };
    node.addEventListener("pointerenter", (ev) => { if (ev.pointerType !== "touch") on(); });
    node.addEventListener("pointerleave", (ev) => { if (ev.pointerType !== "touch") off(); });
    node.addEventListener("focus", on);
    node.addEventListener("blur", off);
    node.addEventListener("click", (ev) => {
      if (ev.target.closest("label") && ev.target.tagName !== "INPUT") return; // the label passes the click on to its box
      const pin = this.pinnedTicket !== tk.id;
      this.pinnedTicket = pin ? tk.id : null;
      this.pinnedCities = pin ? tk : null;
      for (const x of document.querySelectorAll("[data-ticket].pinned")) x.classList.remove("pinned");
      if (pin) { node.classList.add("pinned"); on(); } else this.board.highlightCities([]);
    });
    if (this.pinnedTicket === tk.id) node.classList.add("pinned");
  }

  renderMarket() {
    const v = this.view;
    const mine = this.isMyTurn();
    const L = this.legal;
    const canDraw = mine && (v.phase === "turn" || v.phase === "second_card");
    this.els.market.replaceChildren(...v.market.map((kind, slot) => {
      if (!kind) return h("div", { class: "card card-empty", "aria-label": t("market.empty") });
      const ok = canDraw && L.faceup.has(slot);
      const tile = cardTile(kind, {
        onclick: () => this.onMarket(slot),
        title: ok ? t("market.take", { card: cardName(kind) }) : cardName(kind),
      });
      tile.dataset.slot = String(slot);
      tile.classList.toggle("playable", ok);
      tile.classList.toggle("unavailable", canDraw && !ok);
      return tile;
    }));
    const deckOk = canDraw && L.blind;
    const deck = h("button", {
      type: "button", class: `deck-pile${deckOk ? " playable" : ""}`, id: "deck", onclick: () => this.onDeck(),
      title: t("market.deck_title"),
    }, h("span", { class: "deck-back" }, icon("train")), h("span", {}, t("market.deck", { count: v.deck_size })));
    const ticketDecks = Object.entries(v.ticket_decks || {});
    const ticketsLeft = ticketDecks.reduce((s, [, n]) => s + n, 0);
    const ticketOk = mine && v.phase === "turn" && L.ticketDraws.length > 0;
    const ticketsBtn = h("button", {
      type: "button", class: `deck-pile tickets-pile${ticketOk ? " playable" : ""}`, id: "draw-tickets", onclick: () => this.onDrawTickets(),
      title: t("market.tickets_title"),
    }, h("span", { class: "deck-back" }, icon("ticket")),
    h("span", {}, ticketDecks.length > 1
      ? ticketDecks.map(([d, n]) => t("market.ticket_deck", { deck: t(`deck.${d}`), count: n })).join(" · ")
      : t("market.tickets", { count: ticketsLeft })));
    const discard = Object.values(v.discard || {}).reduce((s, n) => s + n, 0);
    this.els.deck.replaceChildren(deck, ticketsBtn, h("div", { class: "discard-note" }, t("market.discard", { count: discard })));
  }

  renderHand() {
    const v = this.view;
    const host = this.els.hand;
    host.replaceChildren();
    if (this.covered) return;
    if (!v.hand) {
      host.append(h("p", { class: "empty" }, t("hand.watching")));
      return;
    }
    const paying = this.sheet && (this.sheet.kind === "claim" || this.sheet.kind === "station") ? this.sheet
      : v.phase === "tunnel" && this.isMyTurn() ? this.tunnelChoice : null;
    const using = paying && paying.options ? paying.options[paying.choice] : null;
    const kinds = CARD_KINDS.filter((k) => v.hand[k]);
    if (!kinds.length) host.append(h("p", { class: "empty" }, t("hand.empty")));
    for (const k of kinds) {
      const tile = cardTile(k, { count: v.hand[k] });
      if (using && using[k]) {
        tile.classList.add("in-use");
        tile.append(h("span", { class: "card-use" }, `−${using[k]}`));
      }
      host.append(tile);
    }
    const total = kinds.reduce((s, k) => s + v.hand[k], 0);
    host.append(h("span", { class: "hand-total" }, t("hand.total", { count: total })));
  }

  renderActions() {
    const v = this.view;
    const r = this.map.rules || {};
    const host = this.els.actions;
    host.replaceChildren();
    if (this.mySeat === null) {
      host.append(h("a", { class: "button", href: "/" }, t("nav.lobby")));
      return;
    }
    const mine = this.isMyTurn() && v.phase === "turn";
    if (r.stations) {
      const mineLeft = v.public[this.mySeat] ? v.public[this.mySeat].stations : 0;
      host.append(h("button", {
        type: "button", class: "button", id: "build-station", disabled: !(mine && this.legal.stations.size),
        onclick: () => { this.sheet = { kind: "station-pick" }; this.render(); },
        title: t("station.button_title"),
      }, icon("station"), t("station.button", { count: mineLeft })));
    }
    if (r.passengers) {
      host.append(h("button", {
        type: "button", class: "button", id: "move-passenger", disabled: !(mine && this.legal.moves.length),
        onclick: () => { this.sheet = { kind: "moves", hover: null }; this.render(); },
        title: t("passenger.button_title"),
      }, icon("passenger"), t("passenger.button")));
    }
    if (mine && this.legal.pass) {
      host.append(h("button", { type: "button", class: "button primary", id: "pass", onclick: () => this.send({ type: "pass" }) }, t("game.pass")));
    }
  }

  renderWaiting() {
    const w = this.els.waiting;
    if (this.summary.status !== "open") { w.hidden = true; return; }
    w.hidden = false;
    w.replaceChildren(sheets.waitingRoom(this));
  }

  renderSheet() {
    const node = this.covered ? null : sheets.currentSheet(this);
    if (node && this.els.sheet.hidden) this.returnFocus = document.activeElement; // given back when the dialog closes
    if (!node && !this.els.sheet.hidden) {
      this.board.restore(); // the dialog closed: back to the player's view
      const back = this.returnFocus;
      this.returnFocus = null;
      if (back && back !== document.body && back.isConnected && (this.els.sheet.contains(document.activeElement) || document.activeElement === document.body)) back.focus({ preventScroll: true });
    }
    this.els.sheet.hidden = !node;
    this.els.sheet.dataset.kind = node ? node.id : "";
    this.els.sheet.replaceChildren(...(node ? [node] : []));
    const targets = node ? sheets.sheetTargets(this, node) : null;
    const key = node ? `${node.id}|${this.state.seq}|${JSON.stringify(targets)}` : null;
    if (key && key !== this.sheetKey) { // a new decision: nothing it is about may be hidden
      if (this.board.tooltip) this.board.tooltip.hidden = true;
      this.focusBoard(targets);
      if (!node.contains(document.activeElement)) node.focus({ preventScroll: true }); // keyboard: Tab goes on in the dialog
    }
    this.sheetKey = key;
    const bottomSheet = node && getComputedStyle(this.els.sheet).position === "fixed";
    document.documentElement.style.setProperty("--sheet-h", bottomSheet ? `${Math.ceil(this.els.sheet.getBoundingClientRect().height)}px` : "0px");
  }

  /** Setup, and no human seat has chosen its tickets yet (so nobody's secrets are on this screen yet). */
  setupUntouched() {
    const v = this.view;
    if (v.phase !== "setup") return false;
    return this.summary.seats.every((s) => s.type !== "human" || this.toAct.includes(s.seat));
  }

  renderCover() {
    const want = this.desiredSeat();
    if (this.hotseat && this.view.phase !== "over" && want !== null) {
      if (this.shownSeat === null && this.setupUntouched()) this.shownSeat = want; // the first chooser needs no hand-over
      this.coverFor = this.shownSeat === want ? null : want; // after an undo the cover may no longer be needed
    }
    if (this.coverFor === null || !this.hotseat) {
      this.cover.hidden = true;
      this.cover.replaceChildren();
      this.root.classList.remove("covered");
      return;
    }
    const seat = this.coverFor;
    const name = seatName(this.summary, seat);
    this.cover.hidden = false;
    this.root.classList.add("covered");
    this.cover.replaceChildren(h("div", { class: "cover-box" },
      h("h2", {}, t("hotseat.pass_to", { player: name })),
      h("p", {}, t("hotseat.explain")),
      h("button", {
        type: "button", class: "button primary big", id: "cover-ready",
        onclick: () => { this.shownSeat = seat; this.coverFor = null; this.render(); },
      }, t("hotseat.ready", { player: name })),
      this.state.can_undo ? h("p", {}, h("button", { type: "button", class: "button", id: "cover-undo", onclick: () => this.undo() },
        "↶ ", t("hotseat.undo", { player: seatName(this.summary, this.shownSeat ?? seat) }))) : null));
    this.cover.querySelector("#cover-ready").focus(); // Enter: ready
  }

  renderFinal() {
    const v = this.view;
    if (v.phase !== "over" || !v.result) { this.final.hidden = true; return; }
    if (this.walk && this.walk.active) { this.final.hidden = true; return; } // the sheet comes after the walk
    if (this.walkWanted()) { this.final.hidden = true; this.startWalk(); return; }
    this.final.hidden = this.finalDismissed;
    if (!this.finalDismissed) this.final.replaceChildren(finalSheet(this));
    if (this.finalDismissed && !this.els.actions.querySelector("#show-scores")) {
      this.els.actions.append(h("button", { type: "button", class: "button primary", id: "show-scores", onclick: () => { this.finalDismissed = false; this.render(); } }, t("final.show")));
    }
  }

  renderLog() {
    if (!this.els) return;
    const host = this.els.log;
    const worded = this.log.map((e) => ({ ...e, text: describeEvent(e.ev, this.map, this.summary, this.logSecrets()) })).filter((e) => e.text);
    host.replaceChildren(...worded.slice(-200).map((e) => {
      const who = e.ev.player;
      // the move in the notation (sent by the server, ttr.notation), beside the sentence
      const move = e.ev.move && (e.ev.type !== "keep_tickets" || this.logSecrets()) ? [" ", h("code", { class: "move" }, e.ev.move)] : [];
      return h("li", { dataset: { seq: String(e.seq), type: e.ev.type }, style: who !== null && who !== undefined ? { "--player": PLAYER_COLOURS[who % PLAYER_COLOURS.length] } : null, class: who !== null && who !== undefined ? "by-player" : "" }, e.text, ...move);
    }));
    requestAnimationFrame(() => { host.scrollTop = host.scrollHeight; }); // in the next frame: reading scrollHeight now would lay the page out once more
  }

  /** May the log tell the private forms of events (a blind draw's colour, tickets kept)? Not on a shared hot-seat screen. */
  logSecrets() { return !this.hotseat; }

  // ---------------------------------------------------------------- clicks
  /** Say why a click did nothing; on a touch screen a tapped route also gets the details a mouse would hover for. */
  explain(text, route = null) {
    toast(route && sheets.touchUi() ? `${this.describeRouteWithOwner(route)}. ${text}` : text, "info");
  }

  notMyTurnReason() {
    const v = this.view;
    if (this.mySeat === null) return t("why.spectator");
    if (this.summary.status === "open") return t("why.not_started");
    if (v.phase === "over") return t("why.over");
    if (v.current !== this.mySeat) return t("why.not_your_turn", { player: seatName(this.summary, v.current) });
    return null;
  }

  onRoute(id) {
    const v = this.view;
    const route = this.map.routes.find((r) => r.id === id);
    const why = this.notMyTurnReason();
    if (why) { this.explain(why, route); return; }
    if (v.phase !== "turn") { this.explain(t("why.finish_step"), route); return; }
    const options = this.legal.claims.get(id);
    if (options) {
      if (options.length === 1 && quickClaim()) { // the player asked not to confirm a claim with one way to pay
        this.send({ type: "claim", route: id, cards: options[0] });
        return;
      }
      this.sheet = { kind: "claim", route: id, options, choice: sheets.bestPayment(this, options, route), group: null };
      this.render();
      return;
    }
    this.explain(this.whyNotClaim(route), route);
  }

  /** Why a route cannot be claimed now, in words: the engine's reason (`claim_problems` in the state: a code per
   *  route), worded here with the facts it names, read from the map and the view. */
  whyNotClaim(route) {
    const name = routeName(this.map, route.id);
    const code = (this.state.claim_problems || {})[route.id];
    const v = this.view;
    switch (code) {
      case "claimed": return t("why.claimed", { route: name, player: seatName(this.summary, v.routes[route.id]) });
      case "own_lane": return t("why.own_lane", { route: name });
      case "lane_closed": return t("why.lane_closed", { route: name, count: v.players });
      case "trains": return t("why.trains", { route: name, count: route.length, trains: v.public[this.state.seat].trains });
      default: return t("why.cards", { route: name, count: route.length, colour: t(`colour.${route.color || "gray"}`) });
    }
  }


  onCity(id) {
    const v = this.view;
    if (this.isMyTurn() && v.phase === "place_passenger" && this.legal.place.includes(id)) {
      this.send({ type: "place_passenger", city: id });
      return;
    }
    if (this.isMyTurn() && v.phase === "turn" && this.legal.moves.some((m) => m.city === id)) {
      this.sheet = { kind: "moves", hover: null, from: id }; // clicking one of my passengers: its trips
      this.render();
      return;
    }
    if (this.isMyTurn() && v.phase === "turn" && this.legal.stations.has(id)) {
      const options = this.legal.stations.get(id);
      this.sheet = { kind: "station", city: id, options, choice: sheets.bestPayment(this, options), group: null };
      this.render();
      return;
    }
    if (this.sheet && this.sheet.kind === "station-pick") {
      this.explain(v.stations && v.stations[id] !== undefined ? t("why.station_taken", { city: cityName(this.map, id) }) : t("why.no_station_here", { city: cityName(this.map, id) }));
      return;
    }
    const city = this.map.cities.find((c) => c.id === id);
    if (city && sheets.touchUi()) toast(this.describeCity(city), "info"); // what a mouse would hover for
  }

  onMarket(slot) {
    const v = this.view;
    const why = this.notMyTurnReason();
    if (why) { this.explain(why); return; }
    if (v.phase !== "turn" && v.phase !== "second_card") { this.explain(t("why.finish_step")); return; }
    if (!this.legal.faceup.has(slot)) {
      this.explain(v.phase === "second_card" && v.market[slot] === "locomotive" ? t("why.second_locomotive") : t("why.cannot_take"));
      return;
    }
    this.send({ type: "draw_faceup", slot });
  }

  onDeck() {
    const v = this.view;
    const why = this.notMyTurnReason();
    if (why) { this.explain(why); return; }
    if (!this.legal.blind) { this.explain(v.phase === "turn" || v.phase === "second_card" ? t("why.deck_empty") : t("why.finish_step")); return; }
    this.send({ type: "draw_blind" });
  }

  onDrawTickets() {
    const v = this.view;
    const why = this.notMyTurnReason();
    if (why) { this.explain(why); return; }
    if (v.phase === "second_card") { this.explain(t("why.second_card_tickets")); return; }
    if (v.phase !== "turn") { this.explain(t("why.finish_step")); return; }
    const draws = this.legal.ticketDraws;
    if (!draws.length) { this.explain(t("why.no_tickets")); return; }
    if (draws.length === 1 && !draws[0].mix) { this.send({ type: "draw_tickets" }); return; }
    this.sheet = { kind: "mix" };
    this.render();
  }
}
