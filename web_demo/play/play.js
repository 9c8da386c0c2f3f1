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
// address) starts an endgame scenario: its position is exports/scenarios/scenario_<id>/
// position.json, Team A's agents are the human's and Team B's slots are played by the
// scenario's controller (exports/scenarios/index.json), as on the Scenarios pages.

import { mountViewer } from "../viewer/embed.js";
import { readReplayBytes, validateReplay } from "../viewer/format/validate.js";
import { makeScale, prepareObstacles, renderFrame, TEAM_COLOURS } from "../viewer/render.js";
import { describeTick, el, fillAgents, fillMetrics } from "../viewer/ui.js";
import { ORACLE, agentsAt, eventsAt, tickNumber } from "../viewer/view.js";
import {
  MOVE_KEYS, MOVE_NAMES, PAD, decode, ghostStride, isLegal, legalMoves, legalSet, legalTargets,
  slotOfTarget, startOrder, targetOfKey, targetOfSlot, withMove, withTarget, withUltimateToggled,
} from "./turns.js";

const TEAM_SIZE = 5;
const SLOT_NAMES = Array.from({ length: 10 }, (_, s) => `${"ab"[Math.floor(s / 5)]}${s % 5}`);
const LOG_LIMIT = 200;
// Autoplay speeds (ticks per second) when Systems play every agent; the default is 2.
const SPEEDS = [1, 2, 4, 8, 20];
const DEFAULT_SPEED = 2;
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

function option(value, text, selected = false) {
  const o = el("option", { value, text });
  if (selected) o.selected = true;
  return o;
}

const SCENARIO_DIR = "exports/scenarios";

// An endgame scenario by id (1-8) from the site's exported files under `base` (the site's
// root address): {id, name, controller, briefing, position}. Rejects with a message that
// names the file; the page shows it as text.
export async function loadScenario(id, base) {
  const text = String(id);
  if (!/^[1-8]$/.test(text)) throw new Error("scenario: expected a scenario number from 1 to 8");
  const get = async (rel) => {
    const where = `${SCENARIO_DIR}/${rel}`;
    let response;
    try {
      response = await fetch(new URL(where, base), { credentials: "same-origin" });
    } catch (err) {
      throw new Error(`could not load ${where} (${err.message})`);
    }
    if (!response.ok) throw new Error(`could not load ${where} (HTTP ${response.status})`);
    try {
      return await response.json();
    } catch (err) {
      throw new Error(`${where}: not JSON (${err.message})`);
    }
  };
  const index = await get("index.json");
  const list = index && Array.isArray(index.scenarios) ? index.scenarios : [];
  const entry = list.find((e) => e && e.id === Number(text));
  if (!entry) throw new Error(`scenario ${text} is not in ${SCENARIO_DIR}/index.json`);
  for (const key of ["name", "controller", "briefing"]) {
    if (typeof entry[key] !== "string") throw new Error(`${SCENARIO_DIR}/index.json: scenario ${text}'s ${key} is not text`);
  }
  const position = await get(`scenario_${text}/position.json`);
  if (!position || typeof position !== "object" || Array.isArray(position)) {
    throw new Error(`${SCENARIO_DIR}/scenario_${text}/position.json: expected a position object`);
  }
  return { id: Number(text), name: entry.name, controller: entry.controller, briefing: entry.briefing, position };
}

function downloadName(spec) {
  const stamp = new Date().toISOString().replace(/[:.]/g, "-").slice(0, 19);
  const where = spec.position ? "position" : `map${spec.map}`;
  return `battle-${where}-${stamp}.json`;
}

