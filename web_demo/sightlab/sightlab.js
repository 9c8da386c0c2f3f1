// The Sight Lab: pick a map and a class, drag the champion (or the enemies), and see what
// the champion sees. Uses the engine's own sight test (sight.js), checked against vectors
// exported from Python, and the map shapes and class numbers from exports/sight/lab.json.
import { sightBlocked, snapToFree } from "./sight.js";

const CELL = 100; // milli-units per shading cell (0.1 map units)
const SCALE = 40; // canvas pixels per map unit
const W = 20;
const H = 10;
const ENEMY_Y = [1.5, 3, 5, 7, 8.5];
const COLOURS = { floor: "#f3efe6", obstacle: "#495057", fog: "rgba(52,58,64,0.55)",
  hidden: "rgba(52,58,64,0.35)", seen: "rgba(250,176,5,0.13)", champ: "#1c7ed6",
  enemy: "#e8590c", ghost: "#adb5bd", hit: "#c92a2a" };

let labPromise = null;

function loadLab(root) {
  if (!labPromise) {
    labPromise = fetch(new URL("exports/sight/lab.json", root)).then((r) => {
      if (!r.ok) throw new Error(`exports/sight/lab.json: HTTP ${r.status}`);
      return r.json();
    });
  }
  return labPromise;
}

function el(tag, attrs = {}, text = "") {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text) node.textContent = text;
  return node;
}

const clampX = (x) => Math.min(19500, Math.max(500, Math.round(x)));
const clampY = (y) => Math.min(9500, Math.max(500, Math.round(y)));
const HIT_PX = 22; // grab radius in CSS pixels: a 44 px target, big enough for a finger
const KEY_STEP = 100; // arrow keys move the champion 0.1 units (Shift: 0.5)
const fmt = (p) => `(${p[0] / 1000}, ${p[1] / 1000})`;

/** What the champion sees: hidden cells, visible enemies and which ability reaches them. */
export function analyse(map, spec, champ, enemies) {
  const r2 = spec.sight_sq;
  const reach = Math.ceil(spec.sight * 1000 / CELL) * CELL;
  let visible = 0;
  let hidden = 0;
  const hiddenCells = [];
  for (let x = CELL / 2; x < W * 1000; x += CELL) {
    if (Math.abs(x - champ[0]) > reach) continue;
    for (let y = CELL / 2; y < H * 1000; y += CELL) {
      const dx = x - champ[0];
      const dy = y - champ[1];
      if (dx * dx + dy * dy > r2) continue;
      if (sightBlocked(map, champ, [x, y])) {
        hidden++;
        hiddenCells.push([x, y]);
      } else visible++;
    }
  }
  const rows = enemies.map((p, k) => {
    const dx = p[0] - champ[0];
    const dy = p[1] - champ[1];
    const d2 = dx * dx + dy * dy;
    const seen = d2 <= r2 && !sightBlocked(map, champ, p);
    const basic = seen && spec.basic_target === "enemy" && d2 <= spec.basic_range_sq;
    const ult = seen && spec.ultimate_target === "enemy" && d2 <= spec.ultimate_range_sq;
    return { k, seen, basic, ult, dist: Math.sqrt(d2) / 1000 };
  });
  return { visible, hidden, hiddenCells, rows };
}

