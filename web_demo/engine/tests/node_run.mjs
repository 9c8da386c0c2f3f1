// Node runner for tests and benchmarks: loads the engine from exports/browser/ on disk and
// runs one Python snippet given as a file, printing its JSON answer on the last line.
//   node web_demo/engine/tests/node_run.mjs EXPORTS_BROWSER_DIR SNIPPET.py [extra files...]
// Extra files are written into Pyodide's working folder first (e.g. benchmarks/fingerprint.py).
import { readFileSync } from "node:fs";
import { basename, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { loadEngine } from "../engine.js";

const [dir, snippet, ...extra] = process.argv.slice(2);
const base = pathToFileURL(resolve(dir) + "/");
const readBytes = async (url) => new Uint8Array(readFileSync(url)); // a Buffer is refused
const t0 = performance.now();
const engine = await loadEngine({ base, readBytes, indexURL: resolve(dir, "pyodide") + "/" });
for (const path of extra) engine.pyodide.FS.writeFile(basename(path), readFileSync(path));
engine.pyodide.runPython("import sys; sys.path.insert(0, '.')");
const answer = engine.run(readFileSync(snippet, "utf8"));
console.log(JSON.stringify({ load_ms: performance.now() - t0, answer }));
