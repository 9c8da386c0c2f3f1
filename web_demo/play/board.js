// The turn builder's panel, redrawn from the session after every change: the agent tabs, the
// move pad and target buttons (enabled only for the engine's legal choices), the order in
// words, the turn's text and the event log. The root's data attributes (selected, offered,
// ghosts) say what it offers, for the tests.

import { describeTick, el } from "../viewer/ui.js";
import { agentsAt, eventsAt, tickNumber } from "../viewer/view.js";
import { autoMode } from "./autoplay.js";
import { draw, ghosts } from "./draw.js";
import { changeOrder, humansHere, select, selectedHuman, teamOfSlot } from "./orders.js";
import { SLOT_NAMES, act } from "./state.js";
import { MOVE_NAMES, legalMoves, legalTargets, slotOfTarget, withTarget, withUltimateToggled } from "./turns.js";

const LOG_LIMIT = 200;

// A target button's label: the slot, the class when it is seen, and its key.
export function targetLabel(team, t, agents) {
  if (t === 0) return "none";
  const slot = slotOfTarget(team, t);
  const a = agents[slot];
  const key = t <= 5 ? `\u21e7${t}` : String(t - 5);
  return `${SLOT_NAMES[slot]} ${a && a.visible ? a.classTitle : ""} [${key}]`.replace("  ", " ");
}

// What the turn's line says: who is to move, or that the tick resolves, or autoplay's state.
export function turnText(session, paused) {
  const teams = session.view.human_teams;
  if (!teams.length) {
    return `Systems play every agent: ${paused ? "paused (Space resumes, N plays one tick)" : "playing (Space pauses)"}`;
  }
  if (session.busy || session.view.done) return "resolving the tick\u2026";
  return `team ${session.who} to move${teams.length > 1 ? " (pass the keyboard between turns)" : ""}`;
}

// The selected agent's order changes by `fn` (orders.js's changeOrder); a refusal is said
// in the order's line instead.
export function applyChange(st, fn, refusal) {
  const done = changeOrder(st.session, fn, refusal);
  if (done && done.refused) st.ui.order.textContent = done.refused;
  else if (done) refreshTurn(st);
}

// Systems play every agent (the autoplay bar), or humans play (the turn builder).
export function setMode(st) {
  const ui = st.ui;
  const auto = autoMode(st.session);
  ui.autoBar.hidden = !auto;
  ui.human.hidden = auto;
  (auto ? ui.autoBar : ui.buttons).append(ui.again);
}

function agentTabs(st) {
  const session = st.session;
  return humansHere(session).map((x) => {
    const done = session.committed.has(x.slot);
    const tab = el("button", {
      type: "button", role: "tab", class: `mbg-btn bgp-tab${done ? " bgp-done" : ""}`,
      "aria-selected": String(x.slot === session.selected), "data-agent": x.slot,
      text: `${x.slot} ${x.class}${x.alive ? "" : " (dead)"}${done ? " \u2713" : ""}`,
    });
    tab.addEventListener("click", () => act(st, () => {
      select(st.session, x.slot);
      refreshTurn(st);
    }));
    return tab;
  });
}

// Nothing selected (no human agent here): only committing (or resolving) remains.
function refreshEmpty(st, busy, teams) {
  const ui = st.ui;
  for (const b of ui.moveButtons) b.disabled = true;
  ui.targets.replaceChildren();
  ui.ult.disabled = true;
  ui.commit.disabled = busy || teams.length > 0;
  ui.commitAll.disabled = busy;
  ui.undo.disabled = true;
  ui.order.textContent = "";
  st.root.dataset.selected = "";
  st.root.dataset.offered = "{}";
  draw(st, st.session.win.ticks);
}

// One button per target index whose agent is present; those the move cannot take are off.
function targetButtons(st, team, order, targets, locked, agents) {
  const buttons = [];
  for (let t = 0; t <= 10; t++) {
    if (t > 0) {
      const slot = slotOfTarget(team, t);
      if (!agents[slot] || !agents[slot].present) continue;
    }
    const b = el("button", {
      type: "button", class: `mbg-btn bgp-target${t > 5 ? " bgp-enemy" : t > 0 ? " bgp-ally" : ""}`,
      "data-target": String(t), "aria-pressed": String(order[1] === t), text: targetLabel(team, t, agents),
    });
    b.disabled = locked || !targets.has(t);
    b.addEventListener("click", () => act(st, () => applyChange(st, (s, o) => withTarget(s, o, t))));
    buttons.push(b);
  }
  return buttons;
}

export function refreshTurn(st) {
  const { session, ui, root } = st;
  const h = selectedHuman(session);
  ui.tabs.replaceChildren(...agentTabs(st));
  const busy = session.busy || session.view.done;
  const teams = session.view.human_teams;
  ui.turn.textContent = turnText(session, st.autoPaused);
  root.dataset.ghosts = JSON.stringify(ghosts(session, agentsAt(session.win, session.who, session.win.ticks)));
  if (!h) {
    refreshEmpty(st, busy, teams);
    return;
  }
  const set = session.legal[h.slot];
  const order = session.orders[h.slot];
  const locked = busy || session.committed.has(h.slot);
  const moves = legalMoves(set);
  ui.moveButtons.forEach((b, m) => {
    b.disabled = locked || !moves.has(m);
    b.setAttribute("aria-pressed", String(order[0] === m));
  });
  const team = teamOfSlot(h.slot);
  const agents = agentsAt(session.win, session.who, session.win.ticks);
  const targets = legalTargets(set, order[0]);
  ui.targets.replaceChildren(...targetButtons(st, team, order, targets, locked, agents));
  ui.ult.setAttribute("aria-pressed", String(order[2] === 1));
  ui.ult.disabled = locked || withUltimateToggled(set, order) === null;
  ui.commit.disabled = locked;
  ui.commitAll.disabled = busy;
  ui.undo.disabled = busy || !session.undo.length;
  const [m, t, u] = order;
  ui.order.textContent = `${h.slot} (${h.class}): move ${MOVE_NAMES[m]}, target ${t === 0 ? "none" : targetLabel(team, t, agents)}` +
    `${u ? ", Ultimate" : ""}${session.committed.has(h.slot) ? " \u2014 committed" : ""}`;
  root.dataset.selected = h.slot;
  // What the builder offers the selected agent now: every legal choice, nothing else.
  root.dataset.offered = JSON.stringify({ moves: [...moves].sort((x, y) => x - y), targets: [...targets].sort((x, y) => x - y), order });
  draw(st, session.win.ticks);
}

// The tick just played, in words, at the top of the log (the newest marked).
export function logTick(st, win) {
  const log = st.ui.log;
  const who = st.session.who;
  const agents = agentsAt(win, who, 0);
  const items = [];
  const n = tickNumber(win, 0); // the site's one convention: tick n is the n-th step
  for (const [, text] of describeTick(eventsAt(win, who, 0), agents)) {
    items.push(el("li", { class: "mbg-now", text: `tick ${n}: ${text}` }));
  }
  for (const li of log.querySelectorAll(".mbg-now")) li.classList.remove("mbg-now");
  for (const li of log.querySelectorAll(".mbg-empty")) li.remove();
  log.prepend(...items);
  while (log.children.length > LOG_LIMIT) log.lastChild.remove();
  if (!log.children.length) log.append(el("li", { class: "mbg-empty", text: "no events seen yet" }));
}
