// The viewer's DOM: controls, panels, help overlay. Every string that comes from a file is
// put in with textContent (never innerHTML), so names like "<img onerror=...>" stay text.

import PALETTE from "../assets/palette.json" with { type: "json" };
import { SPEEDS } from "./timeline.js";
import { METRIC_NAMES, ORACLE, tickNumber } from "./view.js";

// An effect in words ("slowed after a Warrior's Charge"), its short code on the canvas (SLW).
export function effectName(id) {
  return PALETTE.effects[id]?.name ?? id.replaceAll("_", " ");
}
export function effectCode(id) {
  return PALETTE.effects[id]?.code ?? id.slice(0, 3).toUpperCase();
}
export function effectWord(id) {
  return PALETTE.effects[id]?.word ?? id.replaceAll("_", " ");
}
export const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

// The status codes drawn under bodies, each with its meaning (one per code).
export function statusLegend() {
  const seen = new Map();
  for (const [id, e] of Object.entries(PALETTE.effects)) {
    if (!seen.has(e.code)) seen.set(e.code, []);
    seen.get(e.code).push(e.name);
  }
  return [...seen].map(([code, names]) => [code, names.join("; or ")]);
}

export const SHORTCUTS = [
  ["Space", "play / pause"],
  ["\u2190 / \u2192", "step one tick back / forward"],
  ["Shift + \u2190 / \u2192", "ten ticks back / forward"],
  ["Home / End", "first / last tick"],
  ["+ / -", "faster / slower"],
  ["v", "next point of view"],
  ["o", "Oracle view (everything)"],
  ["?", "this help"],
  ["Esc", "close help"],
];

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "text") node.textContent = value;
    else if (key === "class") node.className = value;
    else node.setAttribute(key, value);
  }
  for (const child of children) node.append(child);
  return node;
}

function button(label, title, cls) {
  return el("button", { type: "button", class: `mbg-btn ${cls}`, title, "aria-label": title, text: label });
}

// Build the viewer's elements inside `container`; returns named references.
export function buildLayout(container, { compact }) {
  const root = el("div", { class: `mbg-root${compact ? " mbg-compact" : ""}`, tabindex: "0" });
  // The team colours of palette.json, for the stylesheet too.
  PALETTE.team.forEach((c, k) => root.style.setProperty(`--mbg-team-${"ab"[k]}`, c));
  const title = el("div", { class: "mbg-title" });
  const matchup = el("div", { class: "mbg-matchup" });
  const score = el("div", { class: "mbg-score", "aria-live": "polite" });
  const clock = el("div", { class: "mbg-clock" });
  const header = el("div", { class: "mbg-header" }, title, matchup, score, clock);
  const error = el("div", { class: "mbg-error", role: "alert" });
  error.hidden = true;
  const canvas = el("canvas", { class: "mbg-canvas", "aria-label": "arena" });
  const drop = el("div", { class: "mbg-drop", text: "Drop a replay file here" });
  drop.hidden = true;
  const stage = el("div", { class: "mbg-stage" }, canvas, drop);

  const first = button("|\u25c0", "first tick (Home)", "mbg-first");
  const back = button("\u25c0", "step back (\u2190)", "mbg-back");
  const play = button("Play", "play / pause (Space)", "mbg-play");
  const fwd = button("\u25b6", "step forward (\u2192)", "mbg-fwd");
  const last = button("\u25b6|", "last tick (End)", "mbg-last");
  const scrub = el("input", { type: "range", class: "mbg-scrub", min: "0", max: "0", value: "0", "aria-label": "tick" });
  const speed = el("select", { class: "mbg-speed", "aria-label": "speed" });
  SPEEDS.forEach((s, i) => speed.append(el("option", { value: String(i), text: `${s}\u00d7` })));
  const view = el("select", { class: "mbg-view", "aria-label": "point of view" });
  const share = button("Link", "copy a link to this tick and view", "mbg-share");
  const shareOut = el("input", { class: "mbg-share-url", readonly: "", "aria-label": "shareable link" });
  shareOut.hidden = true;
  const file = el("input", { type: "file", class: "mbg-file", accept: ".json,.gz,application/json" });
  const fileLabel = el("label", { class: "mbg-file-label" }, "Open file ", file);
  const help = button("?", "keyboard shortcuts (?)", "mbg-help-btn");
  const controls = el(
    "div", { class: "mbg-controls" },
    first, back, play, fwd, last, scrub, speed, view, share, help, fileLabel, shareOut,
  );

  const agents = el("table", { class: "mbg-agents" });
  const log = el("ol", { class: "mbg-log", "aria-label": "event log" });
  const metrics = el("table", { class: "mbg-metrics" });
  // What happened during the tick shown, right under the arena (clips show only this).
  const now = el("ul", { class: "mbg-now-events", "aria-label": "events of this tick", "aria-live": "polite" });
  const legend = el("details", { class: "mbg-legend" },
    el("summary", { text: "Status labels (STN, SLW, PSN, BLS, ...)" }),
    el("dl", {}, ...statusLegend().flatMap(([code, what]) => [el("dt", { text: code }), el("dd", { text: what })])));
  const panels = el(
    "div", { class: "mbg-panels" },
    el("section", {}, el("h4", { text: "Agents" }), agents),
    el("section", {}, el("h4", { text: "Events" }), log),
    el("section", {}, el("h4", { class: "mbg-metrics-title", text: "Metrics so far" }), metrics),
  );
  const helpBox = el("div", { class: "mbg-help", role: "dialog", "aria-label": "keyboard shortcuts" });
  const helpList = el("dl");
  for (const [key, what] of SHORTCUTS) helpList.append(el("dt", { text: key }), el("dd", { text: what }));
  helpBox.append(el("h4", { text: "Keyboard shortcuts" }), helpList, el("p", { text: "Press Esc or ? to close." }));
  helpBox.hidden = true;

  const totals = buildTotals(!compact);

  root.append(header, error, stage, controls, now, legend, panels, totals.box, helpBox);
  container.append(root);
  return {
    root, title, matchup, score, clock, error, canvas, drop, first, back, play, fwd, last, scrub,
    speed, view, share, shareOut, file, fileLabel, help, helpBox, agents, log, metrics, panels,
    totals, now, legend,
  };
}

