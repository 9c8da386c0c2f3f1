// The turn builder's rules of choice: which moves, targets and Ultimates a human may pick,
// taken only from the engine's exact legal actions for that agent (flat indices in the
// compass frame, `(move * 11 + target) * 2 + ultimate`, as marl_bgs.game.Game takes them).
// Nothing here decides legality itself; it only filters the engine's list.

export const MOVE_NAMES = ["stay", "N", "S", "E", "W", "NE", "NW", "SE", "SW"];
const R = Math.SQRT1_2;
// Unit steps on the map (north is +y), per move.
export const MOVE_STEPS = [[0, 0], [0, 1], [0, -1], [1, 0], [-1, 0], [R, R], [-R, R], [R, -R], [-R, -R]];
// The on-screen pad, row by row as it is drawn (north up).
export const PAD = [[6, 1, 5], [4, 0, 3], [8, 2, 7]];

// Keys (KeyboardEvent.code) that choose a move: arrows and the number pad.
export const MOVE_KEYS = {
  ArrowUp: 1, ArrowDown: 2, ArrowRight: 3, ArrowLeft: 4,
  Numpad8: 1, Numpad2: 2, Numpad6: 3, Numpad4: 4, Numpad9: 5, Numpad7: 6, Numpad3: 7, Numpad1: 8,
  Numpad5: 0,
};

export const flatOf = (move, target, ult) => (move * 11 + target) * 2 + ult;
export const decode = (flat) => [Math.floor(flat / 22), Math.floor(flat / 2) % 11, flat % 2];

// Number keys pick targets: 1-5 the enemy in slot 0-4, Shift + 1-5 the teammate in slot 0-4
// (heals, Blessing), 0 no target. Returns the target index (0-10) or null.
export function targetOfKey(code, shift) {
  const m = /^Digit([0-5])$/.exec(code);
  if (!m) return null;
  const k = Number(m[1]);
  if (k === 0) return 0;
  return shift ? k : 5 + k;
}

export function legalSet(legal) {
  return new Set(legal);
}

export function isLegal(set, [m, t, u]) {
  return set.has(flatOf(m, t, u));
}

export function legalMoves(set) {
  return new Set([...set].map((f) => decode(f)[0]));
}

// Targets offered with this move (any Ultimate setting).
export function legalTargets(set, move) {
  return new Set([...set].map(decode).filter(([m]) => m === move).map(([, t]) => t));
}

// The order a human starts a tick with: the last one if it is still legal, else its move
// with no target, else standing still, else the first legal action.
export function startOrder(set, previous) {
  const tries = [];
  if (previous) tries.push([previous[0], previous[1], 0], [previous[0], 0, 0]);
  tries.push([0, 0, 0]);
  for (const o of tries) if (isLegal(set, o)) return o;
  return set.size ? decode(Math.min(...set)) : [0, 0, 0];
}

// Each change returns the new order, or null when no legal order matches the request.
export function withMove(set, [, t, u], move) {
  for (const o of [[move, t, u], [move, t, 0], [move, 0, 0]]) if (isLegal(set, o)) return o;
  const any = [...set].map(decode).find(([m]) => m === move);
  return any ?? null;
}

export function withTarget(set, [m, , u], target) {
  for (const o of [[m, target, u], [m, target, 0], [m, target, 1]]) if (isLegal(set, o)) return o;
  return null;
}

export function withUltimateToggled(set, [m, t, u]) {
  const want = 1 - u;
  if (isLegal(set, [m, t, want])) return [m, t, want];
  // An Ultimate with its own target (a self-cast, or an ally): the first legal one.
  const any = [...set].map(decode).find(([mm, , uu]) => mm === m && uu === want);
  return any ?? null;
}

// The target index (1-5 a teammate, 6-10 an enemy, by slot) that names the agent in `slot`
// (0-9) for an agent of `team`, and back: the slot a target index names.
export function targetOfSlot(team, slot) {
  const k = slot % 5;
  return Math.floor(slot / 5) === team ? k + 1 : k + 6;
}

export function slotOfTarget(team, target) {
  return target <= 5 ? team * 5 + target - 1 : (1 - team) * 5 + target - 6;
}

// Where a move takes a human agent before anything blocks it, in milli-units: the engine's
// planned stride for this agent now (`strides`, per move, as the engine sends it: class speed
// under the agent's slows, Blessing or shield), else its class speed along the move's unit
// step (an engine that sends no strides: slows are then not shown).
export function ghostStride(human, move) {
  const planned = human.strides && human.strides[move];
  if (planned) return [planned[0], planned[1]];
  const [dx, dy] = MOVE_STEPS[move];
  return [Math.round(dx * human.speed), Math.round(dy * human.speed)];
}