export function mountPlay(host, options = {}) {
  const flashMs = options.flashMs ?? 450;
  const root = el("div", { class: "bgp-root", tabindex: "0", "data-state": "loading" });
  const status = el("div", { class: "bgp-status", role: "status", text: "Loading the game engine\u2026" });
  const error = el("div", { class: "mbg-error bgp-error", role: "alert" });
  error.hidden = true;
  const setup = el("form", { class: "bgp-setup" });
  setup.hidden = true;
  const game = el("section", { class: "bgp-game" });
  game.hidden = true;
  const end = el("section", { class: "bgp-end" });
  end.hidden = true;
  // The scenario being played, when the page was opened with one (text only).
  const scenarioNote = el("p", { class: "bgp-scenario" });
  scenarioNote.hidden = true;
  root.append(status, scenarioNote, error, setup, game, end);
  host.replaceChildren(root);

  let backend = null;
  let destroyed = false;
  let session = null; // {id, spec, view, win, obstacles, team, ...}
  const cleanups = [];
  const on = (target, type, fn, opts) => {
    target.addEventListener(type, fn, opts);
    cleanups.push(() => target.removeEventListener(type, fn, opts));
  };

  function setState(state) {
    root.dataset.state = state;
  }

  function showError(prefix, err) {
    error.textContent = `${prefix} ${err && err.message ? err.message : String(err)}`;
    error.hidden = false;
  }

  function clearError() {
    error.hidden = true;
    error.textContent = "";
  }

  // ---- setup ---------------------------------------------------------------------------------
  const form = {};
  let positionDoc = null;
  let scenario = null; // the scenario whose position is in positionDoc, if any

  function buildSetup(catalog, defaults) {
    const d = {
      map: 47, winning_score: 5, horizon: 200, seed: 0,
      rosters: [catalog.classes.map((c) => c.name), catalog.classes.map((c) => c.name)],
      controllers: ["human", ...Array(9).fill(catalog.systems.includes("tdm-alpha") ? "tdm-alpha" : catalog.systems[1])],
      ...(defaults || {}),
    };
    form.map = el("select", { name: "map", "aria-label": "map" });
    for (const m of catalog.maps) {
      form.map.append(option(String(m.id), `${m.id} \u00b7 ${m.name} (${m.split})`, m.id === d.map));
    }
    const number = (name, value, lo, hi) => el("input", {
      type: "number", name, min: String(lo), max: String(hi), value: String(value), "aria-label": name,
    });
    form.winning = number("winning_score", d.winning_score, 1, catalog.limits.winning_score);
    form.horizon = number("horizon", d.horizon, 1, catalog.limits.horizon);
    form.seed = number("seed", d.seed, 0, 2 ** 31 - 1);
    const settings = el("div", { class: "bgp-settings" },
      el("label", {}, "Map ", form.map),
      el("label", {}, "Winning score ", form.winning),
      el("label", {}, "Horizon (ticks) ", form.horizon),
      el("label", {}, "Seed ", form.seed));
    form.sizes = [];
    form.classes = [];
    form.controllers = [];
    const teams = el("div", { class: "bgp-teams" });
    for (let team = 0; team < 2; team++) {
      const size = el("select", { name: `size_${"ab"[team]}`, "aria-label": `team ${"ab"[team]} size` });
      for (let n = 1; n <= TEAM_SIZE; n++) size.append(option(String(n), String(n), n === d.rosters[team].length));
      form.sizes.push(size);
      const rows = [el("tr", {}, el("th", { text: "slot" }), el("th", { text: "class" }), el("th", { text: "played by" }))];
      for (let k = 0; k < TEAM_SIZE; k++) {
        const s = team * TEAM_SIZE + k;
        const cls = el("select", { name: `class_${SLOT_NAMES[s]}`, "aria-label": `${SLOT_NAMES[s]} class` });
        for (const c of catalog.classes) cls.append(option(c.name, c.title, c.name === (d.rosters[team][k] ?? catalog.classes[k % catalog.classes.length].name)));
        const who = el("select", { name: `controller_${SLOT_NAMES[s]}`, "aria-label": `${SLOT_NAMES[s]} played by` });
        for (const name of catalog.systems) who.append(option(name, name === "human" ? "you (human)" : name, name === d.controllers[s]));
        form.classes.push(cls);
        form.controllers.push(who);
        rows.push(el("tr", { "data-slot": SLOT_NAMES[s] }, el("td", { text: SLOT_NAMES[s] }), el("td", {}, cls), el("td", {}, who)));
      }
      const table = el("table", { class: `bgp-team mbg-team-${"ab"[team]}` }, ...rows);
      teams.append(el("fieldset", {}, el("legend", { text: `Team ${"ab"[team]} (${team === 0 ? "blue, starts left" : "red, starts right"})` }),
        el("label", {}, "Agents ", size), table));
      on(size, "change", syncSizes);
    }
    form.file = el("input", { type: "file", accept: ".json,application/json", name: "position", "aria-label": "position file" });
    form.fileName = el("span", { class: "bgp-file-name" });
    form.clearFile = el("button", { type: "button", class: "mbg-btn", text: "Clear file" });
    form.clearFile.hidden = true;
    const fileRow = el("div", { class: "bgp-file" },
      el("label", {}, "Or start from a position file (marl-bgs/position): ", form.file), form.fileName, form.clearFile);
    form.start = el("button", { type: "submit", class: "md-button md-button--primary bgp-start", text: "Start game" });
    setup.replaceChildren(el("h3", { text: "New game" }), settings, teams, fileRow, el("div", {}, form.start));
    syncSizes();
    on(form.file, "change", readPositionFile);
    on(form.clearFile, "click", () => {
      forgetScenario();
      positionDoc = null;
      form.file.value = "";
      form.fileName.textContent = "";
      form.clearFile.hidden = true;
      syncSizes();
    });
    on(setup, "submit", (e) => {
      e.preventDefault();
      start();
    });
  }

  function syncSizes() {
    const fromFile = positionDoc !== null;
    for (const input of [form.map, form.winning, form.horizon, ...form.sizes, ...form.classes]) input.disabled = fromFile;
    for (let team = 0; team < 2; team++) {
      const n = Number(form.sizes[team].value);
      for (let k = 0; k < TEAM_SIZE; k++) {
        const row = form.classes[team * TEAM_SIZE + k].closest("tr");
        row.hidden = !fromFile && k >= n;
      }
    }
  }

  async function readPositionFile() {
    clearError();
    const file = form.file.files && form.file.files[0];
    if (!file) return;
    forgetScenario();
    form.fileName.textContent = file.name;
    form.clearFile.hidden = false;
    try {
      positionDoc = JSON.parse(await file.text());
    } catch (err) {
      positionDoc = null;
      showError("Cannot read this position file.", new Error(`position: not JSON (${err.message})`));
    }
    syncSizes();
  }

  function specFromForm() {
    const controllers = form.controllers.map((c) => c.value);
    const seed = Number(form.seed.value) || 0;
    if (positionDoc !== null && scenario) {
      return { position: positionDoc, controllers, seed, title: `Scenario ${scenario.id}: ${scenario.name}`.slice(0, 120) };
    }
    if (positionDoc !== null) return { position: positionDoc, controllers, seed };
    const rosters = [0, 1].map((team) =>
      form.classes.slice(team * TEAM_SIZE, team * TEAM_SIZE + Number(form.sizes[team].value)).map((c) => c.value));
    return {
      map: Number(form.map.value), rosters, controllers, seed,
      winning_score: Number(form.winning.value), horizon: Number(form.horizon.value),
    };
  }

  // ---- the game ------------------------------------------------------------------------------
  const ui = {};
  function buildGame() {
    ui.title = el("div", { class: "mbg-title" });
    ui.score = el("div", { class: "mbg-score", "aria-live": "polite" });
    ui.clock = el("div", { class: "mbg-clock" });
    ui.turn = el("div", { class: "bgp-turn-text", "aria-live": "polite" });
    ui.canvas = el("canvas", { class: "mbg-canvas bgp-canvas", "aria-label": "arena, as your team sees it" });
    ui.tabs = el("div", { class: "bgp-tabs", role: "tablist", "aria-label": "your agents" });
    ui.pad = el("div", { class: "bgp-pad", "aria-label": "move" });
    ui.moveButtons = [];
    for (const row of PAD) {
      for (const m of row) {
        const b = el("button", { type: "button", class: "mbg-btn bgp-move", "data-move": String(m), title: `move ${MOVE_NAMES[m]}`, text: MOVE_NAMES[m] });
        ui.moveButtons[m] = b;
        ui.pad.append(b);
        on(b, "click", () => act(() => changeOrder((set, o) => withMove(set, o, m))));
      }
    }
    ui.targets = el("div", { class: "bgp-targets", "aria-label": "target" });
    ui.ult = el("button", { type: "button", class: "mbg-btn bgp-ult", "aria-pressed": "false", title: "Ultimate (U)", text: "Ultimate" });
    ui.commit = el("button", { type: "button", class: "mbg-btn bgp-commit", title: "commit this agent (Space)", text: "Commit" });
    ui.commitAll = el("button", { type: "button", class: "mbg-btn bgp-commit-all", title: "commit every agent (Enter)", text: "Commit all" });
    ui.undo = el("button", { type: "button", class: "mbg-btn bgp-undo", title: "undo (Backspace)", text: "Undo" });
    ui.again = el("button", { type: "button", class: "mbg-btn bgp-again", title: "show the last tick again (L)", text: "Last tick" });
    ui.order = el("div", { class: "bgp-order", "aria-live": "polite" });
    on(ui.ult, "click", () => act(() => changeOrder((set, o) => withUltimateToggled(set, o))));
    on(ui.commit, "click", () => act(commitSelected));
    on(ui.commitAll, "click", () => act(commitAll));
    on(ui.undo, "click", () => act(undo));
    on(ui.again, "click", () => act(flashLastTick));
    on(ui.canvas, "click", (e) => act(() => clickArena(e)));
    on(ui.canvas, "pointermove", (e) => ui.canvas.classList.toggle("bgp-pick", pickable(agentUnder(e), e.shiftKey) !== null));
    // With no human agent: the game plays itself, one tick every 1/speed seconds.
    ui.pause = el("button", { type: "button", class: "mbg-btn bgp-pause", title: "pause / resume (Space)", text: "Pause" });
    ui.next = el("button", { type: "button", class: "mbg-btn bgp-next", title: "play one tick (N)", text: "Next tick" });
    ui.speed = el("select", { name: "speed", class: "bgp-speed", "aria-label": "speed, ticks per second" });
    for (const n of SPEEDS) ui.speed.append(option(String(n), `${n} tick${n === 1 ? "" : "s"}/s`, n === DEFAULT_SPEED));
    on(ui.pause, "click", () => act(togglePause));
    on(ui.next, "click", () => act(nextTick));
    on(ui.speed, "change", () => {
      rescheduleAuto();
      root.focus({ preventScroll: true });
    });
    ui.autoBar = el("div", { class: "bgp-auto", role: "group", "aria-label": "autoplay" },
      ui.pause, ui.next, el("label", {}, "Speed ", ui.speed));
    ui.buttons = el("div", { class: "bgp-buttons" }, ui.ult, ui.commit, ui.commitAll, ui.undo, ui.again);
    ui.human = el("div", { class: "bgp-human" }, ui.tabs, ui.order,
      el("div", { class: "bgp-row" }, ui.pad, el("div", { class: "bgp-side" }, ui.targets, ui.buttons)));
    const keys = el("dl", { class: "bgp-keys" });
    for (const [k, what] of KEYS) keys.append(el("dt", { text: k }), el("dd", { text: what }));
    const controls = el("div", { class: "bgp-controls" },
      ui.autoBar, ui.human,
      el("details", { class: "bgp-help" }, el("summary", { text: "Keyboard" }), keys));
    ui.agents = el("table", { class: "mbg-agents" });
    ui.log = el("ol", { class: "mbg-log bgp-log", "aria-label": "event log" });
    const panels = el("div", { class: "mbg-panels bgp-panels" },
      el("section", {}, el("h4", { text: "Agents (as your team sees them)" }), ui.agents),
      el("section", {}, el("h4", { text: "Events" }), ui.log));
    game.replaceChildren(
      el("div", { class: "mbg-header" }, ui.title, ui.score, ui.clock, ui.turn),
      el("div", { class: "bgp-board" }, el("div", { class: "mbg-stage bgp-stage" }, ui.canvas), controls),
      panels);
  }

  // Button handlers run, then the keyboard focus returns to the client (Space must not click
  // the last button pressed).
  function act(fn) {
    fn();
    root.focus({ preventScroll: true });
  }

  const teamOfSlot = (name) => "ab".indexOf(name[0]);

  function viewName() {
    return session.win.view ? session.win.view.of : ORACLE;
  }

  function humansHere() {
    return session.view.humans;
  }

  function selected() {
    return humansHere().find((h) => h.slot === session.selected) ?? null;
  }

  function pushUndo() {
    session.undo.push(JSON.stringify({ orders: session.orders, committed: [...session.committed], selected: session.selected }));
  }

  function changeOrder(fn, refusal = "that is not a legal choice now") {
    const h = selected();
    if (!h || session.busy || session.view.done) return;
    if (session.committed.has(h.slot)) {
      ui.order.textContent = `${h.slot} has committed its order (Backspace undoes)`;
      return;
    }
    const set = session.legal[h.slot];
    const next = fn(set, session.orders[h.slot]);
    if (!next) {
      ui.order.textContent = `${h.slot}: ${refusal}`;
      return;
    }
    pushUndo();
    session.orders[h.slot] = next;
    refreshTurn();
  }

  function undo() {
    if (session.busy || !session.undo.length) return;
    const last = JSON.parse(session.undo.pop());
    session.orders = last.orders;
    session.committed = new Set(last.committed);
    session.selected = last.selected;
    refreshTurn();
  }

  function cycle(step) {
    const hs = humansHere();
    if (!hs.length) return;
    const i = hs.findIndex((h) => h.slot === session.selected);
    session.selected = hs[(i + step + hs.length) % hs.length].slot;
    refreshTurn();
  }

  function commitSelected() {
    const h = selected();
    if (!h || session.busy) return;
    pushUndo();
    session.committed.add(h.slot);
    const next = humansHere().find((x) => !session.committed.has(x.slot));
    if (next) {
      session.selected = next.slot;
      refreshTurn();
    } else {
      resolveTurn();
    }
  }

  function commitAll() {
    if (session.busy) return;
    pushUndo();
    for (const h of humansHere()) session.committed.add(h.slot);
    resolveTurn();
  }

  // ---- clicks on the arena -------------------------------------------------------------------
  // The agent drawn under a pointer event (your team's agents and the enemies it sees), or null.
  function agentUnder(e) {
    if (!session || !session.win || game.hidden) return null;
    const win = session.win;
    const box = ui.canvas.getBoundingClientRect();
    const sc = makeScale(ui.canvas.clientWidth || 800, win.rules);
    const px = e.clientX - box.left - ui.canvas.clientLeft;
    const py = e.clientY - box.top - ui.canvas.clientTop;
    const reach = Math.max(win.rules.body_radius * sc.s, 10); // a finger's width at least
    let best = null;
    let nearest = Infinity;
    for (const a of agentsAt(win, session.who, win.ticks)) {
      if (!a.present || !a.visible || !a.alive) continue;
      const d = Math.hypot(sc.x(a.x) - px, sc.y(a.y) - py);
      if (d <= reach && d < nearest) {
        best = a;
        nearest = d;
      }
    }
    return best;
  }

  // What a click on agent `a` does: "select" one of your agents (Tab's choice), "target" it
  // for the selected agent (Shift + click targets one of your own agents), or nothing (null).
  function clickMeaning(a, shift) {
    if (!a || !session || session.busy || session.view.done) return null;
    const h = selected();
    const mine = humansHere().find((x) => x.slot === a.name);
    if (mine && !shift && mine !== h) return "select";
    return h ? "target" : null;
  }

  // The target index that names agent `a` for the selected agent, if it may take it now.
  function legalTargetOf(a) {
    const h = selected();
    const t = targetOfSlot(teamOfSlot(h.slot), a.slot);
    return withTarget(session.legal[h.slot], session.orders[h.slot], t) ? t : null;
  }

  // The pointer shows a hand over what a click would change.
  function pickable(a, shift) {
    const meaning = clickMeaning(a, shift);
    if (meaning !== "target") return meaning;
    return session.committed.has(selected().slot) || legalTargetOf(a) === null ? null : meaning;
  }

  function clickArena(e) {
    const a = agentUnder(e);
    const meaning = clickMeaning(a, e.shiftKey);
    if (meaning === "select") {
      session.selected = a.name;
      refreshTurn();
    } else if (meaning === "target") {
      const h = selected();
      if (a.name === h.slot && legalTargetOf(a) === null) return; // itself, not a self-cast
      const t = targetOfSlot(teamOfSlot(h.slot), a.slot);
      changeOrder((set, o) => withTarget(set, o, t), `${a.name} is not a target it can take now`);
    }
  }

  // ---- autoplay (no human agent) -----------------------------------------------------------
  let autoTimer = null;
  let autoPaused = false;

  function autoMode() {
    return Boolean(session && session.view && !session.view.human_teams.length);
  }

  function tickDelay() {
    return 1000 / (Number(ui.speed.value) || DEFAULT_SPEED);
  }

  function stopAuto() {
    if (autoTimer) clearTimeout(autoTimer);
    autoTimer = null;
  }

  function scheduleAuto() {
    stopAuto();
    if (autoMode() && !autoPaused && !session.busy && !session.view.done) {
      const mine = session;
      autoTimer = setTimeout(() => {
        autoTimer = null;
        if (destroyed || session !== mine || autoPaused || session.busy || session.view.done) return;
        if (!root.isConnected) {
          leave(); // the page went away (instant navigation): stop playing
          return;
        }
        resolveTurn();
      }, tickDelay());
    }
    syncAuto();
  }

  function rescheduleAuto() {
    if (autoTimer) scheduleAuto();
  }

  function togglePause() {
    if (!autoMode() || session.view.done) return;
    autoPaused = !autoPaused;
    if (autoPaused) stopAuto();
    scheduleAuto();
    refreshTurn();
  }

  function nextTick() {
    if (!autoMode() || !autoPaused || session.busy || session.view.done) return;
    resolveTurn();
  }

  function syncAuto() {
    if (!autoMode()) {
      delete root.dataset.auto;
      return;
    }
    const over = session.view.done;
    root.dataset.auto = over ? "over" : autoPaused ? "paused" : "playing";
    ui.pause.textContent = autoPaused ? "Resume" : "Pause";
    ui.pause.disabled = over;
    ui.next.disabled = over || !autoPaused || session.busy;
  }

  // The page holding the client is gone: no more ticks, and the engine forgets the game.
  function leave() {
    stopAuto();
    if (session && session.id !== null && backend) backend.close(session.id).catch(() => {});
  }

  // Systems play every agent (the autoplay bar), or humans play (the turn builder).
  function setMode() {
    const auto = autoMode();
    ui.autoBar.hidden = !auto;
    ui.human.hidden = auto;
    (auto ? ui.autoBar : ui.buttons).append(ui.again);
  }

  // One team's humans have committed: the next human team takes the seat, or the tick resolves.
  async function resolveTurn() {
    const teams = session.view.human_teams;
    const here = teams.indexOf(session.who);
    session.actions = { ...session.actions };
    for (const h of humansHere()) session.actions[h.slot] = session.orders[h.slot];
    if (here >= 0 && here + 1 < teams.length) {
      await show(await backend.view(session.id, teams[here + 1]), false);
      return;
    }
    session.busy = true;
    setState("resolving");
    refreshTurn();
    let next;
    try {
      next = await backend.step(session.id, session.actions, teams.length ? teams[0] : ORACLE);
    } catch (err) {
      session.busy = false;
      autoPaused = true; // autoplay stops on an error; Resume tries again
      showError("The engine refused this turn.", err);
      setState("turn");
      refreshTurn();
      syncAuto();
      return;
    }
    session.actions = {};
    await show(next, true);
  }

  // Take a view from the engine: check its window with the viewer's reader, draw, log, and
  // set up the next turn (or the end).
  async function show(view, ticked) {
    if (destroyed) return; // an answer that arrived after the client was destroyed
    const win = validateReplay(view.window);
    const first = !session.win;
    if (first || session.mapKey !== JSON.stringify(win.map.obstacles)) {
      session.obstacles = prepareObstacles(win.map);
      session.mapKey = JSON.stringify(win.map.obstacles);
    }
    session.view = view;
    session.win = win;
    if (first) setMode();
    session.who = win.view ? win.view.of : ORACLE;
    session.legal = {};
    for (const h of view.humans) session.legal[h.slot] = legalSet(h.legal);
    session.lastOrders = { ...session.lastOrders, ...session.orders };
    const previous = session.lastOrders;
    session.orders = {};
    session.committed = new Set();
    session.undo = [];
    for (const h of view.humans) {
      session.orders[h.slot] = startOrder(session.legal[h.slot], previous[h.slot]);
      if (!h.alive) session.committed.add(h.slot); // a dead agent waits for its wave
    }
    if (!view.humans.some((h) => h.slot === session.selected)) {
      session.selected = (view.humans.find((h) => h.alive) ?? view.humans[0] ?? { slot: null }).slot;
    }
    root.dataset.legal = JSON.stringify(Object.fromEntries(view.humans.map((h) => [h.slot, h.legal])));
    root.dataset.tick = String(view.tick);
    root.dataset.view = session.who;
    if (ticked && win.ticks > 0) logTick(win);
    const f = win.frames;
    const t = win.ticks;
    ui.score.textContent = `a ${view.score[0]} : ${view.score[1]} b  (to ${f.winning_score[t]})`;
    ui.clock.textContent = `tick ${view.tick} / ${f.horizon[t]}`;
    fillAgents(ui.agents, agentsAt(win, session.who, t));
    session.busy = false;
    if (view.done) {
      draw(t); // frame t draws the last tick's attacks, heals and deaths
      stopAuto();
      syncAuto();
      await finish(view);
      return;
    }
    setState("turn");
    refreshTurn();
    if (ticked && win.ticks > 0 && flashMs > 0) flashLastTick();
    else draw(t);
    if (autoMode()) {
      scheduleAuto();
      return;
    }
    // Nothing for a human to do this tick (every human agent dead, or none at all): play on.
    if (view.humans.length && view.humans.every((h) => !h.alive)) {
      session.busy = true;
      setState("resolving");
      setTimeout(() => {
        if (!destroyed && session && session.view === view) {
          session.busy = false;
          resolveTurn();
        }
      }, flashMs);
    }
  }

  function logTick(win) {
    const who = session.who;
    const agents = agentsAt(win, who, 0);
    const items = [];
    const n = tickNumber(win, 0); // the site's one convention: tick n is the n-th step
    for (const [, text] of describeTick(eventsAt(win, who, 0), agents)) {
      items.push(el("li", { class: "mbg-now", text: `tick ${n}: ${text}` }));
    }
    for (const li of ui.log.querySelectorAll(".mbg-now")) li.classList.remove("mbg-now");
    for (const li of ui.log.querySelectorAll(".mbg-empty")) li.remove();
    ui.log.prepend(...items);
    while (ui.log.children.length > LOG_LIMIT) ui.log.lastChild.remove();
    if (!ui.log.children.length) ui.log.append(el("li", { class: "mbg-empty", text: "no events seen yet" }));
  }

  // Show the last tick again. While playing: the position it started from, then where it left
  // the agents, with its attacks, heals and deaths. After the game: that tick's drawing alone
  // (its attacks, heals and deaths over the faded final position), then the final state; the
  // position before the last tick is not drawn again.
  let flashTimer = null;
  function flashLastTick() {
    if (!session || !session.win || session.win.ticks === 0) return;
    if (flashTimer) clearTimeout(flashTimer);
    const over = session.view.done;
    if (over) drawLastTickAlone();
    else draw(0);
    root.dataset.flash = "1";
    const hold = autoMode() && !over ? Math.min(flashMs, tickDelay() / 2) : flashMs;
    flashTimer = setTimeout(() => {
      flashTimer = null;
      delete root.dataset.flash;
      if (!destroyed && session) draw(session.win.ticks);
    }, Math.max(hold, 1));
  }

  // Frame t of the window as the human's team sees it; on the current frame, the pending
  // orders as ghosts.
  function draw(t) {
    if (!session || !session.win || game.hidden) return;
    const { scale, agents } = renderFrame(ui.canvas, session.win, session.who, t, session.obstacles);
    root.dataset.drawn = `frame-${t}`;
    if (t === session.win.ticks && !session.view.done) drawGhosts(scale, agents);
  }

  // The canvas's pixels, read from a copy made for reading (the arena's canvas stays fast).
  function pixelsOf(canvas) {
    const copy = document.createElement("canvas");
    copy.width = canvas.width;
    copy.height = canvas.height;
    const ctx = copy.getContext("2d", { willReadFrequently: true });
    ctx.drawImage(canvas, 0, 0);
    return ctx.getImageData(0, 0, copy.width, copy.height);
  }

  // The last frame drawn twice, with and without the last tick's events: what the events add
  // (attack and heal lines, the fallen) stays, everything else fades.
  function drawLastTickAlone() {
    if (!session || !session.win || game.hidden) return;
    const win = session.win;
    const t = win.ticks;
    const quiet = { ...win, events: win.events.map(() => []) };
    renderFrame(ui.canvas, quiet, session.who, t, session.obstacles);
    const plain = pixelsOf(ui.canvas).data;
    renderFrame(ui.canvas, win, session.who, t, session.obstacles);
    const image = pixelsOf(ui.canvas);
    const px = image.data;
    for (let i = 0; i < px.length; i += 4) {
      const change = Math.abs(px[i] - plain[i]) + Math.abs(px[i + 1] - plain[i + 1]) + Math.abs(px[i + 2] - plain[i + 2]);
      if (change > 24) continue;
      for (let c = 0; c < 3; c++) px[i + c] = 255 - Math.round((255 - plain[i + c]) * 0.3);
    }
    ui.canvas.getContext("2d").putImageData(image, 0, 0);
    root.dataset.drawn = "last-tick";
  }

  // Where each living human agent's pending move takes it (milli-units) before bodies or
  // obstacles stop it: the engine's planned stride, slows included.
  function ghosts(agents) {
    const out = {};
    for (const h of humansHere()) {
      const a = agents[SLOT_NAMES.indexOf(h.slot)];
      if (!a || !a.alive || !session.orders[h.slot]) continue;
      const [dx, dy] = ghostStride(h, session.orders[h.slot][0]);
      out[h.slot] = [a.x + dx, a.y + dy];
    }
    return out;
  }

  function drawGhosts(sc, agents) {
    const ctx = ui.canvas.getContext("2d");
    const body = session.win.rules.body_radius * sc.s;
    const where = ghosts(agents);
    for (const h of humansHere()) {
      const a = agents[SLOT_NAMES.indexOf(h.slot)];
      if (!where[h.slot]) continue;
      const [, t, u] = session.orders[h.slot];
      const [gx, gy] = where[h.slot];
      const colour = TEAM_COLOURS[a.team];
      const mine = h.slot === session.selected;
      ctx.save();
      if (mine) {
        ctx.strokeStyle = "#111";
        ctx.lineWidth = 2;
        ctx.beginPath();
        ctx.arc(sc.x(a.x), sc.y(a.y), body + 6, 0, 2 * Math.PI);
        ctx.stroke();
      }
      if (t > 0) {
        const target = agents[slotOfTarget(a.team, t)];
        if (target && target.visible) {
          ctx.strokeStyle = t <= 5 ? "rgba(30,160,60,0.9)" : "rgba(200,40,20,0.9)";
          ctx.setLineDash([6, 4]);
          ctx.lineWidth = u ? 3.5 : 2;
          ctx.beginPath();
          ctx.moveTo(sc.x(gx), sc.y(gy));
          ctx.lineTo(sc.x(target.x), sc.y(target.y));
          ctx.stroke();
        }
      }
      ctx.setLineDash([4, 3]);
      ctx.globalAlpha = session.committed.has(h.slot) ? 0.55 : 0.35;
      ctx.fillStyle = colour;
      ctx.beginPath();
      ctx.arc(sc.x(gx), sc.y(gy), body, 0, 2 * Math.PI);
      ctx.fill();
      ctx.globalAlpha = 1;
      ctx.strokeStyle = colour;
      ctx.lineWidth = 1.5;
      ctx.stroke();
      if (u) {
        ctx.setLineDash([]);
        ctx.strokeStyle = "#f2b800";
        ctx.lineWidth = 3;
        ctx.beginPath();
        ctx.arc(sc.x(gx), sc.y(gy), body + 3, 0, 2 * Math.PI);
        ctx.stroke();
      }
      ctx.restore();
    }
  }

  function targetLabel(team, t, agents) {
    if (t === 0) return "none";
    const slot = slotOfTarget(team, t);
    const a = agents[slot];
    const key = t <= 5 ? `\u21e7${t}` : String(t - 5);
    return `${SLOT_NAMES[slot]} ${a && a.visible ? a.classTitle : ""} [${key}]`.replace("  ", " ");
  }

  function refreshTurn() {
    const hs = humansHere();
    const h = selected();
    ui.tabs.replaceChildren(...hs.map((x) => {
      const done = session.committed.has(x.slot);
      const tab = el("button", {
        type: "button", role: "tab", class: `mbg-btn bgp-tab${done ? " bgp-done" : ""}`,
        "aria-selected": String(x.slot === session.selected), "data-agent": x.slot,
        text: `${x.slot} ${x.class}${x.alive ? "" : " (dead)"}${done ? " \u2713" : ""}`,
      });
      tab.addEventListener("click", () => act(() => {
        session.selected = x.slot;
        refreshTurn();
      }));
      return tab;
    }));
    const busy = session.busy || session.view.done;
    const teams = session.view.human_teams;
    ui.turn.textContent = !teams.length
      ? `Systems play every agent: ${autoPaused ? "paused (Space resumes, N plays one tick)" : "playing (Space pauses)"}`
      : busy ? "resolving the tick\u2026"
        : `team ${session.who} to move${teams.length > 1 ? " (pass the keyboard between turns)" : ""}`;
    root.dataset.ghosts = JSON.stringify(ghosts(agentsAt(session.win, session.who, session.win.ticks)));
    if (!h) {
      for (const b of ui.moveButtons) b.disabled = true;
      ui.targets.replaceChildren();
      ui.ult.disabled = true;
      ui.commit.disabled = busy || teams.length > 0;
      ui.commitAll.disabled = busy;
      ui.undo.disabled = true;
      ui.order.textContent = "";
      root.dataset.selected = "";
      root.dataset.offered = "{}";
      draw(session.win.ticks);
      return;
    }
    const set = session.legal[h.slot];
    const order = session.orders[h.slot];
    const locked = busy || session.committed.has(h.slot);
    const moves = legalMoves(set);
    ui.moveButtons.forEach((b, m) => {
      b.disabled = locked || !moves.has(m);
      b.setAttribute("aria-pressed", String(order[0] === m));
    });
    const team = teamOfSlot(h.slot);
    const agents = agentsAt(session.win, session.who, session.win.ticks);
    const targets = legalTargets(set, order[0]);
    const buttons = [];
    for (let t = 0; t <= 10; t++) {
      if (t > 0) {
        const slot = slotOfTarget(team, t);
        if (!agents[slot] || !agents[slot].present) continue;
      }
      const b = el("button", {
        type: "button", class: `mbg-btn bgp-target${t > 5 ? " bgp-enemy" : t > 0 ? " bgp-ally" : ""}`,
        "data-target": String(t), "aria-pressed": String(order[1] === t), text: targetLabel(team, t, agents),
      });
      b.disabled = locked || !targets.has(t);
      b.addEventListener("click", () => act(() => changeOrder((s, o) => withTarget(s, o, t))));
      buttons.push(b);
    }
    ui.targets.replaceChildren(...buttons);
    ui.ult.setAttribute("aria-pressed", String(order[2] === 1));
    ui.ult.disabled = locked || withUltimateToggled(set, order) === null;
    ui.commit.disabled = locked;
    ui.commitAll.disabled = busy;
    ui.undo.disabled = busy || !session.undo.length;
    const [m, t, u] = order;
    ui.order.textContent = `${h.slot} (${h.class}): move ${MOVE_NAMES[m]}, target ${t === 0 ? "none" : targetLabel(team, t, agents)}` +
      `${u ? ", Ultimate" : ""}${session.committed.has(h.slot) ? " \u2014 committed" : ""}`;
    root.dataset.selected = h.slot;
    // What the builder offers the selected agent now: every legal choice, nothing else.
    root.dataset.offered = JSON.stringify({ moves: [...moves].sort((x, y) => x - y), targets: [...targets].sort((x, y) => x - y), order });
    draw(session.win.ticks);
  }

  function onKey(e) {
    if (!session || !session.view || game.hidden || e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.target && ["INPUT", "SELECT", "TEXTAREA"].includes(e.target.tagName)) return;
    if (end.contains(e.target)) return; // the finished game's viewer has keys of its own
    let handled = true;
    const move = MOVE_KEYS[e.code];
    const target = targetOfKey(e.code, e.shiftKey);
    if (e.code === "KeyL") flashLastTick();
    else if (e.key === "Escape") root.blur(); // leave the client (Tab is taken while playing)
    else if (session.view.done) handled = false; // the game is over: nothing else to play
    else if (autoMode()) {
      if (e.code === "Space") togglePause();
      else if (e.code === "KeyN") nextTick();
      else handled = false;
    } else if (e.key === "Tab") cycle(e.shiftKey ? -1 : 1);
    else if (move !== undefined) changeOrder((set, o) => withMove(set, o, move));
    else if (target !== null) changeOrder((set, o) => withTarget(set, o, target));
    else if (e.code === "KeyU") changeOrder((set, o) => withUltimateToggled(set, o));
    else if (e.code === "Space") commitSelected();
    else if (e.key === "Enter") commitAll();
    else if (e.key === "Backspace") undo();
    else handled = false;
    if (handled) e.preventDefault();
  }
  on(root, "keydown", onKey);

  // ---- the end -------------------------------------------------------------------------------
  let reviewer = null;
  async function finish(view) {
    setState("over");
    for (const b of ui.moveButtons) b.disabled = true;
    ui.targets.replaceChildren();
    for (const b of [ui.ult, ui.commit, ui.commitAll, ui.undo]) b.disabled = true;
    ui.turn.textContent = "game over";
    let text;
    let doc;
    try {
      text = await backend.replayText(session.id);
      doc = await readReplayBytes(new TextEncoder().encode(text));
    } catch (err) {
      showError("The replay could not be made.", err);
      return;
    }
    const result = view.result === "draw" ? "Draw" : `Team ${view.result} wins`;
    const mine = view.human_teams.length === 1 ? (view.result === view.human_teams[0] ? " \u2014 you win" : view.result === "draw" ? "" : " \u2014 you lose") : "";
    const metrics = el("table", { class: "mbg-metrics bgp-metrics" });
    fillMetrics(metrics, doc.metrics, true);
    const url = URL.createObjectURL(new Blob([text], { type: "application/json" }));
    cleanups.push(() => URL.revokeObjectURL(url));
    const download = el("a", { class: "md-button md-button--primary bgp-download", href: url, download: downloadName(session.spec), text: "Download replay" });
    const again = el("button", { type: "button", class: "md-button bgp-new", text: "New game" });
    again.addEventListener("click", () => {
      game.hidden = true;
      end.hidden = true;
      setup.hidden = false;
      setState("setup");
    });
    const saved = view.saved ? el("p", { class: "bgp-saved", text: `Saved on this machine: ${view.saved}` }) : "";
    const review = el("div", { class: "bgp-review" });
    end.replaceChildren(
      el("h3", { class: "bgp-result", text: `${result} ${view.score[0]}\u2013${view.score[1]}${mine}` }),
      el("p", { text: `After ${doc.ticks} ticks. The replay opens in the Replay Viewer; the whole game (every agent) is below.` }),
      el("div", { class: "bgp-end-buttons" }, download, again), saved,
      el("h4", { text: "Priority metrics" }), metrics, review);
    end.hidden = false;
    if (reviewer) reviewer.destroy();
    reviewer = mountViewer(review, { bytes: new TextEncoder().encode(text), compact: true });
  }

  // ---- start ---------------------------------------------------------------------------------
  async function start() {
    clearError();
    const spec = specFromForm();
    form.start.disabled = true;
    stopAuto();
    autoPaused = false; // a game of Systems alone starts playing at once
    try {
      if (session && session.id !== null) backend.close(session.id).catch(() => {});
      const id = await backend.newGame(spec);
      root.dataset.session = String(id);
      session = { id, spec, view: null, win: null, orders: {}, committed: new Set(), undo: [], actions: {}, lastOrders: {}, busy: false, selected: null };
      if (destroyed) return leave(); // destroyed while the game was being made
      const first = await backend.view(id, "auto");
      setup.hidden = true;
      end.hidden = true;
      game.hidden = false;
      if (reviewer) {
        reviewer.destroy();
        reviewer = null;
      }
      ui.log.replaceChildren(el("li", { class: "mbg-empty", text: "no events seen yet" }));
      ui.title.textContent = first.window.title;
      await show(first, false);
      root.focus({ preventScroll: true });
    } catch (err) {
      showError("Cannot start this game.", err);
      setState("setup");
    } finally {
      form.start.disabled = false;
    }
  }

  // ---- a scenario ----------------------------------------------------------------------------
  // Its files are fetched while the engine loads; once both are in, the form holds its
  // position (Team A human, Team B its controller) and the game starts.
  const scenarioLoad = options.scenario ? loadScenario(options.scenario.id, options.scenario.base) : null;
  if (scenarioLoad) {
    scenarioLoad.then((sc) => {
      if (!destroyed) showScenario(sc);
    }, (err) => {
      if (!destroyed) showError("Cannot open this scenario.", err);
    });
  }

  function showScenario(sc) {
    scenarioNote.replaceChildren(
      el("strong", { text: `Scenario ${sc.id} \u00b7 ${sc.name}. ` }),
      `Team A (blue, left) is yours; Team B is played by ${sc.controller}. `,
      el("span", { class: "bgp-briefing", text: sc.briefing }),
    );
    scenarioNote.hidden = false;
  }

  function forgetScenario() {
    scenario = null;
    scenarioNote.hidden = true;
    delete root.dataset.scenario;
  }

  async function openScenario() {
    let sc;
    try {
      sc = await scenarioLoad;
    } catch {
      return; // already shown
    }
    if (destroyed) return;
    if (!backend.catalog.systems.includes(sc.controller)) {
      showError("Cannot open this scenario.", new Error(`this engine cannot play ${sc.controller}, the scenario's controller`));
      return;
    }
    scenario = sc;
    positionDoc = sc.position;
    form.file.value = "";
    form.fileName.textContent = `Scenario ${sc.id}: ${sc.name}`;
    form.clearFile.hidden = false;
    form.controllers.forEach((select, s) => {
      select.value = s < TEAM_SIZE ? "human" : sc.controller;
    });
    syncSizes();
    showScenario(sc);
    root.dataset.scenario = String(sc.id);
    await start();
  }

  // ---- boot ----------------------------------------------------------------------------------
  // `backend` is an engine or a promise of one; a function with `lazy` waits for the visitor
  // to ask (the browser's engine is a large download).
  function boot() {
    const pending = typeof options.backend === "function" ? options.backend() : options.backend;
    Promise.resolve(pending).then(ready, failed);
  }
  if (options.lazy && typeof options.backend === "function") {
    const load = el("button", { type: "button", class: "md-button md-button--primary bgp-load", text: "Load the game engine" });
    status.replaceChildren(
      load,
      el("span", { text: " Python and NumPy run inside this page (Pyodide); the first load downloads them." }),
    );
    setState("idle");
    on(load, "click", () => {
      status.textContent = "Loading the game engine\u2026";
      setState("loading");
      boot();
    });
  } else {
    boot();
  }

  function ready(b) {
    if (destroyed) return;
    backend = b;
    status.textContent = b.kind === "local"
      ? "Engine: the Python engine on this machine (marl-bgs client)."
      : `Engine: NumPy in your browser (Pyodide), loaded in ${(b.loadMs / 1000).toFixed(1)} s.`;
    buildSetup(b.catalog, b.defaults);
    buildGame();
    setup.hidden = false;
    setState("setup");
    if (scenarioLoad) openScenario();
  }

  function failed(err) {
    status.textContent = "";
    showError("The game engine could not start.", err);
    setState("error");
  }

  return {
    root,
    // Stop for good: timers, listeners, the finished game's viewer, and the engine's game
    // (`leave`); the root says "destroyed" (for tests) and leaves the document.
    destroy() {
      destroyed = true;
      leave();
      setState("destroyed");
      if (flashTimer) clearTimeout(flashTimer);
      if (reviewer) reviewer.destroy();
      for (const fn of cleanups.splice(0)) fn();
      root.remove();
    },
  };
}

export { decode, isLegal };
