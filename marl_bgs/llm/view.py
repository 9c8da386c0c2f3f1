"""`actor-text-v1`: one agent's permitted view as deterministic text, and its legal menu.

The text is built from one game's `TeamInputs` and nothing else: the agent's own observation
row (which already holds only what its team may see, in its own frame), its own legal mask,
and the team's public roster. Other agents' rows of the same `TeamInputs` are never read, so
a test can scramble them, and everything the agent's team does not see, and get the same
bytes. Every number about classes comes from `marl_bgs.core.classes`, every observation
offset from `marl_bgs.core.observation`, so a balance or layout change cannot leave the text stale.

Names: `ally_k` and `enemy_k` are roster slots (the agent itself is one of the `ally_k`),
moves are compass names in the agent's frame (its own spawn end on the left, east toward the
enemy), and a combat choice is `no_combat`, `ultimate` (an untargeted Ultimate: the Mage's
Burst) or `<target>_basic` / `<target>_ultimate`.
"""

from __future__ import annotations

from functools import cache
from typing import Any, NamedTuple

import numpy as np

from ..core import classes
from ..core.actions import NUM_JOINT, NUM_MOVES, NUM_TARGETS, NUM_ULTIMATE, encode
from ..core.checks import whole
from ..core.movement import MOVE_DIRECTIONS
from ..core.observation import (
    BOX_SLICES,
    BOX_START,
    BOX_WIDTH,
    GAME_START,
    GLOBAL_SLICES,
    GLOBAL_WIDTH,
    HORIZON_HALF,
    MAX_TURNED_WALLS,
    OBS_WIDTH,
    OOC_CAP,
    UNIT_SLICES,
    UNIT_WIDTH,
    WALL_SLICES,
    WALL_START,
    WALL_WIDTH,
    WINNING_SCORE_HALF,
)
from ..core.state import ARENA_HEIGHT, ARENA_WIDTH, MAX_OBSTACLES, NUM_SLOTS, TEAM_SIZE
from ..systems.base import TeamInputs

VIEW_VERSION = "actor-text-v1"
ARENA_X, ARENA_Y = ARENA_WIDTH, ARENA_HEIGHT  # the observation's position scales
NO_COMBAT, ULTIMATE = "no_combat", "ultimate"


def _move_names() -> tuple[str, ...]:
    """Compass names of the move codes, read from the engine's own direction table."""
    names = []
    for dx, dy in MOVE_DIRECTIONS:
        ns = "north" if dy > 0 else ("south" if dy < 0 else "")
        ew = "east" if dx > 0 else ("west" if dx < 0 else "")
        names.append(ns + ew or "stay")
    return tuple(names)


MOVE_NAMES = _move_names()


UNIT, GAME, BOX, WALL = UNIT_SLICES, GLOBAL_SLICES, BOX_SLICES, WALL_SLICES


# ---- names -----------------------------------------------------------------------------------
def row_names(agent: int) -> tuple[str, ...]:
    """Roster names of the ten observation rows of `agent` (self, allies, enemies)."""
    allies = [f"ally_{k}" for k in range(TEAM_SIZE) if k != agent]
    return (f"ally_{agent}", *allies, *(f"enemy_{k}" for k in range(TEAM_SIZE)))


def target_name(code: int) -> str | None:
    """A target code's roster name: 0 none, 1-5 own slots, 6-10 enemy slots."""
    if code == 0:
        return None
    return f"ally_{code - 1}" if code <= TEAM_SIZE else f"enemy_{code - 1 - TEAM_SIZE}"


def combat_name(target: int, ultimate: int) -> str:
    who = target_name(target)
    if who is None:
        return ULTIMATE if ultimate else NO_COMBAT
    return f"{who}_{'ultimate' if ultimate else 'basic'}"


def flat_action(move: int, target: int, ultimate: int) -> int:
    """The flat joint index the masks and Systems use: (move * 11 + target) * 2 + ultimate."""
    return encode(move, target, ultimate)


class Menu(NamedTuple):
    """An agent's legal choices this tick, by name, and the flat action of each legal pair."""

    moves: tuple[str, ...]
    combats: tuple[str, ...]
    flat: dict[tuple[str, str], int]  # only legal (move, combat) pairs

    @property
    def choices(self) -> int:
        return len(self.flat)


