// The embeddable replay viewer: `mountViewer(container, {src, tick, view, compact})` returns a
// controller with `destroy()`. The website mounts one on every `<div class="mbg-viewer"
// data-src="...">` after each page swap (see `mountAll`).

import { ReplayError, readReplayBytes } from "./format/validate.js";
import { prepareObstacles, renderFrame } from "./render.js";
import {
  advance, createTimeline, faster, seek, setSpeed, slower, stepBy, togglePlay,
} from "./timeline.js";
import { totalsCache } from "./totals.js";
import {
  buildLayout, describeEvent, fillAgents, fillLog, fillMetrics, fillNow, fillTotalEffects, fillTotals,
  fillViews, viewLabel,
} from "./ui.js";
import { formatHash, shareUrl, checkSource, parseHash } from "./urlstate.js";
import {
  ORACLE, agentsAt, availableViews, eventsAt, metricsUpTo, normaliseView,
} from "./view.js";

const LOG_LIMIT = 60;

function pageHref() {
  return globalThis.location ? globalThis.location.href : "http://localhost/";
}

async function fetchReplay(src, signal) {
  const url = checkSource(src, pageHref());
  let response;
  try {
    response = await fetch(url, { signal, credentials: "same-origin" });
  } catch (err) {
    if (err.name === "AbortError") throw err;
    throw new ReplayError(`replay: could not load ${src} (${err.message})`);
  }
  if (!response.ok) throw new ReplayError(`replay: could not load ${src} (HTTP ${response.status})`);
  return readReplayBytes(new Uint8Array(await response.arrayBuffer()));
}

