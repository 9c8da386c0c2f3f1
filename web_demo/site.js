// Site-wide glue, loaded once as a module. Material's instant navigation swaps pages without
// re-running scripts, so every interactive element is (re)initialised on each emission of
// Material's `document$` stream: Sight Labs and embedded replay viewers.

const SITE_ROOT = new URL("../", import.meta.url);

async function mountViewers() {
  const hosts = [...document.querySelectorAll("[data-replay-viewer]:not([data-ready])")];
  if (!hosts.length) return;
  let embed;
  try {
    embed = await import(new URL("web_demo/viewer/embed.js", SITE_ROOT).href);
  } catch (err) {
    for (const host of hosts) host.textContent = `The replay viewer could not load: ${err.message}`;
    return;
  }
  for (const host of hosts) {
    host.dataset.ready = "yes";
    const src = new URL(host.dataset.src, SITE_ROOT).href;
    const tick = host.dataset.tick ? Number(host.dataset.tick) : undefined;
    embed.mountViewer(host, {
      src,
      tick,
      view: host.dataset.view || undefined,
      compact: host.dataset.compact === "true",
    });
  }
}

async function mountLabs() {
  const hosts = [...document.querySelectorAll("[data-sightlab]:not([data-ready])")];
  if (!hosts.length) return;
  const { mountSightLab } = await import("./sightlab/sightlab.js");
  await Promise.all(hosts.map((host) => mountSightLab(host, SITE_ROOT)));
}

function initialise() {
  mountLabs().catch((err) => console.error("Sight Lab:", err));
  mountViewers().catch((err) => console.error("viewer:", err));
}

if (window.document$ && typeof window.document$.subscribe === "function") {
  window.document$.subscribe(initialise);
} else if (document.readyState === "loading") {
  document.addEventListener("DOMContentLoaded", initialise);
} else {
  initialise();
}