def legal_menu(inputs: TeamInputs, agent: int) -> Menu:
    """The legal moves and combat pairs of `agent`, read from its exact joint mask only."""
    _check(inputs, agent)
    avail = np.asarray(inputs.avail, bool)[agent].reshape(NUM_MOVES, NUM_TARGETS, NUM_ULTIMATE)
    moves = tuple(MOVE_NAMES[m] for m in range(NUM_MOVES) if avail[m].any())
    pairs = avail.any(axis=0)
    combats = tuple(
        combat_name(t, u) for u in range(NUM_ULTIMATE) for t in range(NUM_TARGETS) if pairs[t, u]
    )
    combats = tuple(sorted(combats, key=_combat_order))
    flat = {}
    for m, t, u in zip(*np.nonzero(avail), strict=True):
        flat[(MOVE_NAMES[m], combat_name(int(t), int(u)))] = flat_action(int(m), int(t), int(u))
    return Menu(moves, combats, flat)


def _combat_order(name: str) -> tuple[int, int, int]:
    """no_combat, ultimate, then by target (allies before enemies), Basic before Ultimate."""
    if name == NO_COMBAT:
        return (0, 0, 0)
    if name == ULTIMATE:
        return (1, 0, 0)
    side, slot, kind = name.split("_")
    return (2 + (side == "enemy"), int(slot), kind == "ultimate")


# ---- checking --------------------------------------------------------------------------------
def _check(inputs: Any, agent: Any) -> None:
    if not isinstance(inputs, TeamInputs):
        raise TypeError(
            f"team_inputs: expected TeamInputs of one game, got {type(inputs).__name__}"
        )
    agent = whole(agent, "agent", 0, TEAM_SIZE - 1)
    shapes = {
        "obs": (np.shape(inputs.obs), (TEAM_SIZE, OBS_WIDTH)),
        "avail": (np.shape(inputs.avail), (TEAM_SIZE, NUM_JOINT)),
        "present": (np.shape(inputs.present), (TEAM_SIZE,)),
        "classes": (np.shape(inputs.classes), (TEAM_SIZE,)),
    }
    for name, (got, want) in shapes.items():
        if got != want:
            raise ValueError(f"team_inputs.{name}: expected shape {want} (one game), got {got}")
    if not bool(np.asarray(inputs.present)[agent]):
        raise ValueError(f"agent: slot {agent} is not used by the roster")


# ---- numbers ---------------------------------------------------------------------------------
def _num(value: float, places: int = 3) -> str:
    """A number with at most `places` decimals and no trailing zeros ("-0" is "0")."""
    text = f"{float(value):.{places}f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _ticks(share: float, full: float) -> int:
    return int(round(float(share) * full))


def _squashed(feature: float, half: float) -> int:
    """Undo observation.py's v / (v + half) squashing of a whole-number setting."""
    f = float(feature)
    return int(round(half * f / (1.0 - f))) if f < 1.0 else 0


# ---- the fixed parts (rules, abilities) --------------------------------------------------------
def _effects_of(table: np.ndarray, cls: int) -> list[str]:
    out = []
    for e in np.flatnonzero(table[cls]):
        text = f"{classes.EFFECT_NAMES[e]} {classes.EFFECT_DURATION[e]} tick{'s' if classes.EFFECT_DURATION[e] > 1 else ''}"
        if int(e) in classes.SLOW_FACTORS:
            text += f" (speed x{_num(classes.SLOW_FACTORS[int(e)])})"
        elif e == classes.BURST:
            text += f" (damage x{_num(classes.BURST_FACTOR)})"
        elif e == classes.HEALING_CUT:
            text += f" (healing x{_num(classes.POISON_HEALING_FACTOR)})"
        elif e == classes.BLESSING:
            text += f" (speed at least x{_num(classes.BLESSING_SPEED_FLOOR)})"
        out.append(text)
    return out


