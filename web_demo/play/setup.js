// The setup form: map, winning score, horizon and seed, each team's size, classes and who
// plays each slot (you, or a System from the engine's catalog), or a position file instead
// of the map and rosters; and the game spec the engine's newGame takes from it.

import { el } from "../viewer/ui.js";
import { SLOT_NAMES, TEAM_SIZE, clearError, listen, option, showError } from "./state.js";

// What the form shows first: the engine's defaults (the local client's) over ours, which are
// map 47, every class on each side, you in slot a0 and TDM-Alpha (if offered) elsewhere.
export function setupDefaults(catalog, defaults) {
  return {
    map: 47, winning_score: 5, horizon: 200, seed: 0,
    rosters: [catalog.classes.map((c) => c.name), catalog.classes.map((c) => c.name)],
    controllers: ["human", ...Array(9).fill(catalog.systems.includes("tdm-alpha") ? "tdm-alpha" : catalog.systems[1])],
    ...(defaults || {}),
  };
}

// The engine's game spec from the form's values as text (`values`: map, winning, horizon,
// seed, sizes per team, classes and controllers per slot), the position file (`position`, or
// null) and the scenario it came from (or null): a position keeps its own map and rosters.
export function gameSpec(values, position, scenario) {
  const controllers = values.controllers;
  const seed = Number(values.seed) || 0;
  if (position !== null && scenario) {
    return { position, controllers, seed, title: `Scenario ${scenario.id}: ${scenario.name}`.slice(0, 120) };
  }
  if (position !== null) return { position, controllers, seed };
  const rosters = [0, 1].map((team) =>
    values.classes.slice(team * TEAM_SIZE, team * TEAM_SIZE + Number(values.sizes[team])));
  return {
    map: Number(values.map), rosters, controllers, seed,
    winning_score: Number(values.winning), horizon: Number(values.horizon),
  };
}

export function specFromForm(st) {
  const form = st.form;
  const values = {
    map: form.map.value, winning: form.winning.value, horizon: form.horizon.value, seed: form.seed.value,
    sizes: form.sizes.map((s) => s.value), classes: form.classes.map((c) => c.value),
    controllers: form.controllers.map((c) => c.value),
  };
  return gameSpec(values, st.positionDoc, st.scenario);
}

function numberInput(name, value, lo, hi) {
  return el("input", {
    type: "number", name, min: String(lo), max: String(hi), value: String(value), "aria-label": name,
  });
}

// One team's fieldset: its size, and a row per slot with its class and who plays it.
function teamFieldset(st, catalog, d, team) {
  const form = st.form;
  const side = "ab"[team];
  const size = el("select", { name: `size_${side}`, "aria-label": `team ${side} size` });
  for (let n = 1; n <= TEAM_SIZE; n++) size.append(option(String(n), String(n), n === d.rosters[team].length));
  form.sizes.push(size);
  const rows = [el("tr", {}, el("th", { text: "slot" }), el("th", { text: "class" }), el("th", { text: "played by" }))];
  for (let k = 0; k < TEAM_SIZE; k++) {
    const s = team * TEAM_SIZE + k;
    const cls = el("select", { name: `class_${SLOT_NAMES[s]}`, "aria-label": `${SLOT_NAMES[s]} class` });
    for (const c of catalog.classes) cls.append(option(c.name, c.title, c.name === (d.rosters[team][k] ?? catalog.classes[k % catalog.classes.length].name)));
    const who = el("select", { name: `controller_${SLOT_NAMES[s]}`, "aria-label": `${SLOT_NAMES[s]} played by` });
    for (const name of catalog.systems) who.append(option(name, systemLabel(name, catalog.strengths), name === d.controllers[s]));
    form.classes.push(cls);
    form.controllers.push(who);
    rows.push(el("tr", { "data-slot": SLOT_NAMES[s] }, el("td", { text: SLOT_NAMES[s] }), el("td", {}, cls), el("td", {}, who)));
  }
  const table = el("table", { class: `bgp-team mbg-team-${side}` }, ...rows);
  listen(st, size, "change", () => syncSizes(st));
  return el("fieldset", {}, el("legend", { text: `Team ${side} (${team === 0 ? "blue, starts left" : "red, starts right"})` }),
    el("label", {}, "Agents ", size), table);
}

// Build the form from the engine's catalog; submitting it calls `onStart()`.
// A controller's name in the menus, with its season strength where one is known.
export function systemLabel(name, strengths) {
  if (name === "human") return "you (human)";
  const strength = strengths && Object.hasOwn(strengths, name) ? strengths[name] : null;
  return typeof strength === "string" ? `${name} (${strength})` : name;
}

