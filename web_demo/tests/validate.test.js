import assert from "node:assert/strict";
import { gzipSync } from "node:zlib";
import { test } from "node:test";

import { ReplayError, readReplayBytes, validateReplay } from "../viewer/format/validate.js";
import { exportedBytes, exportedNames } from "./helpers.js";

const NAME = exportedNames()[0];
const doc = () => JSON.parse(exportedBytes(NAME).toString("utf8"));

test("the exported replays pass, plain and gzipped", async () => {
  for (const name of exportedNames()) {
    const replay = await readReplayBytes(exportedBytes(name));
    assert.equal(replay.format, "marl-bgs/replay");
    const again = await readReplayBytes(gzipSync(exportedBytes(name)));
    assert.equal(again.ticks, replay.ticks);
  }
});

const cases = [
  [(d) => { d.format = "x"; }, /^format:/],
  [(d) => { d.version = 2; }, /^version: unsupported/],
  [(d) => { d.frames.health[3][1] = 1.5; }, /^frames\.health\[3\]\[1\]: expected a whole number/],
  [(d) => { d.frames.health[3][1] = "5"; }, /^frames\.health\[3\]\[1\]/],
  [(d) => { d.frames.cls[0][2] = 9; }, /^frames\.cls\[0\]\[2\]: 9 is out of range/],
  [(d) => { d.frames.pos[4][0] = [1]; }, /^frames\.pos\[4\]\[0\]: expected 2 entries/],
  [(d) => { d.frames.tick.pop(); }, /^frames\.tick: expected/],
  [(d) => { d.actions[2][0][1] = 11; }, /^actions\[2\]\[0\]\[1\]: 11 is out of range/],
  [(d) => { d.systems = ["x"]; }, /^systems: expected 10 entries/],
  [(d) => { d.llm = [1]; }, /^llm: expected an object/],
  [(d) => { d.extra = {}; }, /^replay\.extra: unknown field/],
  [(d) => { d.systems[0] = 5; }, /^systems\[0\]: expected a string/],
  [(d) => { d.extra = 1; }, /^replay\.extra: unknown field/],
  [(d) => { delete d.sight; }, /^replay\.sight: required/],
  [(d) => { d.events[0] = [{ kind: "meteor" }]; }, /^events\[0\]\[0\]\.kind: unknown event kind/],
  [(d) => { d.events[0] = [{ kind: "respawn", target: "z9", at: [1, 1] }]; }, /^events\[0\]\[0\]\.target/],
  [(d) => { d.map.obstacles[0].kind = "lava"; }, /^map\.obstacles\[0\]\.kind/],
  [(d) => { d.view = { of: "c", visible: [] }; }, /^view\.of/],
  [(d) => { d.rules.classes = "x"; }, /^rules\.classes/],
];

test("an optional llm part (an LLM side's request counts) is accepted", () => {
  const d = doc();
  d.llm = { a: { system: "llm:m", ticks: 3, tick_seconds: 0.5, agents: [] } };
  assert.equal(validateReplay(d).llm.a.ticks, 3);
});

for (const [edit, message] of cases) {
  test(`refused: ${message}`, () => {
    const d = doc();
    edit(d);
    assert.throws(() => validateReplay(d), (err) => err instanceof ReplayError && message.test(err.message));
  });
}

test("bytes: truncated, not JSON, NaN, not UTF-8, damaged gzip", async () => {
  const bytes = exportedBytes(NAME);
  const bad = [
    [bytes.subarray(0, bytes.length - 10), /^file: not valid JSON/],
    [Buffer.from('{"a": NaN}'), /^file: not valid JSON/],
    [Buffer.from([0x7b, 0xff, 0x7d]), /^file: not UTF-8/],
    [Buffer.from("[1]"), /^file: expected a JSON object/],
    [gzipSync(bytes).subarray(0, 200), /^file: damaged or truncated gzip/],
  ];
  for (const [data, message] of bad) {
    await assert.rejects(readReplayBytes(data), (err) => err instanceof ReplayError && message.test(err.message));
  }
});
