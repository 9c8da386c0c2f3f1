// Site-wide glue, loaded once as a module. Material's instant navigation swaps pages without
// re-running scripts, so every interactive element is (re)initialised on each emission of
// Material's `document$` stream: Sight Labs, BattleClients, replay viewers and Metrics Explorers.
//
// Replay viewers: every `<div class="mbg-viewer" data-src=...>` is mounted by the viewer's own
// `mountAll` (web_demo/viewer/embed.js). The function it returns destroys those viewers; it is
// called before the next page is mounted, which stops the old page's animation frames and
// observers (the old nodes are already out of the document by then). Two extras live here:
// `data-autoplay` starts a viewer once its replay is loaded (unless the reader asked for
// reduced motion), and `[data-replay-pick]` buttons switch the page's main viewer to another
// replay.
//
// Play (BattleClients): likewise, each page swap destroys the clients whose host left the
// document, so a half-played game's timers, listeners and engine session go with its page.
// The Play page's `?scenario=<id>` starts that endgame scenario (play.js, `loadScenario`).

const SITE_ROOT = new URL("../", import.meta.url);
const VIEWER = ".mbg-viewer[data-src]";

let unmountViewers = null;
let generation = 0;

// Call `then(root)` once the viewer in `host` has opened its replay or failed to.
function whenLoaded(host, then) {
  const ready = () => host.querySelector(".mbg-root.mbg-loaded, .mbg-root.mbg-failed");
  if (ready()) {
    then(ready());
    return;
  }
  const observer = new MutationObserver(() => {
    const root = ready();
    if (root) {
      observer.disconnect();
      then(root);
    }
  });
  observer.observe(host, { subtree: true, childList: true, attributes: true, attributeFilter: ["class"] });
}

function autoplay() {
  if (window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches) return;
  for (const host of document.querySelectorAll(`${VIEWER}[data-autoplay]`)) {
    whenLoaded(host, (root) => {
      const play = root.querySelector(".mbg-play");
      if (play && root.classList.contains("mbg-loaded") && play.textContent === "Play") play.click();
    });
  }
}

