// Animations and sounds. Animations use the Web Animations API on transform and opacity only (the compositor
// runs them, the main thread stays free), and are skipped when the player asked for less motion: the
// "Reduce motion" switch in the top bar, whose default follows the system's prefers-reduced-motion. Sounds are
// synthesised with the Web Audio API (no files), muted by the 🔇 switch; both choices are kept in localStorage.

const MOTION_KEY = "ttr.reduceMotion"; // "1" less motion, "0" full motion, unset: follow the system
const MUTE_KEY = "ttr.mute"; // "1" muted

/** Every animation and sound started, newest last (the browser tests read it; at most 50 kept). */
export const played = [];

function note(kind, name) {
  played.push({ kind, name, at: performance.now() });
  if (played.length > 50) played.shift();
}

function stored(key) {
  try { return localStorage.getItem(key); } catch { return null; }
}

export function reduceMotion() {
  const saved = stored(MOTION_KEY);
  if (saved === "1" || saved === "0") return saved === "1";
  return window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}

export function setReduceMotion(on) {
  try { localStorage.setItem(MOTION_KEY, on ? "1" : "0"); } catch { /* storage disabled */ }
  document.body.classList.toggle("reduce-motion", on);
}

export function muted() {
  return stored(MUTE_KEY) === "1";
}

export function setMuted(on) {
  try { localStorage.setItem(MUTE_KEY, on ? "1" : "0"); } catch { /* storage disabled */ }
}

// ------------------------------------------------------------------ animations
const running = new Set();

/** Resolves when every animation started so far has finished (tests and the score walk wait on it). */
export function settled() {
  return Promise.all([...running].map((a) => a.finished.catch(() => {})));
}

function track(anim, name) {
  running.add(anim);
  note("animation", name);
  anim.finished.catch(() => {}).finally(() => running.delete(anim));
  return anim;
}

/** Any element's animation (Web Animations), skipped with reduced motion and awaited by settled(): the score walk. */
export function animate(el, keyframes, options, name) {
  if (reduceMotion() || !el) return null;
  return track(el.animate(keyframes, options), name);
}

/** A card flies from `from` (a DOMRect: the market slot or the deck) to `to` (a DOMRect: the hand). */
export function flyCard(tile, from, to) {
  if (reduceMotion() || !from || !to || !tile) return null;
  const ghost = tile.cloneNode(true);
  ghost.classList.add("flying-card");
  ghost.removeAttribute("id");
  ghost.setAttribute("aria-hidden", "true");
  Object.assign(ghost.style, { left: `${from.left}px`, top: `${from.top}px`, width: `${from.width}px`, height: `${from.height}px` });
  document.body.append(ghost);
  const dx = to.left + to.width / 2 - (from.left + from.width / 2);
  const dy = to.top + to.height / 2 - (from.top + from.height / 2);
  const anim = track(ghost.animate([
    { transform: "translate(0, 0) scale(1)", opacity: 1 },
    { transform: `translate(${dx * 0.6}px, ${dy * 0.6 - 30}px) scale(1.08)`, opacity: 1, offset: 0.6 },
    { transform: `translate(${dx}px, ${dy}px) scale(0.8)`, opacity: 0.2 },
  ], { duration: 520, easing: "cubic-bezier(.3,.7,.4,1)" }), "card");
  anim.finished.catch(() => {}).finally(() => ghost.remove());
  return anim;
}

const SVG = "http://www.w3.org/2000/svg";

/** A copy of an SVG element with its computed paint written inline (the copy lives outside the board's CSS). */
function paintedCopy(node) {
  const copy = node.cloneNode(false);
  if (node.nodeType === 1) {
    const cs = getComputedStyle(node);
    for (const prop of ["fill", "stroke", "stroke-width", "font", "text-anchor", "dominant-baseline", "opacity"]) copy.style.setProperty(prop, cs.getPropertyValue(prop));
  }
  for (const child of node.childNodes) copy.append(paintedCopy(child));
  return copy;
}

/**
 * The carriages of a route just claimed drop into place one after another. They move in a small SVG laid over the
 * page, not inside the board: a change inside the board's big SVG makes Chromium repaint all of it on every frame
 * (long tasks on a busy machine), a change in the overlay repaints a few carriages.
 */
