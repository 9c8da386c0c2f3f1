// The Metrics Explorer: a season's full metrics, every entrant read from its own side, one
// topic at a time. It reads `explorer.json` (written by scripts/export_team_measures.py) and
// shows the topic's columns as a sortable table with a small plot per row. Every string from
// the file is placed with textContent, never parsed as HTML.

export const FORMAT = "marl-bgs/season-metrics";
const SVG = "http://www.w3.org/2000/svg";
// Twelve colours far enough apart that a season's entrants never share one (issue 46: with
// seven, TDM-Alpha and QMIX were both blue).
export const COLOURS = [
  "#1f5fbf", "#e0701a", "#2a9d4a", "#c62828", "#7b4bb7", "#8c5a3c",
  "#d94fa3", "#5f6368", "#a6a00c", "#17a2b8", "#0b2f6b", "#f2b705",
];

// Check the parts of the file the page reads; a message names the field.
export function checkData(data) {
  const fail = (where, what) => {
    throw new Error(`explorer.json: ${where}: ${what}`);
  };
  if (!data || typeof data !== "object") fail("the file", "expected an object");
  if (data.format !== FORMAT) fail("format", `expected "${FORMAT}"`);
  if (!Array.isArray(data.columns)) fail("columns", "expected a list");
  if (!Array.isArray(data.topics) || !data.topics.length) fail("topics", "expected a list");
  if (!Array.isArray(data.entrants) || !data.entrants.length) fail("entrants", "expected a list");
  const n = data.columns.length;
  data.entrants.forEach((e, i) => {
    if (typeof e.name !== "string") fail(`entrants[${i}].name`, "expected a string");
    for (const key of ["value", "low", "high"]) {
      if (!Array.isArray(e[key]) || e[key].length !== n) fail(`entrants[${i}].${key}`, `expected ${n} numbers`);
    }
  });
  return data;
}

// The rows of one topic: each column's index, full name and labels (the name less the topic).
export function topicRows(data, topic) {
  const prefix = `${topic}.`;
  const rows = [];
  data.columns.forEach((name, index) => {
    if (name.startsWith(prefix)) rows.push({ index, name, label: name.slice(prefix.length) });
  });
  return rows;
}

// Rows whose labels contain every word of the filter (case-insensitive).
export function filterRows(rows, filter) {
  const words = String(filter || "").toLowerCase().split(/\s+/).filter(Boolean);
  return rows.filter((r) => words.every((w) => r.label.toLowerCase().includes(w)));
}

// A word for the filter's example that finds some of `rows` (the current topic's), not all:
// the most common part of their labels (split at dots) that is missing from some label.
export function filterExample(rows) {
  const counts = new Map();
  for (const r of rows) for (const part of new Set(r.label.split("."))) counts.set(part, (counts.get(part) ?? 0) + 1);
  let best = null;
  for (const [part, n] of counts) {
    if (n < rows.length && (best === null || n > counts.get(best))) best = part;
  }
  return best ?? (rows[0] ? rows[0].label.split(".")[0] : "");
}

// Rows where some shown entrant has a nonzero value (all-zero columns say only "never").
export function nonzeroRows(rows, data, shown) {
  return rows.filter((r) => shown.some((k) => (data.entrants[k].value[r.index] ?? 0) !== 0));
}

// A description with `code` spans, as nodes (text only, never HTML).
function describedNodes(text) {
  return String(text)
    .split("`")
    .map((part, i) => (i % 2 ? el("code", {}, part) : document.createTextNode(part)));
}

// Sort by label (key "label") or by one entrant's value (key: its index); missing values last.
export function sortRows(rows, data, key, descending) {
  const sign = descending ? -1 : 1;
  const out = [...rows];
  if (key === "label") {
    out.sort((a, b) => sign * (a.index - b.index));
    return out;
  }
  const values = data.entrants[key].value;
  out.sort((a, b) => {
    const va = values[a.index];
    const vb = values[b.index];
    if (va === null && vb === null) return a.index - b.index;
    if (va === null) return 1;
    if (vb === null) return -1;
    return sign * (va - vb) || a.index - b.index;
  });
  return out;
}

