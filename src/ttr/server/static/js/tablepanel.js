// At the table: the clock of the seat to move (with "take my seat back" after a timeout) and the game's chat
// (pushed over the game's WebSocket, with a mute per player remembered in this browser; shown in the replay).
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

const MUTE_KEY = "ttr.chat.muted";

/** Names muted in the chat, remembered in this browser (lower case: "Bo" and "bo" are one name). */
export function mutedNames() {
  try {
    return new Set(JSON.parse(localStorage.getItem(MUTE_KEY) || "[]"));
  } catch {
    return new Set();
  }
}

function setMutedName(name, on) {
  const all = mutedNames();
  if (on) all.add(name.toLowerCase()); else all.delete(name.toLowerCase());
  localStorage.setItem(MUTE_KEY, JSON.stringify([...all]));
}

/**
 * The chat. At the table the game's WebSocket pushes it (GameSocket `chat`: a seat reads the players' and the
 * spectators' channels, a spectator the spectators' one); a seat writes in the players' channel, a signed-in
 * spectator in the spectators'. In the replay (`replay`) both channels of the finished game are read once, and
 * nothing can be written. A muted player's messages are hidden (mute and unmute by the name's button).
 */
export class ChatPanel {
  constructor(game, { replay = false } = {}) {
    this.game = game;
    this.replay = replay;
    this.channel = game.token ? "players" : "spectators";
    game.chatMessages = game.chatMessages || new Map(); // kept on the game: a re-layout (language) keeps them
    this.list = h("ol", { class: "chat-list", id: "chat-list", "aria-live": "polite" });
    this.mutedNode = h("p", { class: "chat-muted hint", id: "chat-muted" });
    this.count = h("span", { class: "chat-unread", id: "chat-unread" });
    this.input = h("input", { type: "text", id: "chat-input", maxlength: "300", placeholder: t("chat.placeholder"), "aria-label": t("chat.placeholder") });
    this.unread = 0;
    this.node = h("details", { class: "chat", id: "chat", ontoggle: () => this.toggle() },
      h("summary", {}, t(replay ? "chat.replay_title" : "chat.title"), " ", this.count),
      this.list, this.mutedNode,
      replay ? null : h("form", { class: "chat-form", onsubmit: (ev) => { ev.preventDefault(); this.send(); } },
        this.input, h("button", { type: "submit", class: "button" }, t("chat.send"))));
    this.render();
  }

  toggle() {
    if (this.node.open) {
      this.unread = 0;
      if (this.replay && !this.loaded) this.load();
      this.render();
    }
  }

  /** The replay: both channels of the finished game, once. */
  async load() {
    this.loaded = true;
    for (const channel of ["players", "spectators"]) {
      try {
        const res = await api("GET", `/api/games/${encodeURIComponent(this.game.id)}/chat?channel=${channel}&since=0`);
        this.receive(res.messages, false);
      } catch { /* not readable: nothing to show */ }
    }
  }

  /** New messages (pushed by the server, or loaded); duplicates (a reconnect sends them again) are skipped. */
  receive(messages, count = true) {
    let fresh = 0;
    for (const m of messages) {
      if (this.game.chatMessages.has(m.id)) continue;
      this.game.chatMessages.set(m.id, m);
      if (!mutedNames().has(String(m.name).toLowerCase())) fresh++;
    }
    if (count && !this.node.open) this.unread += fresh;
    this.render();
  }

  ownName(m) {
    return m.channel === "players" && m.seat !== null && m.seat !== undefined && m.seat === this.game.mySeat;
  }

  render() {
    const muted = mutedNames();
    const all = [...this.game.chatMessages.values()].sort((a, b) => a.id - b.id);
    const shown = all.filter((m) => !muted.has(String(m.name).toLowerCase()));
    this.list.replaceChildren(...shown.map((m) => h("li", { class: `chat-${m.channel}`, dataset: { id: String(m.id), channel: m.channel } },
      h("b", { class: "chat-name" }, m.name),
      m.channel === "spectators" ? h("span", { class: "chat-channel" }, " ", t("chat.spectator_mark")) : null,
      ": ", h("span", { class: "chat-text" }, m.text),
      this.ownName(m) ? null : h("button", {
        type: "button", class: "chat-mute", title: t("chat.mute", { name: m.name }), "aria-label": t("chat.mute", { name: m.name }),
        onclick: () => { setMutedName(m.name, true); this.render(); },
      }, "⊘"))));
    const names = [...new Set(all.map((m) => m.name).filter((n) => muted.has(String(n).toLowerCase())))];
    this.mutedNode.replaceChildren(...(names.length ? [t("chat.muted"), " ", ...names.map((n) => h("button", {
      type: "button", class: "chat-unmute", "aria-label": t("chat.unmute", { name: n }), title: t("chat.unmute", { name: n }),
      onclick: () => { setMutedName(n, false); this.render(); },
    }, n, " ✕"))] : []));
    this.count.textContent = this.unread ? `(${this.unread})` : "";
    this.list.scrollTop = this.list.scrollHeight;
  }

  async send() {
    const text = this.input.value.trim();
    if (!text) return;
    try {
      const msg = await api("POST", `/api/games/${encodeURIComponent(this.game.id)}/chat`, {
        token: this.channel === "players" ? this.game.token : undefined, body: { channel: this.channel, text },
      });
      this.input.value = "";
      this.receive([msg], false); // shown at once; the push of the same message is skipped
    } catch (err) {
      toast(err.message, "error");
    }
  }
}
