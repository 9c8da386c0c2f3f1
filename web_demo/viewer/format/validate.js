// Reading replay files in the browser: bytes -> checked replay object, or a ReplayError
// whose message names the field (the same checks as marl_bgs/replay/read.py, minus the ones
// that need the engine). Nothing from a file is trusted before it passes here.

export const REPLAY_FORMAT = "marl-bgs/replay";
export const REPLAY_VERSION = 1;
export const MAX_BYTES = 50_000_000;
export const MAX_TEXT = 200;
export const NUM_SLOTS = 10;
export const TEAM_SIZE = 5;
export const AGENT_NAMES = Array.from(
  { length: NUM_SLOTS },
  (_, i) => `${"ab"[Math.floor(i / TEAM_SIZE)]}${i % TEAM_SIZE}`,
);
export const VIEWS = ["a", "b", ...AGENT_NAMES];

export class ReplayError extends Error {
  constructor(message) {
    super(message);
    this.name = "ReplayError";
  }
}

const TOP_KEYS = [
  "format", "version", "title", "ticks", "rules", "map", "start", "systems", "seed",
  "versions", "view", "metrics", "frames", "actions", "sight", "events",
];
// Optional: "llm", an LLM side's request counts (read by Python tools; checked there).

// Per-tick shape and range of each State field (booleans are 0/1).
export function frameFields(rules) {
  const maxHp = Math.max(...rules.classes.map((c) => c.max_health));
  const maxEffect = Math.max(...rules.effects.map((e) => e.duration));
  const E = rules.effects.length;
  return {
    tick: [[], 0, 100000],
    horizon: [[], 1, 100000],
    winning_score: [[], 1, 1000],
    red_zone_depth: [[], 0, rules.arena[1]],
    score: [[2], 0, 1010],
    spawn_end: [[2], 0, 1],
    wave_clock: [[2], 0, rules.respawn_period],
    result: [[], -1, 2],
    present: [[10], 0, 1],
    alive: [[10], 0, 1],
    cls: [[10], 0, rules.classes.length - 1],
    pos: [[10, 2], 0, rules.arena[0]],
    health: [[10], 0, maxHp],
    ultimate_cooldown: [[10], 0, rules.ultimate_cooldown - 1],
    shield: [[10], 0, rules.shield_ticks],
    out_of_combat: [[10], 0, 200000],
    effects: [[10, E], 0, maxEffect],
    last_action: [[10, 3], -1, 10],
  };
}

const EVENT_FIELDS = {
  damage: { source: "agent", target: "agent", ability: "text", amount: "amount" },
  heal: { source: "agent", target: "agent", ability: "text", amount: "amount" },
  excess_heal: { target: "agent", amount: "amount" },
  effect: { source: "agent", target: "agent", effect: "text", ticks: "count" },
  trap_broken: { target: "agent", by: "agents" },
  charge: { source: "agent", target: "agent", from: "point", to: "point" },
  death: { target: "agent", by: "agents", points: "count", red_zone: "bool" },
  shield_cleared: { target: "agent", to: "point" },
  respawn: { target: "agent", at: "point" },
  rest_heal: { target: "agent", amount: "amount" },
  game_end: { result: "result", score: "score", tick: "count" },
};

function show(value) {
  let text;
  try {
    text = JSON.stringify(value);
  } catch {
    text = String(value);
  }
  if (text === undefined) text = String(value);
  return text.length <= 40 ? text : `${text.slice(0, 37)}...`;
}

function fail(where, message) {
  throw new ReplayError(`${where}: ${message}`);
}