def _ability(kind: str, name: str, target: str, reach: float, dmg: float, heal: float, fx) -> str:
    parts = []
    if dmg:
        parts.append(f"{_num(dmg)} damage")
    if heal:
        parts.append(f"heals {_num(heal)}")
    if fx:
        parts.append("applies " + ", ".join(fx))
    where = "self" if target == "self" else f"{target} within {_num(reach)}"
    return f"{kind} {name} ({where}): " + ("; ".join(parts) or "no direct effect")


def _class_line(c: int) -> str:
    s = classes.CLASSES[c]
    basic = _ability(
        "Basic",
        s.basic_name,
        s.basic_target,
        s.basic_range,
        s.basic_damage,
        s.basic_heal,
        _effects_of(classes.BASIC_EFFECTS, c),
    )
    ult_fx = _effects_of(classes.ULTIMATE_EFFECTS, c) + [
        f"self {x}" for x in _effects_of(classes.SELF_EFFECTS_ON_ULTIMATE, c)
    ]
    ult = _ability(
        "Ultimate",
        s.ultimate_name,
        s.ultimate_target,
        s.ultimate_range,
        s.ultimate_damage,
        s.ultimate_heal,
        ult_fx,
    )
    return (
        f"- {s.title} (class {c}): health {_num(s.max_health)}, speed {_num(s.speed)}, sight "
        f"{_num(s.sight)}, rests after {s.out_of_combat_delay} ticks out of combat. {basic}. "
        f"{ult}. Passive: {s.passive_name}."
    )


@cache
def rules_text() -> str:
    """The public rules and every class's abilities, the same for every prompt."""
    aura = _num(classes.AURA_RADIUS)
    lines = [
        "Rules:",
        "- Two teams of up to 5 act at once each tick; each agent picks one move and one "
        "combat choice from its legal lists. Damage and healing of a tick are summed before "
        "deaths.",
        "- A death gives the enemy 1 point, or 2 if the victim stood in its own Red Zone (the "
        "strip beside its own spawn end). A team wins on reaching the winning score with more "
        "points than the enemy; a tie at the winning score, or the horizon, is a draw.",
        f"- The dead respawn on their pad in waves every {classes.RESPAWN_PERIOD} ticks, shielded "
        f"for up to {classes.SHIELD_TICKS} ticks (hidden from enemies, cannot use or receive "
        f"targeted combat, speed {_num(classes.SHIELD_SPEED)}).",
        "- Sight needs range and a clear line past obstacles; units do not block sight. Your "
        "team shares what it sees, but you can only target units you see yourself.",
        "- stun and trap stop movement and combat; damage breaks a trap applied on an earlier "
        f"tick. Slows multiply, with a floor of x{_num(classes.SLOW_FLOOR)}. A Warrior's Charge "
        "also moves it toward its target before ordinary movement. Combat reads the positions "
        "at the start of the tick.",
        f"- Auras reach {aura} (the emitter included, no sight needed, at most "
        f"{classes.AURA_MAX_EMITTERS} of a kind count): each Mage multiplies allies' damage by "
        f"{_num(classes.MAGE_AURA_FACTOR)}, each Warrior multiplies damage allies take by "
        f"{_num(classes.WARRIOR_AURA_FACTOR)}.",
        f"- After its delay out of combat a unit heals {_num(classes.OUT_OF_COMBAT_HEAL_SHARE * 100)}% "
        f"of its maximum health per tick. Using an Ultimate starts a {classes.ULTIMATE_COOLDOWN}-tick "
        "cooldown. Basic and Ultimate are alternatives in one tick.",
        "- Units: map units (the arena is "
        f"{_num(ARENA_X)} x {_num(ARENA_Y)}), health points and ticks. North is +y, east is +x; "
        "every move, diagonal too, has length 1 times the unit's speed.",
        "Abilities:",
        *(_class_line(c) for c in range(len(classes.CLASSES))),
    ]
    return "\n".join(lines)


