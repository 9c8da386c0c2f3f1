// The NumPy engine in the browser (and in Node): Pyodide, Pyodide's NumPy, and our engine
// wheel, behind a small API of JSON values. Python does the work (marl_bgs/browser_api.py);
// this module only loads it and passes JSON across, so no rule lives here.
//
//   const engine = await loadEngine();              // base: the exports/browser/ folder
//   const game = engine.newGame({ map: 47, rosters: [["mage"], ["priest"]],
//                                 winning_score: 3, horizon: 120 });
//   game.legalActions();  game.step([[[3, 0, 0]], [[4, 0, 0]]]);  game.state();
//   game.teamView(0);     game.decide(1, "tdm-alpha");
import { PYODIDE_CDN, PYODIDE_FROM } from "./settings.js";

const DEFAULT_BASE = new URL("../../exports/browser/", import.meta.url);

/** Something a visitor can read: what failed and what to do about it. */
export class EngineError extends Error {
  constructor(message, cause) {
    super(message);
    this.name = "EngineError";
    this.cause = cause;
  }
}

async function fetchBytes(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

// Python's exceptions reach JS as PythonError with the whole traceback; keep the last line.
function pythonMessage(err) {
  const lines = String(err && err.message ? err.message : err).trim().split("\n");
  return lines[lines.length - 1].replace(/^[\w.]+Error: /, "");
}

// The engine wheel's address: its name keeps the package version, so a new build gets its
// hash as a query and no browser keeps an old engine from its cache (file: URLs take none).
function wheelURL(manifest, base) {
  const url = new URL(manifest.engine_wheel, base);
  const sha = manifest.files?.[manifest.engine_wheel]?.sha256;
  if (sha && url.protocol.startsWith("http")) url.search = `v=${sha.slice(0, 16)}`;
  return url;
}

/**
 * Fetch every file the manifest names, in turn, reporting the bytes received so far (the
 * visitor's progress bar). Pyodide then asks for the same addresses, which the site's
 * service worker (engine-sw.js) or the browser's own cache answers without downloading
 * them again.
 */
async function prefetch(manifest, base, onProgress) {
  const total = manifest.total_bytes ?? 0;
  let loaded = 0;
  onProgress(loaded, total);
  for (const path of Object.keys(manifest.files ?? {})) {
    const url = path === manifest.engine_wheel ? wheelURL(manifest, base) : new URL(path, base);
    const response = await fetch(url);
    if (!response.ok || !response.body) throw new Error(`${url}: HTTP ${response.status}`);
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      loaded += value.byteLength;
      onProgress(loaded, total);
    }
  }
}

/**
 * Load the engine. Options: `base` (URL of the exports/browser/ folder), `indexURL` (where
 * Pyodide's files are; defaults by the PYODIDE_FROM setting), `readBytes(url)` (how to read
 * a file: `fetch` by default; Node passes a file reader), `onStatus(text)`,
 * `onProgress(loaded, total)` (bytes; with it, the files are fetched first and counted).
 * Resolves to an Engine; rejects with an EngineError that says what went wrong.
 */
