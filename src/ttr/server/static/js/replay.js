// The replay viewer (/replay/{id}): step forward and back through a finished game. Each step is
// the public view after k actions, computed by the server from the game's record
// (GET /api/games/{id}/replay?step=k), so nothing secret is shown that the end of the game did not reveal.

import { api, mapPath } from "./api.js";
import { h, toast } from "./dom.js";
import { GameClient } from "./game.js";
import { onLanguageChange, t } from "./i18n.js";
import { seatName } from "./names.js";

export async function startReplay(root, gameId, params) {
  const viewer = new ReplayViewer(root, gameId, params);
  await viewer.start();
  return viewer;
}

class ReplayViewer extends GameClient {
  constructor(root, gameId, params) {
    super(root, gameId, new URLSearchParams("watch=1"));
    this.step = Number(params.get("step") || 0);
    this.steps = 0;
    this.cache = new Map();
    this.playing = null;
    this.isReplay = true; // the chat panel reads the finished game's channels instead of a socket
  }

  async start() {
    this.root.replaceChildren(h("div", { class: "loading" }, t("common.loading")));
    try {
      this.summary = await api("GET", `/api/games/${encodeURIComponent(this.id)}`);
      this.map = await api("GET", mapPath(this.id, this.summary));
      const first = await this.fetchStep(0);
      this.steps = first.steps;
    } catch (err) {
      this.root.replaceChildren(h("div", { class: "page-error" }, h("h1", {}, t("replay.unavailable")), h("p", {}, err.message),
        h("a", { href: "/", class: "button" }, t("nav.lobby"))));
      return;
    }
    this.finalDismissed = true;
    this.buildLayout();
    this.root.classList.add("replay-page");
    await this.go(Math.min(this.step, this.steps));
    document.addEventListener("keydown", (ev) => {
      if (ev.target && ["INPUT", "SELECT", "TEXTAREA"].includes(ev.target.tagName) && ev.target.type !== "range") return;
      if (ev.key === "ArrowRight") { ev.preventDefault(); this.go(this.step + 1); }
      if (ev.key === "ArrowLeft") { ev.preventDefault(); this.go(this.step - 1); }
    });
    onLanguageChange(() => { this.buildLayout(); this.root.classList.add("replay-page"); this.render(); });
  }

  connect() {}

  async fetchStep(k) {
    if (!this.cache.has(k)) {
      this.cache.set(k, api("GET", `/api/games/${encodeURIComponent(this.id)}/replay?step=${k}`).catch((err) => { this.cache.delete(k); throw err; }));
    }
    return this.cache.get(k);
  }

  async go(k) {
    k = Math.max(0, Math.min(this.steps, k));
    let data;
    try {
      data = await this.fetchStep(k);
    } catch (err) {
      toast(t("error.refused", { message: err.message }), "error");
      this.stop();
      return;
    }
    this.step = k;
    this.current = data;
    this.state = { seq: k, seat: null, seats_controlled: [], view: data.view, legal: [], can_undo: false, summary: this.summary, tie_breaks: data.tie_breaks || [] };
    this.log = (data.events || []).map((ev, i) => ({ seq: i + 1, ev }));
    history.replaceState(null, "", `/replay/${encodeURIComponent(this.id)}?step=${k}`);
    this.render();
    this.renderLog();
    if (k < this.steps) this.fetchStep(k + 1).catch(() => {});
  }

  play() {
    if (this.playing) { this.stop(); return; }
    this.playing = setInterval(() => {
      if (this.step >= this.steps) { this.stop(); return; }
      this.go(this.step + 1);
    }, 700);
    this.render();
  }

  stop() {
    clearInterval(this.playing);
    this.playing = null;
    if (this.els) this.render();
  }

  renderBanner() {
    const b = this.els.banner;
    b.className = "turn-banner replay";
    const d = this.current || {};
    const who = d.actor !== null && d.actor !== undefined ? seatName(this.summary, d.actor) : null;
    const text = this.step === 0 ? t("replay.start") : t("replay.step", { n: this.step, total: this.steps, player: who || "—" });
    b.replaceChildren(h("span", { class: "turn-text", id: "turn-text" }, text));
    this.els.undo.hidden = true;
  }

  renderActions() {
    const host = this.els.actions;
    const slider = h("input", {
      type: "range", id: "replay-slider", min: "0", max: String(this.steps), value: String(this.step), "aria-label": t("replay.position"),
      oninput: (ev) => this.go(Number(ev.target.value)),
    });
    host.replaceChildren(h("div", { class: "replay-controls", id: "replay-controls" },
      h("button", { type: "button", class: "button", id: "replay-first", title: t("replay.first"), "aria-label": t("replay.first"), onclick: () => this.go(0) }, "|◀"),
      h("button", { type: "button", class: "button", id: "replay-back", title: t("replay.back"), "aria-label": t("replay.back"), onclick: () => this.go(this.step - 1) }, "◀"),
      h("button", { type: "button", class: "button primary", id: "replay-play", title: t(this.playing ? "replay.pause" : "replay.play"), "aria-label": t(this.playing ? "replay.pause" : "replay.play"), onclick: () => this.play() }, this.playing ? "❚❚ " : "▶ ", t(this.playing ? "replay.pause" : "replay.play")),
      h("button", { type: "button", class: "button", id: "replay-forward", title: t("replay.forward"), "aria-label": t("replay.forward"), onclick: () => this.go(this.step + 1) }, "▶"),
      h("button", { type: "button", class: "button", id: "replay-last", title: t("replay.last"), "aria-label": t("replay.last"), onclick: () => this.go(this.steps) }, "▶|"),
      slider,
      h("span", { class: "replay-count", id: "replay-count" }, t("replay.count", { n: this.step, total: this.steps }))));
    if (this.view && this.view.phase === "over") {
      host.append(h("button", { type: "button", class: "button primary", id: "show-scores", onclick: () => { this.finalDismissed = false; this.render(); } }, t("final.show")));
    }
  }

  walkWanted() { return false; } // a replay goes straight to the score sheet

  renderFinal() {
    super.renderFinal();
    const dup = this.els.actions.querySelectorAll("#show-scores");
    if (dup.length > 1) dup[dup.length - 1].remove();
  }
}
