// The Play client's parts that need no page: pointer picking, ghosts and the fading of the
// last tick, the panel's words, the setup form's spec, autoplay's state and scenario loading.
import assert from "node:assert/strict";
import { test } from "node:test";

import { autoLabel, autoMode } from "../play/autoplay.js";
import { targetLabel, turnText } from "../play/board.js";
import { fadeUnchanged, ghosts } from "../play/draw.js";
import { blockedMoves, downloadName, endWords, verdict } from "../play/flow.js";
import { newSession, startTurn } from "../play/orders.js";
import { clickMeaning, legalTargetOf, nearestAgent, pickable, targetRefusal } from "../play/pointer.js";
import { loadScenario } from "../play/scenarios.js";
import { gameKind, gameSpec, setupDefaults, systemLabel } from "../play/setup.js";
import { SLOT_NAMES } from "../play/state.js";
import { flatOf } from "../play/turns.js";

// Ten agents by slot as view.js's agentsAt gives them; a0 and a1 are the human's, b0 is seen.
function agents() {
  return SLOT_NAMES.map((name, slot) => ({
    name, slot, team: slot < 5 ? 0 : 1, x: 1000 * (slot + 1), y: 2000, present: slot < 2 || slot === 5 || slot === 6,
    visible: slot !== 6, alive: true, classTitle: "Mage",
  }));
}

// a0 may stand still or go east, and fire at b0 (target 6) only going east; a1 only stands.
function session() {
  const s = newSession(1, {});
  s.view = {
    humans: [
      { slot: "a0", class: "mage", alive: true, speed: 1000, legal: [flatOf(0, 0, 0), flatOf(3, 0, 0), flatOf(3, 6, 0)] },
      { slot: "a1", class: "mage", alive: true, speed: 500, strides: { 0: [0, 0], 3: [300, -40] }, legal: [flatOf(0, 0, 0)] },
    ],
    human_teams: ["a"], done: false,
  };
  startTurn(s, s.view);
  return s;
}

const SCALE = { x: (v) => v / 10, y: (v) => v / 10, s: 0.1 };

test("the pointer picks the nearest drawn agent within reach", () => {
  const all = agents();
  assert.equal(nearestAgent(all, SCALE, 104, 200, 10).name, "a0");
  assert.equal(nearestAgent(all, SCALE, 196, 200, 10).name, "a1");
  assert.equal(nearestAgent(all, SCALE, 150, 200, 10), null); // out of reach of both
  assert.equal(nearestAgent(all, SCALE, 700, 200, 10), null); // b1: present but unseen
  all[0].alive = false;
  assert.equal(nearestAgent(all, SCALE, 104, 200, 10), null);
});

test("a click selects your other agents and picks only legal targets", () => {
  const s = session();
  const [a0, a1, , , , b0] = agents();
  assert.equal(clickMeaning(s, a1, false), "select");
  assert.equal(clickMeaning(s, a1, true), "target"); // Shift: one of your own as a target
  assert.equal(clickMeaning(s, b0, false), "target");
  assert.equal(clickMeaning(s, null, false), null);
  // Standing still, a0 may not take b0; going east it may.
  assert.equal(legalTargetOf(s, b0), null);
  assert.equal(pickable(s, b0, false), null);
  s.orders.a0 = [3, 0, 0];
  assert.equal(legalTargetOf(s, b0), 6);
  assert.equal(pickable(s, b0, false), "target");
  assert.equal(pickable(s, a0, false), null); // itself: not a self-cast here
  s.committed.add("a0");
  assert.equal(pickable(s, b0, false), null);
  s.busy = true;
  assert.equal(clickMeaning(s, a1, false), null);
});

test("ghosts stand where the engine's planned stride takes each living human", () => {
  const s = session();
  s.orders.a0 = [3, 0, 0];
  s.orders.a1 = [3, 0, 0];
  const all = agents();
  // a0 has no strides: its class speed along the move; a1's are the engine's (slowed).
  assert.deepEqual(ghosts(s, all), { a0: [2000, 2000], a1: [2300, 1960] });
  all[1].alive = false;
  assert.deepEqual(Object.keys(ghosts(s, all)), ["a0"]);
});

test("the last tick alone: what its events change stays, the rest fades", () => {
  const plain = [100, 100, 100, 255, 0, 0, 0, 255];
  const px = [110, 105, 100, 255, 200, 0, 0, 255];
  fadeUnchanged(px, plain);
  // Pale: 255 - (255 - 100) * 0.3, from the picture without events.
  assert.deepEqual(px.slice(0, 4), [208, 208, 208, 255]);
  assert.deepEqual(px.slice(4), [200, 0, 0, 255]);
});

