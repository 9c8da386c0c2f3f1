// The standalone page: opens `?replay=URL` at `#tick=..&view=..`, or waits for a file.

import { mountViewer } from "./embed.js";
import { parseHash, replaySource } from "./urlstate.js";

const container = document.getElementById("viewer");
const { tick, view } = parseHash(location.hash);
let src = null;
let problem = null;
try {
  src = replaySource(location.search, location.href);
} catch (err) {
  problem = err;
}
const viewer = mountViewer(container, { src, tick: tick ?? undefined, view: view ?? undefined, syncUrl: true });
globalThis.mbgViewer = viewer; // for the browser tests and the console
if (problem) {
  const box = container.querySelector(".mbg-error");
  box.textContent = `Cannot open this replay. ${problem.message}`;
  box.hidden = false;
} else if (!src) {
  const hint = document.getElementById("hint");
  if (hint) hint.hidden = false;
}
container.querySelector(".mbg-root").focus();