const TOTAL_TABS = [["damage", "Damage"], ["healing", "Healing"], ["kills", "Kills"], ["effects", "Effects"]];
const TOTAL_NOTES = {
  damage: "HP of damage each agent (row) dealt to each agent (column).",
  healing: "HP of ability healing each agent (row) gave each agent (column).",
  kills: "Kills: an agent (row) is credited when it damaged the agent (column) on the tick it died.",
  effects: "Status effects each agent (row) applied to each agent (column), one per application.",
};

// The collapsible "who did what to whom" panel: kind tabs, an effect filter, one matrix.
// Closed in compact viewers, so pages with many clips never sum anything they do not show.
function buildTotals(open) {
  const tabs = TOTAL_TABS.map(([kind, label]) =>
    el("button", { type: "button", class: "mbg-tab", role: "tab", "data-kind": kind, "aria-selected": "false", text: label }),
  );
  const effect = el("select", { class: "mbg-totals-effect", "aria-label": "effect" });
  const scope = el("span", { class: "mbg-totals-scope" });
  const note = el("p", { class: "mbg-totals-note" });
  const table = el("table", { class: "mbg-totals-table" });
  const box = el(
    "details", { class: "mbg-totals" },
    el("summary", {}, el("span", { class: "mbg-totals-title", text: "Who did what to whom" }), scope),
    el("div", { class: "mbg-totals-bar", role: "tablist", "aria-label": "totals shown" }, ...tabs, effect),
    el("div", { class: "mbg-totals-scroll" }, table),
    note,
  );
  box.open = open;
  return { box, tabs, effect, scope, note, table };
}

export function viewLabel(view) {
  if (view === ORACLE) return "Oracle (everything)";
  if (view === "a" || view === "b") return `Team ${view}`;
  return `Agent ${view}`;
}

export function fillViews(select, views, current) {
  select.replaceChildren(
    ...views.map((v) => el("option", { value: v, text: viewLabel(v) })),
  );
  select.value = current;
}

const fmt = (milli) => (milli / 1000).toFixed(milli % 1000 === 0 ? 0 : 1);

// One event as a sentence: who did what to whom. `excess` (HP) is the part of a heal above
// the target's maximum health, when this heal is the only one on its target in the tick.
export function describeEvent(e, agents, excess = null) {
  const who = (name) => {
    const a = agents.find((x) => x.name === name);
    return a ? `${name} (${a.classTitle})` : name;
  };
  switch (e.kind) {
    case "damage":
      return `${who(e.source)} ${e.ability} \u2192 ${who(e.target)}: ${e.amount} damage`;
    case "heal": {
      const base = `${who(e.source)} ${e.ability} \u2192 ${who(e.target)}`;
      if (!excess) return `${base}: +${e.amount} health`;
      const useful = Math.round((e.amount - excess) * 1000) / 1000;
      return `${base}: +${useful} health (of ${e.amount} healing, ${excess} above maximum health wasted)`;
    }
    case "excess_heal":
      return `${who(e.target)}: ${e.amount} of the healing was above maximum health (wasted)`;
    case "effect":
      return `${who(e.source)} puts ${effectWord(e.effect)} (${effectCode(e.effect)}) on ${who(e.target)} for ${plural(e.ticks, "tick")}`;
    case "trap_broken":
      return `${who(e.target)}'s Trap broken by ${e.by.join(", ")}`;
    case "charge":
      return `${who(e.source)} charges ${who(e.target)}`;
    case "death":
      return `${who(e.target)} dies${e.by.length ? ` (by ${e.by.join(", ")})` : ""}, ${plural(e.points, "point")}${e.red_zone ? " (Red Zone)" : ""}`;
    case "shield_cleared":
      return `${who(e.target)} steps clear as the shield ends`;
    case "respawn":
      return `${who(e.target)} respawns`;
    case "rest_heal":
      return `${who(e.target)} rests: +${e.amount} health`;
    case "game_end":
      return `game over: ${e.result === "draw" ? "draw" : `team ${e.result} wins`} ${e.score[0]}\u2013${e.score[1]}`;
    default:
      return e.kind;
  }
}