test("target labels and the turn's line", () => {
  const all = agents();
  assert.equal(targetLabel(0, 0, all), "none");
  assert.equal(targetLabel(0, 6, all), "b0 Mage [1]");
  assert.equal(targetLabel(0, 2, all), "a1 Mage [\u21e72]");
  assert.equal(targetLabel(0, 7, all), "b1 [2]"); // unseen: no class
  const s = session();
  s.who = "a";
  assert.equal(turnText(s, false), "team a to move");
  s.view.human_teams = ["a", "b"];
  assert.equal(turnText(s, false), "team a to move (pass the keyboard between turns)");
  s.busy = true;
  assert.equal(turnText(s, false), "resolving the tick\u2026");
  s.view.human_teams = [];
  assert.equal(turnText(s, true), "Systems play every agent: paused (Space resumes, N plays one tick)");
});

test("autoplay runs only when no team is human", () => {
  const s = session();
  assert.equal(autoMode(null), false);
  assert.equal(autoMode(s), false);
  assert.equal(autoLabel(s, false), null);
  s.view.human_teams = [];
  assert.equal(autoLabel(s, false), "playing");
  assert.equal(autoLabel(s, true), "paused");
  s.view.done = true;
  assert.equal(autoLabel(s, true), "over");
});

const CATALOG = {
  maps: [{ id: 47, name: "m", split: "train" }], classes: [{ name: "mage" }, { name: "warrior" }],
  systems: ["human", "random", "tdm-alpha"], limits: { winning_score: 50, horizon: 1000 },
};

test("the form's defaults: the engine's over ours", () => {
  const d = setupDefaults(CATALOG, null);
  assert.deepEqual(d.rosters, [["mage", "warrior"], ["mage", "warrior"]]);
  assert.deepEqual(d.controllers, ["human", ...Array(9).fill("tdm-alpha")]);
  assert.equal(setupDefaults({ ...CATALOG, systems: ["human", "random"] }, null).controllers[1], "random");
  assert.equal(setupDefaults(CATALOG, { map: 3 }).map, 3);
});

test("the game spec: rosters by team size, or the position file's own", () => {
  const values = {
    map: "47", winning: "3", horizon: "40", seed: "", sizes: ["1", "2"],
    classes: ["mage", "x", "x", "x", "x", "warrior", "mage", "x", "x", "x"],
    controllers: Array(10).fill("random"),
  };
  assert.deepEqual(gameSpec(values, null, null), {
    map: 47, rosters: [["mage"], ["warrior", "mage"]], controllers: values.controllers, seed: 0,
    winning_score: 3, horizon: 40,
  });
  const position = { format: "marl-bgs/position" };
  assert.deepEqual(gameSpec({ ...values, seed: "5" }, position, null), { position, controllers: values.controllers, seed: 5 });
  const titled = gameSpec(values, position, { id: 2, name: "n".repeat(200) });
  assert.equal(titled.title.length, 120);
  assert.ok(titled.title.startsWith("Scenario 2: nnn"));
});

test("the replay's name and the result's words", () => {
  const when = new Date("2024-05-06T07:08:09.123Z");
  assert.equal(downloadName({ map: 12 }, when), "battle-map12-2024-05-06T07-08-09.json");
  assert.equal(downloadName({ position: {} }, when), "battle-position-2024-05-06T07-08-09.json");
  assert.equal(verdict({ human_teams: ["a"], result: "a" }), " \u2014 you win");
  assert.equal(verdict({ human_teams: ["a"], result: "b" }), " \u2014 you lose");
  assert.equal(verdict({ human_teams: ["a"], result: "draw" }), "");
  assert.equal(verdict({ human_teams: ["a", "b"], result: "a" }), "");
});

test("a scenario loads from the site's files, and a broken one names its file", async (t) => {
  const files = {
    "exports/scenarios/index.json": { scenarios: [{ id: 3, name: "Hold", controller: "tdm-alpha", briefing: "b" }] },
    "exports/scenarios/scenario_3/position.json": { agents: [] },
  };
  t.mock.method(globalThis, "fetch", async (url) => {
    const rel = new URL(url).pathname.slice(1);
    const body = files[rel];
    return { ok: body !== undefined, status: body === undefined ? 404 : 200, json: async () => body };
  });
  const base = "http://site.test/";
  assert.deepEqual(await loadScenario("3", base), {
    id: 3, name: "Hold", controller: "tdm-alpha", briefing: "b", position: { agents: [] },
  });
  await assert.rejects(loadScenario(9, base), /expected a scenario number from 1 to 8/);
  await assert.rejects(loadScenario(4, base), /scenario 4 is not in exports\/scenarios\/index.json/);
  files["exports/scenarios/scenario_3/position.json"] = [];
  await assert.rejects(loadScenario(3, base), /scenario_3\/position.json: expected a position object/);
  delete files["exports/scenarios/index.json"];
  await assert.rejects(loadScenario(3, base), /could not load exports\/scenarios\/index.json \(HTTP 404\)/);
});

