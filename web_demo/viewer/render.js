// Drawing one frame of a replay on a canvas: the arena to scale, what the chosen view sees,
// and what happens during the tick (attacks, heals, Charges, deaths, respawns).
// Numbers about classes and effects come from the replay's own `rules` table.

// Every colour and status label comes from web_demo/assets/palette.json, the one palette the
// still pictures (marl_bgs/site/draw.py) and the Visual Key read too.
//
// Frame t is the arena after tick t (frame 0: the starting position). The lines drawn over it
// are what happened during tick t, the same events the log lists as "tick t": combat lines
// from where the agents stood when the tick began, and a fallen agent (a grey body with a
// cross) where it fell.

import PALETTE from "../assets/palette.json" with { type: "json" };
import { AGENT_NAMES } from "./format/validate.js";
import { ORACLE, agentsAt, eventsDuring, eyesOf, teamOf } from "./view.js";

export { PALETTE };
export const TEAM_COLOURS = PALETTE.team;
const TEAM_LIGHT = PALETTE.team_light;
export const EFFECT_LABELS = Object.fromEntries(Object.entries(PALETTE.effects).map(([k, v]) => [k, v.code]));
const RAYS = 180;

// Geometry in milli-units -> canvas pixels (y grows north in the game, down on screen).
export function makeScale(canvasWidth, rules) {
  const s = canvasWidth / rules.arena[0];
  const height = rules.arena[1] * s;
  return { s, width: canvasWidth, height, x: (mx) => mx * s, y: (my) => height - my * s };
}

// A wall's corners in milli-units (counter-clockwise), as marl_bgs.core.state.wall_corners.
export function wallCorners(ob) {
  const theta = ob.theta || 0;
  const c = Math.cos(theta);
  const sn = Math.sin(theta);
  const hx = ob.width / 2;
  const hy = ob.height / 2;
  return [[-hx, -hy], [hx, -hy], [hx, hy], [-hx, hy]].map(([lx, ly]) => [
    (ob.x + c * lx - sn * ly) * 1000,
    (ob.y + sn * lx + c * ly) * 1000,
  ]);
}

// Distance along a ray from (ox, oy) in direction (dx, dy) to the first obstacle, capped.
function rayHit(ox, oy, dx, dy, cap, obstacles) {
  let best = cap;
  for (const ob of obstacles) {
    if (ob.kind === "pillar") {
      const cx = ob.x * 1000 - ox;
      const cy = ob.y * 1000 - oy;
      const r = ob.radius * 1000;
      const b = cx * dx + cy * dy;
      const disc = b * b - (cx * cx + cy * cy - r * r);
      if (disc >= 0) {
        const t = b - Math.sqrt(disc);
        if (t >= 0 && t < best) best = t;
      }
    } else {
      const pts = ob.corners;
      for (let i = 0; i < 4; i++) {
        const [ax, ay] = pts[i];
        const [bx, by] = pts[(i + 1) % 4];
        const ex = bx - ax;
        const ey = by - ay;
        const den = dx * ey - dy * ex;
        if (Math.abs(den) < 1e-12) continue;
        const t = ((ax - ox) * ey - (ay - oy) * ex) / den;
        const u = ((ax - ox) * dy - (ay - oy) * dx) / den;
        if (t >= 0 && u >= 0 && u <= 1 && t < best) best = t;
      }
    }
  }
  return best;
}

// The area an agent can see: its sight radius cut by obstacles (drawing only; who is
// visible comes from the recorded sight masks).
export function sightPolygon(x, y, radius, obstacles) {
  const points = [];
  for (let k = 0; k < RAYS; k++) {
    const a = (2 * Math.PI * k) / RAYS;
    const dx = Math.cos(a);
    const dy = Math.sin(a);
    const t = rayHit(x, y, dx, dy, radius, obstacles);
    points.push([x + dx * t, y + dy * t]);
  }
  return points;
}