// A link made by the viewer's Link button on this page (`?replay=...#tick=..&view=..`) opens
// that replay, tick and view in the page's main viewer; the viewer checks the address.
function followSharedLink() {
  const main = document.querySelector(`${VIEWER}[data-replay-main]`);
  const shared = new URLSearchParams(location.search).get("replay");
  if (!main || !shared) return;
  main.dataset.src = shared;
  const hash = new URLSearchParams(location.hash.replace(/^#/, ""));
  if (hash.get("tick")) main.dataset.tick = hash.get("tick");
  if (hash.get("view")) main.dataset.view = hash.get("view");
  for (const b of document.querySelectorAll("[data-replay-pick]")) {
    const same = new URL(b.dataset.replayPick, location.href).pathname === new URL(shared, location.href).pathname;
    b.setAttribute("aria-pressed", String(same));
  }
}

function wirePickers(remount) {
  const main = document.querySelector(`${VIEWER}[data-replay-main]`);
  const buttons = [...document.querySelectorAll("[data-replay-pick]")];
  if (!main || !buttons.length) return;
  for (const button of buttons) {
    button.addEventListener("click", () => {
      for (const b of buttons) b.setAttribute("aria-pressed", String(b === button));
      main.dataset.src = button.dataset.replayPick;
      delete main.dataset.tick;
      main.dataset.view = "oracle";
      remount();
      main.scrollIntoView({ block: "nearest" });
    });
  }
}

async function mountViewers() {
  const mine = ++generation;
  if (unmountViewers) {
    unmountViewers();
    unmountViewers = null;
  }
  if (!document.querySelector(VIEWER)) return;
  let embed;
  try {
    embed = await import("./viewer/embed.js");
  } catch (err) {
    for (const host of document.querySelectorAll(VIEWER)) {
      host.textContent = `The replay viewer could not load: ${err.message}`;
    }
    return;
  }
  if (mine !== generation) return; // another page arrived while the module loaded
  const mount = () => {
    if (unmountViewers) unmountViewers();
    unmountViewers = embed.mountAll(document);
    autoplay();
  };
  followSharedLink();
  mount();
  wirePickers(mount);
}

async function mountLabs() {
  const hosts = [...document.querySelectorAll("[data-sightlab]:not([data-ready])")];
  if (!hosts.length) return;
  const { mountSightLab } = await import("./sightlab/sightlab.js");
  await Promise.all(hosts.map((host) => mountSightLab(host, SITE_ROOT)));
}

// BattleClients: every `[data-play]` gets one (web_demo/play/play.js). The browser's engine
// is loaded once per visit, when the visitor first asks for it, and kept across page swaps;
// the clients are not: `plays` holds each mounted client by its host, and a client whose host
// is no longer in the document (the page was swapped away) is destroyed (play.js's
// `destroy`: timers, listeners, the viewer of a finished game, and the engine's session).
let playEngine = null;
const plays = new Map();
const ENGINE_DIR = new URL("exports/browser/", SITE_ROOT);
const ENGINE_CACHE = "marl-bgs-engine"; // engine-sw.js keeps the engine's files there

// The service worker that keeps the engine's files in Cache Storage (web_demo/engine/
// engine-sw.js, served at the site's root). Resolves once it controls this page, or after a
// few seconds without it (the engine then loads from the network as before).
async function engineCache() {
  if (!("serviceWorker" in navigator) || !window.isSecureContext) return false;
  try {
    await navigator.serviceWorker.register(new URL("engine-sw.js", SITE_ROOT), { scope: SITE_ROOT.pathname });
    if (navigator.serviceWorker.controller) return true;
    await Promise.race([
      new Promise((resolve) => navigator.serviceWorker.addEventListener("controllerchange", resolve, { once: true })),
      new Promise((resolve) => setTimeout(resolve, 4000)),
    ]);
    return Boolean(navigator.serviceWorker.controller);
  } catch (err) {
    console.warn("engine cache:", err.message);
    return false;
  }
}

// The engine's download size (its manifest) and whether this browser keeps every file of
// it already (the cache keys engine-sw.js writes: the path and the file's SHA-256).
async function engineDownload() {
  const response = await fetch(new URL("manifest.json", ENGINE_DIR), { cache: "no-cache" });
  if (!response.ok) return null;
  const manifest = await response.json();
  let kept = false;
  if (window.caches) {
    const cache = await caches.open(ENGINE_CACHE);
    const keys = Object.entries(manifest.files ?? {}).map(([path, f]) => `${new URL(path, ENGINE_DIR).href}?sha256=${f.sha256}`);
    kept = keys.length > 0 && (await Promise.all(keys.map((k) => cache.match(k)))).every(Boolean);
  }
  return { bytes: manifest.total_bytes, kept };
}

// Download progress in the client's status line: a bar and the megabytes so far.
function showProgress(host, loaded, total) {
  const node = host.querySelector(".bgp-status");
  if (!node) return;
  let bar = node.querySelector("progress");
  if (!bar) {
    bar = document.createElement("progress");
    bar.className = "bgp-progress";
    node.replaceChildren(bar, document.createElement("span"));
  }
  bar.max = total || 1;
  bar.value = loaded;
  const mb = (n) => (n / 1e6).toFixed(1);
  node.lastChild.textContent = total ? ` Downloading the engine: ${mb(loaded)} of ${mb(total)} MB` : ` ${mb(loaded)} MB`;
}

function unmountPlays() {
  for (const [host, client] of plays) {
    if (host.isConnected) continue;
    client.destroy();
    plays.delete(host);
  }
}

// For tests: the mounted clients and the shared engine (a promise of it, or null).
window.mbgPlays = { clients: plays, engine: () => playEngine };

async function mountPlays() {
  unmountPlays();
  const hosts = [...document.querySelectorAll("[data-play]:not([data-ready])")];
  if (!hosts.length) return;
  const [{ mountPlay }, { browserBackend }] = await Promise.all([
    import("./play/play.js"),
    import("./play/backends.js"),
  ]);
  for (const host of hosts) {
    if (!host.isConnected) continue; // another page arrived while the modules loaded
    host.dataset.ready = "yes";
    const onStatus = (text) => {
      const node = host.querySelector(".bgp-status");
      if (node) node.textContent = text;
    };
    const onProgress = (loaded, total) => showProgress(host, loaded, total);
    const backend = () => {
      playEngine ??= engineCache().then(() => browserBackend({ onStatus, onProgress }));
      playEngine.catch(() => {
        playEngine = null; // a failed load may be retried
      });
      return playEngine;
    };
    // `?scenario=<id>` (a Scenarios page's "Play this position"): that endgame, started as
    // soon as the engine is in; the visitor asked to play it, so the engine loads at once.
    const id = new URLSearchParams(location.search).get("scenario");
    const scenario = id === null ? null : { id, base: SITE_ROOT };
    const lazy = playEngine === null && !scenario;
    const download = lazy ? engineDownload().catch(() => null) : null;
    let strengths = {};
    try {
      strengths = JSON.parse(host.dataset.strengths ?? "{}");
    } catch {
      strengths = {}; // a label is a courtesy: the menu works without it
    }
    plays.set(host, mountPlay(host, { backend, lazy, scenario, download, strengths }));
  }
}

// Metrics Explorers: every `.mbg-explorer[data-src]` (web_demo/metrics/explorer.js).
async function mountExplorers() {
  if (!document.querySelector(".mbg-explorer[data-src]")) return;
  const { mountExplorers: mount } = await import("./metrics/explorer.js");
  await mount(document);
}

function initialise() {
  mountExplorers().catch((err) => console.error("Metrics Explorer:", err));
  mountLabs().catch((err) => console.error("Sight Lab:", err));
  mountPlays().catch((err) => console.error("BattleClient:", err));
  mountViewers().catch((err) => console.error("viewer:", err));
}

if (window.document$ && typeof window.document$.subscribe === "function") {
  window.document$.subscribe(initialise);
} else if (document.readyState === "loading") {
  document.addEventListener("DOMContentLoaded", initialise);
} else {
  initialise();
}
