// The HTTP and WebSocket API of `ttr serve` (docs/api.md). Errors come back as ApiError with the
// server's code and human message, which the interface shows as they are.

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** Where a game's map comes from: a built-in edition's, or (a custom map, `map-...`) the one stored with the game. */
export function mapPath(gameId, summary) {
  return summary.edition.startsWith("map-") ? `/api/games/${encodeURIComponent(gameId)}/map`
    : `/api/editions/${encodeURIComponent(summary.edition)}/map`;
}

/**
 * The signed-in account ({user, csrf_token}, user null for a guest), asked once per page (GET /api/me). Every change
 * (POST) sends the CSRF token while signed in: the server refuses a change made by the session cookie without it.
 */
let account = null;

export function currentAccount() {
  if (!account) {
    account = fetch("/api/me", { headers: { Accept: "application/json" } })
      .then((res) => (res.ok ? res.json() : { user: null, csrf_token: null }))
      .catch(() => ({ user: null, csrf_token: null }));
  }
  return account;
}

/** After sign-up, login, logout or a password change: the new session (or none). */
export function setAccount(me) {
  account = Promise.resolve(me && me.user ? me : { user: null, csrf_token: null });
}

export async function api(method, path, { body, token } = {}) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
  if (method !== "GET") {
    const me = await currentAccount();
    if (me.csrf_token) headers["X-CSRF-Token"] = me.csrf_token;
  }
  let res;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (err) {
    throw new ApiError(0, "network", String(err && err.message ? err.message : err));
  }
  const text = await res.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!res.ok) {
    const e = (data && data.error) || (data && data.detail && { code: "invalid", message: JSON.stringify(data.detail) }) || {};
    throw new ApiError(res.status, e.code || `http_${res.status}`, e.message || text || res.statusText);
  }
  return data;
}

/** Tokens this browser holds, by game: {gameId: {token, seat, hotseat, name, edition, at}}. */
const TOKENS_KEY = "ttr.tokens";

export function savedTokens() {
  try {
    return JSON.parse(localStorage.getItem(TOKENS_KEY) || "{}") || {};
  } catch {
    return {};
  }
}

export function saveToken(gameId, entry) {
  const all = savedTokens();
  all[gameId] = { ...(all[gameId] || {}), ...entry, at: new Date().toISOString() };
  localStorage.setItem(TOKENS_KEY, JSON.stringify(all));
}

export function forgetToken(gameId) {
  const all = savedTokens();
  delete all[gameId];
  localStorage.setItem(TOKENS_KEY, JSON.stringify(all));
}

/**
 * A live connection to one game: a WebSocket that reconnects (asking for what it missed with
 * `since`), with polling as a fallback when WebSockets are unavailable. onUpdate(msg) receives
 * {seq, events, state}; onStatus("online" | "offline").
 */
export class GameSocket {
  constructor(gameId, { token, seat, since, chat, onUpdate, onChat, onError, onStatus }) {
    this.gameId = gameId;
    this.token = token;
    this.seat = seat;
    this.since = since ?? 0;
    this.onUpdate = onUpdate;
    this.chat = Boolean(chat); // ?chat=1: the server pushes the chat ({type: "chat", messages}) to onChat
    this.onChat = onChat;
    this.onError = onError;
    this.onStatus = onStatus;
    this.closed = false;
    this.retry = 0;
    this.open();
  }

  url() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const q = new URLSearchParams();
    if (this.token) q.set("token", this.token);
    if (this.seat !== null && this.seat !== undefined) q.set("seat", String(this.seat));
    q.set("since", String(this.since));
    if (this.chat) q.set("chat", "1");
    return `${proto}//${location.host}/ws/games/${encodeURIComponent(this.gameId)}?${q}`;
  }

  open() {
    if (this.closed) return;
    let ws;
    try {
      ws = new WebSocket(this.url());
    } catch {
      this.scheduleReconnect();
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      this.retry = 0;
      this.onStatus?.("online");
      this.pinger = setInterval(() => { if (ws.readyState === 1) ws.send(JSON.stringify({ type: "ping" })); }, 25000);
    };
    ws.onmessage = (ev) => {
      let msg;
      try { msg = JSON.parse(ev.data); } catch { return; }
      if (msg.type === "update") {
        if (typeof msg.seq === "number") this.since = Math.max(this.since, msg.seq);
        this.onUpdate?.(msg);
      } else if (msg.type === "chat") {
        this.onChat?.(msg.messages || []);
      } else if (msg.type === "error") {
        this.onError?.(msg.error || {});
      }
    };
    ws.onclose = () => {
      clearInterval(this.pinger);
      if (this.closed) return;
      this.onStatus?.("offline");
      this.scheduleReconnect();
    };
  }

  scheduleReconnect() {
    if (this.closed) return;
    const delay = Math.min(10000, 500 * 2 ** this.retry++);
    this.timer = setTimeout(() => this.open(), delay);
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    clearInterval(this.pinger);
    if (this.ws) this.ws.close();
  }
}
