// The Sight Lab's sight test gives the engine's answer on every exported vector.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { checkVectors, nearSegment, sightBlocked } from "../sightlab/sight.js";

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
