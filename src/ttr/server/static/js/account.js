// Accounts in the lobby: sign up / log in / log out, "my games" with a your-turn badge, saving the games
// this browser holds as a guest into the account, and the leaderboard. Every text goes in through h()
// (text nodes): names typed by other players are never parsed as markup.

import { api, currentAccount, savedTokens, setAccount } from "./api.js";
import { h, toast } from "./dom.js";
import { t } from "./i18n.js";
import { refreshTurnWatch } from "./notify.js";

export class AccountPanel {
  constructor(editions) {
    this.editions = editions;
    this.node = h("section", { class: "panel account-panel", id: "account-panel" });
    this.board = h("section", { class: "panel leaderboard", id: "leaderboard" });
    this.boardEdition = editions[0] ? editions[0].id : "usa";
    this.me = null;
    this.games = [];
  }

  async start() {
    this.me = await currentAccount();
    await this.refresh();
    this.timer = setInterval(() => this.refresh(), 10000);
  }

  async refresh() {
    if (this.me && this.me.user) {
      try {
        this.games = await api("GET", "/api/me/games");
      } catch {
        this.games = [];
      }
    }
    this.render();
    await this.renderBoard();
  }

  render() {
    const user = this.me && this.me.user;
    if (!user) {
      const name = h("input", { type: "text", id: "account-name", maxlength: "24", autocomplete: "username", placeholder: t("account.username") });
      const password = h("input", { type: "password", id: "account-password", maxlength: "256", autocomplete: "current-password", placeholder: t("account.password") });
      const go = (path) => this.sign(path, name.value.trim(), password.value);
      this.node.replaceChildren(
        h("h2", {}, t("account.title")),
        h("p", { class: "hint" }, t("account.why")),
        h("form", { class: "account-form", onsubmit: (ev) => { ev.preventDefault(); go("/api/auth/login"); } },
          name, password,
          h("button", { type: "submit", id: "login-button" }, t("account.login")),
          h("button", { type: "button", id: "signup-button", onclick: () => go("/api/auth/signup") }, t("account.signup"))));
      return;
    }
    const yourTurn = this.games.filter((g) => g.your_turn).length;
    const items = this.games.map((g) => h("li", { class: "my-game", dataset: { game: g.game_id } },
      h("span", { class: "my-game-name" }, g.name || t(`edition.${g.edition}`)),
      h("span", { class: "my-game-status" }, t(`status.${g.status}`) || g.status),
      g.rated ? h("span", { class: "badge rated" }, t("account.rated")) : null,
      g.your_turn ? h("span", { class: "badge your-turn" }, t("account.your_turn")) : null,
      g.status === "finished"
        ? h("a", { href: `/replay/${encodeURIComponent(g.game_id)}` }, t("account.replay"))
        : h("button", { type: "button", class: "open-game", onclick: () => this.open(g.game_id) }, t("account.open"))));
    this.node.replaceChildren(
      h("h2", {}, t("account.signed_in", { name: user.name })),
      h("div", { class: "account-actions" },
        h("a", { href: `/players/${encodeURIComponent(user.name)}`, id: "profile-link" }, t("account.profile")),
        h("button", { type: "button", id: "claim-button", onclick: () => this.claimAll() }, t("account.claim")),
        h("button", { type: "button", id: "logout-button", onclick: () => this.logout() }, t("account.logout"))),
      h("h3", {}, t("account.my_games"), yourTurn ? h("span", { class: "badge your-turn", id: "your-turn-count" }, String(yourTurn)) : null),
      items.length ? h("ul", { class: "my-games", id: "my-games" }, items) : h("p", { class: "hint" }, t("account.no_games")),
      this.passwordForm());
    document.title = yourTurn ? `(${yourTurn}) ${t("app.title")}` : t("app.title");
  }

  /** Change the password: the server ends every other session and gives this browser a new one (and CSRF token). */
  passwordForm() {
    const old = h("input", { type: "password", id: "old-password", maxlength: "256", autocomplete: "current-password", "aria-label": t("account.old_password"), placeholder: t("account.old_password") });
    const fresh = h("input", { type: "password", id: "new-password", maxlength: "256", minlength: "8", autocomplete: "new-password", "aria-label": t("account.new_password"), placeholder: t("account.new_password") });
    const submit = async (ev) => {
      ev.preventDefault();
      try {
        const me = await api("POST", "/api/auth/password", { body: { old_password: old.value, new_password: fresh.value } });
        setAccount(me);
        this.me = me;
        old.value = "";
        fresh.value = "";
        toast(t("account.password_changed"), "ok");
      } catch (err) {
        toast(err.message, "error");
      }
    };
    return h("details", { class: "password-change", id: "password-change" },
      h("summary", {}, t("account.change_password")),
      h("form", { class: "account-form", id: "password-form", onsubmit: submit }, old, fresh,
        h("button", { type: "submit", id: "password-button" }, t("account.change_password"))));
  }

  async renderBoard() {
    let data = null;
    try {
      data = await api("GET", `/api/leaderboard?edition=${encodeURIComponent(this.boardEdition)}&limit=20`);
    } catch {
      return;
    }
    const select = h("select", { id: "leaderboard-edition", "aria-label": t("lobby.edition"), onchange: (ev) => { this.boardEdition = ev.target.value; this.renderBoard(); } },
      this.editions.map((e) => h("option", { value: e.id, selected: e.id === this.boardEdition }, t(`edition.${e.id}`))));
    const tables = Object.entries(data.classes).map(([klass, rows]) => h("div", { class: "board-class", dataset: { class: klass } },
      h("h3", {}, t("account.class", { class: klass })),
      rows.length
        ? h("table", {}, h("tr", {}, h("th", {}, "#"), h("th", {}, t("account.player")), h("th", { title: t("account.rating_help") }, t("account.rating")), h("th", { title: t("account.mu_help") }, "μ"), h("th", {}, t("account.games"))),
          rows.map((r) => h("tr", {}, h("td", {}, String(r.rank)), h("td", { class: "board-name" }, r.name), h("td", {}, r.ordinal.toFixed(1)), h("td", {}, r.mu.toFixed(1)), h("td", {}, String(r.games)))))
        : h("p", { class: "hint" }, t("account.no_ratings"))));
    this.board.replaceChildren(h("h2", {}, t("account.leaderboard")), select, ...tables);
  }

  async sign(path, name, password) {
    try {
      const me = await api("POST", path, { body: { name, password } });
      setAccount(me);
      this.me = me;
      refreshTurnWatch();
      toast(t("account.welcome", { name: me.user.name }), "ok");
      await this.refresh();
    } catch (err) {
      toast(err.message, "error");
    }
  }

  async logout() {
    try {
      await api("POST", "/api/auth/logout");
    } catch (err) {
      toast(err.message, "error");
    }
    setAccount(null);
    this.me = { user: null, csrf_token: null };
    refreshTurnWatch();
    this.games = [];
    this.render();
  }

  async open(gameId) {
    try {
      const res = await api("POST", `/api/me/games/${encodeURIComponent(gameId)}/resume`);
      location.href = res.join_url;
    } catch (err) {
      toast(err.message, "error");
    }
  }

  async claimAll() {
    let n = 0;
    for (const [gameId, entry] of Object.entries(savedTokens())) {
      if (!entry.token || entry.hotseat) continue;
      try {
        const res = await api("POST", "/api/me/claim", { body: { game_id: gameId, token: entry.token } });
        if (res.claimed) n++;
      } catch { /* not claimable (another account's seat, an expired token): skip it */ }
    }
    toast(t("account.claimed", { count: n }), "ok");
    await this.refresh();
  }
}
