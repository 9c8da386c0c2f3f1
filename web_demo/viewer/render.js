// Drawing one frame of a replay on a canvas: the arena to scale, what the chosen view sees,
// and what happens during the tick (attacks, heals, Charges, deaths, respawns).
// Numbers about classes and effects come from the replay's own `rules` table.

import { AGENT_NAMES } from "./format/validate.js";
import { ORACLE, agentsAt, eventsAt, eyesOf, teamOf } from "./view.js";

export const TEAM_COLOURS = ["#2f6fd6", "#d6452f"];
const TEAM_LIGHT = ["rgba(47,111,214,0.16)", "rgba(214,69,47,0.16)"];
const EFFECT_LABELS = {
  stun: "STN", trap: "TRP", slow_hunter: "SLW", slow_charge: "SLW", slow_poison: "PSN",
  healing_cut: "CUT", burst: "BST", blessing: "BLS",
};
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
  ctx.fillStyle = "#f4f1e8";
  ctx.fillRect(0, 0, sc.width, sc.height);
  // Red Zones: the strip at each team's own spawn end, tinted with that team's colour.
  const depth = f.red_zone_depth[t];
  for (let team = 0; team < 2; team++) {
    const left = f.spawn_end[t][team] === 0;
    const x0 = left ? 0 : rules.arena[0] - depth;
    ctx.fillStyle = TEAM_LIGHT[team];
    ctx.fillRect(sc.x(x0), 0, depth * sc.s, sc.height);
    ctx.strokeStyle = TEAM_COLOURS[team];
    ctx.setLineDash([6, 4]);
    ctx.lineWidth = 1;
    ctx.beginPath();
    const edge = sc.x(left ? depth : rules.arena[0] - depth);
    ctx.moveTo(edge, 0);
    ctx.lineTo(edge, sc.height);
    ctx.stroke();
    ctx.setLineDash([]);
    // Spawn pads of this team's end.
    const pads = rules.pads[left ? "left" : "right"];
    ctx.fillStyle = TEAM_COLOURS[team];
    ctx.globalAlpha = 0.35;
    for (const [px, py] of pads) {
      const half = rules.body_radius * sc.s;
      ctx.fillRect(sc.x(px) - half, sc.y(py) - half, 2 * half, 2 * half);
    }
    ctx.globalAlpha = 1;
  }
  ctx.fillStyle = "#5b5347";
  for (const ob of obstacles) {
    ctx.beginPath();
    if (ob.kind === "pillar") {
      ctx.arc(sc.x(ob.x * 1000), sc.y(ob.y * 1000), ob.radius * 1000 * sc.s, 0, 2 * Math.PI);
    } else {
      ob.corners.forEach(([cx, cy], i) => (i ? ctx.lineTo(sc.x(cx), sc.y(cy)) : ctx.moveTo(sc.x(cx), sc.y(cy))));
      ctx.closePath();
    }
    ctx.fill();
  }
}