// The sentences of one tick's events, a heal's excess folded into it when it is the only heal
// on its target (else the excess keeps its own line). Rest heals are left out.
export function describeTick(events, agents) {
  const heals = new Map();
  const excess = new Map();
  for (const e of events) {
    if (e.kind === "heal") heals.set(e.target, (heals.get(e.target) ?? 0) + 1);
    if (e.kind === "excess_heal") excess.set(e.target, e.amount);
  }
  const out = [];
  for (const e of events) {
    if (e.kind === "rest_heal") continue;
    if (e.kind === "excess_heal" && heals.get(e.target) === 1) continue;
    const folded = e.kind === "heal" && heals.get(e.target) === 1 ? excess.get(e.target) ?? null : null;
    out.push([e, describeEvent(e, agents, folded)]);
  }
  return out;
}

export function fillAgents(table, agents) {
  const heads = [["agent"], ["class"], ["system"], ["health", "mbg-health"], ["ult", "mbg-ult"], ["status", "mbg-status"]];
  const rows = [el("tr", {}, ...heads.map(([h, cls]) => el("th", { text: h, class: cls ?? "" })))];
  for (const a of agents) {
    if (!a.present) continue;
    const tr = el("tr", { class: `mbg-team-${"ab"[a.team]}${a.visible ? "" : " mbg-hidden"}`, "data-agent": a.name });
    if (!a.visible) {
      tr.append(el("td", { text: a.name }), el("td", { text: "hidden", colspan: "5" }));
    } else {
      const status = el("td", { class: "mbg-status" });
      if (!a.alive) status.textContent = "dead";
      else {
        const ids = Object.keys(a.effects);
        for (const id of ids) {
          status.append(el("abbr", { class: "mbg-code", title: `${effectName(id)} (${plural(a.effects[id], "tick")} left)`, text: effectCode(id) }), " ");
        }
        if (a.shield) status.append(el("span", { title: "spawn shield: cannot be seen, targeted or healed", text: `shield ${a.shield}` }));
      }
      tr.append(
        el("td", { text: a.name }),
        el("td", { text: a.classTitle }),
        el("td", { text: a.system ?? "" }),
        el("td", { class: "mbg-health", text: `${fmt(a.health)}/${fmt(a.maxHealth)}` }),
        el("td", { class: "mbg-ult", text: a.ultimateCooldown === 0 ? "ready" : String(a.ultimateCooldown) }),
        status,
      );
    }
    rows.push(tr);
  }
  table.replaceChildren(...rows);
}

// The log, newest first: tick n's lines are labelled "tick n" and highlighted on frame n,
// the frame that draws them.
export function fillLog(list, replay, view, t, eventsAt, agentsAt, limit) {
  const items = [];
  for (let k = Math.min(t, replay.ticks) - 1; k >= 0 && items.length < limit; k--) {
    const agents = agentsAt(replay, view, k);
    const n = tickNumber(replay, k);
    for (const [, text] of describeTick(eventsAt(replay, view, k), agents)) {
      items.push(el("li", { class: k === t - 1 ? "mbg-now" : "", "data-tick": String(n), text: `tick ${n}: ${text}` }));
      if (items.length >= limit) break;
    }
  }
  if (!items.length) items.push(el("li", { class: "mbg-empty", text: "no events seen yet" }));
  list.replaceChildren(...items);
}

