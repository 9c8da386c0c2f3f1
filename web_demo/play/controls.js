// The game's controls and what they do: the header, the arena's canvas, the turn builder
// (agent tabs, move pad, targets, Ultimate, commit, undo, last tick), the autoplay bar, the
// agents and events panels, and the keyboard. Each control only calls the other modules:
// orders.js changes the turn, board.js redraws it, flow.js resolves the tick, autoplay.js
// runs the game of Systems alone, pointer.js picks on the arena.

import { el } from "../viewer/ui.js";
import { DEFAULT_SPEED, SPEEDS, autoMode, nextTick, rescheduleAuto, skipToEnd, speedLabel, togglePause } from "./autoplay.js";
import { applyChange, refreshTurn } from "./board.js";
import { draw, flashLastTick } from "./draw.js";
import { resolveTurn } from "./flow.js";
import { commitAll, commitSelected, cycle, selectedHuman, teamOfSlot, undo } from "./orders.js";
import { clickArena, hoverArena, refusalText } from "./pointer.js";
import { act, listen, option } from "./state.js";
import { MOVE_KEYS, MOVE_NAMES, PAD, slotOfTarget, targetOfKey, withMove, withTarget, withUltimateToggled } from "./turns.js";

export const KEYS = [
  ["Tab / Shift+Tab", "next / previous agent"],
  ["click / tap", "select your agent, then click its target (Shift + click: one of your own)"],
  ["arrows, numpad 1-9", "move (numpad 5: stay)"],
  ["1-5", "target enemy slot 0-4"],
  ["Shift + 1-5", "target teammate slot 0-4"],
  ["0", "no target"],
  ["U", "toggle the Ultimate"],
  ["Space", "commit this agent (the tick resolves when every human has)"],
  ["Enter", "commit every agent"],
  ["Backspace", "undo"],
  ["L", "show the last tick again"],
  ["Space / N (no human agent)", "pause or resume / one tick while paused"],
  ["Esc", "leave the client (Tab moves between page elements again)"],
];

// ---- what the controls do ------------------------------------------------------------------
const move = (st, m) => applyChange(st, (set, o) => withMove(set, o, m));
const target = (st, t) => {
  const h = selectedHuman(st.session);
  const why = h && t >= 1 && t <= 10 ? refusalText(st.session, h, slotOfTarget(teamOfSlot(h.slot), t)) : undefined;
  applyChange(st, (set, o) => withTarget(set, o, t), why);
};
const toggleUltimate = (st) => applyChange(st, (set, o) => withUltimateToggled(set, o));

function commitOne(st) {
  const next = commitSelected(st.session);
  if (next === "resolve") resolveTurn(st);
  else if (next === "refresh") refreshTurn(st);
}

function commitEvery(st) {
  if (commitAll(st.session)) resolveTurn(st);
}

function undoLast(st) {
  if (undo(st.session)) refreshTurn(st);
}

function nextAgent(st, step) {
  if (cycle(st.session, step)) refreshTurn(st);
}

function pause(st) {
  if (togglePause(st, resolveTurn)) refreshTurn(st);
}

// ---- building them -------------------------------------------------------------------------
function button(cls, title, text) {
  return el("button", { type: "button", class: `mbg-btn ${cls}`, title, text });
}

function movePad(st) {
  const ui = st.ui;
  ui.pad = el("div", { class: "bgp-pad", "aria-label": "move" });
  ui.moveButtons = [];
  for (const row of PAD) {
    for (const m of row) {
      const b = el("button", { type: "button", class: "mbg-btn bgp-move", "data-move": String(m), title: `move ${MOVE_NAMES[m]}`, text: MOVE_NAMES[m] });
      ui.moveButtons[m] = b;
      ui.pad.append(b);
      listen(st, b, "click", () => act(st, () => move(st, m)));
    }
  }
}

// With no human agent: the game plays itself, one tick every 1/speed seconds.
function autoBar(st) {
  const ui = st.ui;
  ui.pause = button("bgp-pause", "pause / resume (Space)", "Pause");
  ui.next = button("bgp-next", "play one tick (N)", "Next tick");
  ui.speed = el("select", { name: "speed", class: "bgp-speed", "aria-label": "speed, ticks per second" });
  for (const n of SPEEDS) ui.speed.append(option(String(n), speedLabel(n), n === DEFAULT_SPEED));
  ui.skip = button("bgp-skip", "play the rest of the game at once", "Skip to end");
  listen(st, ui.skip, "click", () => act(st, () => skipToEnd(st, resolveTurn)));
  listen(st, ui.pause, "click", () => act(st, () => pause(st)));
  listen(st, ui.next, "click", () => act(st, () => nextTick(st, resolveTurn)));
  listen(st, ui.speed, "change", () => {
    rescheduleAuto(st, resolveTurn);
    st.root.focus({ preventScroll: true });
  });
  ui.autoBar = el("div", { class: "bgp-auto", role: "group", "aria-label": "autoplay" },
    ui.pause, ui.next, el("label", {}, "Speed ", ui.speed), ui.skip);
}

