// Loading the exported replays for the tests (node only).
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));

export function exportedBytes(name) {
  return readFileSync(`${ROOT}exports/replays/${name}`);
}

export function exportedNames() {
  const index = JSON.parse(readFileSync(`${ROOT}exports/replays/index.json`, "utf8"));
  return index.replays.map((r) => r.file);
}