// Under the arena: the lines of the tick frame t shows (none at the start).
export function fillNow(list, replay, view, t, eventsAt, agentsAt) {
  const items = [];
  if (t >= 1 && t <= replay.ticks) {
    const n = tickNumber(replay, t - 1);
    for (const [, text] of describeTick(eventsAt(replay, view, t - 1), agentsAt(replay, view, t - 1))) {
      items.push(el("li", { "data-tick": String(n), text: `tick ${n}: ${text}` }));
    }
    if (!items.length) items.push(el("li", { class: "mbg-empty", text: `tick ${n}: no combat or status events` }));
  } else {
    items.push(el("li", { class: "mbg-empty", text: replay.ticks === 0 ? "a position only: no ticks are played" : "the start: step forward to play tick 1" }));
  }
  list.replaceChildren(...items);
}

export function fillMetrics(table, metrics, full) {
  const rows = [el("tr", {}, el("th", { text: "metric" }), el("th", { text: "a" }), el("th", { text: "b" }))];
  const pairs = {};
  for (const name of METRIC_NAMES) {
    const m = name.match(/^(.*)_(a|b)$/);
    if (m) (pairs[m[1]] ||= {})[m[2]] = metrics[name];
  }
  for (const [name, v] of Object.entries(pairs)) {
    const isHp = name.startsWith("damage") || name.startsWith("useful");
    const show = (x) => (isHp ? fmt(x) : String(x));
    rows.push(el("tr", {}, el("td", { text: name.replaceAll("_", " ") }), el("td", { text: show(v.a) }), el("td", { text: show(v.b) })));
  }
  rows.push(el("tr", {}, el("td", { text: "ticks" }), el("td", { text: String(metrics.ticks), colspan: "2" })));
  table.replaceChildren(...rows);
  table.dataset.scope = full ? "all" : "seen";
}

export function fillTotalEffects(select, rules) {
  const names = rules.effects.map((e) => e.name);
  select.replaceChildren(el("option", { value: "", text: "all effects" }), ...names.map((n) => el("option", { value: n, text: `${effectCode(n)}: ${effectName(n)}` })));
}

// A pair's label as the viewer names agents elsewhere: "a0 (Mage)"; an enemy's class only
// once this view has seen it.
function totalLabel(agent, known) {
  return known ? `${agent.name} (${agent.classTitle})` : agent.name;
}

function totalCell(value, isHp, cls, attrs = {}) {
  const text = value === 0 ? "\u00b7" : isHp ? fmt(value) : String(value);
  return el("td", { class: `${cls}${value === 0 ? " mbg-zero" : ""}`, "data-value": String(value), text, ...attrs });
}

// The matrix for `state` = {kind, matrix (10 x 10), agents (agentsAt), seen (first frame
// seen per slot), t, scope (text)}: attackers as rows, recipients as columns, sums last.
// Each cell keeps its exact value (milli-HP or a count) in data-value for the tests.
export function fillTotals(parts, state) {
  const { kind, matrix, agents, seen, t } = state;
  const isHp = kind === "damage" || kind === "healing";
  const shown = agents.filter((a) => a.present);
  const head = el("tr", {}, el("th", { class: "mbg-corner", text: "by \u2193 to \u2192" }));
  for (const a of shown) {
    const known = seen[a.slot] <= t;
    head.append(el("th", { class: `mbg-team-${"ab"[a.team]}`, "data-to": a.name, title: totalLabel(a, known) },
      el("span", { text: a.name }), el("small", { text: known ? a.classTitle : "" })));
  }
  head.append(el("th", { class: "mbg-sum", text: "total" }));
  const rows = [head];
  const colSums = shown.map(() => 0);
  for (const by of shown) {
    const tr = el("tr", { class: `mbg-team-${"ab"[by.team]}`, "data-by": by.name });
    tr.append(el("th", { text: totalLabel(by, seen[by.slot] <= t) }));
    let rowSum = 0;
    shown.forEach((to, j) => {
      const v = matrix[by.slot][to.slot];
      rowSum += v;
      colSums[j] += v;
      tr.append(totalCell(v, isHp, by.team === to.team ? "mbg-ally" : "mbg-enemy", { "data-to": to.name }));
    });
    tr.append(totalCell(rowSum, isHp, "mbg-sum"));
    rows.push(tr);
  }
  const foot = el("tr", { class: "mbg-sum-row" }, el("th", { text: "total" }));
  colSums.forEach((v, j) => foot.append(totalCell(v, isHp, "mbg-sum", { "data-to": shown[j].name })));
  foot.append(totalCell(colSums.reduce((x, y) => x + y, 0), isHp, "mbg-sum"));
  rows.push(foot);
  parts.table.replaceChildren(...rows);
  parts.table.dataset.kind = kind;
  parts.table.dataset.tick = String(t);
  for (const tab of parts.tabs) tab.setAttribute("aria-selected", String(tab.dataset.kind === kind));
  parts.effect.hidden = kind !== "effects";
  parts.scope.textContent = state.scope;
  parts.note.textContent = TOTAL_NOTES[kind];
}
