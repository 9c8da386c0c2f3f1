// Endgame scenarios on the Play page (`?scenario=<id>`, as the Scenarios pages link it): the
// scenario's position is exports/scenarios/scenario_<id>/position.json, Team A's agents are
// the human's and Team B's slots are played by the scenario's controller (from
// exports/scenarios/index.json). Its files are fetched while the engine loads; once both are
// in, the form holds its position and the game starts.

import { el } from "../viewer/ui.js";
import { start } from "./flow.js";
import { syncSizes } from "./setup.js";
import { TEAM_SIZE, showError } from "./state.js";

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

// Start fetching the scenario's files at once (the engine loads meanwhile); its note shows as
// soon as they are in, or the reason they are not. Returns the pending load.
export function fetchScenario(st, { id, base }) {
  const pending = loadScenario(id, base);
  pending.then((sc) => {
    if (!st.destroyed) showScenario(st, sc);
  }, (err) => {
    if (!st.destroyed) showError(st, "Cannot open this scenario.", err);
  });
  return pending;
}

// The scenario's note above the game, with its briefing (text only).
export function showScenario(st, sc) {
  st.scenarioNote.replaceChildren(
    el("strong", { text: `Scenario ${sc.id} \u00b7 ${sc.name}. ` }),
    `Team A (blue, left) is yours; Team B is played by ${sc.controller}. `,
    el("span", { class: "bgp-briefing", text: sc.briefing }),
  );
  st.scenarioNote.hidden = false;
}

// Once the engine is in: put the scenario's position and players in the form, and start.
export async function openScenario(st, pending) {
  let sc;
  try {
    sc = await pending;
  } catch {
    return; // already shown
  }
  if (st.destroyed) return;
  if (!st.backend.catalog.systems.includes(sc.controller)) {
    showError(st, "Cannot open this scenario.", new Error(`this engine cannot play ${sc.controller}, the scenario's controller`));
    return;
  }
  const form = st.form;
  st.scenario = sc;
  st.positionDoc = sc.position;
  form.file.value = "";
  form.fileName.textContent = `Scenario ${sc.id}: ${sc.name}`;
  form.clearFile.hidden = false;
  form.controllers.forEach((select, s) => {
    select.value = s < TEAM_SIZE ? "human" : sc.controller;
  });
  syncSizes(st);
  showScenario(st, sc);
  st.root.dataset.scenario = String(sc.id);
  await start(st);
}
