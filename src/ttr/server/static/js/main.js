// Entry point: load the language, wire the top bar (language, colour-blind mode), then open the
// page the address asks for: the lobby (/), a game (/play/{id}) or a replay (/replay/{id}).

import { applyTranslations, currentLanguage, initI18n, LANGUAGES, onLanguageChange, setLanguage, t } from "./i18n.js";
import { h, toast } from "./dom.js";

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
}

async function main() {
  await initI18n();
  applyTranslations(document);
  document.title = t("app.title");
  setupTopbar();
  const root = document.getElementById("app");
  const parts = location.pathname.split("/").filter(Boolean).map(decodeURIComponent);
  const params = new URLSearchParams(location.search);
  try {
    if (parts[0] === "play" && parts[1]) {
      document.body.classList.add("page-game");
      const { startGame } = await import("./game.js");
      window.ttrGame = await startGame(root, parts[1], params);
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
