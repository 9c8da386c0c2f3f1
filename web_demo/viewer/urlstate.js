// The shareable URL: `?replay=<same-site URL>#tick=<n>&view=<oracle|a|b|a0..b4>`.
// Pure functions over strings; the viewer never fetches from another origin.

import { ReplayError, VIEWS } from "./format/validate.js";

export const VIEW_NAMES = ["oracle", ...VIEWS];
const MAX_TICK = 1_000_000;

// "#tick=12&view=a" -> {tick: 12, view: "a"}; unknown or malformed parts become null.
export function parseHash(hash) {
  const params = new URLSearchParams(String(hash || "").replace(/^#/, ""));
  const rawTick = params.get("tick");
  let tick = null;
  if (rawTick !== null && /^\d{1,7}$/.test(rawTick) && Number(rawTick) <= MAX_TICK) {
    tick = Number(rawTick);
  }
  const rawView = params.get("view");
  const view = VIEW_NAMES.includes(rawView) ? rawView : null;
  return { tick, view };
}

export function formatHash({ tick, view }) {
  const params = new URLSearchParams();
  if (Number.isInteger(tick) && tick >= 0) params.set("tick", String(tick));
  if (VIEW_NAMES.includes(view)) params.set("view", view);
  const text = params.toString();
  return text ? `#${text}` : "";
}

// The replay URL named by `?replay=`, resolved against the page; null when absent.
// Only http(s) URLs on the page's own origin are accepted.
export function replaySource(search, pageHref) {
  const raw = new URLSearchParams(String(search || "")).get("replay");
  if (raw === null || raw === "") return null;
  return checkSource(raw, pageHref);
}

export function checkSource(raw, pageHref) {
  let url;
  try {
    url = new URL(raw, pageHref);
  } catch {
    throw new ReplayError("replay: not a valid URL");
  }
  const page = new URL(pageHref);
  if (!["http:", "https:", "file:"].includes(url.protocol) || url.origin !== page.origin) {
    throw new ReplayError("replay: only files from this site can be opened (no other servers)");
  }
  return url.href;
}

// A link that opens `src` at this tick and view, on the page `pageHref`.
export function shareUrl(pageHref, src, state) {
  const url = new URL(pageHref);
  url.hash = "";
  if (src) {
    const resolved = new URL(src, pageHref);
    const relative = resolved.origin === url.origin ? resolved.pathname + resolved.search : src;
    url.searchParams.set("replay", relative);
  }
  return url.href + formatHash(state);
}
