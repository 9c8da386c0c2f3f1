// Autoplay: with no human agent, Systems play every agent and the game plays itself, one
// tick every 1/speed seconds, with pause, resume and one tick at a time. The tick itself is
// the caller's `step(st)` (flow.js's resolveTurn), passed in so that this module stays below
// the game's flow rather than importing it back.

// Autoplay speeds (ticks per second) when Systems play every agent; the default is 2.
export const SPEEDS = [1, 2, 4, 8, 20];
export const DEFAULT_SPEED = 2;

export function autoMode(session) {
  return Boolean(session && session.view && !session.view.human_teams.length);
}

export function tickDelay(st) {
  return 1000 / (Number(st.ui.speed.value) || DEFAULT_SPEED);
}

// What the root's data-auto says: null (humans play), "over", "paused" or "playing".
export function autoLabel(session, paused) {
  if (!autoMode(session)) return null;
  return session.view.done ? "over" : paused ? "paused" : "playing";
}

export function stopAuto(st) {
  if (st.autoTimer) clearTimeout(st.autoTimer);
  st.autoTimer = null;
}

export function scheduleAuto(st, step) {
  stopAuto(st);
  const session = st.session;
  if (autoMode(session) && !st.autoPaused && !session.busy && !session.view.done) {
    st.autoTimer = setTimeout(() => {
      st.autoTimer = null;
      // The game may have changed or stopped while the timer waited.
      if (st.destroyed || st.session !== session || st.autoPaused || session.busy || session.view.done) return;
      if (!st.root.isConnected) {
        leave(st); // the page went away (instant navigation): stop playing
        return;
      }
      step(st);
    }, tickDelay(st));
  }
  syncAuto(st);
}

// A new speed takes effect at once, if a tick is waiting.
export function rescheduleAuto(st, step) {
  if (st.autoTimer) scheduleAuto(st, step);
}

// Pause or resume; returns whether it did (the caller redraws the turn's text).
export function togglePause(st, step) {
  if (!autoMode(st.session) || st.session.view.done) return false;
  st.autoPaused = !st.autoPaused;
  if (st.autoPaused) stopAuto(st);
  scheduleAuto(st, step);
  return true;
}

// One tick while paused.
export function nextTick(st, step) {
  const session = st.session;
  if (!autoMode(session) || !st.autoPaused || session.busy || session.view.done) return;
  step(st);
}

export function syncAuto(st) {
  const label = autoLabel(st.session, st.autoPaused);
  if (label === null) {
    delete st.root.dataset.auto;
    return;
  }
  const over = label === "over";
  st.root.dataset.auto = label;
  st.ui.pause.textContent = st.autoPaused ? "Resume" : "Pause";
  st.ui.pause.disabled = over;
  st.ui.next.disabled = over || !st.autoPaused || st.session.busy;
}

// The page holding the client is gone: no more ticks, and the engine forgets the game.
export function leave(st) {
  stopAuto(st);
  if (st.session && st.session.id !== null && st.backend) st.backend.close(st.session.id).catch(() => {});
}
