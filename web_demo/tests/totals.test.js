import assert from "node:assert/strict";
import { test } from "node:test";

import { readReplayBytes } from "../viewer/format/validate.js";
import { ORACLE } from "../viewer/view.js";
import { contributions, firstSeen, pairTotals, totalsCache } from "../viewer/totals.js";
import { exportedBytes, exportedNames } from "./helpers.js";

// Slots: a0 = 0, a1 = 1, b0 = 5, b1 = 6 (the rest absent).
const A0 = 0;
const A1 = 1;
const B0 = 5;
const B1 = 6;
const bit = (s) => 1 << s;
const zeros = () => Array(10).fill(0);
const PRESENT = zeros().map((_, s) => ([A0, A1, B0, B1].includes(s) ? 1 : 0));

// A replay-like object with what the totals read: three ticks of events, and sight so team a
// sees b0 at frames 0..2, loses b1 during tick 2, and spots b1 only at the last frame.
function tinyReplay() {
  const sightRow = (a0Sees, a1Sees) => {
    const row = zeros();
    row[A0] = a0Sees;
    row[A1] = a1Sees;
    return row;
  };
  return {
    ticks: 3,
    view: null,
    frames: {
      present: Array.from({ length: 4 }, () => PRESENT.slice()),
      shield: Array.from({ length: 4 }, zeros),
    },
    sight: [sightRow(bit(B0), 0), sightRow(bit(B0), 0), sightRow(bit(B0), 0), sightRow(0, bit(B1))],
    events: [
      [
        { kind: "damage", source: "a0", target: "b0", ability: "Arcane Blast", amount: 12.5 },
        { kind: "heal", source: "a1", target: "a0", ability: "Lesser Heal", amount: 4.25 },
        { kind: "effect", source: "a1", target: "a0", effect: "blessing", ticks: 1 },
        { kind: "effect", source: "b0", target: "a0", effect: "stun", ticks: 1 },
      ],
      [
        { kind: "damage", source: "b0", target: "a0", ability: "Backstab", amount: 30 },
        { kind: "damage", source: "a0", target: "b0", ability: "Arcane Blast", amount: 7.5 },
        { kind: "damage", source: "a1", target: "b0", ability: "Lesser Heal", amount: 2.001 },
        { kind: "death", target: "b0", by: ["a0", "a1"], points: 1, red_zone: false },
        { kind: "effect", source: "a0", target: "b0", effect: "slow_poison", ticks: 5 },
        { kind: "rest_heal", target: "a0", amount: 1 },
      ],
      [
        { kind: "damage", source: "b1", target: "a1", ability: "Serrated Arrows", amount: 10 },
        { kind: "heal", source: "a1", target: "a1", ability: "Lesser Heal", amount: 3 },
        { kind: "excess_heal", target: "a1", amount: 1 },
        { kind: "effect", source: "b1", target: "a1", effect: "trap", ticks: 4 },
      ],
    ],
  };
}

// A 10 x 10 matrix with the given [source, recipient, value] cells.
function matrix(...cells) {
  const m = Array.from({ length: 10 }, zeros);
  for (const [s, r, v] of cells) m[s][r] = v;
  return m;
}

test("frame 0 counts nothing; frame 1 counts tick 1 (the events it draws and the log marks now)", () => {
  const r = tinyReplay();
  for (const kind of ["damage", "healing", "kills", "effects"]) assert.deepEqual(pairTotals(r, ORACLE, kind, 0), matrix());
  assert.deepEqual(pairTotals(r, ORACLE, "damage", 1), matrix([A0, B0, 12500]));
  assert.deepEqual(pairTotals(r, ORACLE, "healing", 1), matrix([A1, A0, 4250]));
  assert.deepEqual(pairTotals(r, ORACLE, "kills", 1), matrix());
  assert.deepEqual(pairTotals(r, ORACLE, "effects", 1), matrix([A1, A0, 1], [B0, A0, 1]));
});