export function prepareObstacles(map) {
  return map.obstacles.map((ob) => (ob.kind === "wall" ? { ...ob, corners: wallCorners(ob) } : ob));
}

function drawArena(ctx, sc, replay, t, obstacles) {
  const f = replay.frames;
  const rules = replay.rules;
  ctx.fillStyle = PALETTE.floor;
  ctx.fillRect(0, 0, sc.width, sc.height);
  // Red Zones: the strip at each team's own spawn end, red, with a dashed inner edge.
  const depth = f.red_zone_depth[t];
  for (let team = 0; team < 2; team++) {
    const left = f.spawn_end[t][team] === 0;
    const x0 = left ? 0 : rules.arena[0] - depth;
    ctx.fillStyle = PALETTE.red_zone_fill;
    ctx.fillRect(sc.x(x0), 0, depth * sc.s, sc.height);
    ctx.strokeStyle = PALETTE.red_zone;
    ctx.setLineDash([6, 4]);
    ctx.lineWidth = 1;
    ctx.beginPath();
    const edge = sc.x(left ? depth : rules.arena[0] - depth);
    ctx.moveTo(edge, 0);
    ctx.lineTo(edge, sc.height);
    ctx.stroke();
    ctx.setLineDash([]);
    // Spawn pads of this team's end: square outlines in the team's colour.
    const pads = rules.pads[left ? "left" : "right"];
    ctx.strokeStyle = PALETTE.team_light[team];
    ctx.lineWidth = 2;
    for (const [px, py] of pads) {
      const half = rules.body_radius * sc.s;
      ctx.strokeRect(sc.x(px) - half, sc.y(py) - half, 2 * half, 2 * half);
    }
  }
  ctx.fillStyle = PALETTE.obstacle;
  ctx.strokeStyle = PALETTE.obstacle;
  for (const ob of obstacles) {
    ctx.beginPath();
    if (ob.kind === "pillar") {
      ctx.arc(sc.x(ob.x * 1000), sc.y(ob.y * 1000), ob.radius * 1000 * sc.s, 0, 2 * Math.PI);
      ctx.fill();
    } else if (isThinWall(ob)) {
      // A thin wall: a line along its length, never thinner than thin_wall_px on screen.
      const [a, b, c, d] = ob.corners;
      const mid = (p, q) => [(p[0] + q[0]) / 2, (p[1] + q[1]) / 2];
      const [from, to] = ob.width >= ob.height ? [mid(a, d), mid(b, c)] : [mid(a, b), mid(d, c)];
      ctx.lineWidth = Math.max(PALETTE.thin_wall_px, Math.min(ob.width, ob.height) * 1000 * sc.s);
      ctx.lineCap = "butt";
      ctx.moveTo(sc.x(from[0]), sc.y(from[1]));
      ctx.lineTo(sc.x(to[0]), sc.y(to[1]));
      ctx.stroke();
    } else {
      ob.corners.forEach(([cx, cy], i) => (i ? ctx.lineTo(sc.x(cx), sc.y(cy)) : ctx.moveTo(sc.x(cx), sc.y(cy))));
      ctx.closePath();
      ctx.fill();
    }
  }
}

// Walls thinner than palette.thin_wall map units are drawn as lines of a minimum width.
export function isThinWall(ob) {
  return ob.kind === "wall" && Math.min(ob.width, ob.height) < PALETTE.thin_wall;
}

function drawSight(ctx, sc, agents, view, obstacles) {
  if (view === ORACLE) return;
  const eyes = eyesOf(view).map((s) => agents[s]).filter((a) => a.present && a.alive);
  const shade = document.createElement("canvas");
  shade.width = ctx.canvas.width;
  shade.height = ctx.canvas.height;
  const sctx = shade.getContext("2d");
  sctx.setTransform(ctx.getTransform());
  sctx.fillStyle = PALETTE.shade;
  sctx.fillRect(0, 0, sc.width, sc.height);
  sctx.globalCompositeOperation = "destination-out";
  sctx.fillStyle = "black"; // a mask: only its alpha counts
  for (const a of eyes) {
    const poly = sightPolygon(a.x, a.y, a.sight, obstacles);
    sctx.beginPath();
    poly.forEach(([px, py], i) => (i ? sctx.lineTo(sc.x(px), sc.y(py)) : sctx.moveTo(sc.x(px), sc.y(py))));
    sctx.closePath();
    sctx.fill();
  }
  ctx.save();
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.drawImage(shade, 0, 0);
  ctx.restore();
}