test("the end of a game says who won and why it ended; a draw says which rule made it", () => {
  const view = (result, score) => ({ human_teams: ["a"], result, score });
  assert.deepEqual(endWords(view("b", [3, 5]), 5, 200, 88), {
    headline: "Team b wins 3\u20135 \u2014 you lose",
    why: "After 88 ticks: team b reached 5 points first.",
  });
  assert.equal(endWords(view("draw", [8, 17]), 20, 300, 300).why,
    "After 300 ticks: the tick limit (300 ticks) came before either team reached 20 points.");
  assert.equal(endWords(view("draw", [20, 20]), 20, 300, 140).why,
    "After 140 ticks: both teams reached 20 points on the same tick.");
  assert.equal(endWords(view("draw", [8, 17]), 20, 300, 300).headline, "Draw 8\u201317");
});

test("the settings say whether they make the official game or a quick one", () => {
  const official = { winning_score: 20, horizon: 300 };
  assert.equal(gameKind("20", "300", official), "The official game: first to 20 points within 300 ticks.");
  assert.equal(gameKind(5, 200, official), "A quick game (the official game: first to 20 points within 300 ticks).");
  assert.equal(gameKind(30, 300, official), "A custom game (the official game: first to 20 points within 300 ticks).");
  assert.equal(gameKind(5, 200, undefined), "");
});

test("the opponents' menu names carry their season strength where one is known", () => {
  const strengths = { "tdm-alpha": "Season 0: #1 of 11, Elo 2695", toString: 5 };
  assert.equal(systemLabel("tdm-alpha", strengths), "tdm-alpha (Season 0: #1 of 11, Elo 2695)");
  assert.equal(systemLabel("random", strengths), "random");
  assert.equal(systemLabel("toString", strengths), "toString");
  assert.equal(systemLabel("human", strengths), "you (human)");
  assert.equal(systemLabel("tdm-beta", undefined), "tdm-beta");
});

test("a move that went nowhere is reported as blocked; standing, dying and moving are not", () => {
  const at = (x0, alive = true) => [{ name: "a0", x: x0, y: 2000, alive }, { name: "a1", x: 5000, y: 2000, alive: true }];
  const sent = { a0: [3, 0, 0], a1: [0, 0, 0] }; // a0 east, a1 stays
  assert.deepEqual(blockedMoves(sent, at(1000), at(1050)), ["a0 (E)"]);
  assert.deepEqual(blockedMoves(sent, at(1000), at(2000)), []);
  assert.deepEqual(blockedMoves(sent, at(1000), at(1000, false)), []); // died this tick
  assert.deepEqual(blockedMoves({}, at(1000), at(1000)), []);
});

test("a refused target says why: the caster, the target's state and side, its sight, its reach", () => {
  const unit = (name, team, extra = {}) => ({ name, slot: "a0a1b0b1".indexOf(name) / 2, team, alive: true, visible: true, shield: 0, effects: {}, className: "mage", classTitle: "Mage", ...extra });
  const here = [unit("a0", 0), unit("a1", 0), unit("b0", 1), unit("b1", 1)];
  const h = { slot: "a0" };
  const seesB0 = 1 << 2;
  assert.equal(targetRefusal(h, here[2], here, seesB0), "b0 is out of a0's reach this tick");
  assert.equal(targetRefusal(h, here[3], here, seesB0), "b1 is not in a0's own sight");
  assert.equal(targetRefusal(h, here[1], here, seesB0), "a Mage targets enemies only");
  assert.equal(targetRefusal(h, { ...here[2], shield: 2 }, here, seesB0), "b0 is spawn-shielded");
  assert.equal(targetRefusal(h, { ...here[2], alive: false }, here, seesB0), "b0 is dead");
  assert.equal(targetRefusal(h, { ...here[2], visible: false, alive: false }, here, 0), "b0 is not in sight of your team");
  const stunned = [{ ...here[0], effects: { stun: 1 } }, ...here.slice(1)];
  assert.equal(targetRefusal(h, here[2], stunned, seesB0), "a0 is stunned");
  const priest = [{ ...here[0], className: "priest", classTitle: "Priest" }, ...here.slice(1)];
  assert.equal(targetRefusal(h, here[2], priest, seesB0), "a Priest heals allies; it cannot target enemies");
});
