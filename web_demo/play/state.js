// The BattleClient's shared state: one object, made by `createState`, that every module of
// the client takes as its first argument (`st`). What the client used to keep in variables
// closed over by one large function is in plain sight here, so each module says by its
// arguments what it reads and changes.

import { el } from "../viewer/ui.js";

export const TEAM_SIZE = 5;
export const SLOT_NAMES = Array.from({ length: 10 }, (_, s) => `${"ab"[Math.floor(s / 5)]}${s % 5}`);

// `parts`: the page's fixed elements ({root, status, error, setup, game, end, scenarioNote});
// `flashMs`: how long the last tick's start shows before where it left the agents ("Last tick",
// L, and every tick when `replayTicks` is on; off by default, so a tick's result is drawn as
// soon as the engine answers).
export function createState(parts, flashMs, replayTicks = false) {
  return {
    ...parts,
    flashMs,
    replayTicks,
    ui: {}, // the game's controls (controls.js builds them once the engine is in)
    form: {}, // the setup form's inputs (setup.js)
    cleanups: [], // what `destroy` undoes: listeners, the replay's object URL
    backend: null, // the engine, once it has loaded
    destroyed: false,
    session: null, // the game being played: {id, spec, view, win, orders, ...} (orders.js)
    positionDoc: null, // the position file (or scenario position) the form starts from
    scenario: null, // the scenario whose position is in positionDoc, if any
    autoTimer: null, // the next tick, when Systems play every agent
    autoPaused: false,
    flashTimer: null, // the end of "show the last tick again"
    reviewer: null, // the finished game's replay viewer
  };
}

// A listener that `destroy` removes.
export function listen(st, target, type, fn, opts) {
  target.addEventListener(type, fn, opts);
  st.cleanups.push(() => target.removeEventListener(type, fn, opts));
}

// What the page is doing, for the stylesheet and the tests (loading, setup, turn, ...).
export function setState(st, state) {
  st.root.dataset.state = state;
}

export function showError(st, prefix, err) {
  st.error.textContent = `${prefix} ${err && err.message ? err.message : String(err)}`;
  st.error.hidden = false;
}

export function clearError(st) {
  st.error.hidden = true;
  st.error.textContent = "";
}

// Button handlers run, then the keyboard focus returns to the client (Space must not click
// the last button pressed).
export function act(st, fn) {
  fn();
  st.root.focus({ preventScroll: true });
}

export function option(value, text, selected = false) {
  const o = el("option", { value, text });
  if (selected) o.selected = true;
  return o;
}
