// The BattleClient: set up a game, play your agents tick by tick against (or beside) Systems,
// then download the replay. `mountPlay(host, {backend})` builds it inside `host`; `backend`
// is a promise of one of web_demo/play/backends.js's engines (the browser's Pyodide, or the
// local client's JSON API): the page never knows which.
//
// Drawing is the replay viewer's own (web_demo/viewer/render.js over the last tick as a
// two-frame replay, checked by the viewer's reader); the game state reaching the page is
// already filtered to what the human's team may see, so unseen enemies are never drawn.
// Every string from a file or the engine goes in with textContent.
//
// With no human agent the game plays itself (pause, resume, one tick, speed). On the arena,
// a click (or tap) on one of your agents selects it and a click on a legal target of the
// selected agent picks it. The root's data attributes say what the page offers and shows
// (state, tick, legal, offered, ghosts, drawn, auto, scenario, session) for the tests.
//
// `options.scenario` ({id, base}: the Play page's `?scenario=<id>`, and the site's root
// address) starts an endgame scenario (scenarios.js). With `options.lazy`, a button loads the
// engine; `options.download` (a promise of {bytes, kept}) lets it say the download's size or
// that the browser keeps the engine already. `options.strengths` ({name: text}) labels the
// opponents in the setup menus with their season strength. `options.replayTicks` starts with
// "replay each tick" on (the position each tick started from, for `flashMs`, before its
// result); off, a tick's result is drawn as soon as the engine answers.
//
// This file only mounts the client; its parts are modules that share one state object
// (state.js): setup.js (the form), orders.js (the turn as data), board.js (the turn's
// panel), pointer.js (picking on the arena), autoplay.js, draw.js, flow.js (the game with
// the engine), controls.js (buttons and keys) and scenarios.js.

import { el } from "../viewer/ui.js";
import { leave } from "./autoplay.js";
import { buildGame, onKey } from "./controls.js";
import { start } from "./flow.js";
import { fetchScenario, openScenario } from "./scenarios.js";
import { buildSetup } from "./setup.js";
import { createState, listen, setState, showError } from "./state.js";

export { KEYS } from "./controls.js";
export { loadScenario } from "./scenarios.js";
export { decode, isLegal } from "./turns.js";

// The page's fixed parts: the engine's status, the scenario's note, errors, the setup form,
// the game and its end (all but the status hidden until needed).
function buildParts() {
  const root = el("div", { class: "bgp-root", tabindex: "0", "data-state": "loading" });
  const status = el("div", { class: "bgp-status", role: "status", text: "Loading the game engine\u2026" });
  const error = el("div", { class: "mbg-error bgp-error", role: "alert" });
  const setup = el("form", { class: "bgp-setup" });
  const game = el("section", { class: "bgp-game" });
  const end = el("section", { class: "bgp-end" });
  // The scenario being played, when the page was opened with one (text only).
  const scenarioNote = el("p", { class: "bgp-scenario" });
  for (const part of [error, setup, game, end, scenarioNote]) part.hidden = true;
  root.append(status, scenarioNote, error, setup, game, end);
  return { root, status, error, setup, game, end, scenarioNote };
}

export function mountPlay(host, options = {}) {
  const st = createState(buildParts(), options.flashMs ?? 150, Boolean(options.replayTicks));
  const { root, status } = st;
  host.replaceChildren(root);
  listen(st, root, "keydown", (e) => onKey(st, e));

  // A scenario's files are fetched while the engine loads.
  const scenarioLoad = options.scenario ? fetchScenario(st, options.scenario) : null;

  let asked = performance.now(); // when the visitor asked for the engine (or the page opened)

  function ready(b) {
    if (st.destroyed) return;
    st.backend = b;
    // what the visitor waited, from the click (or the page's opening) to a game they can set up
    const waited = (performance.now() - asked) / 1000;
    status.textContent = b.kind === "local"
      ? "Engine: the Python engine on this machine (marl-bgs client)."
      : `Engine: NumPy in your browser (Pyodide), ready ${waited.toFixed(1)} s after you asked.`;
    buildSetup(st, { ...b.catalog, strengths: options.strengths ?? {} }, b.defaults, () => start(st));
    buildGame(st);
    st.setup.hidden = false;
    setState(st, "setup");
    if (scenarioLoad) openScenario(st, scenarioLoad);
  }

  function failed(err) {
    status.textContent = "";
    showError(st, "The game engine could not start.", err);
    setState(st, "error");
  }

  // `backend` is an engine or a promise of one; a function with `lazy` waits for the visitor
  // to ask (the browser's engine is a large download).
  function boot() {
    const pending = typeof options.backend === "function" ? options.backend() : options.backend;
    Promise.resolve(pending).then(ready, failed);
  }
  if (options.lazy && typeof options.backend === "function") {
    const load = el("button", { type: "button", class: "md-button md-button--primary bgp-load", text: "Load the game engine" });
    const note = el("span", { class: "bgp-load-note", text: " Python and NumPy run inside this page (Pyodide); the first load downloads them." });
    status.replaceChildren(load, note);
    setState(st, "idle");
    // `download`: a promise of {bytes, kept} (the engine's size; whether this browser keeps it)
    Promise.resolve(options.download).then((d) => {
      if (!d || !d.bytes || st.destroyed || !load.isConnected) return;
      const mb = (d.bytes / 1e6).toFixed(1);
      load.textContent = d.kept ? "Load the game engine (kept in your browser)" : `Load the game engine (${mb} MB)`;
      note.textContent = d.kept
        ? " Python and NumPy run inside this page (Pyodide), from the copy your browser kept."
        : ` Python and NumPy run inside this page (Pyodide): a ${mb} MB download the first time, kept by your browser after that.`;
    }, () => {});
    listen(st, load, "click", () => {
      asked = performance.now();
      status.textContent = "Loading the game engine\u2026";
      setState(st, "loading");
      boot();
    });
  } else {
    boot();
  }

  return {
    root,
    // Stop for good: timers, listeners, the finished game's viewer, and the engine's game
    // (`leave`); the root says "destroyed" (for tests) and leaves the document.
    destroy() {
      st.destroyed = true;
      leave(st);
      setState(st, "destroyed");
      if (st.flashTimer) clearTimeout(st.flashTimer);
      if (st.reviewer) st.reviewer.destroy();
      for (const fn of st.cleanups.splice(0)) fn();
      root.remove();
    },
  };
}