# ---- the per-tick parts ----------------------------------------------------------------------
def _map_lines(obs: np.ndarray) -> list[str]:
    lines = []
    for b in range(MAX_OBSTACLES):
        row = obs[BOX_START + b * BOX_WIDTH : BOX_START + (b + 1) * BOX_WIDTH]
        if row[BOX["valid"]][0] < 0.5:
            continue
        lo, hi = row[BOX["low"]], row[BOX["high"]]
        lo_x, lo_y, hi_x, hi_y = lo[0] * ARENA_X, lo[1] * ARENA_Y, hi[0] * ARENA_X, hi[1] * ARENA_Y
        radius = row[BOX["radius"]][0] * ARENA_X
        if radius > 0:
            lines.append(f"- pillar x={_num(lo_x)} y={_num(lo_y)} radius={_num(radius)}")
        else:
            lines.append(
                f"- wall x={_num((lo_x + hi_x) / 2)} y={_num((lo_y + hi_y) / 2)} "
                f"width={_num(hi_x - lo_x)} height={_num(hi_y - lo_y)}"
            )
    for w in range(MAX_TURNED_WALLS):
        row = obs[WALL_START + w * WALL_WIDTH : WALL_START + (w + 1) * WALL_WIDTH]
        if row[WALL["valid"]][0] < 0.5:
            continue
        c = row[WALL["corners"]].reshape(4, 2)
        pts = " ".join(f"({_num(x * ARENA_X)},{_num(y * ARENA_Y)})" for x, y in c)
        lines.append(f"- turned wall with corners {pts}")
    return lines or ["- no obstacles"]


def _game_lines(obs: np.ndarray) -> list[str]:
    g = obs[GAME_START : GAME_START + GLOBAL_WIDTH]

    def f(name: str) -> float:
        return float(g[GAME[name]][0])

    horizon = _squashed(f("horizon"), HORIZON_HALF)
    win = _squashed(f("winning_score"), WINNING_SCORE_HALF)
    return [
        f"Clock: tick {_ticks(f('tick_share'), horizon)} of {horizon}.",
        f"Score: yours {_ticks(f('own_score'), win)}, enemy {_ticks(f('enemy_score'), win)}; "
        f"the winning score is {win}.",
        f"Teams: {_ticks(f('own_team_size'), TEAM_SIZE)} v {_ticks(f('enemy_team_size'), TEAM_SIZE)}. "
        f"Red Zone depth {_num(f('red_zone_depth') * ARENA_Y)}. Next respawn wave in: yours "
        f"{_ticks(f('own_wave_clock'), classes.RESPAWN_PERIOD)}, enemy "
        f"{_ticks(f('enemy_wave_clock'), classes.RESPAWN_PERIOD)} ticks.",
    ]


def game_over(obs_row: np.ndarray) -> bool:
    """Whether an observation row belongs to a finished game: a team at the winning score
    (points are capped there) or the clock at the horizon."""
    g = np.asarray(obs_row)[GAME_START:]
    return bool(
        g[GAME["own_score"]][0] >= 1.0
        or g[GAME["enemy_score"]][0] >= 1.0
        or g[GAME["tick_share"]][0] >= 1.0
    )


def _unit_line(row: np.ndarray, name: str, is_self: bool, cls: int | None) -> str:
    def f(field: str) -> np.ndarray:
        return row[UNIT[field]]

    if f("known")[0] < 0.5:
        return f"- {name}: not seen by your team"
    if cls is None:
        cls = int(np.argmax(f("class")))
    title = classes.CLASSES[cls].title
    head = f"- {name}{' (you)' if is_self else ''}: {title}"
    if f("alive")[0] < 0.5:
        return f"{head}, dead"
    x, y = f("position") * (ARENA_X, ARENA_Y)
    parts = [f"x={_num(x)} y={_num(y)}"]
    if not is_self:
        parts.append(f"distance {_num(f('distance')[0] * ARENA_X, 2)}")
    top = classes.CLASSES[cls].max_health
    parts.append(f"health {_num(f('health_share')[0] * top)}/{_num(top)}")
    cooldown = _ticks(f("ultimate_cooldown")[0], classes.ULTIMATE_COOLDOWN)
    parts.append("Ultimate ready" if f("ultimate_ready")[0] > 0.5 else f"Ultimate in {cooldown}")
    shield = _ticks(f("shield")[0], classes.SHIELD_TICKS)
    if shield:
        parts.append(f"shield {shield}")
    statuses = [
        f"{classes.EFFECT_NAMES[e]} {_ticks(v, classes.EFFECT_DURATION[e])}"
        for e, v in enumerate(f("effects"))
        if _ticks(v, classes.EFFECT_DURATION[e])
    ]
    parts.append("statuses: " + (", ".join(statuses) if statuses else "none"))
    ooc = _ticks(f("out_of_combat")[0], OOC_CAP)
    parts.append(f"out of combat {ooc}{'+' if ooc >= OOC_CAP else ''}")
    if f("in_home_red_zone")[0] > 0.5:
        parts.append("in its own Red Zone")
    if not is_self:
        parts.append("in your sight" if f("in_own_sight")[0] > 0.5 else "not in your sight")
    return f"{head}, " + ", ".join(parts)