export function mountViewer(container, options = {}) {
  const { compact = false, syncUrl = false } = options;
  const ui = buildLayout(container, { compact });
  const abort = new AbortController();
  const cleanups = [];
  let replay = null;
  let obstacles = [];
  let tl = createTimeline(0);
  let view = ORACLE;
  let src = options.src || null;
  let frameRequest = null;
  let lastTime = null;
  let destroyed = false;
  let totals = null; // this replay's running totals, summed on first use
  let totalsKind = "damage";
  let totalsEffect = null; // null: every effect

  const on = (target, type, fn, opts) => {
    target.addEventListener(type, fn, opts);
    cleanups.push(() => target.removeEventListener(type, fn, opts));
  };

  function showError(err) {
    const message = err instanceof ReplayError ? err.message : `unexpected error: ${err && err.message}`;
    ui.error.textContent = `Cannot open this replay. ${message}`;
    ui.error.hidden = false;
    ui.root.classList.add("mbg-failed");
    if (!(err instanceof ReplayError)) console.warn(err); // eslint-disable-line no-console
  }

  function writeUrl() {
    if (!syncUrl || !globalThis.history) return;
    const hash = formatHash({ tick: tl.tick, view });
    if (globalThis.location.hash === hash) return;
    const here = globalThis.location;
    history.replaceState(null, "", hash || here.pathname + here.search);
  }

  function draw() {
    if (!replay || destroyed) return;
    const t = tl.tick;
    const { agents } = renderFrame(ui.canvas, replay, view, t, obstacles);
    const f = replay.frames;
    ui.score.textContent = `a ${f.score[t][0]} : ${f.score[t][1]} b  (to ${f.winning_score[t]})`;
    const result = f.result[t];
    const end = result === -1 ? "" : result === 2 ? " \u2014 draw" : ` \u2014 team ${"ab"[result]} wins`;
    ui.clock.textContent = `${clockText(t)}${end}`;
    ui.scrub.value = String(t);
    ui.play.textContent = tl.playing ? "Pause" : "Play";
    ui.speed.value = String(tl.speedIndex);
    ui.view.value = view;
    ui.root.dataset.tick = String(t);
    ui.root.dataset.view = view;
    fillAgents(ui.agents, agents);
    fillLog(ui.log, replay, view, t, eventsAt, agentsAt, LOG_LIMIT);
    fillNow(ui.now, replay, view, t, eventsAt, agentsAt);
    fillMetrics(ui.metrics, metricsUpTo(replay, view, t), view === ORACLE && replay.view === null);
    if (ui.totals.box.open) drawTotals(t, agents);
    if (!tl.playing) writeUrl();
  }

  // "tick n / horizon" for a game ("tick n / end (limit horizon)" for one that ended early); a clip (a recording that stops before its game ends) counts
  // its own ticks, so a 3-tick clip never reads "tick 1 / 300".
  function clockText(t) {
    const f = replay.frames;
    const last = replay.ticks;
    if (last === 0) return `tick ${f.tick[0]}: a position only (no ticks played)`;
    const clip = f.result[last] === -1 && f.tick[last] < f.horizon[last];
    // a game that ended before its tick limit counts to the tick it ended (issue 46)
    const ended = f.result[last] !== -1 && f.tick[last] < f.horizon[last];
    if (ended) return `tick ${f.tick[t]} / ${f.tick[last]} (limit ${f.horizon[last]})`;
    if (!clip) return `tick ${f.tick[t]} / ${f.horizon[t]}`;
    if (f.tick[0] === 0) return `tick ${f.tick[t]} of this ${last}-tick clip`;
    return `tick ${f.tick[t]} (a clip of ticks ${f.tick[0] + 1}\u2013${f.tick[last]})`;
  }

  // The scope in words: the ticks counted (tick t's own events too, as the log shows them).
  function totalsScope(t) {
    const f = replay.frames;
    const through = replay.ticks === 0 || t === 0 ? "no ticks played yet" : t >= replay.ticks ? "the whole game" : `ticks ${f.tick[0] + 1}\u2013${f.tick[t]}`;
    return view === ORACLE ? ` \u2014 ${through}` : ` \u2014 ${through}, as ${viewLabel(view)} saw it`;
  }

  function drawTotals(t, agents) {
    fillTotals(ui.totals, {
      kind: totalsKind,
      matrix: totals.at(view, totalsKind, totalsKind === "effects" ? totalsEffect : null, t),
      agents,
      seen: totals.firstSeen(view),
      t,
      scope: totalsScope(t),
    });
  }

  function loop(now) {
    frameRequest = null;
    if (!tl.playing || destroyed) return;
    const dt = lastTime === null ? 0 : now - lastTime;
    lastTime = now;
    const before = tl.tick;
    tl = advance(tl, dt);
    if (tl.tick !== before || !tl.playing) draw();
    if (tl.playing) frameRequest = requestAnimationFrame(loop);
  }

  function update(next) {
    const wasPlaying = tl.playing;
    tl = next;
    draw();
    if (tl.playing && !wasPlaying) {
      lastTime = null;
      frameRequest = requestAnimationFrame(loop);
    }
  }

  function setView(next) {
    if (!replay) return;
    view = normaliseView(replay, next);
    draw();
  }

  function cycleView() {
    if (!replay) return;
    const views = availableViews(replay);
    setView(views[(views.indexOf(view) + 1) % views.length]);
  }

  function open(loaded, start = {}) {
    replay = loaded;
    obstacles = prepareObstacles(replay.map);
    tl = createTimeline(replay.ticks, start.tick ?? 0);
    view = normaliseView(replay, start.view ?? ORACLE);
    ui.error.hidden = true;
    ui.root.classList.remove("mbg-failed");
    ui.root.classList.add("mbg-loaded");
    ui.title.textContent = replay.title || "Replay";
    const names = [0, 1].map((team) => {
      const used = replay.systems.slice(team * 5, team * 5 + 5).filter((s) => s !== null);
      return [...new Set(used)].join(" + ") || "?";
    });
    const authored = names.every((n) => n === "authored");
    ui.matchup.textContent = authored
      ? "both teams: actions written for this scene"
      : `team a: ${names[0]}  vs  team b: ${names[1]}`;
    for (const b of [ui.first, ui.back, ui.play, ui.fwd, ui.last, ui.scrub]) b.disabled = replay.ticks === 0;
    ui.scrub.max = String(replay.ticks);
    totals = totalsCache(replay);
    fillTotalEffects(ui.totals.effect, replay.rules);
    if (!replay.rules.effects.some((e) => e.name === totalsEffect)) totalsEffect = null;
    ui.totals.effect.value = totalsEffect ?? "";
    fillViews(ui.view, availableViews(replay), view);
    draw();
  }

  async function load(source, start) {
    try {
      const loaded = typeof source === "string" ? await fetchReplay(source, abort.signal) : await readReplayBytes(source);
      if (!destroyed) open(loaded, start);
    } catch (err) {
      if (err && err.name === "AbortError") return;
      if (!destroyed) showError(err);
    }
  }

  // Controls.
  on(ui.first, "click", () => update(stepBy(tl, -tl.ticks)));
  on(ui.back, "click", () => update(stepBy(tl, -1)));
  on(ui.play, "click", () => update(togglePlay(tl)));
  on(ui.fwd, "click", () => update(stepBy(tl, 1)));
  on(ui.last, "click", () => update(stepBy(tl, tl.ticks)));
  on(ui.scrub, "input", () => update({ ...seek(tl, Number(ui.scrub.value)), playing: false }));
  on(ui.speed, "change", () => update(setSpeed(tl, Number(ui.speed.value))));
  on(ui.view, "change", () => setView(ui.view.value));
  for (const tab of ui.totals.tabs) {
    on(tab, "click", () => {
      totalsKind = tab.dataset.kind;
      draw();
    });
  }
  on(ui.totals.effect, "change", () => {
    totalsEffect = ui.totals.effect.value || null;
    draw();
  });
  on(ui.totals.box, "toggle", () => draw());
  on(ui.help, "click", () => {
    ui.helpBox.hidden = !ui.helpBox.hidden;
  });
  on(ui.share, "click", () => {
    const link = shareUrl(pageHref(), src, { tick: tl.tick, view });
    ui.shareOut.value = link;
    ui.shareOut.hidden = false;
    ui.shareOut.select();
    if (navigator.clipboard) navigator.clipboard.writeText(link).catch(() => {});
  });
  on(ui.file, "change", () => {
    const chosen = ui.file.files && ui.file.files[0];
    if (chosen) {
      src = null;
      chosen.arrayBuffer().then((buf) => load(new Uint8Array(buf)), showError);
    }
  });
  on(ui.root, "dragover", (e) => {
    e.preventDefault();
    ui.drop.hidden = false;
  });
  on(ui.root, "dragleave", () => {
    ui.drop.hidden = true;
  });
  on(ui.root, "drop", (e) => {
    e.preventDefault();
    ui.drop.hidden = true;
    const dropped = e.dataTransfer && e.dataTransfer.files[0];
    if (dropped) {
      src = null;
      dropped.arrayBuffer().then((buf) => load(new Uint8Array(buf)), showError);
    }
  });
  const keyTarget = syncUrl ? document : ui.root;
  on(keyTarget, "keydown", (e) => {
    if (e.target && ["INPUT", "SELECT", "TEXTAREA"].includes(e.target.tagName) && e.key !== "Escape") return;
    const keys = {
      " ": () => update(togglePlay(tl)),
      ArrowLeft: () => update(stepBy(tl, e.shiftKey ? -10 : -1)),
      ArrowRight: () => update(stepBy(tl, e.shiftKey ? 10 : 1)),
      Home: () => update(stepBy(tl, -tl.ticks)),
      End: () => update(stepBy(tl, tl.ticks)),
      "+": () => update(faster(tl)),
      "=": () => update(faster(tl)),
      "-": () => update(slower(tl)),
      v: cycleView,
      o: () => setView(ORACLE),
      "?": () => {
        ui.helpBox.hidden = !ui.helpBox.hidden;
      },
      Escape: () => {
        ui.helpBox.hidden = true;
      },
    };
    const action = keys[e.key];
    if (action && !e.ctrlKey && !e.metaKey && !e.altKey) {
      e.preventDefault();
      action();
    }
  });
  if (syncUrl) {
    on(globalThis, "hashchange", () => {
      const state = parseHash(globalThis.location.hash);
      if (state.view) setView(state.view);
      if (state.tick !== null) update(seek({ ...tl, playing: false }, state.tick));
    });
  }
  if (typeof ResizeObserver !== "undefined") {
    const observer = new ResizeObserver(() => draw());
    observer.observe(ui.root);
    cleanups.push(() => observer.disconnect());
  }

  if (src) load(src, { tick: options.tick, view: options.view });
  else if (options.bytes) load(options.bytes, { tick: options.tick, view: options.view });

  return {
    load: (source, start) => {
      src = typeof source === "string" ? source : null;
      return load(source, start);
    },
    seek: (t) => update(seek({ ...tl, playing: false }, t)),
    setView,
    get state() {
      return { tick: tl.tick, view, playing: tl.playing, loaded: replay !== null };
    },
    describe: (e) => describeEvent(e, replay ? agentsAt(replay, view, tl.tick) : []),
    viewLabel,
    destroy() {
      destroyed = true;
      abort.abort();
      if (frameRequest !== null) cancelAnimationFrame(frameRequest);
      for (const fn of cleanups.splice(0)) fn();
      ui.root.remove();
    },
  };
}

// Mount a viewer on every `.mbg-viewer[data-src]` under `root` that has none yet; returns
// a function that destroys them all (call it before the page's content is swapped).
export function mountAll(root = document) {
  const controllers = [];
  for (const node of root.querySelectorAll(".mbg-viewer[data-src]")) {
    if (node.dataset.mbgMounted) continue;
    node.dataset.mbgMounted = "1";
    const tick = Number.parseInt(node.dataset.tick ?? "", 10);
    controllers.push(
      mountViewer(node, {
        src: node.dataset.src,
        tick: Number.isFinite(tick) ? tick : undefined,
        view: node.dataset.view,
        compact: node.dataset.compact !== "false",
      }),
    );
  }
  return () => {
    for (const c of controllers) c.destroy();
    for (const node of root.querySelectorAll(".mbg-viewer[data-mbg-mounted]")) delete node.dataset.mbgMounted;
  };
}
