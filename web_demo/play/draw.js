// Drawing the arena: the replay viewer's own renderer (web_demo/viewer/render.js) over the
// last tick as a two-frame window, as the human's team sees it, with the pending orders as
// ghosts on the current frame; and "show the last tick again".

import { renderFrame, TEAM_COLOURS } from "../viewer/render.js";
import { autoMode, tickDelay } from "./autoplay.js";
import { humansHere } from "./orders.js";
import { SLOT_NAMES } from "./state.js";
import { ghostStride, slotOfTarget } from "./turns.js";

// Pixels that the last tick's events change by at most this much (summed over red, green and
// blue) fade; and how much of their colour is kept.
const CHANGE = 24;
const KEEP = 0.3;

// Frame t of the window as the human's team sees it; on the current frame, the pending
// orders as ghosts.
export function draw(st, t) {
  const session = st.session;
  if (!session || !session.win || st.game.hidden) return;
  const { scale, agents } = renderFrame(st.ui.canvas, session.win, session.who, t, session.obstacles);
  st.root.dataset.drawn = `frame-${t}`;
  if (t === session.win.ticks && !session.view.done) drawGhosts(st, scale, agents);
}

// Show the last tick again. While playing: the position it started from, then where it left
// the agents, with its attacks, heals and deaths. After the game: that tick's drawing alone
// (its attacks, heals and deaths over the faded final position), then the final state; the
// position before the last tick is not drawn again.
export function flashLastTick(st) {
  const session = st.session;
  if (!session || !session.win || session.win.ticks === 0) return;
  if (st.flashTimer) clearTimeout(st.flashTimer);
  const over = session.view.done;
  if (over) drawLastTickAlone(st);
  else draw(st, 0);
  st.root.dataset.flash = "1";
  // While the game plays itself, the flash must end before the next tick comes.
  const hold = autoMode(session) && !over ? Math.min(st.flashMs, tickDelay(st) / 2) : st.flashMs;
  st.flashTimer = setTimeout(() => {
    st.flashTimer = null;
    delete st.root.dataset.flash;
    if (!st.destroyed && st.session) draw(st, st.session.win.ticks);
  }, Math.max(hold, 1));
}

// The canvas's pixels, read from a copy made for reading (the arena's canvas stays fast).
function pixelsOf(canvas) {
  const copy = document.createElement("canvas");
  copy.width = canvas.width;
  copy.height = canvas.height;
  const ctx = copy.getContext("2d", { willReadFrequently: true });
  ctx.drawImage(canvas, 0, 0);
  return ctx.getImageData(0, 0, copy.width, copy.height);
}

// Fade, in place, every pixel of `px` (RGBA) that `plain` (the same picture without the
// events) barely differs from: what the events add stays, everything else pales.
export function fadeUnchanged(px, plain) {
  for (let i = 0; i < px.length; i += 4) {
    const change = Math.abs(px[i] - plain[i]) + Math.abs(px[i + 1] - plain[i + 1]) + Math.abs(px[i + 2] - plain[i + 2]);
    if (change > CHANGE) continue;
    for (let c = 0; c < 3; c++) px[i + c] = 255 - Math.round((255 - plain[i + c]) * KEEP);
  }
  return px;
}

// The last frame drawn twice, with and without the last tick's events: what the events add
// (attack and heal lines, the fallen) stays, everything else fades.
function drawLastTickAlone(st) {
  const session = st.session;
  if (!session || !session.win || st.game.hidden) return;
  const canvas = st.ui.canvas;
  const win = session.win;
  const t = win.ticks;
  const quiet = { ...win, events: win.events.map(() => []) };
  renderFrame(canvas, quiet, session.who, t, session.obstacles);
  const plain = pixelsOf(canvas).data;
  renderFrame(canvas, win, session.who, t, session.obstacles);
  const image = pixelsOf(canvas);
  fadeUnchanged(image.data, plain);
  canvas.getContext("2d").putImageData(image, 0, 0);
  st.root.dataset.drawn = "last-tick";
}

// Where each living human agent's pending move takes it (milli-units) before bodies or
// obstacles stop it: the engine's planned stride, slows included. `agents`: the frame's
// agents by slot index (view.js's agentsAt).
export function ghosts(session, agents) {
  const out = {};
  for (const h of humansHere(session)) {
    const a = agents[SLOT_NAMES.indexOf(h.slot)];
    if (!a || !a.alive || !session.orders[h.slot]) continue;
    const [dx, dy] = ghostStride(h, session.orders[h.slot][0]);
    out[h.slot] = [a.x + dx, a.y + dy];
  }
  return out;
}

// Each ghost: a pale body where the move ends (paler until committed), a ring round the
// selected agent, a dashed line to its target (thicker with the Ultimate, green to a
// teammate, red to an enemy) and a gold ring for the Ultimate.
function drawGhosts(st, sc, agents) {
  const session = st.session;
  const ctx = st.ui.canvas.getContext("2d");
  const body = session.win.rules.body_radius * sc.s;
  const where = ghosts(session, agents);
  for (const h of humansHere(session)) {
    const a = agents[SLOT_NAMES.indexOf(h.slot)];
    if (!where[h.slot]) continue;
    const [, t, u] = session.orders[h.slot];
    const [gx, gy] = where[h.slot];
    const colour = TEAM_COLOURS[a.team];
    const mine = h.slot === session.selected;
    ctx.save();
    if (mine) {
      ctx.strokeStyle = "#111";
      ctx.lineWidth = 2;
      ctx.beginPath();
      ctx.arc(sc.x(a.x), sc.y(a.y), body + 6, 0, 2 * Math.PI);
      ctx.stroke();
    }
    if (t > 0) {
      const target = agents[slotOfTarget(a.team, t)];
      if (target && target.visible) {
        ctx.strokeStyle = t <= 5 ? "rgba(30,160,60,0.9)" : "rgba(200,40,20,0.9)";
        ctx.setLineDash([6, 4]);
        ctx.lineWidth = u ? 3.5 : 2;
        ctx.beginPath();
        ctx.moveTo(sc.x(gx), sc.y(gy));
        ctx.lineTo(sc.x(target.x), sc.y(target.y));
        ctx.stroke();
      }
    }
    ctx.setLineDash([4, 3]);
    ctx.globalAlpha = session.committed.has(h.slot) ? 0.55 : 0.35;
    ctx.fillStyle = colour;
    ctx.beginPath();
    ctx.arc(sc.x(gx), sc.y(gy), body, 0, 2 * Math.PI);
    ctx.fill();
    ctx.globalAlpha = 1;
    ctx.strokeStyle = colour;
    ctx.lineWidth = 1.5;
    ctx.stroke();
    if (u) {
      ctx.setLineDash([]);
      ctx.strokeStyle = "#f2b800";
      ctx.lineWidth = 3;
      ctx.beginPath();
      ctx.arc(sc.x(gx), sc.y(gy), body + 3, 0, 2 * Math.PI);
      ctx.stroke();
    }
    ctx.restore();
  }
}
