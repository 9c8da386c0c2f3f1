import assert from "node:assert/strict";
import { test } from "node:test";

import { ReplayError } from "../viewer/format/validate.js";
import { formatHash, parseHash, replaySource, shareUrl } from "../viewer/urlstate.js";

const PAGE = "http://127.0.0.1:8000/web_demo/viewer/index.html";

test("hash round trip", () => {
  assert.deepEqual(parseHash("#tick=42&view=b3"), { tick: 42, view: "b3" });
  assert.equal(formatHash({ tick: 42, view: "b3" }), "#tick=42&view=b3");
  assert.deepEqual(parseHash(formatHash({ tick: 0, view: "oracle" })), { tick: 0, view: "oracle" });
});

test("malformed hash parts are ignored", () => {
  assert.deepEqual(parseHash("#tick=-1&view=c9"), { tick: null, view: null });
  assert.deepEqual(parseHash("#tick=1e3&view=<img>"), { tick: null, view: null });
  assert.deepEqual(parseHash("#tick=99999999"), { tick: null, view: null });
  assert.deepEqual(parseHash(""), { tick: null, view: null });
});

test("replay sources: same site only", () => {
  assert.equal(
    replaySource("?replay=../../exports/replays/x.json", PAGE),
    "http://127.0.0.1:8000/exports/replays/x.json",
  );
  assert.equal(replaySource("", PAGE), null);
  for (const bad of ["https://example.com/x.json", "javascript:alert(1)", "data:,{}"]) {
    assert.throws(() => replaySource(`?replay=${encodeURIComponent(bad)}`, PAGE), ReplayError);
  }
});

test("share links carry the replay, tick and view", () => {
  const url = shareUrl(`${PAGE}?replay=old#tick=1`, "/exports/replays/x.json", { tick: 7, view: "a" });
  const parsed = new URL(url);
  assert.equal(parsed.searchParams.get("replay"), "/exports/replays/x.json");
  assert.deepEqual(parseHash(parsed.hash), { tick: 7, view: "a" });
  assert.equal(replaySource(parsed.search, url), "http://127.0.0.1:8000/exports/replays/x.json");
});