function isObject(v) {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function object(value, where, required, optional = []) {
  if (!isObject(value)) fail(where, `expected an object, got ${show(value)}`);
  for (const key of Object.keys(value)) {
    if (!required.includes(key) && !optional.includes(key)) fail(`${where}.${key}`, "unknown field");
  }
  for (const key of required) if (!(key in value)) fail(`${where}.${key}`, "required");
  return value;
}

function whole(value, where, lo, hi) {
  if (typeof value !== "number" || !Number.isInteger(value)) {
    fail(where, `expected a whole number, got ${show(value)}`);
  }
  if (value < lo || value > hi) fail(where, `${value} is out of range [${lo}, ${hi}]`);
  return value;
}

function finite(value, where, lo, hi) {
  if (typeof value !== "number" || !Number.isFinite(value)) {
    fail(where, `expected a finite number, got ${show(value)}`);
  }
  if (value < lo || value > hi) fail(where, `${value} is out of range [${lo}, ${hi}]`);
  return value;
}

function text(value, where, limit = MAX_TEXT) {
  if (typeof value !== "string") fail(where, `expected a string, got ${show(value)}`);
  if (value.length > limit) fail(where, `longer than ${limit} characters`);
  return value;
}

function list(value, where, length) {
  if (!Array.isArray(value)) fail(where, `expected a list, got ${show(value)}`);
  if (length !== undefined && value.length !== length) {
    fail(where, `expected ${length} entries, got ${value.length}`);
  }
  return value;
}

// Nested lists of whole numbers of exactly `shape`, each within [lo, hi].
export function intArray(value, where, shape, lo, hi) {
  const walk = (v, path, depth) => {
    if (depth === shape.length) {
      whole(v, path, lo, hi);
      return;
    }
    list(v, path, shape[depth]);
    for (let i = 0; i < v.length; i++) walk(v[i], `${path}[${i}]`, depth + 1);
  };
  walk(value, where, 0);
  return value;
}

function checkRules(raw) {
  const rules = object(raw, "rules", [
    "arena", "body_radius", "ultimate_cooldown", "shield_ticks", "respawn_period", "pads",
    "effects", "classes",
  ]);
  intArray(rules.arena, "rules.arena", [2], 1, 1e6);
  whole(rules.body_radius, "rules.body_radius", 1, 1e5);
  whole(rules.ultimate_cooldown, "rules.ultimate_cooldown", 1, 1000);
  whole(rules.shield_ticks, "rules.shield_ticks", 0, 100);
  whole(rules.respawn_period, "rules.respawn_period", 1, 100);
  object(rules.pads, "rules.pads", ["left", "right"]);
  for (const end of ["left", "right"]) {
    intArray(rules.pads[end], `rules.pads.${end}`, [TEAM_SIZE, 2], 0, 1e6);
  }
  list(rules.effects, "rules.effects");
  if (rules.effects.length < 1 || rules.effects.length > 32) fail("rules.effects", "1 to 32 effects");
  rules.effects.forEach((e, i) => {
    object(e, `rules.effects[${i}]`, ["name", "duration"]);
    text(e.name, `rules.effects[${i}].name`, 40);
    whole(e.duration, `rules.effects[${i}].duration`, 0, 1000);
  });
  list(rules.classes, "rules.classes");
  if (rules.classes.length < 1 || rules.classes.length > 16) fail("rules.classes", "1 to 16 classes");
  rules.classes.forEach((c, i) => {
    const at = `rules.classes[${i}]`;
    object(c, at, ["name", "title", "max_health", "sight", "basic", "ultimate"]);
    for (const k of ["name", "title", "basic", "ultimate"]) text(c[k], `${at}.${k}`, 60);
    whole(c.max_health, `${at}.max_health`, 1, 1e7);
    whole(c.sight, `${at}.sight`, 0, 1e6);
  });
  return rules;
}

function checkMap(raw) {
  const map = object(raw, "map", ["format", "version", "obstacles"], [
    "id", "name", "split", "width", "height", "spawn_pads",
  ]);
  if (map.format !== "marl-bgs/map" || map.version !== 1) {
    fail("map.format", "expected 'marl-bgs/map' version 1");
  }
  if (map.id !== undefined && map.id !== null) whole(map.id, "map.id", 0, 10000);
  if (map.name !== undefined) text(map.name, "map.name");
  list(map.obstacles, "map.obstacles");
  if (map.obstacles.length > 32) fail("map.obstacles", "more than 32 obstacles");
  map.obstacles.forEach((ob, i) => {
    const at = `map.obstacles[${i}]`;
    if (!isObject(ob)) fail(at, "expected an object");
    if (ob.kind === "pillar") {
      object(ob, at, ["kind", "x", "y", "radius"]);
      finite(ob.radius, `${at}.radius`, 1e-9, 20);
    } else if (ob.kind === "wall") {
      object(ob, at, ["kind", "x", "y", "width", "height"], ["theta"]);
      finite(ob.width, `${at}.width`, 1e-9, 40);
      finite(ob.height, `${at}.height`, 1e-9, 40);
      if (ob.theta !== undefined) finite(ob.theta, `${at}.theta`, -10, 10);
    } else {
      fail(`${at}.kind`, `must be 'pillar' or 'wall', got ${show(ob.kind)}`);
    }
    finite(ob.x, `${at}.x`, 0, 20);
    finite(ob.y, `${at}.y`, 0, 10);
  });
  return map;
}

function checkEventValue(kind, value, where, rules) {
  switch (kind) {
    case "agent":
      if (!AGENT_NAMES.includes(value)) fail(where, `expected an agent name (a0-b4), got ${show(value)}`);
      break;
    case "agents":
      list(value, where);
      if (value.length > NUM_SLOTS) fail(where, "more than 10 entries");
      value.forEach((v, i) => checkEventValue("agent", v, `${where}[${i}]`, rules));
      break;
    case "text":
      text(value, where, 60);
      break;
    case "amount":
      finite(value, where, 0, 1e6);
      break;
    case "count":
      whole(value, where, 0, 1e6);
      break;
    case "bool":
      if (typeof value !== "boolean") fail(where, `expected true or false, got ${show(value)}`);
      break;
    case "point":
      list(value, where, 2);
      finite(value[0], `${where}[0]`, 0, rules.arena[0] / 1000);
      finite(value[1], `${where}[1]`, 0, rules.arena[1] / 1000);
      break;
    case "result":
      if (!["a", "b", "draw"].includes(value)) fail(where, `expected 'a', 'b' or 'draw', got ${show(value)}`);
      break;
    case "score":
      intArray(value, where, [2], 0, 1010);
      break;
    default:
      fail(where, "unknown field type");
  }
}

function checkEvents(raw, ticks, rules) {
  list(raw, "events", ticks);
  raw.forEach((tickEvents, t) => {
    list(tickEvents, `events[${t}]`);
    if (tickEvents.length > 2000) fail(`events[${t}]`, "more than 2000 events");
    tickEvents.forEach((e, k) => {
      const at = `events[${t}][${k}]`;
      if (!isObject(e) || !Object.hasOwn(EVENT_FIELDS, e.kind)) {
        fail(`${at}.kind`, `unknown event kind ${show(isObject(e) ? e.kind : e)}`);
      }
      const fields = EVENT_FIELDS[e.kind];
      object(e, at, ["kind", ...Object.keys(fields)]);
      for (const [key, kind] of Object.entries(fields)) checkEventValue(kind, e[key], `${at}.${key}`, rules);
    });
  });
  return raw;
}

// A parsed JSON document -> the checked replay (the document itself, now trusted).
export function validateReplay(doc) {
  if (!isObject(doc)) throw new ReplayError("file: expected a JSON object at the top");
  if (doc.format !== REPLAY_FORMAT) fail("format", `expected '${REPLAY_FORMAT}', got ${show(doc.format)}`);
  if (doc.version !== REPLAY_VERSION) {
    fail("version", `unsupported version ${show(doc.version)} (this viewer knows ${REPLAY_VERSION})`);
  }
  object(doc, "replay", TOP_KEYS, ["llm"]); // llm: optional request counts, not shown
  if ("llm" in doc && !isObject(doc.llm)) fail("llm", `expected an object, got ${show(doc.llm)}`);
  const ticks = whole(doc.ticks, "ticks", 0, 100000);
  text(doc.title, "title");
  const rules = checkRules(doc.rules);
  checkMap(doc.map);
  const fields = frameFields(rules);
  object(doc.frames, "frames", Object.keys(fields));
  for (const [name, [shape, lo, hi]] of Object.entries(fields)) {
    intArray(doc.frames[name], `frames.${name}`, [ticks + 1, ...shape], lo, hi);
  }
  for (let t = 0; t <= ticks; t++) {
    if (doc.frames.tick[t] !== doc.frames.tick[0] + t) fail(`frames.tick[${t}]`, "ticks must count up by one");
    for (let s = 0; s < NUM_SLOTS; s++) {
      if (doc.frames.pos[t][s][1] > rules.arena[1]) fail(`frames.pos[${t}][${s}]`, "above the arena");
    }
  }
  const view = doc.view;
  if (view !== null) {
    object(view, "view", ["of", "visible"]);
    if (!VIEWS.includes(view.of)) fail("view.of", `expected one of ${VIEWS.join(", ")}, got ${show(view.of)}`);
    intArray(view.visible, "view.visible", [ticks + 1], 0, 1023);
    if (doc.start !== null) fail("start", "a point-of-view replay holds no starting position (null)");
  } else if (!isObject(doc.start)) {
    fail("start", `expected a position object, got ${show(doc.start)}`);
  }
  intArray(doc.actions, "actions", [ticks, NUM_SLOTS, 3], view === null ? 0 : -1, 10);
  intArray(doc.sight, "sight", [ticks + 1, NUM_SLOTS], 0, 1023);
  list(doc.systems, "systems", NUM_SLOTS);
  doc.systems.forEach((s, i) => {
    if (s !== null) text(s, `systems[${i}]`);
  });
  object(doc.seed, "seed", ["root", "game", "spawn_ends"]);
  if (!isObject(doc.versions)) fail("versions", "expected an object");
  if (!isObject(doc.metrics)) fail("metrics", "expected an object");
  for (const [k, v] of Object.entries(doc.metrics)) whole(v, `metrics.${k}`, -1, Number.MAX_SAFE_INTEGER);
  checkEvents(doc.events, ticks, rules);
  return doc;
}

async function gunzip(bytes) {
  if (typeof DecompressionStream === "undefined") {
    throw new ReplayError("file: gzipped, and this browser cannot decompress (use plain JSON)");
  }
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  const reader = stream.getReader();
  const parts = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.length;
      if (size > MAX_BYTES) {
        await reader.cancel();
        throw new ReplayError(`file: decompresses to more than the ${MAX_BYTES}-byte limit`);
      }
      parts.push(value);
    }
  } catch (err) {
    if (err instanceof ReplayError) throw err;
    throw new ReplayError("file: damaged or truncated gzip data");
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

// JSON text -> document, refusing NaN and Infinity (JSON.parse already does) with our message.
export function parseJsonText(textValue) {
  try {
    return JSON.parse(textValue);
  } catch (err) {
    throw new ReplayError(`file: not valid JSON (${err.message}; a truncated file ends early)`);
  }
}

// Bytes (plain or gzipped JSON) -> checked replay.
export async function readReplayBytes(input) {
  let bytes = input instanceof Uint8Array ? input : new Uint8Array(input);
  if (bytes.length > MAX_BYTES) throw new ReplayError(`file: larger than the ${MAX_BYTES}-byte limit`);
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) bytes = await gunzip(bytes);
  let decoded;
  try {
    decoded = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new ReplayError("file: not UTF-8 text");
  }
  return validateReplay(parseJsonText(decoded));
}
