// Autoplay: with no human agent, Systems play every agent and the game plays itself, one
// tick every 1/speed seconds, with pause, resume and one tick at a time. The tick itself is
// the caller's `step(st)` (flow.js's resolveTurn), passed in so that this module stays below
// the game's flow rather than importing it back.

// Autoplay speeds (ticks per second) when Systems play every agent; the default is 2, and
// 0 means as fast as the engine answers ("max", and what "Skip to end" plays).
export const SPEEDS = [1, 2, 4, 8, 20, 0];
export const DEFAULT_SPEED = 2;

export function speedLabel(n) {
  return n === 0 ? "max" : `${n} tick${n === 1 ? "" : "s"}/s`;
}

export function autoMode(session) {
  return Boolean(session && session.view && !session.view.human_teams.length);
}

// The wait before the next tick: a tick every 1/speed seconds counted from when the last one
// was asked for (`st.lastTickAt`), so the time the engine and drawing take comes out of the
// wait instead of adding to it, and the speed menu plays what it says.
export function tickDelay(st, now = performance.now()) {
  const speed = Number(st.ui.speed.value);
  if (speed === 0) return 0;
  const period = 1000 / (speed || DEFAULT_SPEED);
  return st.lastTickAt === undefined ? period : Math.max(0, period - (now - st.lastTickAt));
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
      st.lastTickAt = performance.now();
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

// Play the rest of the game as fast as the engine answers.
export function skipToEnd(st, step) {
  if (!autoMode(st.session) || st.session.view.done) return;
  st.ui.speed.value = "0";
  if (st.autoPaused) st.autoPaused = false;
  scheduleAuto(st, step);
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
  if (st.ui.skip) st.ui.skip.disabled = over;
}

// The page holding the client is gone: no more ticks, and the engine forgets the game.
export function leave(st) {
  stopAuto(st);
  if (st.session && st.session.id !== null && st.backend) st.backend.close(st.session.id).catch(() => {});
}