export function placeTrains(routeG) {
  if (reduceMotion() || !routeG) return [];
  const cars = [...routeG.querySelectorAll(".car")];
  if (!cars.length) return [];
  const overlay = document.createElementNS(SVG, "svg");
  overlay.setAttribute("class", "train-overlay");
  overlay.setAttribute("aria-hidden", "true");
  const anims = cars.map((car, i) => {
    const m = car.getScreenCTM();
    const place = document.createElementNS(SVG, "g");
    place.setAttribute("transform", `matrix(${m.a} ${m.b} ${m.c} ${m.d} ${m.e} ${m.f})`);
    const copy = paintedCopy(car);
    copy.style.display = "inline";
    place.append(copy);
    overlay.append(place);
    return [copy, i];
  });
  document.body.append(overlay);
  routeG.classList.add("trains-arriving"); // the real carriages appear when the copies have landed
  const running = anims.map(([copy, i]) => track(copy.animate([
    { transform: "translate(0px, -14px) scale(1.3)", opacity: 0 },
    { transform: "translate(0px, 0px) scale(1)", opacity: 1 },
  ], { duration: 260, delay: i * 70, easing: "ease-out", fill: "backwards" }), "trains"));
  Promise.all(running.map((a) => a.finished.catch(() => {}))).then(() => {
    routeG.classList.remove("trains-arriving");
    overlay.remove();
  });
  return running;
}

/** A score that changed: the number pulses and "+n" rises from it. */
export function scoreChange(el, delta) {
  if (reduceMotion() || !el || !delta) return null;
  const tag = document.createElement("span");
  tag.className = "score-delta";
  tag.setAttribute("aria-hidden", "true");
  tag.textContent = delta > 0 ? `+${delta}` : String(delta);
  el.parentNode.append(tag);
  track(el.animate([{ transform: "scale(1)" }, { transform: "scale(1.5)" }, { transform: "scale(1)" }], { duration: 600, easing: "ease-in-out" }), "score");
  const rise = track(tag.animate([
    { transform: "translateY(0)", opacity: 1 },
    { transform: "translateY(-22px)", opacity: 0 },
  ], { duration: 900, easing: "ease-out" }), "score");
  rise.finished.catch(() => {}).finally(() => tag.remove());
  return rise;
}

// ------------------------------------------------------------------ sounds
let audio = null;

function context() {
  if (!audio) {
    const Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) return null;
    audio = new Ctx();
  }
  if (audio.state === "suspended") audio.resume().catch(() => {}); // browsers start audio only after a gesture
  return audio;
}

/** Notes: [frequency Hz, start s, length s, type]. A short envelope on each, so nothing clicks. */
const SOUNDS = {
  turn: [[660, 0, 0.12, "sine"], [880, 0.13, 0.18, "sine"]],
  claim: [[392, 0, 0.09, "triangle"], [523, 0.07, 0.09, "triangle"], [784, 0.14, 0.16, "triangle"]],
  tunnel: [[220, 0, 0.07, "square"], [220, 0.16, 0.07, "square"], [330, 0.32, 0.14, "square"]],
  end: [[523, 0, 0.16, "sine"], [659, 0.16, 0.16, "sine"], [784, 0.32, 0.16, "sine"], [1047, 0.48, 0.4, "sine"]],
};

/** Play one of the sounds (turn, claim, tunnel, end) unless muted. Returns the number of notes scheduled. */
export function sound(name) {
  const notes = SOUNDS[name];
  if (!notes || muted()) return 0;
  const ctx = context();
  note("sound", name);
  if (!ctx) return 0;
  const t0 = ctx.currentTime + 0.01;
  for (const [freq, start, length, type] of notes) {
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    osc.type = type;
    osc.frequency.value = freq;
    gain.gain.setValueAtTime(0.0001, t0 + start);
    gain.gain.exponentialRampToValueAtTime(0.12, t0 + start + 0.015);
    gain.gain.exponentialRampToValueAtTime(0.0001, t0 + start + length);
    osc.connect(gain).connect(ctx.destination);
    osc.start(t0 + start);
    osc.stop(t0 + start + length + 0.02);
  }
  return notes.length;
}
