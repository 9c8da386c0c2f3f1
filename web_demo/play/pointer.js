// Picking on the arena with a pointer: a click (or tap) on one of your agents selects it, a
// click on an agent the selected one may take as its target picks it (Shift + click: one of
// your own agents), and the pointer shows a hand over what a click would change. Only
// agents that are drawn can be picked: your team's and the enemies it sees.

import { makeScale } from "../viewer/render.js";
import { agentsAt } from "../viewer/view.js";
import { applyChange, refreshTurn } from "./board.js";
import { humansHere, select, selectedHuman, teamOfSlot } from "./orders.js";
import { targetOfSlot, withTarget } from "./turns.js";

// Half a finger's width at least (a 40 px touch target), in pixels, however small the bodies
// are drawn; the nearest agent wins where two reaches overlap.
const MIN_REACH = 20;

// The agent nearest (px, py) in canvas pixels among those within `reach` pixels of it, by
// the scale `sc` (render.js's makeScale): only present, visible and living agents; or null.
export function nearestAgent(agents, sc, px, py, reach) {
  let best = null;
  let nearest = Infinity;
  for (const a of agents) {
    if (!a.present || !a.visible || !a.alive) continue;
    const d = Math.hypot(sc.x(a.x) - px, sc.y(a.y) - py);
    if (d <= reach && d < nearest) {
      best = a;
      nearest = d;
    }
  }
  return best;
}

// The agent drawn under a pointer event, or null.
export function agentUnder(st, e) {
  const { session, ui } = st;
  if (!session || !session.win || st.game.hidden) return null;
  const win = session.win;
  const box = ui.canvas.getBoundingClientRect();
  const sc = makeScale(ui.canvas.clientWidth || 800, win.rules);
  const px = e.clientX - box.left - ui.canvas.clientLeft;
  const py = e.clientY - box.top - ui.canvas.clientTop;
  const reach = Math.max(win.rules.body_radius * sc.s, MIN_REACH);
  return nearestAgent(agentsAt(win, session.who, win.ticks), sc, px, py, reach);
}

// What a click on agent `a` does: "select" one of your agents (Tab's choice), "target" it
// for the selected agent (Shift + click targets one of your own agents), or nothing (null).
export function clickMeaning(session, a, shift) {
  if (!a || !session || session.busy || session.view.done) return null;
  const h = selectedHuman(session);
  const mine = humansHere(session).find((x) => x.slot === a.name);
  if (mine && !shift && mine !== h) return "select";
  return h ? "target" : null;
}

// The target index that names agent `a` for the selected agent, if it may take it now.
export function legalTargetOf(session, a) {
  const h = selectedHuman(session);
  const t = targetOfSlot(teamOfSlot(h.slot), a.slot);
  return withTarget(session.legal[h.slot], session.orders[h.slot], t) ? t : null;
}

// The pointer shows a hand over what a click would change.
export function pickable(session, a, shift) {
  const meaning = clickMeaning(session, a, shift);
  if (meaning !== "target") return meaning;
  return session.committed.has(selectedHuman(session).slot) || legalTargetOf(session, a) === null ? null : meaning;
}

// Why agent `a` is not a target the selected agent `h` may take now, in words (issue 46: a
// refusal used to say only "not a target it can take now"). `here`: the frame's agents
// (agentsAt), `sight`: h's own sight bitmask this frame (bit s: agent s seen). The rules:
// abilities need a living, unshielded, unstunned caster; a target alive, not spawn-shielded
// (for enemies), of the right side (a Priest heals allies, the others strike enemies), in
// the caster's own sight and within reach of its Basic or Ultimate.
export function targetRefusal(h, a, here, sight) {
  const me = here.find((x) => x.name === h.slot);
  if (!me || !me.alive) return `${h.slot} is dead`;
  if (me.shield > 0) return `${h.slot} cannot use abilities while spawn-shielded`;
  if (me.effects && me.effects.stun) return `${h.slot} is stunned`;
  const ally = a.team === me.team;
  if (!ally && a.visible === false) return `${a.name} is not in sight of your team`;
  if (!a.alive) return `${a.name} is dead`;
  if (me.className === "priest" && !ally) return "a Priest heals allies; it cannot target enemies";
  if (me.className !== "priest" && ally) return `a ${me.classTitle} targets enemies only`;
  if (!ally && a.shield > 0) return `${a.name} is spawn-shielded`;
  if (a.name !== h.slot && !((sight >> a.slot) & 1)) return `${a.name} is not in ${h.slot}'s own sight`;
  return `${a.name} is out of ${h.slot}'s reach this tick`;
}

// The refusal shown when the selected agent `h` may not target the agent in slot `slot`.
export function refusalText(session, h, slot) {
  const win = session.win;
  const here = agentsAt(win, session.who, win.ticks);
  const a = here[slot];
  if (!a || !a.present) return "there is no agent in that slot";
  const mine = here.findIndex((x) => x.name === h.slot);
  return `${a.name} cannot be targeted: ${targetRefusal(h, a, here, win.sight[win.ticks][mine] ?? 0)}`;
}

export function clickArena(st, e) {
  const session = st.session;
  const a = agentUnder(st, e);
  const meaning = clickMeaning(session, a, e.shiftKey);
  if (meaning === "select") {
    select(session, a.name);
    refreshTurn(st);
  } else if (meaning === "target") {
    const h = selectedHuman(session);
    if (a.name === h.slot && legalTargetOf(session, a) === null) return; // itself, not a self-cast
    const t = targetOfSlot(teamOfSlot(h.slot), a.slot);
    applyChange(st, (set, o) => withTarget(set, o, t), refusalText(session, h, a.slot));
  }
}

// The hand over the arena follows the pointer (and Shift).
export function hoverArena(st, e) {
  st.ui.canvas.classList.toggle("bgp-pick", pickable(st.session, agentUnder(st, e), e.shiftKey) !== null);
}