def _last_action_line(row: np.ndarray, name: str, names: tuple[str, ...]) -> str:
    if row[UNIT["known"]][0] < 0.5 or row[UNIT["has_last_action"]][0] < 0.5:
        return f"- {name}: not seen"
    move = MOVE_NAMES[int(np.argmax(row[UNIT["last_move"]]))]
    target_row = int(np.argmax(row[UNIT["last_target_row"]]))
    ult = row[UNIT["last_ultimate"]][0] > 0.5
    if target_row == 0:
        combat = ULTIMATE if ult else NO_COMBAT
    else:
        combat = f"{names[target_row - 1]}_{'ultimate' if ult else 'basic'}"
    return f"- {name}: move {move}, combat {combat}"


def reply_example(menu: Menu) -> str:
    """A compact reply made of the menu's first legal names."""
    return f'{{"move":"{menu.moves[0]}","combat":"{menu.combats[0]}"}}'


def format_actor_view(team_inputs: TeamInputs, agent: int) -> str:
    """The `actor-text-v1` prompt of one agent: rules, abilities, map, its permitted view of
    units, scores and clock, the previous actions it saw, its legal menu and the reply format.

    `team_inputs` is one game's inputs (shapes (5, ...)); only row `agent` of `obs` and
    `avail`, and the public `present` and `classes`, are read. Deterministic: the same
    inputs give the same bytes.
    """
    _check(team_inputs, agent)
    obs = np.asarray(team_inputs.obs, np.float32)[agent]
    class_ids = np.asarray(team_inputs.classes)
    names = row_names(agent)
    ally_slots = [agent] + [k for k in range(TEAM_SIZE) if k != agent]
    rows = [obs[r * UNIT_WIDTH : (r + 1) * UNIT_WIDTH] for r in range(NUM_SLOTS)]
    menu = legal_menu(team_inputs, agent)
    me = classes.CLASSES[int(class_ids[agent])].title
    lines = [
        f"MARL-BGs {VIEW_VERSION}",
        f"You are ally_{agent}, the {me} of your team. Your frame: your spawn end is on the "
        "left (west), the enemy's on the right (east).",
        rules_text(),
        "Map obstacles (your frame):",
        *_map_lines(obs),
        *_game_lines(obs),
        "Units (unlisted statuses are zero):",
    ]
    # Rows run self, allies, enemies; the text lists roster order, ally_0 to enemy_4.
    order = sorted(range(NUM_SLOTS), key=lambda r: (r >= TEAM_SIZE, names[r]))
    for r in order:
        cls = int(class_ids[ally_slots[r]]) if r < TEAM_SIZE else None  # own roster is public
        if rows[r][UNIT["present"]][0] < 0.5:
            lines.append(f"- {names[r]}: unused slot")
            continue
        lines.append(_unit_line(rows[r], names[r], r == 0, cls))
    lines.append("Previous actions you saw (last tick):")
    for r in order:
        if rows[r][UNIT["present"]][0] >= 0.5:
            lines.append(_last_action_line(rows[r], names[r], names))
    lines += [
        "Legal moves: " + ", ".join(menu.moves),
        "Legal combat: " + ", ".join(menu.combats),
        "Combat names: no_combat uses nothing; ultimate is an untargeted Ultimate; "
        "<unit>_basic and <unit>_ultimate use that ability on that unit.",
        "Reply with compact JSON on one line and nothing else, for example " + reply_example(menu),
    ]
    return "\n".join(lines) + "\n"
