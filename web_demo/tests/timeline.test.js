import assert from "node:assert/strict";
import { test } from "node:test";

import {
  SPEEDS, TICKS_PER_SECOND, advance, createTimeline, faster, seek, slower, speedOf, stepBy,
  togglePlay,
} from "../viewer/timeline.js";

test("stepping and seeking stay within 0..ticks", () => {
  let tl = createTimeline(10, 4);
  assert.equal(tl.tick, 4);
  tl = stepBy(tl, -10);
  assert.equal(tl.tick, 0);
  tl = stepBy(tl, 3);
  assert.equal(tl.tick, 3);
  assert.equal(seek(tl, 99).tick, 10);
  assert.equal(seek(tl, Number.NaN).tick, 0);
  assert.equal(createTimeline(10, -5).tick, 0);
});

test("playing advances whole frames and carries the rest", () => {
  let tl = togglePlay(createTimeline(100));
  assert.equal(tl.playing, true);
  const msPerTick = 1000 / TICKS_PER_SECOND;
  tl = advance(tl, msPerTick * 0.6);
  assert.equal(tl.tick, 0);
  tl = advance(tl, msPerTick * 0.6);
  assert.equal(tl.tick, 1); // 1.2 frames so far: one shown, 0.2 carried
  tl = faster(tl);
  assert.equal(speedOf(tl), 2);
  tl = advance(tl, msPerTick * 2);
  assert.equal(tl.tick, 5);
});

test("playing stops at the end; play again restarts; stepping pauses", () => {
  let tl = togglePlay(createTimeline(5, 3));
  tl = advance(tl, 100000);
  assert.deepEqual([tl.tick, tl.playing], [5, false]);
  tl = togglePlay(tl);
  assert.deepEqual([tl.tick, tl.playing], [0, true]);
  tl = stepBy(tl, 1);
  assert.equal(tl.playing, false);
  assert.equal(advance(tl, 5000).tick, 1); // paused: time does nothing
});

test("speed is bounded", () => {
  let tl = createTimeline(3);
  for (let i = 0; i < 20; i++) tl = faster(tl);
  assert.equal(speedOf(tl), SPEEDS.at(-1));
  for (let i = 0; i < 20; i++) tl = slower(tl);
  assert.equal(speedOf(tl), SPEEDS[0]);
});

test("an empty replay never plays", () => {
  const tl = togglePlay(createTimeline(0));
  assert.equal(tl.playing, false);
});