function draw(ctx, map, spec, champ, enemies, result) {
  const s = SCALE;
  const X = (mx) => (mx / 1000) * s;
  const Y = (my) => (H - my / 1000) * s;
  ctx.clearRect(0, 0, W * s, H * s);
  ctx.fillStyle = COLOURS.floor;
  ctx.fillRect(0, 0, W * s, H * s);
  // Fog outside the sight radius, tint inside, darker cells hidden by cover.
  ctx.fillStyle = COLOURS.fog;
  ctx.beginPath();
  ctx.rect(0, 0, W * s, H * s);
  ctx.arc(X(champ[0]), Y(champ[1]), spec.sight * s, 0, 2 * Math.PI, true);
  ctx.fill("evenodd");
  ctx.fillStyle = COLOURS.seen;
  ctx.beginPath();
  ctx.arc(X(champ[0]), Y(champ[1]), spec.sight * s, 0, 2 * Math.PI);
  ctx.fill();
  ctx.fillStyle = COLOURS.hidden;
  const c = (CELL / 1000) * s;
  for (const [x, y] of result.hiddenCells) ctx.fillRect(X(x) - c / 2, Y(y) - c / 2, c, c);
  ctx.fillStyle = COLOURS.obstacle;
  for (const [lox, loy, hix, hiy, r] of map.boxes) {
    ctx.beginPath();
    if (r > 0) ctx.arc(X(lox), Y(loy), (r / 1000) * s, 0, 2 * Math.PI);
    else ctx.rect(X(lox), Y(hiy), Math.max(X(hix) - X(lox), 1), Math.max(Y(loy) - Y(hiy), 1));
    ctx.fill();
  }
  for (const poly of map.polys) {
    ctx.beginPath();
    poly.forEach(([x, y], i) => (i ? ctx.lineTo(X(x), Y(y)) : ctx.moveTo(X(x), Y(y))));
    ctx.closePath();
    ctx.fill();
  }
  const ring = (p, r, colour, dash) => {
    ctx.beginPath();
    ctx.setLineDash(dash);
    ctx.strokeStyle = colour;
    ctx.lineWidth = 1.5;
    ctx.arc(X(p[0]), Y(p[1]), r * s, 0, 2 * Math.PI);
    ctx.stroke();
    ctx.setLineDash([]);
  };
  if (spec.basic_target === "enemy") ring(champ, spec.basic_range, "#868e96", [6, 4]);
  if (spec.ultimate_target === "enemy") ring(champ, spec.ultimate_range, "#862e9c", [2, 4]);
  ring(champ, spec.sight, "#fab005", []);
  const body = (p, fill, label) => {
    ctx.beginPath();
    ctx.fillStyle = fill;
    ctx.arc(X(p[0]), Y(p[1]), 0.5 * s, 0, 2 * Math.PI);
    ctx.fill();
    ctx.fillStyle = "#fff";
    ctx.font = `bold ${0.45 * s}px sans-serif`;
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    ctx.fillText(label, X(p[0]), Y(p[1]));
  };
  for (const row of result.rows) {
    const p = enemies[row.k];
    if (row.seen) {
      ctx.beginPath();
      ctx.strokeStyle = row.basic || row.ult ? COLOURS.hit : "#fab005";
      ctx.lineWidth = 2;
      ctx.moveTo(X(champ[0]), Y(champ[1]));
      ctx.lineTo(X(p[0]), Y(p[1]));
      ctx.stroke();
    }
    body(p, row.seen ? COLOURS.enemy : COLOURS.ghost, `${row.k}`);
  }
  body(champ, COLOURS.champ, spec.title[0]);
}

function describe(spec, row) {
  if (!row.seen) return "hidden";
  const hits = [];
  if (row.basic) hits.push(spec.basic_name);
  if (row.ult) hits.push(spec.ultimate_name);
  return hits.length ? `seen; can hit with ${hits.join(" and ")}` : "seen; out of reach";
}