test("totals add up tick by tick, in milli-HP, and stop at the last frame", () => {
  const r = tinyReplay();
  const t1 = matrix([A0, B0, 20000], [B0, A0, 30000], [A1, B0, 2001]);
  assert.deepEqual(pairTotals(r, ORACLE, "damage", 2), t1);
  const end = matrix([A0, B0, 20000], [B0, A0, 30000], [A1, B0, 2001], [B1, A1, 10000]);
  for (const t of [3, 99]) assert.deepEqual(pairTotals(r, ORACLE, "damage", t), end);
  assert.deepEqual(pairTotals(r, ORACLE, "healing", 3), matrix([A1, A0, 4250], [A1, A1, 3000]));
  assert.deepEqual(pairTotals(r, ORACLE, "kills", 2), matrix([A0, B0, 1], [A1, B0, 1]));
  const effects = matrix([A1, A0, 1], [B0, A0, 1], [A0, B0, 1], [B1, A1, 1]);
  assert.deepEqual(pairTotals(r, ORACLE, "effects", 3), effects);
  assert.deepEqual(pairTotals(r, ORACLE, "effects", 3, "stun"), matrix([B0, A0, 1]));
  assert.deepEqual(pairTotals(r, ORACLE, "effects", 3, "burst"), matrix());
});

test("a team's view counts only the events it saw", () => {
  const r = tinyReplay();
  // b1 is hidden from team a during tick 2: its arrow and its Trap are not counted.
  const damage = matrix([A0, B0, 20000], [B0, A0, 30000], [A1, B0, 2001]);
  assert.deepEqual(pairTotals(r, "a", "damage", 3), damage);
  assert.deepEqual(pairTotals(r, "a", "effects", 3), matrix([A1, A0, 1], [B0, A0, 1], [A0, B0, 1]));
  assert.deepEqual(pairTotals(r, "a", "healing", 3), matrix([A1, A0, 4250], [A1, A1, 3000]));
  // Agent a1 sees nobody before the last frame, so b0's actions are hidden from it.
  assert.deepEqual(pairTotals(r, "a1", "damage", 3), matrix());
  assert.deepEqual(pairTotals(r, "a1", "healing", 3), matrix([A1, A0, 4250], [A1, A1, 3000]));
  assert.deepEqual(firstSeen(r, "a"), [0, 0, Infinity, Infinity, Infinity, 0, 3, Infinity, Infinity, Infinity]);
});

test("a replay filtered to one view counts what its file shows", () => {
  const r = tinyReplay();
  const team = bit(A0) | bit(A1);
  // As saved by as_seen_by("a"), but b0 hidden at tick 1: tick 1's fight is not there.
  const filtered = { ...r, view: { of: "a", visible: [team | bit(B0), team, team, team | bit(B1)] } };
  assert.deepEqual(pairTotals(filtered, "a", "damage", 3), matrix([A0, B0, 12500]));
  assert.deepEqual(pairTotals(filtered, "a", "kills", 3), matrix());
});

test("the cache reads the same sums backwards and forwards", () => {
  const r = tinyReplay();
  const cache = totalsCache(r);
  const forwards = [0, 1, 2, 3].map((t) => cache.at(ORACLE, "damage", null, t));
  const backwards = [3, 2, 1, 0].map((t) => cache.at(ORACLE, "damage", null, t)).reverse();
  assert.deepEqual(backwards, forwards);
  assert.deepEqual(forwards[0], pairTotals(r, ORACLE, "damage", 0));
  assert.throws(() => contributions({ kind: "damage" }, "nonsense"), /unknown kind/);
});

test("on the exported replays, damage totals at the end equal the file's metrics", async () => {
  for (const name of exportedNames()) {
    const r = await readReplayBytes(exportedBytes(name));
    const m = pairTotals(r, ORACLE, "damage", r.ticks);
    const dealt = (team) => m.slice(team * 5, team * 5 + 5).flat().reduce((x, y) => x + y, 0);
    assert.equal(dealt(0), r.metrics.damage_dealt_a, name);
    assert.equal(dealt(1), r.metrics.damage_dealt_b, name);
    // A view never counts more than the oracle, cell by cell.
    const seen = pairTotals(r, "b", "damage", r.ticks);
    seen.forEach((row, s) => row.forEach((v, j) => assert.ok(v <= m[s][j], `${name} ${s} ${j}`)));
  }
});