function line(ctx, sc, a, b, colour, width, dash = []) {
  ctx.strokeStyle = colour;
  ctx.lineWidth = width;
  ctx.setLineDash(dash);
  ctx.beginPath();
  ctx.moveTo(sc.x(a[0]), sc.y(a[1]));
  ctx.lineTo(sc.x(b[0]), sc.y(b[1]));
  ctx.stroke();
  ctx.setLineDash([]);
}

function drawEvents(ctx, sc, events, before, rules) {
  // Where each agent stood when the tick began: combat is judged from there.
  const at = (name) => {
    const a = before[AGENT_NAMES.indexOf(name)];
    return [a.x, a.y];
  };
  const body = rules.body_radius * sc.s;
  for (const e of events) {
    if (e.kind === "damage") line(ctx, sc, at(e.source), at(e.target), PALETTE.damage, 2.5);
    else if (e.kind === "heal") line(ctx, sc, at(e.source), at(e.target), PALETTE.heal, 2.5, [5, 3]);
    else if (e.kind === "charge") {
      line(ctx, sc, [e.from[0] * 1000, e.from[1] * 1000], [e.to[0] * 1000, e.to[1] * 1000], PALETTE.charge, 4, [10, 4]);
    } else if (e.kind === "respawn") {
      ctx.strokeStyle = TEAM_COLOURS["ab".indexOf(e.target[0])];
      ctx.lineWidth = 2;
      ctx.beginPath();
      ctx.arc(sc.x(e.at[0] * 1000), sc.y(e.at[1] * 1000), body * 1.4, 0, 2 * Math.PI);
      ctx.stroke();
    }
  }
}

// An agent that died during the tick, where it fell: a faded grey body with a dark cross.
function drawFallen(ctx, sc, a, rules) {
  const r = rules.body_radius * sc.s;
  const px = sc.x(a.x);
  const py = sc.y(a.y);
  ctx.fillStyle = PALETTE.fallen;
  ctx.globalAlpha = 0.6;
  ctx.beginPath();
  ctx.arc(px, py, r, 0, 2 * Math.PI);
  ctx.fill();
  ctx.globalAlpha = 1;
  ctx.strokeStyle = TEAM_COLOURS[a.team];
  ctx.lineWidth = 2;
  ctx.stroke();
  const k = r * 0.9;
  ctx.strokeStyle = PALETTE.death;
  ctx.lineWidth = 3;
  ctx.beginPath();
  ctx.moveTo(px - k, py - k);
  ctx.lineTo(px + k, py + k);
  ctx.moveTo(px + k, py - k);
  ctx.lineTo(px - k, py + k);
  ctx.stroke();
}

