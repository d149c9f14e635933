// Entry point: load the language, wire the top bar (language, colour-blind mode), then open the
// page the address asks for: the lobby (/), a game (/play/{id}) or a replay (/replay/{id}).

import { applyTranslations, currentLanguage, initI18n, LANGUAGES, onLanguageChange, setLanguage, t } from "./i18n.js";
import { h, toast } from "./dom.js";
import { muted, reduceMotion, setMuted, setReduceMotion } from "./motion.js";
import { startTurnWatch } from "./notify.js";

const CB_KEY = "ttr.colourblind";

function setupTopbar() {
  const select = document.getElementById("lang-select");
  const fill = () => {
    select.replaceChildren(...LANGUAGES.map((code) => h("option", { value: code, selected: code === currentLanguage() }, t(`lang.${code}`))));
  };
  fill();
  select.addEventListener("change", () => setLanguage(select.value));
  onLanguageChange(() => { fill(); document.title = t("app.title"); });
  const cb = document.getElementById("cb-toggle");
  cb.checked = localStorage.getItem(CB_KEY) === "1";
  document.body.classList.toggle("colourblind", cb.checked);
  cb.addEventListener("change", () => {
    document.body.classList.toggle("colourblind", cb.checked);
    localStorage.setItem(CB_KEY, cb.checked ? "1" : "0");
  });
  const motion = document.getElementById("motion-toggle"); // checked: less motion (default: the system's choice)
  motion.checked = reduceMotion();
  document.body.classList.toggle("reduce-motion", motion.checked);
  motion.addEventListener("change", () => setReduceMotion(motion.checked));
  const snd = document.getElementById("sound-toggle"); // pressed: sound on
  const showSound = () => { // ♪ (struck through when muted): a character every font has, unlike the loudspeaker emoji
    snd.setAttribute("aria-pressed", muted() ? "false" : "true");
    snd.classList.toggle("muted", muted());
    snd.querySelector(".sound-icon").textContent = "♪"; // beside its label "Sound"
  };
  showSound();
  snd.addEventListener("click", () => { setMuted(!muted()); showSound(); });
}

/**
 * A join link carries the seat's token (/play/{id}?token=...). Keep it in this tab's sessionStorage and take it
 * out of the address bar at once, so that the address can be shared, bookmarked or seen on screen without
 * giving the seat away; a reload finds it again (game.js also remembers it in localStorage).
 */
function takeTokenFromAddress(gameId, params) {
  const key = `ttr.token.${gameId}`;
  const token = params.get("token");
  try {
    if (token) sessionStorage.setItem(key, token);
    else if (sessionStorage.getItem(key)) params.set("token", sessionStorage.getItem(key));
  } catch { /* storage disabled: the token stays usable for this page */ }
  if (token) {
    const rest = new URLSearchParams(params);
    rest.delete("token");
    const query = rest.toString();
    history.replaceState(history.state, "", `${location.pathname}${query ? `?${query}` : ""}${location.hash}`);
  }
  return params;
}

async function main() {
  performance.mark("ttr-main"); // main.js runs (tests/browser/test_motion.py reports the first render's phases)
  const parts = location.pathname.split("/").filter(Boolean).map(decodeURIComponent);
  let params = new URLSearchParams(location.search);
  if (parts[0] === "play" && parts[1]) params = takeTokenFromAddress(parts[1], params);
  await initI18n();
  applyTranslations(document);
  document.title = t("app.title");
  setupTopbar();
  startTurnWatch(); // the "my games" badge in the top bar (an account's games, or a guest's in this browser), and a notification when a turn comes (notify.js)
  const root = document.getElementById("app");
  try {
    if (parts[0] === "play" && parts[1]) {
      document.body.classList.add("page-game");
      const { startGame } = await import("./game.js");
      window.ttrGame = await startGame(root, parts[1], params);
    } else if (parts[0] === "players" && parts[1]) {
      document.body.classList.add("page-profile");
      const { startProfile } = await import("./profile.js");
      window.ttrProfile = await startProfile(root, parts[1]);
    } else if (parts[0] === "replay" && parts[1]) {
      document.body.classList.add("page-replay");
      const { startReplay } = await import("./replay.js");
      window.ttrReplay = await startReplay(root, parts[1], params);
    } else {
      document.body.classList.add("page-lobby");
      const { startLobby } = await import("./lobby.js");
      await startLobby(root);
    }
  } catch (err) {
    console.error(err);
    toast(t("error.unexpected", { message: err.message || String(err) }), "error");
  }
  document.body.dataset.ready = "1";
}

main();
