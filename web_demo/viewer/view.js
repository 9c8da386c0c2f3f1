// Points of view over a checked replay: who is visible at each tick, which events and actions
// show, and the metrics seen so far. The rule is the one of marl_bgs/replay/view.py: a team
// knows its own agents and sees an enemy while one of its living agents sees it (the
// recorded sight bitmasks) and it has no spawn shield; a single agent uses its own sight.
// Tick t's actions and events are judged by who was visible at the start of tick t.
//
// Tick numbers: ticks count from 1. Tick n is the n-th step of the game; frame n is the arena
// after it (frame 0: the start). `eventsAt(replay, view, k)` reads the replay's k-th list of
// events (0-based), which is tick k + 1; `eventsDuring(replay, view, n)` is tick n itself, the
// events the viewer draws and highlights on frame n.

import { AGENT_NAMES, NUM_SLOTS, TEAM_SIZE } from "./format/validate.js";

export const ORACLE = "oracle";

export function teamOf(slot) {
  return Math.floor(slot / TEAM_SIZE);
}

// The views a replay offers: every view for a full replay, only its own for a filtered one.
export function availableViews(replay) {
  if (replay.view !== null) return [replay.view.of];
  const present = replay.frames.present[0];
  return [ORACLE, "a", "b", ...AGENT_NAMES.filter((_, s) => present[s] === 1)];
}

export function defaultView(replay) {
  return availableViews(replay)[0];
}

export function normaliseView(replay, view) {
  return availableViews(replay).includes(view) ? view : defaultView(replay);
}

// The slots whose own sight counts for a view (none for the oracle).
export function eyesOf(view) {
  if (view === ORACLE) return [];
  if (view === "a" || view === "b") {
    const team = "ab".indexOf(view);
    return Array.from({ length: TEAM_SIZE }, (_, k) => team * TEAM_SIZE + k);
  }
  return [AGENT_NAMES.indexOf(view)];
}

function bitsToMask(bits) {
  return Array.from({ length: NUM_SLOTS }, (_, s) => ((bits >> s) & 1) === 1);
}

// Array of 10 booleans: the agents shown at frame t in this view.
export function visibleAt(replay, view, t) {
  const f = replay.frames;
  if (replay.view !== null) return bitsToMask(replay.view.visible[t]);
  const present = f.present[t].map((v) => v === 1);
  if (view === ORACLE) return present;
  const eyes = eyesOf(view);
  const team = teamOf(eyes[0]);
  let seen = 0;
  for (const i of eyes) seen |= replay.sight[t][i];
  return present.map((p, s) => {
    if (!p) return false;
    if (teamOf(s) === team) return true;
    return ((seen >> s) & 1) === 1 && f.shield[t][s] === 0;
  });
}

export function eventAgents(event) {
  const names = [];
  for (const key of ["source", "target"]) if (typeof event[key] === "string") names.push(event[key]);
  if (Array.isArray(event.by)) names.push(...event.by);
  return names;
}

// Events of tick t that the view saw (every named agent visible at the start of tick t).
export function eventsAt(replay, view, t) {
  if (t < 0 || t >= replay.ticks) return [];
  const vis = visibleAt(replay, view, t);
  return replay.events[t].filter((e) => eventAgents(e).every((n) => vis[AGENT_NAMES.indexOf(n)]));
}

// Events of tick n (1-based; none for the starting frame 0): what frame n shows happening.
export function eventsDuring(replay, view, n) {
  return eventsAt(replay, view, n - 1);
}

// The tick number of the replay's k-th events list (0-based), as every page writes it.
export function tickNumber(replay, k) {
  return replay.frames.tick[k] + 1;
}

// Accepted actions of tick t per slot; null where hidden.
export function actionsAt(replay, view, t) {
  if (t < 0 || t >= replay.ticks) return Array(NUM_SLOTS).fill(null);
  const vis = visibleAt(replay, view, t);
  return replay.actions[t].map((a, s) => (vis[s] && a[0] >= 0 ? a : null));
}

// Everything the renderer needs about each agent at frame t (hidden agents: visible false).
export function agentsAt(replay, view, t) {
  const f = replay.frames;
  const rules = replay.rules;
  const vis = visibleAt(replay, view, t);
  return AGENT_NAMES.map((name, s) => {
    const cls = rules.classes[f.cls[t][s]];
    const effects = {};
    rules.effects.forEach((e, k) => {
      if (f.effects[t][s][k] > 0) effects[e.name] = f.effects[t][s][k];
    });
    return {
      slot: s,
      name,
      team: teamOf(s),
      present: f.present[t][s] === 1,
      visible: vis[s],
      alive: f.alive[t][s] === 1,
      cls: f.cls[t][s],
      className: cls.name,
      classTitle: cls.title,
      x: f.pos[t][s][0],
      y: f.pos[t][s][1],
      health: f.health[t][s],
      maxHealth: cls.max_health,
      sight: cls.sight,
      shield: f.shield[t][s],
      ultimateCooldown: f.ultimate_cooldown[t][s],
      effects,
      system: replay.systems[s],
    };
  });
}

const METRIC_NAMES = [
  "result", "points_a", "points_b", "kills_a", "kills_b", "deaths_a", "deaths_b",
  "damage_dealt_a", "damage_dealt_b", "useful_healing_a", "useful_healing_b",
  "ultimates_used_a", "ultimates_used_b", "red_zone_deaths_a", "red_zone_deaths_b", "ticks",
];

const milli = (amount) => Math.round(amount * 1000);

// The priority metrics over ticks 0..t-1 as the view saw them (all 16 for the oracle:
// at the last frame they equal the file's metrics). Damage and healing are in milli-HP.
// Deaths count in every view, seen or not: a team knows when one of its agents dies and
// when it scores (a point, or two for a death in the victim's red zone), so its own deaths
// and its kills are never hidden from it; damage and healing count only where seen.
export function metricsUpTo(replay, view, t) {
  const m = Object.fromEntries(METRIC_NAMES.map((n) => [n, 0]));
  const last = Math.min(Math.max(t, 0), replay.ticks);
  const side = (name) => name[0];
  for (let k = 0; k < last; k++) {
    for (const e of eventsAt(replay, view, k)) {
      if (e.kind === "damage") m[`damage_dealt_${side(e.source)}`] += milli(e.amount);
      else if (e.kind === "heal") m[`useful_healing_${side(e.target)}`] += milli(e.amount);
      else if (e.kind === "excess_heal") m[`useful_healing_${side(e.target)}`] -= milli(e.amount);
    }
    for (const e of replay.events[k]) {
      if (e.kind !== "death") continue;
      const victim = side(e.target);
      m[`deaths_${victim}`] += 1;
      m[`kills_${victim === "a" ? "b" : "a"}`] += 1;
      if (e.red_zone) m[`red_zone_deaths_${victim}`] += 1;
    }
    actionsAt(replay, view, k).forEach((a, s) => {
      if (a !== null && a[2] === 1) m[`ultimates_used_${"ab"[teamOf(s)]}`] += 1;
    });
  }
  m.result = replay.frames.result[last];
  m.points_a = replay.frames.score[last][0];
  m.points_b = replay.frames.score[last][1];
  m.ticks = replay.frames.tick[last];
  return m;
}

export { METRIC_NAMES };
