// The Sight Lab's sight test gives the engine's answer on every exported vector.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import {
  bodyBlocked,
  checkVectors,
  nearSegment,
  sightBlocked,
  snapToFree,
} from "../sightlab/sight.js";

const root = fileURLToPath(new URL("../../exports/sight/", import.meta.url));
const lab = JSON.parse(readFileSync(root + "lab.json", "utf8"));
const vectors = JSON.parse(readFileSync(root + "vectors.json", "utf8"));

test("every exported sight line and sight matrix matches the engine", () => {
  const r = checkVectors(lab, vectors);
  assert.ok(r.lines > 1000, "too few line vectors");
  assert.ok(r.matrices > 50, "too few sight matrices");
  assert.deepEqual(r.failures, []);
  assert.equal(r.lineMismatches, 0);
  assert.equal(r.matrixMismatches, 0);
});

test("vectors cover both answers and every map", () => {
  const blocked = vectors.lines.filter((v) => v.blocked).length;
  assert.ok(blocked > 0 && blocked < vectors.lines.length);
  assert.equal(new Set(vectors.lines.map((v) => v.map)).size, lab.maps.length);
});

test("a line grazing a pillar is blocked, one milli-unit off is clear", () => {
  const shapes = { boxes: [[5000, 5000, 5000, 5000, 500]], polys: [] };
  assert.equal(sightBlocked(shapes, [2000, 5500], [8000, 5500]), true);
  assert.equal(sightBlocked(shapes, [2000, 5501], [8000, 5501]), false);
  assert.equal(nearSegment(0, 3, 0, 0, 10, 0, 3), true);
});

test("a turned wall blocks a line through it and not one beside it", () => {
  const diamond = [[5000, 4000], [6000, 5000], [5000, 6000], [4000, 5000]];
  const shapes = { boxes: [], polys: [diamond] };
  assert.equal(sightBlocked(shapes, [2000, 5000], [8000, 5000]), true);
  assert.equal(sightBlocked(shapes, [2000, 6500], [8000, 6500]), false);
});

// Snapping a body to the nearest spot the engine accepts (Sight Lab, issue 19).
const pillar = { boxes: [[5000, 5000, 5000, 5000, 500]], polys: [] };
const dist = (a, b) => Math.hypot(a[0] - b[0], a[1] - b[1]);

test("a free spot is kept as it is", () => {
  assert.deepEqual(snapToFree(pillar, [2000, 2000]), { point: [2000, 2000], moved: false });
});

test("a body inside a pillar moves just outside it, to the nearest free point", () => {
  const p = [5200, 5000];
  const { point, moved } = snapToFree(pillar, p);
  assert.equal(moved, true);
  assert.equal(bodyBlocked(pillar, point), false);
  // Touching is allowed: the centre ends 1000 (pillar 500 + body 500) from the pillar's.
  const fromCentre = dist(point, [5000, 5000]);
  assert.ok(fromCentre >= 1000 && fromCentre <= 1002, `at ${fromCentre}`);
  // Straight out from the centre (the nearest way), not around the pillar.
  assert.ok(point[0] > 5990 && Math.abs(point[1] - 5000) <= 20, `${point}`);
  assert.deepEqual(p, [5200, 5000]); // the input is not changed
  assert.deepEqual(snapToFree(pillar, p), { point, moved }); // pure: same answer again
});

test("a body inside a wall leaves by the nearer side", () => {
  const wall = { boxes: [[7000, 2000, 9000, 8000, 0]], polys: [] };
  const { point } = snapToFree(wall, [7300, 5000]);
  assert.equal(bodyBlocked(wall, point), false);
  assert.ok(Math.abs(point[0] - 6500) <= 2 && Math.abs(point[1] - 5000) <= 20, `${point}`);
});

test("a turned wall: the snapped body touches it and no closer free point is missed", () => {
  const diamond = { boxes: [], polys: [[[5000, 4000], [6000, 5000], [5000, 6000], [4000, 5000]]] };
  const p = [5100, 5000];
  const { point } = snapToFree(diamond, p);
  assert.equal(bodyBlocked(diamond, point), false);
  // p is (11000 - 10100) / sqrt(2) from the edge x + y = 11000; the body needs 500 more.
  const need = (11000 - 10100) / Math.SQRT2 + 500;
  assert.ok(dist(point, p) <= need + 12, `moved ${dist(point, p)} > ${need}`);
});

test("a body off the arena or on another body is moved onto free ground", () => {
  const open = { boxes: [], polys: [] };
  const edge = snapToFree(open, [100, 5000]);
  assert.deepEqual(edge.point, [500, 5000]);
  const other = [[3000, 3000]];
  const { point } = snapToFree(open, [3300, 3000], other);
  assert.ok(dist(point, other[0]) >= 1000 && dist(point, other[0]) <= 1002);
});

test("the engine's body test: touching is allowed, overlapping is not", () => {
  assert.equal(bodyBlocked(pillar, [6000, 5000]), false);
  assert.equal(bodyBlocked(pillar, [5999, 5000]), true);
  assert.equal(bodyBlocked(pillar, [499, 5000]), true);
});
