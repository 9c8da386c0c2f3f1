// Who did what to whom: running totals per pair of agents (the one who did it, the one it was
// done to) up to and including a tick, as the chosen point of view saw it. Totals come from
// the same events the event log shows (`eventsAt`), so a view never counts an event it hid.
// Each (view, kind) is summed once over the whole replay, O(ticks x pairs), then read by tick,
// so scrubbing backwards costs no more than forwards.

import { AGENT_NAMES, NUM_SLOTS } from "./format/validate.js";
import { eventsAt, visibleAt } from "./view.js";

export const TOTAL_KINDS = ["damage", "healing", "kills", "effects"];
const PAIRS = NUM_SLOTS * NUM_SLOTS;

const slotOf = (name) => AGENT_NAMES.indexOf(name);
// Amounts are written as HP with three decimals; milli-HP keeps every sum an exact integer.
const milli = (amount) => Math.round(amount * 1000);

// The [source, recipient, amount] cells one event adds to a kind. Damage and healing are in
// milli-HP; a kill credits every agent in the death's `by` (the replay's killing-blow credit:
// all who damaged the victim on the tick it died); an effect counts once per application,
// of every effect or only of `effect`.
export function contributions(event, kind, effect = null) {
  const pair = (source, target, amount) => [[slotOf(source), slotOf(target), amount]];
  switch (kind) {
    case "damage":
      return event.kind === "damage" ? pair(event.source, event.target, milli(event.amount)) : [];
    case "healing":
      return event.kind === "heal" ? pair(event.source, event.target, milli(event.amount)) : [];
    case "kills":
      return event.kind === "death" ? event.by.map((name) => [slotOf(name), slotOf(event.target), 1]) : [];
    case "effects":
      if (event.kind !== "effect" || (effect !== null && event.effect !== effect)) return [];
      return pair(event.source, event.target, 1);
    default:
      throw new Error(`totals: unknown kind ${kind}`);
  }
}

// Prefix sums over ticks: block k (k = 0..T) holds the totals of events lists 0..k-1 (ticks 1..k), cell
// source * 10 + recipient. Float64 keeps long games' sums exact (int32 could overflow).
export function cumulativeTotals(replay, view, kind, effect = null) {
  const sums = new Float64Array((replay.ticks + 1) * PAIRS);
  for (let k = 0; k < replay.ticks; k++) {
    const base = (k + 1) * PAIRS;
    sums.copyWithin(base, k * PAIRS, base);
    for (const e of eventsAt(replay, view, k)) {
      for (const [s, r, v] of contributions(e, kind, effect)) sums[base + s * NUM_SLOTS + r] += v;
    }
  }
  return sums;
}

// The 10 x 10 totals at frame t: ticks 1..t, the last one being tick t, whose events the log
// marks as now; at the last frame, the whole game.
export function totalsAt(sums, ticks, t) {
  const k = Math.min(Math.max(Math.floor(t), 0), ticks);
  const block = sums.subarray(k * PAIRS, (k + 1) * PAIRS);
  return Array.from({ length: NUM_SLOTS }, (_, s) => Array.from(block.subarray(s * NUM_SLOTS, (s + 1) * NUM_SLOTS)));
}

// Uncached, for tests and one-off reads.
export function pairTotals(replay, view, kind, t, effect = null) {
  return totalsAt(cumulativeTotals(replay, view, kind, effect), replay.ticks, t);
}

// The first frame at which the view sees each slot (Infinity: never), so a label names an
// enemy's class only once the view has seen it.
export function firstSeen(replay, view) {
  const seen = Array(NUM_SLOTS).fill(Infinity);
  for (let t = 0; t <= replay.ticks && seen.includes(Infinity); t++) {
    visibleAt(replay, view, t).forEach((v, s) => {
      if (v && seen[s] === Infinity) seen[s] = t;
    });
  }
  return seen;
}

const KEEP = 8; // (T + 1) x 800 bytes each: a long game clicked through every tab stays small

// One replay's totals, summed on first use per (view, kind, effect); the last few are kept.
export function totalsCache(replay) {
  const sums = new Map();
  const seen = new Map();
  return {
    at(view, kind, effect, t) {
      const key = `${view}|${kind}|${effect ?? ""}`;
      if (!sums.has(key)) {
        if (sums.size >= KEEP) sums.delete(sums.keys().next().value); // the oldest
        sums.set(key, cumulativeTotals(replay, view, kind, effect));
      }
      return totalsAt(sums.get(key), replay.ticks, t);
    },
    firstSeen(view) {
      if (!seen.has(view)) seen.set(view, firstSeen(replay, view));
      return seen.get(view);
    },
  };
}
