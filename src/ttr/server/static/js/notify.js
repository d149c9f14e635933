// "Your turn" beyond the tab title: the browser Notifications API (asked for on a click, never on load, and used
// only when this page is not in front) and the top bar's "My games" badge with the number of games where it is
// your turn, every 15 s: on the account (GET /api/me/games) when signed in; as a guest, the games whose seat
// tokens this browser keeps (the lobby's "My games": each one's public summary, GET /api/games/{id}).

import { api, currentAccount, savedTokens } from "./api.js";
import { h } from "./dom.js";
import { onLanguageChange, t } from "./i18n.js";

export function notificationsSupported() {
  return typeof window.Notification === "function";
}

export function notificationsOn() {
  return notificationsSupported() && window.Notification.permission === "granted";
}

/** Ask for permission (call from a click: browsers refuse to ask otherwise). Resolves to the permission. */
export async function askNotifications() {
  if (!notificationsSupported()) return "unsupported";
  try {
    return await window.Notification.requestPermission();
  } catch {
    return window.Notification.permission;
  }
}

function pageInFront() {
  return document.visibilityState === "visible" && document.hasFocus();
}

/** Show a notification if permitted and the player is looking elsewhere; `tag` replaces an older one of the same. */
export function notifyTurn(body, tag, url) {
  if (!notificationsOn() || pageInFront()) return null;
  try {
    const n = new window.Notification(t("notify.title"), { body, tag, icon: "/static/favicon.svg" });
    if (url) n.onclick = () => { window.focus(); if (location.pathname + location.search !== url) location.href = url; };
    return n;
  } catch {
    return null;
  }
}

/** The top bar's badge and its notification button; polls the account's games while signed in. */
class TurnWatch {
  constructor() {
    this.count = null;
    this.games = [];
    this.over = new Set(); // a guest's games seen finished or closed
    this.guest = true;
    this.node = h("span", { class: "turn-watch", id: "turn-watch" });
    const tools = document.querySelector(".topbar-tools");
    if (tools) tools.prepend(this.node);
    onLanguageChange(() => this.render());
  }

  async start() {
    await this.poll();
    this.timer = setInterval(() => this.poll(), 15000);
  }

  /** The account's games, or a guest's from this browser's seat tokens: [{game_id, your_turn, seq?}], or null. */
  async myGames() {
    const me = await currentAccount();
    this.guest = !me.user;
    if (me.user) return api("GET", "/api/me/games");
    const seats = Object.entries(savedTokens())
      .filter(([gid, e]) => Number.isInteger(e.seat) && !e.hotseat && !this.over.has(gid))
      .sort((a, b) => String(b[1].at).localeCompare(String(a[1].at))).slice(0, 12); // as many as the lobby lists
    if (!seats.length) return null;
    const found = await Promise.all(seats.map(([gid, e]) => api("GET", `/api/games/${encodeURIComponent(gid)}`)
      .then((g) => ({ game_id: gid, seq: g.seq, status: g.status, your_turn: g.status === "active" && g.to_act.includes(e.seat) }))
      .catch((err) => { if (err && err.status === 404) this.over.add(gid); return null; })));
    for (const g of found) if (g && (g.status === "finished" || g.status === "abandoned")) this.over.add(g.game_id); // never asked again
    return found.filter(Boolean);
  }

  async poll() {
    let games;
    try {
      games = await this.myGames();
    } catch {
      return;
    }
    if (games === null) { this.count = null; this.games = []; this.render(); return; }
    const waiting = games.filter((g) => g.your_turn);
    // a turn is new if the game was not waiting for us at the last look, or has moved since (a guest's summaries
    // carry seq: the bot answered between two looks)
    const before = new Map(this.games.filter((g) => g.your_turn).map((g) => [g.game_id, g.seq]));
    const fresh = waiting.filter((g) => !before.has(g.game_id) || before.get(g.game_id) !== g.seq);
    if (this.count !== null && fresh.length) {
      // the game page notifies for its own game: here only the others
      const here = location.pathname.split("/")[2];
      const others = fresh.filter((g) => g.game_id !== here);
      if (others.length) notifyTurn(t("notify.games", { count: others.length }), "ttr-my-games", this.link());
    }
    this.games = games;
    this.count = waiting.length;
    this.render();
  }

  link() {
    return this.guest ? "/#my-games" : "/#account-panel";
  }

  render() {
    const badge = this.count === null ? null : h("a", { href: this.link(), class: "my-games-link", id: "my-games-badge", title: t("notify.badge_label", { count: this.count }) },
      h("span", { class: "label-text" }, t("account.my_games")),
      h("span", { class: this.count ? "badge your-turn" : "badge none", id: "my-games-count" }, String(this.count)));
    const bell = notificationsSupported() && window.Notification.permission === "default"
      ? h("button", { type: "button", class: "notify-button", id: "notify-button", title: t("notify.ask_help"), "aria-label": t("notify.ask"), onclick: async () => { await askNotifications(); this.render(); } },
        bellIcon(), h("span", { class: "label-text" }, t("notify.ask")))
      : null;
    this.node.replaceChildren(...[badge, bell].filter(Boolean));
  }
}

/** A bell drawn as SVG (Debian's Chromium has no emoji font): shown instead of the words on narrow screens. */
function bellIcon() {
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("viewBox", "0 0 16 16");
  svg.setAttribute("class", "bell");
  svg.setAttribute("aria-hidden", "true");
  svg.innerHTML = '<path d="M8 1.5 C5.2 1.5 4 3.6 4 6 V9.5 L2.5 12 H13.5 L12 9.5 V6 C12 3.6 10.8 1.5 8 1.5 Z" fill="currentColor"/><circle cx="8" cy="13.6" r="1.5" fill="currentColor"/>';
  return svg;
}

let watch = null;

export function startTurnWatch() {
  if (!watch) {
    watch = new TurnWatch();
    window.ttrTurnWatch = watch; // tests look again at once with ttrTurnWatch.poll() instead of waiting 15 s
    watch.start();
  }
  return watch;
}

/** After a sign-in or sign-out on this page. */
export function refreshTurnWatch() {
  if (watch) {
    clearInterval(watch.timer);
    watch.count = null;
    watch.games = [];
    watch.start().then(() => watch.render());
  }
}
