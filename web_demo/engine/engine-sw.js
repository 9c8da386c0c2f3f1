// The service worker that keeps the browser engine's files (exports/browser/: Pyodide, its
// NumPy and our engine wheel, about 19 MB) in the browser's Cache Storage, so that a reload,
// a bookmark or Back loads the engine from there instead of downloading it again.
//
// The site serves this file at its root (marl_bgs/site/hook.py), so its scope is the whole
// site; it answers only requests under exports/browser/ and lets every other one through.
// Each file is cached under its SHA-256 from exports/browser/manifest.json, which is always
// asked of the network first: a new build of the engine names new hashes, its files are
// fetched once, checked against them and kept, and the old ones are deleted.
const ENGINE = new URL("exports/browser/", self.registration.scope).href;
const MANIFEST = `${ENGINE}manifest.json`;
const CACHE = "marl-bgs-engine";
let hashes = null; // path under exports/browser/ -> sha256, from the newest manifest seen

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

function hashesOf(doc) {
  const out = {};
  for (const [path, file] of Object.entries(doc?.files ?? {})) {
    if (typeof file?.sha256 === "string") out[path] = file.sha256;
  }
  return out;
}

function cacheKey(url) {
  const path = url.slice(ENGINE.length).split(/[?#]/)[0];
  const sha = hashes?.[path];
  return sha ? `${ENGINE}${path}?sha256=${sha}` : null;
}

async function forgetOldFiles(cache) {
  const wanted = new Set(Object.keys(hashes).map((p) => cacheKey(ENGINE + p)));
  for (const request of await cache.keys()) {
    if (request.url !== MANIFEST && !wanted.has(request.url)) await cache.delete(request);
  }
}

async function manifest() {
  const cache = await caches.open(CACHE);
  try {
    const response = await fetch(MANIFEST, { cache: "no-cache" });
    if (response.ok) {
      hashes = hashesOf(await response.clone().json());
      await cache.put(MANIFEST, response.clone());
      await forgetOldFiles(cache);
      return response;
    }
  } catch {
    /* offline: the copy kept below */
  }
  const kept = await cache.match(MANIFEST);
  if (kept) {
    hashes ??= hashesOf(await kept.clone().json());
    return kept;
  }
  return fetch(MANIFEST);
}

async function sha256(buffer) {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", buffer));
  return [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
}

async function engineFile(event) {
  if (!hashes) await manifest().catch(() => null);
  const key = cacheKey(event.request.url);
  if (!key) return fetch(event.request); // not a file the manifest names
  const cache = await caches.open(CACHE);
  const kept = await cache.match(key);
  if (kept) return kept;
  const response = await fetch(event.request);
  if (response.ok) {
    // Kept only when its bytes are the manifest's; the page gets the response at once.
    const copy = response.clone();
    event.waitUntil(
      copy.arrayBuffer().then(async (bytes) => {
        if ((await sha256(bytes)) === key.split("sha256=")[1]) {
          await cache.put(key, new Response(bytes, { headers: copy.headers }));
        }
      }),
    );
  }
  return response;
}

self.addEventListener("fetch", (event) => {
  const url = event.request.url;
  if (event.request.method !== "GET" || !url.startsWith(ENGINE)) return;
  event.respondWith(url.split(/[?#]/)[0] === MANIFEST ? manifest() : engineFile(event));
});
