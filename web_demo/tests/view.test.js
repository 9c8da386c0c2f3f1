import assert from "node:assert/strict";
import { test } from "node:test";

import { readReplayBytes } from "../viewer/format/validate.js";
import {
  ORACLE, actionsAt, agentsAt, availableViews, eventAgents, eventsAt, metricsUpTo, normaliseView,
  visibleAt,
} from "../viewer/view.js";
import { exportedBytes, exportedNames } from "./helpers.js";

const replays = await Promise.all(exportedNames().map((n) => readReplayBytes(exportedBytes(n))));

test("the oracle's metrics at the last frame equal the file's (computed in Python)", () => {
  for (const r of replays) {
    assert.deepEqual(metricsUpTo(r, ORACLE, r.ticks), r.metrics);
    const half = metricsUpTo(r, ORACLE, Math.floor(r.ticks / 2));
    assert.ok(half.damage_dealt_a <= r.metrics.damage_dealt_a);
  }
});

test("a team always sees its own agents and sees enemies only through recorded sight", () => {
  const r = replays[0];
  let hiddenSomewhere = false;
  let seenSomewhere = false;
  for (let t = 0; t <= r.ticks; t++) {
    const vis = visibleAt(r, "a", t);
    let sight = 0;
    for (let i = 0; i < 5; i++) sight |= r.sight[t][i];
    for (let s = 0; s < 10; s++) {
      const present = r.frames.present[t][s] === 1;
      if (s < 5) assert.equal(vis[s], present);
      else {
        const expected = present && ((sight >> s) & 1) === 1 && r.frames.shield[t][s] === 0;
        assert.equal(vis[s], expected);
        hiddenSomewhere ||= present && !vis[s];
        seenSomewhere ||= vis[s];
      }
    }
  }
  assert.ok(hiddenSomewhere && seenSomewhere);
});

test("views hide events, actions and agents of hidden enemies", () => {
  const r = replays[0];
  for (const view of ["a", "b", "a2", "b4"]) {
    let dropped = 0;
    for (let t = 0; t < r.ticks; t++) {
      const vis = visibleAt(r, view, t);
      const names = new Set(agentsAt(r, view, t).filter((a) => a.visible).map((a) => a.name));
      for (const e of eventsAt(r, view, t)) for (const n of eventAgents(e)) assert.ok(names.has(n));
      dropped += r.events[t].length - eventsAt(r, view, t).length;
      actionsAt(r, view, t).forEach((a, s) => assert.equal(a === null, !vis[s] || !r.frames.present[t][s]));
    }
    assert.ok(dropped > 0, view);
  }
});

test("an agent sees no more than its team", () => {
  const r = replays[1];
  for (let t = 0; t <= r.ticks; t++) {
    const team = visibleAt(r, "b", t);
    visibleAt(r, "b1", t).forEach((v, s) => assert.ok(!v || team[s]));
  }
});

test("views offered and normalised", () => {
  const r = replays[0];
  assert.deepEqual(availableViews(r).slice(0, 3), [ORACLE, "a", "b"]);
  assert.equal(normaliseView(r, "zz"), ORACLE);
  const filtered = { ...r, view: { of: "a", visible: r.frames.tick.map(() => 31) } };
  assert.deepEqual(availableViews(filtered), ["a"]);
  assert.equal(normaliseView(filtered, ORACLE), "a");
  assert.deepEqual(visibleAt(filtered, "a", 0), [true, true, true, true, true, false, false, false, false, false]);
});

test("every point of view counts the game's deaths: a team knows its own deaths and its kills", () => {
  for (const r of replays) {
    const whole = metricsUpTo(r, ORACLE, r.ticks);
    for (const view of ["a", "b", "a2", "b4"]) {
      const seen = metricsUpTo(r, view, r.ticks);
      for (const k of ["deaths_a", "deaths_b", "kills_a", "kills_b", "red_zone_deaths_a", "red_zone_deaths_b"]) {
        assert.equal(seen[k], whole[k], `${view} ${k}`);
      }
    }
  }
});