// What one label says, in words: by_a2 -> "by own slot 2 (Hunter)".
export function labelText(label, roster) {
  const slot = /^(by_|to_|of_|on_|and_|)([ab])(\d)$/.exec(label);
  if (!slot) {
    if (label === "a") return "own team";
    if (label === "b") return "opponents";
    if (label === "on_none") return "with no target";
    return label.replaceAll("_", " ");
  }
  const role = { by_: "by ", to_: "to ", of_: "of ", on_: "aimed at ", and_: "and ", "": "" }[slot[1]];
  const side = slot[2] === "a" ? "own" : "opponent";
  const cls = roster && roster[Number(slot[3])] ? ` (${roster[Number(slot[3])]})` : "";
  return `${role}${side} slot ${slot[3]}${cls}`;
}

export function columnText(row, roster) {
  return row.label.split(".").map((l) => labelText(l, roster)).join(", ");
}

export function formatValue(v) {
  if (v === null || v === undefined) return "–";
  const a = Math.abs(v);
  const digits = a === 0 ? 0 : a < 1 ? 3 : a < 100 ? 2 : a < 10000 ? 1 : 0;
  return v.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

function el(tag, attrs = {}, text = null) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== null) node.textContent = text;
  return node;
}

function svgEl(tag, attrs) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
}

// One row's small plot: a bar per shown entrant, scaled to the row's largest upper bound.
// Drawn at its own size (site.css keeps the table from squeezing it) next to the column's
// name, so the row reads at a glance before the numbers.
export const PLOT_WIDTH = 180;
export const PLOT_BAR = 6;
function rowPlot(data, row, shown) {
  const bar = PLOT_BAR;
  const width = PLOT_WIDTH;
  const height = shown.length * (bar + 1);
  const svg = svgEl("svg", { width, height, viewBox: `0 0 ${width} ${height}`, class: "mbg-ex-plot", role: "img" });
  const top = Math.max(1e-12, ...shown.map((k) => data.entrants[k].high[row.index] ?? data.entrants[k].value[row.index] ?? 0));
  const x = (v) => Math.max(0, Math.min(width, (width * (v ?? 0)) / top));
  shown.forEach((k, j) => {
    const e = data.entrants[k];
    const y = j * (bar + 2);
    const value = e.value[row.index];
    const rect = svgEl("rect", { x: 0, y, width: x(value), height: bar, fill: COLOURS[k % COLOURS.length] });
    const title = svgEl("title", {});
    title.textContent = `${e.name}: ${formatValue(value)} [${formatValue(e.low[row.index])}, ${formatValue(e.high[row.index])}]`;
    rect.append(title);
    svg.append(rect);
    if (e.low[row.index] !== null && e.high[row.index] !== null) {
      svg.append(svgEl("line", { x1: x(e.low[row.index]), x2: x(e.high[row.index]), y1: y + bar / 2, y2: y + bar / 2, stroke: "#222", "stroke-width": 1 }));
    }
  });
  return svg;
}