function drawAgent(ctx, sc, a, rules) {
  const r = rules.body_radius * sc.s;
  const px = sc.x(a.x);
  const py = sc.y(a.y);
  ctx.globalAlpha = a.shield > 0 ? 0.55 : 1;
  ctx.fillStyle = TEAM_COLOURS[a.team];
  ctx.beginPath();
  ctx.arc(px, py, r, 0, 2 * Math.PI);
  ctx.fill();
  ctx.globalAlpha = 1;
  if (a.shield > 0) {
    ctx.strokeStyle = PALETTE.shield;
    ctx.setLineDash([3, 3]);
    ctx.lineWidth = 2;
    ctx.beginPath();
    ctx.arc(px, py, r + 3, 0, 2 * Math.PI);
    ctx.stroke();
    ctx.setLineDash([]);
  }
  // Trap and Poison marks.
  if (a.effects.trap) {
    ctx.strokeStyle = PALETTE.trap;
    ctx.lineWidth = 2;
    ctx.strokeRect(px - r - 4, py - r - 4, 2 * r + 8, 2 * r + 8);
  }
  if (a.effects.slow_poison || a.effects.healing_cut) {
    ctx.fillStyle = PALETTE.poison;
    for (let k = 0; k < 3; k++) {
      ctx.beginPath();
      ctx.arc(px + r + 4, py - r + k * r * 0.9, 2.5, 0, 2 * Math.PI);
      ctx.fill();
    }
  }
  // Class glyph.
  ctx.fillStyle = PALETTE.label_halo;
  ctx.font = `bold ${Math.round(r * 1.1)}px sans-serif`;
  ctx.textAlign = "center";
  ctx.textBaseline = "middle";
  ctx.fillText(a.classTitle.slice(0, 1), px, py + 1);
  // Health bar.
  const w = 2 * r;
  ctx.fillStyle = PALETTE.health_track;
  ctx.fillRect(px - r, py - r - 8, w, 5);
  ctx.fillStyle = a.health / a.maxHealth > PALETTE.health_low_share ? PALETTE.health_good : PALETTE.health_low;
  ctx.fillRect(px - r, py - r - 8, (w * a.health) / a.maxHealth, 5);
  // Ultimate readiness: a full gold ring when ready, else the share of cooldown gone.
  const share = 1 - a.ultimateCooldown / rules.ultimate_cooldown;
  ctx.strokeStyle = a.ultimateCooldown === 0 ? PALETTE.ult_ready : PALETTE.ult_wait;
  ctx.lineWidth = 2;
  ctx.beginPath();
  ctx.arc(px - r - 5, py + r + 2, 4, -Math.PI / 2, -Math.PI / 2 + 2 * Math.PI * share);
  ctx.stroke();
  // Status icons under the body.
  const labels = Object.keys(a.effects).map((n) => EFFECT_LABELS[n] || n.slice(0, 3).toUpperCase());
  if (labels.length) {
    ctx.font = "9px sans-serif";
    ctx.fillStyle = PALETTE.text;
    ctx.fillText([...new Set(labels)].join(" "), px, py + r + 9);
  }
}

// The agents that died during tick t (frame t), as they stood when it began.
export function fallenAt(replay, view, t) {
  if (t < 1) return [];
  const before = agentsAt(replay, view, t - 1);
  return eventsDuring(replay, view, t)
    .filter((e) => e.kind === "death")
    .map((e) => before[AGENT_NAMES.indexOf(e.target)]);
}

// Draw frame t of `replay` as `view` sees it: the arena after tick t with what happened during
// tick t. `canvas` keeps its CSS width; returns the scale and the agents of frame t.
export function renderFrame(canvas, replay, view, t, obstacles) {
  const ctx = canvas.getContext("2d");
  const ratio = globalThis.devicePixelRatio || 1;
  const cssWidth = canvas.clientWidth || 800;
  const sc = makeScale(cssWidth, replay.rules);
  canvas.width = Math.round(cssWidth * ratio);
  canvas.height = Math.round(sc.height * ratio);
  canvas.style.height = `${sc.height}px`;
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  const agents = agentsAt(replay, view, t);
  drawArena(ctx, sc, replay, t, obstacles);
  drawSight(ctx, sc, agents, view, obstacles);
  if (t >= 1) {
    for (const a of fallenAt(replay, view, t)) drawFallen(ctx, sc, a, replay.rules);
    drawEvents(ctx, sc, eventsDuring(replay, view, t), agentsAt(replay, view, t - 1), replay.rules);
  }
  for (const a of agents) if (a.present && a.visible && a.alive) drawAgent(ctx, sc, a, replay.rules);
  return { scale: sc, agents };
}

export { teamOf };
