import assert from "node:assert/strict";
import { test } from "node:test";

import {
  changeOrder, commitAll, commitSelected, cycle, gatherActions, newSession, selectedHuman, startTurn,
  undo,
} from "../play/orders.js";
import { flatOf, withMove, withTarget, withUltimateToggled } from "../play/turns.js";

// Every move without a target; with move 3 (E) also enemy 6 and its Ultimate.
const LEGAL = [...Array.from({ length: 9 }, (_, m) => flatOf(m, 0, 0)), flatOf(3, 6, 0), flatOf(3, 6, 1)];

function human(slot, alive = true, legal = LEGAL) {
  return { slot, class: "mage", alive, legal };
}

function view(humans, extra = {}) {
  return { humans, human_teams: ["a"], done: false, ...extra };
}

// A session on its first turn of `v`, as flow.js's show sets it up.
function sessionOn(v) {
  const s = newSession(7, { map: 47 });
  s.view = v;
  startTurn(s, v);
  return s;
}

test("a new turn starts from the last orders while they stay legal", () => {
  const s = sessionOn(view([human("a0"), human("a1")]));
  assert.deepEqual(s.orders, { a0: [0, 0, 0], a1: [0, 0, 0] });
  assert.equal(s.selected, "a0");
  s.orders.a0 = [3, 6, 1];
  s.orders.a1 = [4, 0, 0];
  const next = view([human("a0"), human("a1", true, [flatOf(1, 0, 0)])]);
  s.view = next;
  startTurn(s, next);
  // The Ultimate never carries over; a1's move is gone, so it takes the first legal one.
  assert.deepEqual(s.orders, { a0: [3, 6, 0], a1: [1, 0, 0] });
  assert.deepEqual(s.undo, []);
  assert.equal(s.committed.size, 0);
});

test("dead agents count as committed and the selection moves to a living one", () => {
  const s = sessionOn(view([human("a0", false), human("a1")]));
  assert.deepEqual([...s.committed], ["a0"]);
  assert.equal(s.selected, "a1");
  const alone = sessionOn(view([]));
  assert.equal(alone.selected, null);
  assert.equal(selectedHuman(alone), null);
});

test("an order changes only to a legal one, and not once committed", () => {
  const s = sessionOn(view([human("a0"), human("a1")]));
  assert.deepEqual(changeOrder(s, (set, o) => withTarget(set, o, 6)), { refused: "a0: that is not a legal choice now" });
  assert.deepEqual(changeOrder(s, (set, o) => withMove(set, o, 3)), { changed: true });
  assert.deepEqual(changeOrder(s, (set, o) => withTarget(set, o, 6), "no"), { changed: true });
  assert.deepEqual(changeOrder(s, (set, o) => withUltimateToggled(set, o)), { changed: true });
  assert.deepEqual(s.orders.a0, [3, 6, 1]);
  assert.equal(s.undo.length, 3);
  s.committed.add("a0");
  assert.deepEqual(changeOrder(s, (set, o) => withMove(set, o, 4)), { refused: "a0 has committed its order (Backspace undoes)" });
  s.busy = true;
  assert.equal(changeOrder(s, (set, o) => withMove(set, o, 4)), null);
});

test("undo restores the orders, commitments and selection in turn", () => {
  const s = sessionOn(view([human("a0"), human("a1")]));
  assert.equal(undo(s), false);
  changeOrder(s, (set, o) => withMove(set, o, 3));
  assert.equal(commitSelected(s), "refresh");
  assert.equal(s.selected, "a1");
  assert.deepEqual(s.orders, { a0: [3, 0, 0], a1: [0, 0, 0] });
  assert.equal(undo(s), true);
  assert.equal(s.selected, "a0");
  assert.equal(s.committed.size, 0);
  assert.equal(undo(s), true);
  assert.deepEqual(s.orders.a0, [0, 0, 0]);
  assert.equal(undo(s), false);
});

test("the tick resolves when the last agent commits, or all at once", () => {
  const s = sessionOn(view([human("a0"), human("a1")]));
  assert.equal(commitSelected(s), "refresh");
  assert.equal(commitSelected(s), "resolve");
  assert.deepEqual([...s.committed].sort(), ["a0", "a1"]);
  const t = sessionOn(view([human("a0"), human("a1")]));
  assert.equal(commitAll(t), true);
  assert.equal(t.committed.size, 2);
  t.busy = true;
  assert.equal(commitAll(t), false);
  assert.equal(commitSelected(t), null);
});

test("Tab cycles through this seat's agents both ways", () => {
  const s = sessionOn(view([human("a0"), human("a1"), human("a2")]));
  cycle(s, 1);
  assert.equal(s.selected, "a1");
  cycle(s, -1);
  cycle(s, -1);
  assert.equal(s.selected, "a2");
  assert.equal(cycle(sessionOn(view([])), 1), false);
});

test("each seat's orders join the tick's actions without losing the others'", () => {
  const s = sessionOn(view([human("a0")], { human_teams: ["a", "b"] }));
  const before = { b0: [1, 0, 0] };
  s.actions = before;
  changeOrder(s, (set, o) => withMove(set, o, 3));
  gatherActions(s);
  assert.deepEqual(s.actions, { b0: [1, 0, 0], a0: [3, 0, 0] });
  assert.deepEqual(before, { b0: [1, 0, 0] }); // a copy, not the earlier object
});
