// The BattleClient's two engines behind one interface. Both run marl_bgs/battle_games.py, the same
// Python: in the browser through Pyodide (web_demo/engine/engine.js loads it), or on this
// machine behind `marl-bgs client`'s JSON API on 127.0.0.1 (marl_bgs/client_server.py), which can
// also play JAX Systems and trained runs.
//
//   const backend = await browserBackend({ onStatus, onProgress });   // or await localBackend()
//   backend.catalog                      // {maps, classes, systems, limits}; local: defaults
//   const id = await backend.newGame(spec);
//   let v = await backend.view(id, "a");  // {window, tick, done, result, score, humans, ...}
//                                        // humans[i].strides: each human's planned stride
//                                        // per move (marl_bgs.core.movement.planned_strides)
//   v = await backend.step(id, { a0: [3, 0, 0] }, "a");
//   const text = await backend.replayText(id);   // the marl-bgs/replay file
//
// Every method rejects with a PlayError whose message is the engine's own (a bad position
// file names its field), for the page to show as text.
import { loadEngine } from "../engine/engine.js";

export class PlayError extends Error {
  constructor(message, cause) {
    super(message);
    this.name = "PlayError";
    this.cause = cause;
  }
}

// Python exceptions reach JS with their traceback; the reader wants the last line.
function lastLine(err) {
  const lines = String(err && err.message ? err.message : err).trim().split("\n");
  return lines[lines.length - 1].replace(/^\w+(Error|Exception): /, "");
}

/**
 * The engine in the browser (Pyodide). Where the browser has Web Workers it runs in one
 * (web_demo/engine/worker.js), so that loading Python and every engine call leave the page
 * free; `options.inPage` (or no Worker) runs it in the page itself. `options`: `base` (the
 * exports/browser/ folder), `onStatus(text)`, `onProgress(loaded, total)` (bytes).
 */
export async function browserBackend(options = {}) {
  if (typeof Worker === "undefined" || options.inPage) return pageBackend(options);
  return workerBackend(options);
}

async function workerBackend(options) {
  const worker = new Worker(new URL("../engine/worker.js", import.meta.url), { type: "module" });
  const waiting = new Map();
  let next = 0;
  const failAll = (err) => {
    for (const pending of waiting.values()) pending.reject(err);
    waiting.clear();
  };
  worker.onmessage = (event) => {
    const m = event.data ?? {};
    if (m.type === "status") options.onStatus?.(m.text);
    else if (m.type === "progress") options.onProgress?.(m.loaded, m.total);
    else if (waiting.has(m.id)) {
      const pending = waiting.get(m.id);
      waiting.delete(m.id);
      if (m.ok) pending.resolve(m.value);
      else pending.reject(new PlayError(m.error));
    }
  };
  worker.onerror = (event) => {
    event.preventDefault?.();
    failAll(new PlayError(`the engine's worker stopped (${event.message || "no message"})`));
  };
  const call = (op, ...args) =>
    new Promise((resolve, reject) => {
      const id = ++next;
      waiting.set(id, { resolve, reject });
      worker.postMessage({ id, op, args });
    });
  let loaded;
  try {
    loaded = await call("load", options.base ? { base: String(options.base) } : {});
  } catch (err) {
    worker.terminate();
    throw err;
  }
  return {
    kind: "browser",
    catalog: JSON.parse(loaded.catalog),
    defaults: null,
    async newGame(spec) {
      return call("new_session", JSON.stringify(spec));
    },
    async view(id, who) {
      return JSON.parse(await call("view", id, who));
    },
    async step(id, actions, who) {
      return JSON.parse(await call("step", id, JSON.stringify(actions), who));
    },
    async replayText(id) {
      return call("replay_text", id);
    },
    async close(id) {
      await call("close_session", id);
    },
  };
}

async function pageBackend(options) {
  const engine = await loadEngine(options);
  let py;
  try {
    py = engine.pyodide.pyimport("marl_bgs.battle_games");
  } catch (err) {
    throw new PlayError(`the engine has no BattleClient (${lastLine(err)}); rebuild exports/browser/`, err);
  }
  const call = (name, ...args) => {
    try {
      return py[name](...args);
    } catch (err) {
      throw new PlayError(lastLine(err), err);
    }
  };
  return {
    kind: "browser",
    catalog: JSON.parse(call("browser_catalog")),
    defaults: null,
    async newGame(spec) {
      return call("new_session", JSON.stringify(spec));
    },
    async view(id, who) {
      return JSON.parse(call("view", id, who));
    },
    async step(id, actions, who) {
      return JSON.parse(call("step", id, JSON.stringify(actions), who));
    },
    async replayText(id) {
      return call("replay_text", id);
    },
    async close(id) {
      call("close_session", id);
    },
  };
}

/** The Python engine behind `marl-bgs client` (same origin, under /api/). */
export async function localBackend(base = new URL("/api/", location.href)) {
  const request = async (path, body) => {
    let response;
    try {
      response = await fetch(new URL(path, base), body === undefined
        ? { cache: "no-store" }
        : { method: "POST", body: JSON.stringify(body), headers: { "Content-Type": "application/json" } });
    } catch (err) {
      throw new PlayError(`the local client does not answer (${err.message}); is \`marl-bgs client\` running?`, err);
    }
    const text = await response.text();
    if (!response.ok) {
      let message = `HTTP ${response.status}`;
      try {
        message = JSON.parse(text).error ?? message;
      } catch {
        /* not JSON: keep the status */
      }
      throw new PlayError(message);
    }
    return text;
  };
  const config = JSON.parse(await request("config"));
  return {
    kind: "local",
    catalog: config.catalog,
    defaults: config.defaults,
    async newGame(spec) {
      return JSON.parse(await request("new", spec)).id;
    },
    async view(id, who) {
      return JSON.parse(await request(`view?id=${id}&who=${who}`));
    },
    async step(id, actions, who) {
      return JSON.parse(await request(`step?id=${id}&who=${who}`, actions));
    },
    async replayText(id) {
      return request(`replay?id=${id}`);
    },
    async close(id) {
      await request(`close?id=${id}`, {});
    },
  };
}
