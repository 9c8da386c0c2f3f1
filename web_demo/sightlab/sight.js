// The engine's sight test, ported line for line from marl_bgs/core/geometry.py
// (sight_blocked) and marl_bgs/core/sight.py (compute_sight).
//
// Coordinates are whole milli-units. Every product stays far below 2**53, so JavaScript
// numbers are exact integers here, like the engine's int32 arrays. The one float step
// (|cross| against r * sqrt(|u|^2)) is done in float32 with Math.fround, as the engine
// does: each operation is correctly rounded, so the answers are identical.
// Checked against vectors exported from the engine (scripts/export_sight_vectors.py).

const f32 = Math.fround;

function orient(ax, ay, bx, by, px, py) {
  return (bx - ax) * (py - ay) - (by - ay) * (px - ax);
}

function sign(v) {
  return v > 0 ? 1 : v < 0 ? -1 : 0;
}

const closerOrTouching = (d, limit) => d <= limit;
const closer = (d, limit) => d < limit;

/** Whether point p lies within r of segment a-b (closed: touching counts; `strict`: only a
 * point closer than r counts, the engine's test of where a body may stand; `exact`, with
 * `strict`: decided in whole numbers, as the engine decides a body against a turned wall). */
export function nearSegment(px, py, ax, ay, bx, by, r, strict = false, exact = false) {
  const inside = strict ? closer : closerOrTouching;
  const ux = bx - ax;
  const uy = by - ay;
  const wx = px - ax;
  const wy = py - ay;
  const dot = wx * ux + wy * uy;
  const uu = ux * ux + uy * uy;
  const r2 = r * r;
  if (dot <= 0) return inside(wx * wx + wy * wy, r2);
  if (dot >= uu) return inside((px - bx) * (px - bx) + (py - by) * (py - by), r2);
  if (exact) return belowRoot(Math.abs(wx * uy - wy * ux), r, uu); // strict, in whole numbers
  const cross = f32(Math.abs(wx * uy - wy * ux));
  const reach = f32(f32(r) * f32(Math.sqrt(f32(uu))));
  return inside(cross, reach);
}

function boxBlocks(box, x0, y0, x1, y1) {
  const [lox, loy, hix, hiy, r] = box;
  if (r > 0) return nearSegment(lox, loy, x0, y0, x1, y1, r);
  const overlap =
    Math.max(x0, x1) >= lox &&
    Math.min(x0, x1) <= hix &&
    Math.max(y0, y1) >= loy &&
    Math.min(y0, y1) <= hiy;
  if (!overlap) return false;
  const s = [
    sign(orient(x0, y0, x1, y1, lox, loy)),
    sign(orient(x0, y0, x1, y1, hix, loy)),
    sign(orient(x0, y0, x1, y1, hix, hiy)),
    sign(orient(x0, y0, x1, y1, lox, hiy)),
  ];
  const apart = s[0] === s[1] && s[1] === s[2] && s[2] === s[3] && s[0] !== 0;
  return !apart;
}

function polyBlocks(corners, x0, y0, x1, y1) {
  let crossesAny = false;
  let in0 = true;
  let in1 = true;
  for (let k = 0; k < 4; k++) {
    const [ax, ay] = corners[k];
    const [bx, by] = corners[(k + 1) % 4];
    const s1 = sign(orient(ax, ay, bx, by, x0, y0));
    const s2 = sign(orient(ax, ay, bx, by, x1, y1));
    const s3 = sign(orient(x0, y0, x1, y1, ax, ay));
    const s4 = sign(orient(x0, y0, x1, y1, bx, by));
    if (s1 < 0) in0 = false;
    if (s2 < 0) in1 = false;
    const collinear = s1 === 0 && s2 === 0;
    const boxes =
      Math.max(ax, bx) >= Math.min(x0, x1) &&
      Math.max(x0, x1) >= Math.min(ax, bx) &&
      Math.max(ay, by) >= Math.min(y0, y1) &&
      Math.max(y0, y1) >= Math.min(ay, by);
    if (s1 * s2 <= 0 && s3 * s4 <= 0 && (!collinear || boxes)) crossesAny = true;
  }
  return crossesAny || in0 || in1;
}

/**
 * Whether the segment p0 -> p1 (milli-units) touches any obstacle of `shapes`
 * ({boxes: [[lox, loy, hix, hiy, radius]], polys: [[[x, y] x 4]]}, as in lab.json).
 */
export function sightBlocked(shapes, p0, p1) {
  const [x0, y0] = p0;
  const [x1, y1] = p1;
  for (const box of shapes.boxes) if (boxBlocks(box, x0, y0, x1, y1)) return true;
  for (const poly of shapes.polys) if (polyBlocks(poly, x0, y0, x1, y1)) return true;
  return false;
}

/**
 * Who sees whom with its own eyes: ownSight[i][j] is true when i and j are alive, j's centre
 * is within i's sight radius (sightSq[cls[i]], milli-units squared) and the line is clear.
 */
export function computeSight(shapes, pos, cls, alive, sightSq) {
  const n = pos.length;
  const out = [];
  for (let i = 0; i < n; i++) {
    const row = [];
    for (let j = 0; j < n; j++) {
      const dx = pos[i][0] - pos[j][0];
      const dy = pos[i][1] - pos[j][1];
      const ok =
        alive[i] &&
        alive[j] &&
        dx * dx + dy * dy <= sightSq[cls[i]] &&
        (i === j || !sightBlocked(shapes, pos[Math.min(i, j)], pos[Math.max(i, j)]));
      row.push(ok);
    }
    out.push(row);
  }
  return out;
}

