import assert from "node:assert/strict";
import { test } from "node:test";

import {
  MOVE_KEYS, decode, flatOf, ghostStride, legalMoves, legalSet, legalTargets, slotOfTarget,
  startOrder, targetOfKey, targetOfSlot, withMove, withTarget, withUltimateToggled,
} from "../play/turns.js";

// A legal list like the engine's: every move; with move 3 (E) also enemy 6 and its Ultimate;
// the Ultimate alone (a self-cast) standing still.
const LEGAL = legalSet([
  ...Array.from({ length: 9 }, (_, m) => flatOf(m, 0, 0)),
  flatOf(3, 6, 0), flatOf(3, 6, 1), flatOf(0, 0, 1),
]);

test("flat indices split as the engine's", () => {
  assert.deepEqual(decode(flatOf(7, 10, 1)), [7, 10, 1]);
  assert.equal(flatOf(3, 0, 0), 66);
});

test("only legal moves and targets are offered", () => {
  assert.deepEqual([...legalMoves(LEGAL)].sort(), [0, 1, 2, 3, 4, 5, 6, 7, 8]);
  assert.deepEqual([...legalTargets(LEGAL, 3)].sort(), [0, 6]);
  assert.deepEqual([...legalTargets(LEGAL, 1)], [0]);
  assert.equal(withTarget(LEGAL, [1, 0, 0], 6), null);
  assert.deepEqual(withTarget(LEGAL, [3, 0, 0], 6), [3, 6, 0]);
});

test("changing the move keeps a target only while it stays legal", () => {
  assert.deepEqual(withMove(LEGAL, [3, 6, 1], 4), [4, 0, 0]);
  assert.deepEqual(withMove(legalSet([flatOf(3, 6, 0)]), [0, 0, 0], 3), [3, 6, 0]);
  assert.equal(withMove(LEGAL, [0, 0, 0], 9), null);
});

test("the Ultimate toggles to a legal order or not at all", () => {
  assert.deepEqual(withUltimateToggled(LEGAL, [3, 6, 0]), [3, 6, 1]);
  assert.deepEqual(withUltimateToggled(LEGAL, [3, 6, 1]), [3, 6, 0]);
  assert.deepEqual(withUltimateToggled(LEGAL, [0, 0, 0]), [0, 0, 1]);
  assert.equal(withUltimateToggled(LEGAL, [1, 0, 0]), null);
});

test("a tick starts from the last order when it is still legal", () => {
  assert.deepEqual(startOrder(LEGAL, [3, 6, 1]), [3, 6, 0]);
  assert.deepEqual(startOrder(legalSet([flatOf(5, 0, 0)]), [3, 6, 0]), [5, 0, 0]);
  assert.deepEqual(startOrder(LEGAL, undefined), [0, 0, 0]);
});

test("keys: arrows and numpad move, digits target", () => {
  assert.equal(MOVE_KEYS.ArrowRight, 3);
  assert.equal(MOVE_KEYS.Numpad7, 6);
  assert.equal(MOVE_KEYS.Numpad5, 0);
  assert.equal(targetOfKey("Digit1", false), 6);
  assert.equal(targetOfKey("Digit5", true), 5);
  assert.equal(targetOfKey("Digit0", false), 0);
  assert.equal(targetOfKey("Digit7", false), null);
  assert.equal(targetOfKey("KeyU", false), null);
});

test("targets name slots from the acting team's side", () => {
  assert.equal(targetOfSlot(0, 2), 3); // own slot 2
  assert.equal(targetOfSlot(0, 5), 6); // enemy slot 0
  assert.equal(targetOfSlot(1, 5), 1); // team b: b0 is its own slot 0
  assert.equal(targetOfSlot(1, 4), 10); // team b: a4 is enemy slot 4
  for (const team of [0, 1]) for (let s = 0; s < 10; s++) assert.equal(slotOfTarget(team, targetOfSlot(team, s)), s);
});

test("a ghost moves by the engine's planned stride, else by the class speed", () => {
  const strides = Array.from({ length: 9 }, (_, m) => [m * 10, -m]);
  assert.deepEqual(ghostStride({ speed: 1000, strides }, 3), [30, -3]);
  assert.deepEqual(ghostStride({ speed: 1000, strides: [[0, 0], [0, 500]] }, 1), [0, 500]);
  assert.deepEqual(ghostStride({ speed: 1300 }, 3), [1300, 0]);
  assert.deepEqual(ghostStride({ speed: 1000 }, 5), [707, 707]);
  assert.deepEqual(ghostStride({ speed: 1000 }, 0), [0, 0]);
});
