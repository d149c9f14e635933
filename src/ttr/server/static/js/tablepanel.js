// At the table: the clock of the seat to move (with "take my seat back" after a timeout) and the game's chat.
// Chat text is put in as text nodes (h()), never parsed as markup.

import { api } from "./api.js";
import { h, toast } from "./dom.js";
import { t } from "./i18n.js";

/** "m:ss" (or "h:mm:ss") left until an ISO deadline; null when there is none. */
export function timeLeft(deadline, now = Date.now()) {
  if (!deadline) return null;
  const s = Math.max(0, Math.round((Date.parse(deadline) - now) / 1000));
  const hh = Math.floor(s / 3600), mm = Math.floor((s % 3600) / 60), ss = s % 60;
  const two = (n) => String(n).padStart(2, "0");
  return hh ? `${hh}:${two(mm)}:${two(ss)}` : `${mm}:${two(ss)}`;
}

/** The clock in the turn banner, and the button that takes an away seat back from the bot. */
export function clockNodes(game) {
  const s = game.summary;
  const out = [];
  if (s.deadline) {
    const node = h("span", { class: "clock", id: "clock", title: t("clock.left") }, "⏱ ", timeLeft(s.deadline));
    clearInterval(game.clockTimer);
    game.clockTimer = setInterval(() => { node.lastChild.textContent = timeLeft(s.deadline); }, 1000);
    out.push(node);
  } else {
    clearInterval(game.clockTimer);
  }
  const mine = game.mySeat !== null && game.mySeat !== undefined ? s.seats[game.mySeat] : null;
  if (mine && mine.away && game.token) {
    out.push(h("button", {
      type: "button", class: "button", id: "take-back",
      onclick: async () => {
        try {
          await api("POST", `/api/games/${encodeURIComponent(game.id)}/return`, { token: game.token, body: { seat: game.mySeat } });
        } catch (err) {
          toast(err.message, "error");
        }
      },
    }, t("clock.take_back")));
  }
  return out;
}

/** The chat: the players' channel for a seat, the spectators' one for a watcher; polled every 4 s while open. */
export class ChatPanel {
  constructor(game) {
    this.game = game;
    this.channel = game.token ? "players" : "spectators";
    this.since = 0;
    this.list = h("ol", { class: "chat-list", id: "chat-list" });
    this.input = h("input", { type: "text", id: "chat-input", maxlength: "300", placeholder: t("chat.placeholder") });
    this.node = h("details", { class: "chat", id: "chat", ontoggle: () => this.toggle() },
      h("summary", {}, t("chat.title")),
      this.list,
      h("form", { class: "chat-form", onsubmit: (ev) => { ev.preventDefault(); this.send(); } },
        this.input, h("button", { type: "submit", class: "button" }, t("chat.send"))));
  }

  toggle() {
    clearInterval(this.timer);
    if (this.node.open) {
      this.poll();
      this.timer = setInterval(() => this.poll(), 4000);
    }
  }

  async poll() {
    try {
      const res = await api("GET", `/api/games/${encodeURIComponent(this.game.id)}/chat?channel=${this.channel}&since=${this.since}`);
      for (const m of res.messages) {
        this.list.append(h("li", {}, h("b", {}, m.name), ": ", m.text));
        this.since = Math.max(this.since, m.id);
      }
      this.list.scrollTop = this.list.scrollHeight;
    } catch { /* next time */ }
  }

  async send() {
    const text = this.input.value.trim();
    if (!text) return;
    try {
      await api("POST", `/api/games/${encodeURIComponent(this.game.id)}/chat`, {
        token: this.channel === "players" ? this.game.token : undefined, body: { channel: this.channel, text },
      });
      this.input.value = "";
      await this.poll();
    } catch (err) {
      toast(err.message, "error");
    }
  }
}
