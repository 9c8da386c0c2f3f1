// A game's turn as data: the humans' pending orders, which of them are committed, the undo
// stack and the selected agent, with every change the turn builder makes to them. No DOM:
// each change says what happened, and the caller redraws (board.js) or resolves the tick
// (flow.js). The orders themselves are only ever what turns.js offers from the engine's
// legal list.

import { legalSet, startOrder } from "./turns.js";

// A new game's session: the engine's id, the spec it was made from, and an empty turn.
export function newSession(id, spec) {
  return {
    id, spec, view: null, win: null, orders: {}, committed: new Set(), undo: [], actions: {},
    lastOrders: {}, busy: false, selected: null,
  };
}

export const teamOfSlot = (name) => "ab".indexOf(name[0]);

// The human agents whose orders this view asks for (one team's, while teams take turns).
export function humansHere(session) {
  return session.view.humans;
}

export function selectedHuman(session) {
  return humansHere(session).find((h) => h.slot === session.selected) ?? null;
}

// Set up the turn of a new view: each human starts from its last order while that is still
// legal, dead agents count as committed (they wait for their wave), and the selection stays
// on its agent if that agent still plays here, else moves to the first living one.
export function startTurn(session, view) {
  session.legal = {};
  for (const h of view.humans) session.legal[h.slot] = legalSet(h.legal);
  session.lastOrders = { ...session.lastOrders, ...session.orders };
  const previous = session.lastOrders;
  session.orders = {};
  session.committed = new Set();
  session.undo = [];
  for (const h of view.humans) {
    session.orders[h.slot] = startOrder(session.legal[h.slot], previous[h.slot]);
    if (!h.alive) session.committed.add(h.slot);
  }
  if (!view.humans.some((h) => h.slot === session.selected)) {
    session.selected = (view.humans.find((h) => h.alive) ?? view.humans[0] ?? { slot: null }).slot;
  }
}

// A snapshot, not references: later changes must not reach into the stack.
function pushUndo(session) {
  session.undo.push(JSON.stringify({ orders: session.orders, committed: [...session.committed], selected: session.selected }));
}

// Change the selected agent's order with `fn(legalSet, order)` (a turns.js `with...`).
// Returns {changed: true}, {refused: text} when the agent is committed or `fn` finds no legal
// order, or null when there is nothing to change (no agent, a tick resolving, the game over).
export function changeOrder(session, fn, refusal = "that is not a legal choice now") {
  const h = selectedHuman(session);
  if (!h || session.busy || session.view.done) return null;
  if (session.committed.has(h.slot)) return { refused: `${h.slot} has committed its order (Backspace undoes)` };
  const next = fn(session.legal[h.slot], session.orders[h.slot]);
  if (!next) return { refused: `${h.slot}: ${refusal}` };
  pushUndo(session);
  session.orders[h.slot] = next;
  return { changed: true };
}

// Undo and cycle return whether the turn changed (the caller redraws).
export function undo(session) {
  if (session.busy || !session.undo.length) return false;
  const last = JSON.parse(session.undo.pop());
  session.orders = last.orders;
  session.committed = new Set(last.committed);
  session.selected = last.selected;
  return true;
}

export function cycle(session, step) {
  const hs = humansHere(session);
  if (!hs.length) return false;
  const i = hs.findIndex((h) => h.slot === session.selected);
  session.selected = hs[(i + step + hs.length) % hs.length].slot;
  return true;
}

// Tab, or a click on the arena, chooses the agent whose order the builder shows.
export function select(session, slot) {
  session.selected = slot;
}

// Commit the selected agent: "refresh" when another agent still has to commit (it is
// selected), "resolve" when every human has, null when there is nothing to commit.
export function commitSelected(session) {
  const h = selectedHuman(session);
  if (!h || session.busy) return null;
  pushUndo(session);
  session.committed.add(h.slot);
  const next = humansHere(session).find((x) => !session.committed.has(x.slot));
  if (!next) return "resolve";
  session.selected = next.slot;
  return "refresh";
}

// Commit every agent; true when the tick is to resolve.
export function commitAll(session) {
  if (session.busy) return false;
  pushUndo(session);
  for (const h of humansHere(session)) session.committed.add(h.slot);
  return true;
}

// This seat's orders join the actions gathered for the tick (teams of humans take turns).
export function gatherActions(session) {
  session.actions = { ...session.actions };
  for (const h of humansHere(session)) session.actions[h.slot] = session.orders[h.slot];
}