/** Build the lab inside `root`; `base` is the site root URL (for exports/). */
export async function mountSightLab(root, base) {
  if (root.dataset.ready) return;
  root.dataset.ready = "loading";
  let lab;
  try {
    lab = await loadLab(base);
  } catch (err) {
    root.textContent = `The Sight Lab could not load its data: ${err.message}`;
    root.dataset.ready = "error";
    return;
  }
  const mapSel = el("select", { "aria-label": "map", "data-role": "map" });
  for (const m of lab.maps) {
    mapSel.append(el("option", { value: String(m.id) }, `${m.id} · ${m.name} (${m.split})`));
  }
  const clsSel = el("select", { "aria-label": "class", "data-role": "class" });
  lab.classes.forEach((c, i) => clsSel.append(el("option", { value: String(i) }, c.title)));
  mapSel.value = root.dataset.map || String(lab.maps[lab.maps.length > 47 ? 47 : 0].id);
  clsSel.value = root.dataset.class || "0";
  const controls = el("div", { class: "sightlab-controls" });
  const lm = el("label", {}, "Map ");
  lm.append(mapSel);
  const lc = el("label", {}, "Class ");
  lc.append(clsSel);
  controls.append(lm, lc);
  const canvas = el("canvas", { width: String(W * SCALE), height: String(H * SCALE),
    class: "sightlab-canvas", tabindex: "0",
    "aria-label": "arena: drag the blue champion or an enemy; arrow keys move the champion" });
  const keys = el("p", { class: "sightlab-keys" },
    "Keyboard: click the arena, then move the champion with the arrow keys (Shift: bigger steps).");
  const status = el("p", { class: "sightlab-status", "data-role": "status", "aria-live": "polite" });
  const readout = el("div", { class: "sightlab-readout", "aria-live": "polite" });
  root.replaceChildren(controls, canvas, keys, status, readout);

  let champ = [6000, 5000];
  const enemies = ENEMY_Y.map((y) => [11000, y * 1000]);
  const ctx = canvas.getContext("2d");

  const currentMap = () => lab.maps.find((m) => String(m.id) === mapSel.value);
  const whoMid = (k) => (k === "champ" ? `the ${lab.classes[Number(clsSel.value)].title}` : `enemy ${k}`);
  const who = (k) => whoMid(k)[0].toUpperCase() + whoMid(k).slice(1);
  const others = (k) => [champ, ...enemies].filter((_, i) => (k === "champ" ? i !== 0 : i !== k + 1));

  const REFUSED = "its body would overlap an obstacle or another body, and the engine " +
    "refuses such a position";

  /** Put agent k ("champ" or an enemy index) at the nearest spot where the engine lets a
   * body stand; returns the move ({k, from, to}) when it had to move it, else null. */
  function snap(k, wanted) {
    const { point, moved } = snapToFree(currentMap(), wanted, others(k));
    if (k === "champ") champ = point;
    else enemies[k] = point;
    return moved ? { k, from: wanted, to: point } : null;
  }

  function place(k, wanted) {
    const m = snap(k, wanted);
    return m ? `${who(k)} cannot stand at ${fmt(m.from)}: ${REFUSED}. It stands at the ` +
      `nearest free spot, ${fmt(m.to)}.` : "";
  }

  function setStatus(lines) {
    const text = lines.filter(Boolean).join(" ");
    status.textContent = text;
    root.dataset.snapped = text ? "yes" : "no";
  }

  function onMapChange() {
    const moves = [snap("champ", champ), ...enemies.map((p, k) => snap(k, p))].filter(Boolean);
    if (moves.length === 1) {
      const m = moves[0];
      setStatus([`On map ${mapSel.value}, ${whoMid(m.k)} cannot stand at ` +
        `${fmt(m.from)}: ${REFUSED}. It stands at the nearest free spot, ${fmt(m.to)}.`]);
    } else if (moves.length) {
      const list = moves.map((m) => `${whoMid(m.k)} ${fmt(m.from)} → ` +
        `${fmt(m.to)}`).join("; ");
      setStatus([`On map ${mapSel.value}, ${moves.length} agents cannot stand where they were: ` +
        `${REFUSED.replace("its body", "each body")}. Each moved to the nearest free spot: ` +
        `${list}.`]);
    } else setStatus([]);
    update();
  }

  function update() {
    const map = currentMap();
    const spec = lab.classes[Number(clsSel.value)];
    const result = analyse(map, spec, champ, enemies);
    draw(ctx, map, spec, champ, enemies, result);
    const seen = result.rows.filter((r) => r.seen).map((r) => r.k);
    const hittable = result.rows.filter((r) => r.basic || r.ult).map((r) => r.k);
    Object.assign(root.dataset, {
      champion: `${champ[0] / 1000},${champ[1] / 1000}`,
      enemies: enemies.map((p) => `${p[0] / 1000},${p[1] / 1000}`).join(";"),
      visibleCells: String(result.visible),
      hiddenCells: String(result.hidden),
      seen: seen.join(","),
      hittable: hittable.join(","),
    });
    const share = result.visible / Math.max(result.visible + result.hidden, 1);
    readout.replaceChildren(
      el("p", {}, `${spec.title} at (${champ[0] / 1000}, ${champ[1] / 1000}): sees ` +
        `${Math.round(share * 100)}% of the ground within its sight radius of ${spec.sight}.`),
    );
    const list = el("ul");
    for (const r of result.rows) {
      list.append(el("li", {}, `enemy ${r.k} at ${r.dist.toFixed(2)}: ${describe(spec, r)}`));
    }
    readout.append(list);
  }

  function toMilli(ev) {
    const box = canvas.getBoundingClientRect();
    const x = ((ev.clientX - box.left) / box.width) * W * 1000;
    const y = (1 - (ev.clientY - box.top) / box.height) * H * 1000;
    return [x, y];
  }
  let dragging = null;
  canvas.addEventListener("pointerdown", (ev) => {
    const [x, y] = toMilli(ev);
    // Grab radius: the body (0.5 units) plus a margin, never under HIT_PX on the screen.
    const perPx = (W * 1000) / canvas.getBoundingClientRect().width;
    const reach = Math.max(600, HIT_PX * perPx);
    const d2 = (p) => (p[0] - x) ** 2 + (p[1] - y) ** 2;
    const cands = [["champ", champ], ...enemies.map((p, k) => [k, p])]
      .filter(([, p]) => d2(p) <= reach * reach);
    cands.sort((a, b) => d2(a[1]) - d2(b[1]));
    dragging = cands.length ? cands[0][0] : null;
    if (dragging !== null) {
      ev.preventDefault();
      canvas.setPointerCapture?.(ev.pointerId);
    }
  });
  canvas.addEventListener("pointermove", (ev) => {
    if (dragging === null) return;
    const [x, y] = toMilli(ev);
    setStatus([place(dragging, [clampX(x), clampY(y)])]);
    update();
  });
  const stop = () => { dragging = null; };
  canvas.addEventListener("pointerup", stop);
  canvas.addEventListener("pointercancel", stop);
  canvas.addEventListener("keydown", (ev) => {
    const step = ev.shiftKey ? 5 * KEY_STEP : KEY_STEP;
    const d = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, step],
      ArrowDown: [0, -step] }[ev.key];
    if (!d) return;
    ev.preventDefault();
    setStatus([place("champ", [clampX(champ[0] + d[0]), clampY(champ[1] + d[1])])]);
    update();
  });
  mapSel.addEventListener("change", onMapChange);
  clsSel.addEventListener("change", update);
  onMapChange();
  root.dataset.ready = "yes";
}