// Whether the settings are the official game's (`official`: the catalog's winning score and
// horizon) or a quicker (or longer) one, in words beside them.
export function gameKind(winning, horizon, official) {
  if (!official) return "";
  const rule = `first to ${official.winning_score} points within ${official.horizon} ticks`;
  if (Number(winning) === official.winning_score && Number(horizon) === official.horizon) {
    return `The official game: ${rule}.`;
  }
  const shorter = Number(winning) <= official.winning_score && Number(horizon) <= official.horizon;
  return `${shorter ? "A quick game" : "A custom game"} (the official game: ${rule}).`;
}

export function buildSetup(st, catalog, defaults, onStart) {
  const form = st.form;
  const d = setupDefaults(catalog, defaults);
  form.map = el("select", { name: "map", "aria-label": "map" });
  for (const m of catalog.maps) {
    form.map.append(option(String(m.id), `${m.id} \u00b7 ${m.name} (${m.split})`, m.id === d.map));
  }
  form.winning = numberInput("winning_score", d.winning_score, 1, catalog.limits.winning_score);
  form.horizon = numberInput("horizon", d.horizon, 1, catalog.limits.horizon);
  form.seed = numberInput("seed", d.seed, 0, 2 ** 31 - 1);
  form.kind = el("span", { class: "bgp-game-kind" });
  const settings = el("div", { class: "bgp-settings" },
    el("label", {}, "Map ", form.map),
    el("label", {}, "Winning score ", form.winning),
    el("label", {}, "Horizon (ticks) ", form.horizon),
    el("label", {}, "Seed ", form.seed), form.kind);
  const sayKind = () => {
    form.kind.textContent = gameKind(form.winning.value, form.horizon.value, catalog.official);
  };
  for (const input of [form.winning, form.horizon]) listen(st, input, "input", sayKind);
  sayKind();
  form.sizes = [];
  form.classes = [];
  form.controllers = [];
  const teams = el("div", { class: "bgp-teams" });
  for (let team = 0; team < 2; team++) teams.append(teamFieldset(st, catalog, d, team));
  form.file = el("input", { type: "file", accept: ".json,application/json", name: "position", "aria-label": "position file" });
  form.fileName = el("span", { class: "bgp-file-name" });
  form.clearFile = el("button", { type: "button", class: "mbg-btn", text: "Clear file" });
  form.clearFile.hidden = true;
  const fileRow = el("div", { class: "bgp-file" },
    el("label", {}, "Or start from a position file (marl-bgs/position): ", form.file), form.fileName, form.clearFile);
  form.start = el("button", { type: "submit", class: "md-button md-button--primary bgp-start", text: "Start game" });
  st.setup.replaceChildren(el("h3", { text: "New game" }), settings, teams, fileRow, el("div", {}, form.start));
  syncSizes(st);
  listen(st, form.file, "change", () => readPositionFile(st));
  listen(st, form.clearFile, "click", () => {
    forgetScenario(st);
    st.positionDoc = null;
    form.file.value = "";
    form.fileName.textContent = "";
    form.clearFile.hidden = true;
    syncSizes(st);
  });
  listen(st, st.setup, "submit", (e) => {
    e.preventDefault();
    onStart();
  });
}

// A position file sets the map and rosters itself: their inputs are off, and every slot's
// row shows (its controllers still apply). Without one, a team shows as many rows as agents.
export function syncSizes(st) {
  const form = st.form;
  const fromFile = st.positionDoc !== null;
  for (const input of [form.map, form.winning, form.horizon, ...form.sizes, ...form.classes]) input.disabled = fromFile;
  for (let team = 0; team < 2; team++) {
    const n = Number(form.sizes[team].value);
    for (let k = 0; k < TEAM_SIZE; k++) {
      const row = form.classes[team * TEAM_SIZE + k].closest("tr");
      row.hidden = !fromFile && k >= n;
    }
  }
}

// The chosen file is read here only as JSON; the engine checks it as a position when the
// game starts (and its error shows then).
async function readPositionFile(st) {
  const form = st.form;
  clearError(st);
  const file = form.file.files && form.file.files[0];
  if (!file) return;
  forgetScenario(st);
  form.fileName.textContent = file.name;
  form.clearFile.hidden = false;
  try {
    st.positionDoc = JSON.parse(await file.text());
  } catch (err) {
    st.positionDoc = null;
    showError(st, "Cannot read this position file.", new Error(`position: not JSON (${err.message})`));
  }
  syncSizes(st);
}

// The form no longer holds a scenario's position (another file, or none): its note goes, and
// a game started now is not that scenario's.
export function forgetScenario(st) {
  st.scenario = null;
  st.scenarioNote.hidden = true;
  delete st.root.dataset.scenario;
}