// Build the explorer into `host` from checked data; returns its state (for tests and reuse).
export function renderExplorer(host, data) {
  const state = { topic: data.topics.find((t) => t.name !== "episode_results")?.name ?? data.topics[0].name, shown: data.entrants.map((_, k) => k), sort: "label", descending: false, filter: "", hideZero: true };
  host.replaceChildren();
  host.classList.add("mbg-ex-ready");
  const controls = el("div", { class: "mbg-ex-controls" });
  const topicLabel = el("label", {}, "Topic ");
  const select = el("select", { class: "mbg-ex-topic-pick", "aria-label": "Topic" });
  const sections = [...new Set(data.topics.map((t) => t.section))];
  for (const section of sections) {
    const group = el("optgroup", { label: section });
    for (const t of data.topics.filter((t) => t.section === section)) {
      const option = el("option", { value: t.name }, `${t.title} (${t.columns})`);
      group.append(option);
    }
    select.append(group);
  }
  select.value = state.topic;
  topicLabel.append(select);
  const who = el("fieldset", { class: "mbg-ex-entrants" });
  who.append(el("legend", {}, "Entrants"));
  data.entrants.forEach((e, k) => {
    const label = el("label", { class: "mbg-ex-entrant" });
    const box = el("input", { type: "checkbox", value: String(k) });
    box.checked = true;
    const swatch = el("span", { class: "mbg-ex-swatch", style: `background:${COLOURS[k % COLOURS.length]}` });
    label.append(box, swatch, document.createTextNode(` ${e.name}`));
    who.append(label);
  });
  const filterLabel = el("label", {}, "Filter ");
  const filter = el("input", { type: "search", class: "mbg-ex-filter", "aria-label": "Filter columns" });
  filterLabel.append(filter);
  const zeroLabel = el("label", {});
  const zero = el("input", { type: "checkbox", class: "mbg-ex-hide-zero" });
  zero.checked = state.hideZero;
  zeroLabel.append(zero, document.createTextNode(" hide columns that are 0 for every entrant shown"));
  controls.append(topicLabel, filterLabel, zeroLabel, who);
  const about = el("p", { class: "mbg-ex-about" });
  const count = el("p", { class: "mbg-ex-count" });
  const wrap = el("div", { class: "mbg-ex-wrap" });
  const table = el("table", { class: "mbg-ex-table" });
  wrap.append(table);
  host.append(controls, about, count, wrap);

  const draw = () => {
    const topic = data.topics.find((t) => t.name === state.topic);
    about.replaceChildren(el("strong", {}, `${topic.title}. `), ...describedNodes(topic.description));
    const all = topicRows(data, state.topic);
    const example = filterExample(all);
    filter.placeholder = example ? `e.g. ${example}` : "";
    let rows = filterRows(all, state.filter);
    const matching = rows.length;
    if (state.hideZero) rows = nonzeroRows(rows, data, state.shown);
    rows = sortRows(rows, data, state.sort, state.descending);
    const unit = rows.length ? data.units[rows[0].index] : "";
    const hidden = matching - rows.length;
    count.textContent = `${rows.length} of ${topic.columns} columns${hidden ? ` (${hidden} all-zero hidden)` : ""} · ${unit} · own side: team a is the entrant, b its opponents`;
    const head = el("tr");
    const heading = (text, key) => {
      const th = el("th", { "aria-sort": state.sort === key ? (state.descending ? "descending" : "ascending") : "none" });
      const button = el("button", { type: "button", class: "mbg-ex-sort", "data-key": String(key) }, text);
      button.addEventListener("click", () => {
        state.descending = state.sort === key ? !state.descending : key !== "label";
        state.sort = key;
        draw();
      });
      th.append(button);
      return th;
    };
    head.append(heading("column", "label"), el("th", {}, "plot"));
    for (const k of state.shown) head.append(heading(data.entrants[k].name, k));
    const body = el("tbody");
    for (const row of rows) {
      const tr = el("tr", { "data-column": row.name, title: `${row.name}: ${columnText(row, data.roster)}` });
      const name = el("td", { class: "mbg-ex-name" });
      name.append(el("code", {}, row.label), el("br"), el("small", {}, columnText(row, data.roster)));
      const plot = el("td", { class: "mbg-ex-plot-cell" });
      plot.append(rowPlot(data, row, state.shown));
      tr.append(name, plot);
      for (const k of state.shown) {
        const e = data.entrants[k];
        const td = el("td", { class: "mbg-ex-value", "data-entrant": e.name }, formatValue(e.value[row.index]));
        td.append(el("br"), el("small", {}, `[${formatValue(e.low[row.index])}, ${formatValue(e.high[row.index])}]`));
        tr.append(td);
      }
      body.append(tr);
    }
    const thead = el("thead");
    thead.append(head);
    table.replaceChildren(thead, body);
  };
  select.addEventListener("change", () => {
    state.topic = select.value;
    state.filter = filter.value = "";
    draw();
  });
  filter.addEventListener("input", () => {
    state.filter = filter.value;
    draw();
  });
  zero.addEventListener("change", () => {
    state.hideZero = zero.checked;
    draw();
  });
  who.addEventListener("change", () => {
    state.shown = [...who.querySelectorAll("input:checked")].map((b) => Number(b.value));
    if (typeof state.sort === "number" && !state.shown.includes(state.sort)) state.sort = "label";
    draw();
  });
  draw();
  return state;
}

// Mount every `.mbg-explorer[data-src]` on the page (the path is relative to the page).
export async function mountExplorers(doc = document) {
  for (const host of doc.querySelectorAll(".mbg-explorer[data-src]:not(.mbg-ex-ready)")) {
    try {
      const response = await fetch(new URL(host.dataset.src, doc.baseURI));
      if (!response.ok) throw new Error(`${host.dataset.src}: HTTP ${response.status}`);
      renderExplorer(host, checkData(await response.json()));
    } catch (err) {
      host.replaceChildren(el("p", { class: "mbg-ex-error" }, `The Metrics Explorer could not load: ${err.message}`));
    }
  }
}
