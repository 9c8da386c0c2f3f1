// The game's course, in talk with the engine: start a game from the form, take each view the
// engine sends (checked by the replay viewer's reader, then drawn and logged), resolve the
// tick once every human has committed, and at the end show the result, the replay to
// download and a viewer over the whole game.

import { mountViewer } from "../viewer/embed.js";
import { readReplayBytes, validateReplay } from "../viewer/format/validate.js";
import { prepareObstacles } from "../viewer/render.js";
import { el, fillAgents, fillMetrics } from "../viewer/ui.js";
import { ORACLE, agentsAt } from "../viewer/view.js";
import { autoMode, leave, scheduleAuto, stopAuto, syncAuto } from "./autoplay.js";
import { logTick, refreshTurn, setMode } from "./board.js";
import { draw, flashLastTick } from "./draw.js";
import { gatherActions, newSession, startTurn } from "./orders.js";
import { specFromForm } from "./setup.js";
import { MOVE_NAMES } from "./turns.js";
import { clearError, setState, showError } from "./state.js";

// The downloaded replay's name: where the game started and when.
export function downloadName(spec, now = new Date()) {
  const stamp = now.toISOString().replace(/[:.]/g, "-").slice(0, 19);
  const where = spec.position ? "position" : `map${spec.map}`;
  return `battle-${where}-${stamp}.json`;
}

// The result line's own words for a single human team: " — you win", " — you lose", or
// nothing (a draw, or no single human team).
export function verdict(view) {
  if (view.human_teams.length !== 1) return "";
  if (view.result === view.human_teams[0]) return " \u2014 you win";
  return view.result === "draw" ? "" : " \u2014 you lose";
}

export async function start(st) {
  clearError(st);
  const spec = specFromForm(st);
  st.form.start.disabled = true;
  stopAuto(st);
  st.autoPaused = false; // a game of Systems alone starts playing at once
  try {
    if (st.session && st.session.id !== null) st.backend.close(st.session.id).catch(() => {});
    const id = await st.backend.newGame(spec);
    st.root.dataset.session = String(id);
    st.session = newSession(id, spec);
    if (st.destroyed) return leave(st); // destroyed while the game was being made
    const first = await st.backend.view(id, "auto");
    st.setup.hidden = true;
    st.end.hidden = true;
    st.game.hidden = false;
    if (st.reviewer) {
      st.reviewer.destroy();
      st.reviewer = null;
    }
    st.ui.log.replaceChildren(el("li", { class: "mbg-empty", text: "no events seen yet" }));
    st.ui.title.textContent = first.window.title;
    st.ui.verdict.hidden = true;
    await show(st, first, false);
    st.root.focus({ preventScroll: true });
    // the game first: its header, arena and controls in view (the setup form is gone)
    if (st.game.getBoundingClientRect().top < 0 || st.game.getBoundingClientRect().top > 120) {
      st.game.scrollIntoView({ block: "start" });
    }
  } catch (err) {
    showError(st, "Cannot start this game.", err);
    setState(st, "setup");
  } finally {
    st.form.start.disabled = false;
  }
}

// One team's humans have committed: the next human team takes the seat, or the tick resolves.
export async function resolveTurn(st) {
  const session = st.session;
  const teams = session.view.human_teams;
  const here = teams.indexOf(session.who);
  gatherActions(session);
  if (here >= 0 && here + 1 < teams.length) {
    await show(st, await st.backend.view(session.id, teams[here + 1]), false);
    return;
  }
  session.busy = true;
  setState(st, "resolving");
  refreshTurn(st);
  let next;
  try {
    next = await st.backend.step(session.id, session.actions, teams.length ? teams[0] : ORACLE);
  } catch (err) {
    st.session.busy = false;
    st.autoPaused = true; // autoplay stops on an error; Resume tries again
    showError(st, "The engine refused this turn.", err);
    setState(st, "turn");
    refreshTurn(st);
    syncAuto(st);
    return;
  }
  st.session.sent = st.session.actions;
  st.session.actions = {};
  await show(st, next, true);
}

// The human agents whose move went nowhere this tick (`sent`: slot -> [move, target, ult]
// as committed; `before`, `after`: agentsAt of the tick's two frames): they moved (not
// "stay"), were alive both times, and ended within 0.1 units of where they
// started: an obstacle or a body stopped them. Each as "a0 (E)".
export function blockedMoves(sent, before, after) {
  const out = [];
  for (const [slot, action] of Object.entries(sent ?? {})) {
    const move = action?.[0];
    if (!move) continue; // stay
    const a = before.find((x) => x.name === slot);
    const b = after.find((x) => x.name === slot);
    if (!a || !b || !a.alive || !b.alive) continue; // (a stunned agent is offered no move)
    if (Math.hypot(b.x - a.x, b.y - a.y) < 100) out.push(`${slot} (${MOVE_NAMES[move]})`);
  }
  return out;
}

// Say on the arena which of the human agents' moves were blocked this tick (or nothing).
function announceBlocked(st, win, sent) {
  const t = win.ticks;
  const blocked = t > 0 ? blockedMoves(sent, agentsAt(win, st.session.who, t - 1), agentsAt(win, st.session.who, t)) : [];
  st.ui.notice.textContent = blocked.length
    ? `Blocked: ${blocked.join(", ")} did not move (an obstacle or a body in the way)`
    : "";
  st.ui.notice.hidden = !blocked.length;
  st.root.dataset.blocked = blocked.join(",");
}

