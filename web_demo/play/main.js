// The standalone BattleClient page: the browser's engine (Pyodide) by default, or the local
// Python engine with `?engine=local` (what `marl-bgs client` opens); `?scenario=<id>` starts
// an endgame scenario; `?flash=<ms>` sets how long a tick's start shows again.
import { browserBackend, localBackend } from "./backends.js";
import { mountPlay } from "./play.js";

const params = new URLSearchParams(location.search);
const local = params.get("engine") === "local";
const flash = Number.parseInt(params.get("flash") ?? "", 10);
// `?replay=1`: start with "replay each tick" on.
const replayTicks = params.get("replay") === "1";
const host = document.getElementById("play");
const status = (text) => {
  const node = host.querySelector(".bgp-status");
  if (node) node.textContent = text;
};
// `?scenario=<id>`: that endgame scenario, from the exports two folders up.
const scenarioId = params.get("scenario");
window.battleClient = mountPlay(host, {
  backend: local ? localBackend() : browserBackend({ onStatus: status }),
  flashMs: Number.isFinite(flash) ? flash : undefined,
  replayTicks,
  scenario: scenarioId === null ? null : { id: scenarioId, base: new URL("../../", import.meta.url) },
});