export function buildGame(st) {
  const ui = st.ui;
  ui.title = el("div", { class: "mbg-title" });
  ui.score = el("div", { class: "mbg-score", "aria-live": "polite" });
  ui.clock = el("div", { class: "mbg-clock" });
  ui.turn = el("div", { class: "bgp-turn-text", "aria-live": "polite" });
  ui.canvas = el("canvas", { class: "mbg-canvas bgp-canvas", "aria-label": "arena, as your team sees it" });
  ui.verdict = el("div", { class: "bgp-verdict", role: "status" }); // the result, over the arena
  ui.verdict.hidden = true;
  ui.notice = el("div", { class: "bgp-notice", role: "status", "aria-live": "polite" }); // blocked moves
  ui.notice.hidden = true;
  ui.tabs = el("div", { class: "bgp-tabs", role: "tablist", "aria-label": "your agents" });
  movePad(st);
  ui.targets = el("div", { class: "bgp-targets", "aria-label": "target" });
  ui.ult = el("button", { type: "button", class: "mbg-btn bgp-ult", "aria-pressed": "false", title: "Ultimate (U)", text: "Ultimate" });
  ui.commit = button("bgp-commit", "commit this agent (Space)", "Commit");
  ui.commitAll = button("bgp-commit-all", "commit every agent (Enter)", "Commit all");
  ui.undo = button("bgp-undo", "undo (Backspace)", "Undo");
  ui.again = button("bgp-again", "show the last tick again (L)", "Last tick");
  ui.order = el("div", { class: "bgp-order", "aria-live": "polite" });
  // Off by default: each tick's result is drawn as soon as the engine answers.
  ui.replayTicks = el("input", { type: "checkbox", class: "bgp-replay-ticks" });
  ui.replayTicks.checked = st.replayTicks;
  listen(st, ui.replayTicks, "change", () => {
    st.replayTicks = ui.replayTicks.checked;
    st.root.focus({ preventScroll: true });
  });
  listen(st, ui.ult, "click", () => act(st, () => toggleUltimate(st)));
  listen(st, ui.commit, "click", () => act(st, () => commitOne(st)));
  listen(st, ui.commitAll, "click", () => act(st, () => commitEvery(st)));
  listen(st, ui.undo, "click", () => act(st, () => undoLast(st)));
  listen(st, ui.again, "click", () => act(st, () => flashLastTick(st)));
  listen(st, ui.canvas, "click", (e) => act(st, () => clickArena(st, e)));
  listen(st, ui.canvas, "pointermove", (e) => hoverArena(st, e));
  autoBar(st);
  ui.buttons = el("div", { class: "bgp-buttons" }, ui.ult, ui.commit, ui.commitAll, ui.undo, ui.again);
  ui.human = el("div", { class: "bgp-human" }, ui.tabs, ui.order,
    el("div", { class: "bgp-row" }, ui.pad, el("div", { class: "bgp-side" }, ui.targets, ui.buttons)));
  const keys = el("dl", { class: "bgp-keys" });
  for (const [k, what] of KEYS) keys.append(el("dt", { text: k }), el("dd", { text: what }));
  const options = el("label", { class: "bgp-option", title: "draw the position each tick started from, then its result" },
    ui.replayTicks, " Replay each tick");
  const controls = el("div", { class: "bgp-controls" }, ui.autoBar, ui.human, options);
  ui.agents = el("table", { class: "mbg-agents" });
  ui.log = el("ol", { class: "mbg-log bgp-log", "aria-label": "event log" });
  // Beside the arena: its controls, then the event log; under it, the agents. On a phone,
  // stacked: arena, controls, log, agents (play.css's grid areas).
  const side = el("div", { class: "bgp-side-panel" }, controls,
    el("section", { class: "bgp-events" }, el("h4", { text: "Events" }), ui.log),
    el("details", { class: "bgp-help" }, el("summary", { text: "Keyboard" }), keys));
  const agents = el("section", { class: "bgp-agents-panel" }, el("h4", { text: "Agents (as your team sees them)" }), ui.agents);
  const stage = el("div", { class: "mbg-stage bgp-stage" }, ui.canvas, ui.notice, ui.verdict);
  st.game.replaceChildren(
    el("div", { class: "mbg-header" }, ui.title, ui.score, ui.clock, ui.turn),
    el("div", { class: "bgp-board" }, stage, side, agents));
  redrawOnResize(st, stage);
}

// A phone turned on its side (or a resized window) gets the arena drawn again at its new
// width; only a change of width redraws (drawing changes the stage's height).
function redrawOnResize(st, stage) {
  if (typeof ResizeObserver === "undefined") return;
  let width = 0;
  const observer = new ResizeObserver(() => {
    const now = stage.clientWidth;
    if (now === width) return;
    width = now;
    if (st.session && st.session.win && !st.root.dataset.flash) draw(st, st.session.win.ticks);
  });
  observer.observe(stage);
  st.cleanups.push(() => observer.disconnect());
}

// The client's keys (KEYS); the root listens while it has the focus.
export function onKey(st, e) {
  const session = st.session;
  if (!session || !session.view || st.game.hidden || e.ctrlKey || e.metaKey || e.altKey) return;
  if (e.target && ["INPUT", "SELECT", "TEXTAREA"].includes(e.target.tagName)) return;
  if (st.end.contains(e.target)) return; // the finished game's viewer has keys of its own
  let handled = true;
  const m = MOVE_KEYS[e.code];
  const t = targetOfKey(e.code, e.shiftKey);
  if (e.code === "KeyL") flashLastTick(st);
  else if (e.key === "Escape") st.root.blur(); // leave the client (Tab is taken while playing)
  else if (session.view.done) handled = false; // the game is over: nothing else to play
  else if (autoMode(session)) {
    if (e.code === "Space") pause(st);
    else if (e.code === "KeyN") nextTick(st, resolveTurn);
    else handled = false;
  } else if (e.key === "Tab") nextAgent(st, e.shiftKey ? -1 : 1);
  else if (m !== undefined) move(st, m);
  else if (t !== null) target(st, t);
  else if (e.code === "KeyU") toggleUltimate(st);
  else if (e.code === "Space") commitOne(st);
  else if (e.key === "Enter") commitEvery(st);
  else if (e.key === "Backspace") undoLast(st);
  else handled = false;
  if (handled) e.preventDefault();
}