// Take a view from the engine: check its window with the viewer's reader, draw, log, and
// set up the next turn (or the end).
export async function show(st, view, ticked) {
  if (st.destroyed) return; // an answer that arrived after the client was destroyed
  const { session, ui, root } = st;
  const win = validateReplay(view.window);
  const first = !session.win;
  if (first || session.mapKey !== JSON.stringify(win.map.obstacles)) {
    session.obstacles = prepareObstacles(win.map);
    session.mapKey = JSON.stringify(win.map.obstacles);
  }
  session.view = view;
  session.win = win;
  if (first) setMode(st);
  session.who = win.view ? win.view.of : ORACLE;
  startTurn(session, view);
  root.dataset.legal = JSON.stringify(Object.fromEntries(view.humans.map((h) => [h.slot, h.legal])));
  root.dataset.tick = String(view.tick);
  root.dataset.view = session.who;
  if (ticked && win.ticks > 0) logTick(st, win);
  if (ticked) announceBlocked(st, win, session.sent);
  const f = win.frames;
  const t = win.ticks;
  ui.score.textContent = `a ${view.score[0]} : ${view.score[1]} b  (to ${f.winning_score[t]})`;
  ui.clock.textContent = `tick ${view.tick} / ${f.horizon[t]}`;
  fillAgents(ui.agents, agentsAt(win, session.who, t));
  session.busy = false;
  if (view.done) {
    draw(st, t); // frame t draws the last tick's attacks, heals and deaths
    stopAuto(st);
    syncAuto(st);
    await finish(st, view);
    return;
  }
  setState(st, "turn");
  refreshTurn(st);
  if (ticked && win.ticks > 0 && st.replayTicks && st.flashMs > 0) flashLastTick(st);
  else draw(st, t);
  if (autoMode(session)) {
    scheduleAuto(st, resolveTurn);
    return;
  }
  // Nothing for a human to do this tick (every human agent dead, or none at all): play on.
  if (view.humans.length && view.humans.every((h) => !h.alive)) {
    session.busy = true;
    setState(st, "resolving");
    setTimeout(() => {
      if (!st.destroyed && st.session && st.session.view === view) {
        st.session.busy = false;
        resolveTurn(st);
      }
    }, st.flashMs);
  }
}

// The end of a game in words: the headline ("Team b wins 3–5 — you lose") and why it ended
// (`winning`, `horizon`: the game's own settings; `ticks`: ticks played). A draw says which
// of the two rules made it, so a draw at the tick limit does not read like a fault.
export function endWords(view, winning, horizon, ticks) {
  const [a, b] = view.score;
  const result = view.result === "draw" ? "Draw" : `Team ${view.result} wins`;
  const headline = `${result} ${a}\u2013${b}${verdict(view)}`;
  let why;
  if (view.result !== "draw") why = `Team ${view.result} reached ${winning} points first.`;
  else if (a >= winning && b >= winning) why = `Both teams reached ${winning} points on the same tick.`;
  else why = `The tick limit (${horizon} ticks) came before either team reached ${winning} points.`;
  return { headline, why: `After ${ticks} ticks: ${why[0].toLowerCase()}${why.slice(1)}` };
}

// The game is over: the controls go off, and the end section shows the result, the priority
// metrics, the replay to download and a compact viewer over the whole game; the state says
// "over" once all of that is in place.
async function finish(st, view) {
  const ui = st.ui;
  for (const b of ui.moveButtons) b.disabled = true;
  ui.targets.replaceChildren();
  for (const b of [ui.ult, ui.commit, ui.commitAll, ui.undo]) b.disabled = true;
  const f = st.session.win.frames;
  const t = st.session.win.ticks;
  const words = endWords(view, f.winning_score[t], f.horizon[t], view.tick);
  ui.turn.textContent = words.headline;
  // the result over the arena, where the visitor is looking
  ui.verdict.replaceChildren(el("strong", { text: words.headline }), el("span", { text: words.why }));
  ui.verdict.hidden = false;
  let text;
  let doc;
  try {
    text = await st.backend.replayText(st.session.id);
    doc = await readReplayBytes(new TextEncoder().encode(text));
  } catch (err) {
    showError(st, "The replay could not be made.", err);
    setState(st, "over");
    return;
  }
  const metrics = el("table", { class: "mbg-metrics bgp-metrics" });
  fillMetrics(metrics, doc.metrics, true);
  const url = URL.createObjectURL(new Blob([text], { type: "application/json" }));
  st.cleanups.push(() => URL.revokeObjectURL(url));
  const download = el("a", { class: "md-button md-button--primary bgp-download", href: url, download: downloadName(st.session.spec), text: "Download replay" });
  const again = el("button", { type: "button", class: "md-button bgp-new", text: "New game" });
  again.addEventListener("click", () => {
    ui.verdict.hidden = true;
    st.game.hidden = true;
    st.end.hidden = true;
    st.setup.hidden = false;
    setState(st, "setup");
  });
  const saved = view.saved ? el("p", { class: "bgp-saved", text: `Saved on this machine: ${view.saved}` }) : "";
  const review = el("div", { class: "bgp-review" });
  st.end.replaceChildren(
    el("h3", { class: "bgp-result", text: words.headline }),
    el("p", { text: `${words.why} The replay opens in the Replay Viewer; the whole game (every agent) is below.` }),
    el("div", { class: "bgp-end-buttons" }, download, again), saved,
    el("h4", { text: "Priority metrics" }), metrics, review);
  st.end.hidden = false;
  if (st.reviewer) st.reviewer.destroy();
  st.reviewer = mountViewer(review, { bytes: new TextEncoder().encode(text), compact: true });
  setState(st, "over"); // last: the end section is filled once the page says so
}
