// The browser engine in a Web Worker, so that loading Python (seconds of compiling and
// unpacking) and every engine call run off the page's main thread: the page never freezes.
// The page talks to it through web_demo/play/backends.js (`browserBackend`): it posts
// `{id, op, args}` and gets `{id, ok, value}` or `{id, ok: false, error}` back, plus
// `{type: "status", text}` and `{type: "progress", loaded, total}` while the engine loads.
//
//   op "load", args [{base}]: load the engine (engine.js) and answer {catalog}
//   any other op: that function of marl_bgs.battle_games with `args` (JSON text and ids)
import { loadEngine } from "./engine.js";

let games = null;

function lastLine(err) {
  const lines = String(err && err.message ? err.message : err).trim().split("\n");
  return lines[lines.length - 1].replace(/^\w+(Error|Exception): /, "");
}

async function load(options) {
  const engine = await loadEngine({
    base: options.base,
    onStatus: (text) => self.postMessage({ type: "status", text }),
    onProgress: (loaded, total) => self.postMessage({ type: "progress", loaded, total }),
  });
  try {
    games = engine.pyodide.pyimport("marl_bgs.battle_games");
  } catch (err) {
    throw new Error(`the engine has no BattleClient (${lastLine(err)}); rebuild exports/browser/`);
  }
  return { catalog: games.browser_catalog() };
}

self.onmessage = async (event) => {
  const { id, op, args = [] } = event.data ?? {};
  try {
    let value;
    if (op === "load") value = await load(args[0] ?? {});
    else if (!games) throw new Error("the engine is not loaded");
    else if (typeof games[op] !== "function") throw new Error(`the engine has no ${op}`);
    else value = games[op](...args);
    if (value && typeof value.toJs === "function") value = value.toJs();
    self.postMessage({ id, ok: true, value });
  } catch (err) {
    self.postMessage({ id, ok: false, error: lastLine(err) });
  }
};
