// Issue 19 (fixes 1, 3, 4, 6): one tick convention, the fallen drawn, one palette, words.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { readReplayBytes } from "../viewer/format/validate.js";
import { EFFECT_LABELS, PALETTE, TEAM_COLOURS, fallenAt } from "../viewer/render.js";
import { describeEvent, describeTick, effectCode, statusLegend } from "../viewer/ui.js";
import { ORACLE, agentsAt, eventsAt, eventsDuring, tickNumber } from "../viewer/view.js";
import { ROOT } from "./helpers.js";

const clip = (key) => readReplayBytes(readFileSync(`${ROOT}exports/clips/${key}.json`));
const palette = JSON.parse(readFileSync(`${ROOT}web_demo/assets/palette.json`, "utf8"));

test("frame n draws tick n: the events listed on the pages as 'tick n'", async () => {
  const r = await clip("simultaneous");
  assert.equal(r.ticks, 1);
  assert.deepEqual(eventsDuring(r, ORACLE, 0), []); // the start shows no tick's lines
  assert.deepEqual(eventsDuring(r, ORACLE, 1), eventsAt(r, ORACLE, 0));
  assert.equal(tickNumber(r, 0), 1); // pages: "tick 1: a0 (Mage) hits b0 ..."
  // Frame 1's health already shows tick 1's damage: both fell.
  const after = agentsAt(r, ORACLE, 1);
  assert.equal(after[0].alive, false);
  assert.equal(after[5].alive, false);
});

test("the fallen are drawn where they stood when their last tick began", async () => {
  const r = await clip("points");
  const fallen = fallenAt(r, ORACLE, 1);
  assert.deepEqual(fallen.map((a) => a.name).sort(), ["b0", "b1"]);
  const before = agentsAt(r, ORACLE, 0);
  for (const a of fallen) assert.deepEqual([a.x, a.y], [before[a.slot].x, before[a.slot].y]);
  assert.deepEqual(fallenAt(r, ORACLE, 0), []);
});

test("the viewer's colours and status codes come from palette.json", () => {
  assert.deepEqual(TEAM_COLOURS, palette.team);
  assert.deepEqual(PALETTE, palette);
  for (const [id, e] of Object.entries(palette.effects)) {
    assert.equal(EFFECT_LABELS[id], e.code);
    assert.equal(effectCode(id), e.code);
  }
  const legend = Object.fromEntries(statusLegend());
  for (const code of ["BLS", "SLW", "PSN", "STN", "TRP", "CUT", "BST"]) assert.ok(legend[code], code);
});

const agents = [
  { name: "a0", classTitle: "Warrior" },
  { name: "a1", classTitle: "Priest" },
  { name: "b0", classTitle: "Mage" },
];

test("effects in words with their code, and '1 tick' never '1 ticks'", () => {
  const one = describeEvent({ kind: "effect", source: "a0", target: "b0", effect: "slow_charge", ticks: 1 }, agents);
  assert.ok(!one.includes("slow_charge"), one);
  assert.ok(one.includes("(SLW)") && one.endsWith("for 1 tick"), one);
  const five = describeEvent({ kind: "effect", source: "a0", target: "b0", effect: "stun", ticks: 5 }, agents);
  assert.ok(five.endsWith("for 5 ticks"), five);
  const death = describeEvent({ kind: "death", target: "b0", by: ["a0"], points: 1, red_zone: false }, agents);
  assert.ok(death.includes("1 point") && !death.includes("1 points"), death);
});

test("a heal on a full target shows the useful part and the excess", async () => {
  const heal = { kind: "heal", source: "a1", target: "a0", ability: "Holy Word: Salvation", amount: 200 };
  const events = [heal, { kind: "excess_heal", target: "a0", amount: 190 }];
  const lines = describeTick(events, agents).map(([, text]) => text);
  assert.equal(lines.length, 1);
  assert.ok(lines[0].includes("+10 health") && lines[0].includes("190 above maximum"), lines[0]);
  assert.ok(!lines[0].includes("+200 health"), lines[0]);
  // The exported clip says the same.
  const r = await clip("excess");
  const said = describeTick(eventsAt(r, ORACLE, 0), agentsAt(r, ORACLE, 0)).map(([, t]) => t);
  assert.ok(said.some((t) => /\+10 health \(of 200 healing, 190 above maximum/.test(t)), said.join("\n"));
  // Two heals on one target: the excess keeps its own line.
  const two = describeTick([heal, { ...heal, source: "a0" }, events[1]], agents);
  assert.equal(two.length, 3);
});
