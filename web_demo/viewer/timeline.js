// Time stepping, as pure functions over a small state object (no DOM, no clocks).
// A timeline runs over frames 0..ticks; playing advances `TICKS_PER_SECOND * speed` frames
// per second of wall time, carrying fractions between calls so no frame is skipped or doubled.

export const SPEEDS = [0.25, 0.5, 1, 2, 4, 8, 16];
export const TICKS_PER_SECOND = 4;
const NORMAL = SPEEDS.indexOf(1);

function clamp(t, ticks) {
  if (!Number.isFinite(t)) return 0;
  return Math.min(Math.max(Math.round(t), 0), ticks);
}

export function createTimeline(ticks, tick = 0) {
  return { ticks, tick: clamp(tick, ticks), playing: false, speedIndex: NORMAL, carry: 0 };
}

export function seek(tl, tick) {
  return { ...tl, tick: clamp(tick, tl.ticks), carry: 0 };
}

// Step by n frames; stepping by hand pauses playback.
export function stepBy(tl, n) {
  return { ...seek(tl, tl.tick + n), playing: false };
}

export function togglePlay(tl) {
  if (tl.playing) return { ...tl, playing: false, carry: 0 };
  const tick = tl.tick >= tl.ticks ? 0 : tl.tick; // play again from the start at the end
  return { ...tl, tick, playing: tl.ticks > 0, carry: 0 };
}

export function setSpeed(tl, index) {
  const speedIndex = Math.min(Math.max(index, 0), SPEEDS.length - 1);
  return { ...tl, speedIndex };
}

export function faster(tl) {
  return setSpeed(tl, tl.speedIndex + 1);
}

export function slower(tl) {
  return setSpeed(tl, tl.speedIndex - 1);
}

export function speedOf(tl) {
  return SPEEDS[tl.speedIndex];
}

// Advance a playing timeline by `ms` of wall time; stops at the last frame.
export function advance(tl, ms) {
  if (!tl.playing || !(ms > 0)) return tl;
  const carry = tl.carry + (ms / 1000) * TICKS_PER_SECOND * speedOf(tl);
  const whole = Math.floor(carry);
  const tick = Math.min(tl.tick + whole, tl.ticks);
  const done = tick >= tl.ticks;
  return { ...tl, tick, carry: done ? 0 : carry - whole, playing: !done };
}