/** Count of vectors where this module disagrees with the engine (0 means identical). */
export function checkVectors(lab, vectors) {
  const byId = new Map(lab.maps.map((m) => [m.id, m]));
  const sightSq = lab.classes.map((c) => c.sight_sq);
  let lines = 0;
  let matrices = 0;
  const failures = [];
  for (const v of vectors.lines) {
    if (sightBlocked(byId.get(v.map), v.p0, v.p1) !== v.blocked) {
      lines++;
      if (failures.length < 5) failures.push(v);
    }
  }
  for (const v of vectors.sight) {
    const got = computeSight(byId.get(v.map), v.pos, v.cls, v.alive, sightSq);
    const same = got.every((row, i) => row.every((x, j) => x === Boolean(v.own_sight[i][j])));
    if (!same) {
      matrices++;
      if (failures.length < 5) failures.push(v);
    }
  }
  return {
    lines: vectors.lines.length,
    matrices: vectors.sight.length,
    lineMismatches: lines,
    matrixMismatches: matrices,
    failures,
  };
}

// ---------------------------------------------------------------------------------------
// Where a body may stand: ported from marl_bgs/core/geometry.py (body_overlap) and
// marl_bgs/core/movement.py (overlapping_pairs). The engine refuses a position whose body
// sinks into an obstacle, leaves the arena or overlaps another body (touching is allowed).

export const BODY = 500; // body radius, milli-units
export const ARENA = { lox: BODY, loy: BODY, hix: 20000 - BODY, hiy: 10000 - BODY };
const CONTACT_SQ = (2 * BODY) * (2 * BODY);

/**
 * Exactly whether c < r * sqrt(u) for whole numbers c >= 0, r >= 1, u >= 0 (the engine's
 * shape_tests.below_root, step for step: every value stays far below 2**53).
 */
export function belowRoot(c, r, u) {
  const q = Math.min(Math.floor(c / r), 46340);
  const s = c - q * r;
  const d = u - q * q;
  if (d > 2 * q) return true;
  if (d <= 0) return false;
  const x = r * d - 2 * q * s;
  return x >= r || (x > 0 && r * x > s * s);
}

/** Whether a body centred at p (milli-units) sinks into an obstacle or leaves the arena. */
export function bodyBlocked(shapes, p) {
  const [x, y] = p;
  if (x < ARENA.lox || x > ARENA.hix || y < ARENA.loy || y > ARENA.hiy) return true;
  for (const [lox, loy, hix, hiy, r] of shapes.boxes) {
    const gx = Math.max(lox - x, x - hix, 0);
    const gy = Math.max(loy - y, y - hiy, 0);
    const grown = r + BODY;
    if (gx * gx + gy * gy < grown * grown) return true;
  }
  for (const corners of shapes.polys) {
    let inside = true;
    for (let k = 0; k < 4; k++) {
      const [ax, ay] = corners[k];
      const [bx, by] = corners[(k + 1) % 4];
      if (nearSegment(x, y, ax, ay, bx, by, BODY, true, true)) return true;
      if (orient(ax, ay, bx, by, x, y) < 0) inside = false;
    }
    if (inside) return true;
  }
  return false;
}

/** Whether a body at p may stand there: no obstacle, inside the arena, no body overlapped. */
export function standable(shapes, p, others = []) {
  if (bodyBlocked(shapes, p)) return false;
  return others.every((o) => (o[0] - p[0]) ** 2 + (o[1] - p[1]) ** 2 >= CONTACT_SQ);
}

const SNAP_STEP = 10; // milli-units between the rings searched
const SNAP_MAX = 25000; // farther than any point of the arena

/**
 * The nearest spot to p (whole milli-units) where a body may stand, given the map's shapes
 * and the other bodies `others`: p itself when it is free, else the first free point on
 * rings of growing radius around p (10 milli-units apart), refined along its direction to
 * the milli-unit. Pure: same input, same answer. Returns {point, moved}.
 */
export function snapToFree(shapes, p, others = []) {
  const start = [Math.round(p[0]), Math.round(p[1])];
  const free = (q) => standable(shapes, q, others);
  if (free(start)) return { point: start, moved: false };
  for (let r = SNAP_STEP; r <= SNAP_MAX; r += SNAP_STEP) {
    const n = Math.max(8, Math.ceil((2 * Math.PI * r) / SNAP_STEP));
    let best = null;
    for (let k = 0; k < n; k++) {
      const a = (2 * Math.PI * k) / n;
      const q = [Math.round(start[0] + r * Math.cos(a)), Math.round(start[1] + r * Math.sin(a))];
      if (!free(q)) continue;
      const d2 = (q[0] - start[0]) ** 2 + (q[1] - start[1]) ** 2;
      if (!best || d2 < best.d2) best = { q, d2, a };
    }
    if (!best) continue;
    // Refine along the found direction: the closest free point between the last two rings.
    let lo = r - SNAP_STEP; // not free (or the blocked start)
    let hi = r;
    let point = best.q;
    const at = (t) => [
      Math.round(start[0] + t * Math.cos(best.a)),
      Math.round(start[1] + t * Math.sin(best.a)),
    ];
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      const q = at(mid);
      if (free(q)) {
        hi = mid;
        point = q;
      } else lo = mid;
    }
    return { point, moved: true };
  }
  return { point: start, moved: false }; // nowhere to stand: leave it (never on real maps)
}