function drawSight(ctx, sc, agents, view, obstacles) {
  if (view === ORACLE) return;
  const eyes = eyesOf(view).map((s) => agents[s]).filter((a) => a.present && a.alive);
  const shade = document.createElement("canvas");
  shade.width = ctx.canvas.width;
  shade.height = ctx.canvas.height;
  const sctx = shade.getContext("2d");
  sctx.setTransform(ctx.getTransform());
  sctx.fillStyle = "rgba(20,20,30,0.38)";
  sctx.fillRect(0, 0, sc.width, sc.height);
  sctx.globalCompositeOperation = "destination-out";
  sctx.fillStyle = "#000";
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

function cross(ctx, sc, x, y, size, colour) {
  ctx.strokeStyle = colour;
  ctx.lineWidth = 3;
  const px = sc.x(x);
  const py = sc.y(y);
  ctx.beginPath();
  ctx.moveTo(px - size, py - size);
  ctx.lineTo(px + size, py + size);
  ctx.moveTo(px + size, py - size);
  ctx.lineTo(px - size, py + size);
  ctx.stroke();
}

function drawEvents(ctx, sc, events, agents, rules) {
  const at = (name) => {
    const a = agents[AGENT_NAMES.indexOf(name)];
    return [a.x, a.y];
  };
  const body = rules.body_radius * sc.s;
  for (const e of events) {
    if (e.kind === "damage") line(ctx, sc, at(e.source), at(e.target), "rgba(200,40,20,0.85)", 2.5);
    else if (e.kind === "heal") line(ctx, sc, at(e.source), at(e.target), "rgba(30,160,60,0.9)", 2.5, [5, 3]);
    else if (e.kind === "charge") {
      line(ctx, sc, [e.from[0] * 1000, e.from[1] * 1000], [e.to[0] * 1000, e.to[1] * 1000], "#7a2fd6", 4, [10, 4]);
    } else if (e.kind === "death") {
      const [x, y] = at(e.target);
      cross(ctx, sc, x, y, body * 0.9, "#111");
    } else if (e.kind === "respawn") {
      ctx.strokeStyle = TEAM_COLOURS["ab".indexOf(e.target[0])];
      ctx.lineWidth = 2;
      ctx.beginPath();
      ctx.arc(sc.x(e.at[0] * 1000), sc.y(e.at[1] * 1000), body * 1.4, 0, 2 * Math.PI);
      ctx.stroke();
    }
  }
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
    ctx.strokeStyle = "#e8c200";
    ctx.setLineDash([3, 3]);
    ctx.lineWidth = 2;
    ctx.beginPath();
    ctx.arc(px, py, r + 3, 0, 2 * Math.PI);
    ctx.stroke();
    ctx.setLineDash([]);
  }
  // Trap and Poison marks.
  if (a.effects.trap) {
    ctx.strokeStyle = "#0aa4c4";
    ctx.lineWidth = 2;
    ctx.strokeRect(px - r - 4, py - r - 4, 2 * r + 8, 2 * r + 8);
  }
  if (a.effects.slow_poison || a.effects.healing_cut) {
    ctx.fillStyle = "#3c9a1e";
    for (let k = 0; k < 3; k++) {
      ctx.beginPath();
      ctx.arc(px + r + 4, py - r + k * r * 0.9, 2.5, 0, 2 * Math.PI);
      ctx.fill();
    }
  }
  // Class glyph.
  ctx.fillStyle = "#fff";
  ctx.font = `bold ${Math.round(r * 1.1)}px sans-serif`;
  ctx.textAlign = "center";
  ctx.textBaseline = "middle";
  ctx.fillText(a.classTitle.slice(0, 1), px, py + 1);
  // Health bar.
  const w = 2 * r;
  ctx.fillStyle = "#333";
  ctx.fillRect(px - r, py - r - 8, w, 5);
  ctx.fillStyle = a.health / a.maxHealth > 0.35 ? "#2fae3f" : "#e0a21b";
  ctx.fillRect(px - r, py - r - 8, (w * a.health) / a.maxHealth, 5);
  // Ultimate readiness: a full gold ring when ready, else the share of cooldown gone.
  const share = 1 - a.ultimateCooldown / rules.ultimate_cooldown;
  ctx.strokeStyle = a.ultimateCooldown === 0 ? "#f2b800" : "rgba(90,90,90,0.8)";
  ctx.lineWidth = 2;
  ctx.beginPath();
  ctx.arc(px - r - 5, py + r + 2, 4, -Math.PI / 2, -Math.PI / 2 + 2 * Math.PI * share);
  ctx.stroke();
  // Status icons under the body.
  const labels = Object.keys(a.effects).map((n) => EFFECT_LABELS[n] || n.slice(0, 3).toUpperCase());
  if (labels.length) {
    ctx.font = "9px sans-serif";
    ctx.fillStyle = "#222";
    ctx.fillText([...new Set(labels)].join(" "), px, py + r + 9);
  }
}

// Draw frame t of `replay` as `view` sees it. `canvas` keeps its CSS width; returns the scale.
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
  drawEvents(ctx, sc, eventsAt(replay, view, t), agents, replay.rules);
  for (const a of agents) if (a.present && a.visible && a.alive) drawAgent(ctx, sc, a, replay.rules);
  return { scale: sc, agents };
}

export { teamOf };