export async function loadEngine(options = {}) {
  const status = options.onStatus ?? (() => {});
  const readBytes = options.readBytes ?? fetchBytes;
  const base = new URL(options.base ?? DEFAULT_BASE);
  const started = performance.now();
  let manifest;
  try {
    manifest = JSON.parse(new TextDecoder().decode(await readBytes(new URL("manifest.json", base))));
  } catch (err) {
    throw new EngineError(
      "The game engine's files are not on this site (exports/browser/manifest.json is " +
        "missing; run scripts/export_pyodide.py before building the site).",
      err,
    );
  }
  const indexURL =
    options.indexURL ??
    (PYODIDE_FROM === "cdn" ? PYODIDE_CDN : new URL(manifest.pyodide_dir, base).href);
  if (options.onProgress && !options.readBytes && PYODIDE_FROM !== "cdn") {
    status("Downloading the engine…");
    try {
      await prefetch(manifest, base, options.onProgress);
    } catch (err) {
      throw new EngineError(`The game engine's files could not be downloaded (${err.message}).`, err);
    }
  }
  status("Loading Python (Pyodide)…");
  let pyodide;
  try {
    const { loadPyodide } = await import(`${indexURL}pyodide.mjs`);
    pyodide = await loadPyodide({ indexURL });
  } catch (err) {
    throw new EngineError(`Python (Pyodide) could not be loaded from ${indexURL}.`, err);
  }
  status("Loading NumPy…");
  // loadPackage does not throw when a package fails (a missing file, a wrong hash): it
  // returns the packages it did load, so check that NumPy is among them.
  const loaded = await pyodide.loadPackage("numpy", { messageCallback: () => {} });
  if (!Array.isArray(loaded) || !loaded.some((p) => p.name === "numpy")) {
    throw new EngineError(
      "NumPy could not be loaded into Python (its file is missing or failed its checksum), " +
        "so the game engine cannot start.",
    );
  }
  status("Installing the game engine…");
  try {
    const wheel = await readBytes(wheelURL(manifest, base));
    pyodide.unpackArchive(wheel, "wheel"); // wants a Uint8Array, not a Node Buffer
    pyodide.runPython("import marl_bgs.browser_api");
  } catch (err) {
    throw new EngineError("The game engine could not be installed into Python.", err);
  }
  return new Engine(pyodide, manifest, performance.now() - started);
}

export class Engine {
  constructor(pyodide, manifest, loadMs) {
    this.pyodide = pyodide;
    this.manifest = manifest;
    this.loadMs = loadMs;
    this.bridge = pyodide.pyimport("marl_bgs.browser_api");
  }

  /** Call a bridge function with plain arguments; Python errors become EngineErrors. */
  call(name, ...args) {
    try {
      return this.bridge[name](...args);
    } catch (err) {
      throw new EngineError(pythonMessage(err), err);
    }
  }

  /**
   * A new game from `{map, rosters, winning_score, horizon, spawn_ends, seed}` or from an
   * authored position: `{position: {...}}` (a `marl-bgs/position` document).
   */
  newGame(spec) {
    return new EngineGame(this, this.call("new_game", JSON.stringify(spec)));
  }

  /** Run Python source (tests and benchmarks); returns what it evaluates to, as JS. */
  run(source) {
    const out = this.pyodide.runPython(source);
    return out && out.toJs ? out.toJs({ dict_converter: Object.fromEntries }) : out;
  }
}

export class EngineGame {
  constructor(engine, id) {
    this.engine = engine;
    this.id = id;
  }

  /** Per team, per agent: the legal flat actions ((move * 11 + target) * 2 + ultimate). */
  legalActions() {
    return JSON.parse(this.engine.call("legal_actions", this.id));
  }

  /** Play one tick: `[[[move, target, ultimate], ...team a], [...team b]]`; its events. */
  step(actions) {
    return JSON.parse(this.engine.call("step", this.id, JSON.stringify(actions)));
  }

  /** `{position, done, result}`: the whole state in the authored-position format. */
  state() {
    return JSON.parse(this.engine.call("state", this.id));
  }

  /** What one team may see: observations, own-frame legal actions, roster, who is alive. */
  teamView(team) {
    return JSON.parse(this.engine.call("team_view", this.id, team));
  }

  /** A System's choice ("random", "tdm-alpha", "tdm-beta", "tdm-gamma") for one team. */
  decide(team, system) {
    return JSON.parse(this.engine.call("decide_team", this.id, team, system));
  }

  close() {
    this.engine.call("close_game", this.id);
  }
}

/** Flat index -> [move, target, ultimate] (the same split as the Python engine's). */
export function decodeAction(flat) {
  return [Math.floor(flat / 22), Math.floor(flat / 2) % 11, flat % 2];
}
