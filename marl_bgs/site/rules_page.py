"""The "How a Match Works" page: every rule in plain words, each shown by the engine.

Each section builds a small position, plays it on the NumPy engine and draws the result.
Numbers in the text come from the class table and the engine's constants, and the sentences
under each picture are the engine's own events, so the page follows the code.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..core import classes as C
from ..core.position import starting_position
from ..core.sight import compute_sight
from ..core.state import ARENA_HEIGHT, ARENA_WIDTH, PAD_X, PAD_Y, TEAM_SIZE
from ..game import Game
from .clips import show
from .scenes import (
    EAST,
    NORTH,
    NORTH_EAST,
    STAY,
    WEST,
    Scene,
    agent,
    ally,
    at,
    enemy,
    health,
    position,
    render,
)

CL = {c.name: c for c in C.CLASSES}


def _g(v: float) -> str:
    return f"{v:g}"


def _wall(x: float, y: float, w: float, h: float, theta: float = 0.0) -> dict:
    return {"kind": "wall", "x": x, "y": y, "width": w, "height": h, "theta": theta}


def _pillar(x: float, y: float, r: float) -> dict:
    return {"kind": "pillar", "x": x, "y": y, "radius": r}


def arena() -> str:
    played, film = render(Scene("arena", starting_position(47), [], width_px=640))
    depth = float(played.states[0].red_zone_depth) / 1000
    roster = ", ".join(c.title for c in C.CLASSES)
    return f"""
The arena is a rectangle {_g(ARENA_WIDTH)} units wide and {_g(ARENA_HEIGHT)} high; x grows to
the east, y to the north. Each team owns one end. Its spawn pads sit at x = {_g(PAD_X[0])} (left
end) or x = {_g(PAD_X[1])} (right end), at heights {", ".join(_g(y) for y in PAD_Y)}: the agent in
a team's k-th slot starts on the k-th pad from the bottom and comes back there after dying. In
the official five-a-side game both teams field, bottom to top: {roster}.

The tinted strip at each end is that team's **Red Zone**, {_g(depth)} units deep by default.
Every numbered map is exactly mirrored about the centre line, so neither end has an advantage.
The picture is test map 47 at the start of a game, drawn from the engine's starting position.

{film}
"""


def simultaneous() -> str:
    mage, rogue = CL["mage"], CL["rogue"]
    pos = position(
        [agent("mage", 8, 5, health=5)], [agent("rogue", 9.5, 5, health=10)], obstacles=[]
    )
    scene = Scene(
        "simultaneous", pos, [{0: (STAY, enemy(0), 0), TEAM_SIZE: (STAY, enemy(0), 0)}],
        view=(6, 3.5, 11.5, 6.5),
    )  # fmt: skip
    _, film = show(scene, "One tick, all at once")
    return f"""
Both teams choose their actions for a tick at the same moment, and the engine resolves the
tick in a fixed order: legal actions first, then combat, then Charges, then ordinary movement,
then statuses, deaths and points, respawns and finally out-of-combat healing. Combat reads
everyone's position, sight and statuses as they were when the tick began, so an agent that is
killed in a tick still gets its own attack in. Here a wounded {mage.title} and a wounded
{rogue.title} hit each other with their Basics ({mage.basic_name} and {rogue.basic_name}) in
the same tick, and both fall.

{film}
"""


def legality() -> str:
    mage = CL["mage"]
    far = mage.basic_range + 0.5
    pos = position([agent("mage", 8, 5)], [agent("hunter", 8 + far, 5)], obstacles=[])
    scene = Scene(
        "legality", pos, [{0: (STAY, enemy(0), 0)}], view=(4.5, 1.5, 13, 8.5),
        ranges=[(0, mage.basic_range, f"{mage.basic_name} range")],
    )  # fmt: skip
    played, film = show(scene, "Legal actions: an attack out of range")
    accepted = [int(v) for v in played.infos[0].actions[0]]
    return f"""
Each agent picks three things per tick: a move (stay or one of eight compass steps), a target
(nobody, a teammate or an enemy) and whether to use its Ultimate. A Basic or targeted Ultimate
needs a living target without a spawn shield, within the ability's range, inside the acting
agent's **own** sight and with a clear line through the obstacles. What the teammates see
does not count. Ultimates and Basics exclude each other within a tick, and an Ultimate is
ready again {C.ULTIMATE_COOLDOWN} ticks after it was used (the countdown keeps running while
the agent is dead). Stunned, trapped or dead agents cannot act; shielded agents can move but
cannot use abilities.

The engine publishes exact masks of what is legal. Anything illegal is not an error: an
illegal move becomes "stay", and an illegal (target, Ultimate) pair becomes "no target, no
Ultimate". Here the {mage.title} tries its {mage.basic_name} ({_g(mage.basic_range)} units of
range) on a target {_g(far)} units away; the engine accepts the action as
`{accepted}` (move, target, Ultimate) and no ability is used.

{film}
"""


def summed() -> str:
    mage, priest = CL["mage"], CL["priest"]
    pos = position(
        [agent("mage", 8, 5, health=10), agent("priest", 6, 5)],
        [agent("mage", 10.5, 5)],
        obstacles=[],
    )
    scene = Scene(
        "summed", pos, [{1: (STAY, ally(0), 0), TEAM_SIZE: (STAY, enemy(0), 0)}],
        view=(4.5, 3, 12, 7),
    )  # fmt: skip
    played, film = show(scene, "A heal in the same tick saves the Mage")
    pos2 = position(
        [agent("warrior", 8, 5, health=CL["warrior"].max_health - 10), agent("priest", 6, 5)],
        [agent("hunter", 15, 5)],
        obstacles=[],
    )
    excess_scene = Scene(
        "excess", pos2, [{1: (STAY, ally(0), 1)}], view=(4.5, 3, 12, 7),
    )  # fmt: skip
    _, film2 = show(excess_scene, "Excess healing")
    return f"""
All damage and healing that lands on an agent in one tick is added up before anyone is
declared dead: new health = old health − damage taken + healing received, capped at the
maximum. An agent dies only if that total is zero or less, so a heal in the same tick can save
an ally from a blow that would have killed it. Below, the left {mage.title} has
{_g(health(played, 0, 0))} health and takes a hit larger than that, but its {priest.title}'s
{priest.basic_name} lands in the same tick and it ends the tick on
{_g(health(played, 1, 0))}.

{film}

Healing that would lift an agent above its maximum counts for nothing; the engine reports it
as *excess* (the metrics count it separately from useful healing). A
{priest.ultimate_name} ({_g(priest.ultimate_heal)} healing) on a {CL["warrior"].title} that
misses only a little health is almost all excess:

{film2}
"""


def auras() -> str:
    mage, warrior, hunter = CL["mage"], CL["warrior"], CL["hunter"]
    pos = position(
        [agent("hunter", 8, 6), agent("mage", 8, 7.5), agent("hunter", 8, 2.5)],
        [agent("rogue", 11, 6), agent("warrior", 11, 7.5), agent("rogue", 11, 2.5)],
        obstacles=[],
    )
    scene = Scene(
        "auras", pos, [{0: (STAY, enemy(0), 0), 2: (STAY, enemy(2), 0)}],
        view=(5.5, 1, 13.5, 9),
    )  # fmt: skip
    played, film = show(scene, "Auras: Mage and Warrior")
    boosted = int(played.infos[0].damage[0, TEAM_SIZE]) / 1000
    plain = int(played.infos[0].damage[2, TEAM_SIZE + 2]) / 1000
    return f"""
Two classes radiate an aura to every living, unshielded teammate whose centre is within
{_g(C.AURA_RADIUS)} units, themselves included. A {mage.title} ({mage.passive_name}) multiplies
the damage its allies deal by {_g(C.MAGE_AURA_FACTOR)}; a {warrior.title}
({warrior.passive_name}) multiplies the damage its allies take by {_g(C.WARRIOR_AURA_FACTOR)}.
Auras of the same kind stack by multiplying, counting at most {C.AURA_MAX_EMITTERS} emitters.
Damage is base × the attacker's Mage auras × the attacker's Burst × the target's Warrior auras.

In the picture both {hunter.title}s fire {hunter.basic_name} ({_g(hunter.basic_damage)} base
damage). The upper one stands beside a {mage.title} and shoots a target that stands beside a
{warrior.title}: it deals {_g(boosted)}. The lower pair has no auras around it: {_g(plain)}.

{film}
"""


def burst() -> str:
    mage = CL["mage"]
    pos = position([agent("mage", 8, 5)], [agent("hunter", 10.5, 5)], obstacles=[])
    scene = Scene(
        "burst", pos, [{0: (STAY, 0, 1)}, {0: (STAY, enemy(0), 0)}], view=(6, 3, 12.5, 7),
    )  # fmt: skip
    _, film = show(scene, "Burst: damage from the next tick")
    return f"""
The {mage.title}'s Ultimate, {mage.ultimate_name}, takes no target. From the tick after it is
used, and for {C.EFFECT_DURATION[C.BURST]} ticks, the {mage.title}'s damage is multiplied by
{_g(C.BURST_FACTOR)} (on top of its own aura). Effects never act in the tick that applies them:
statuses steer the next decision.

{film}
"""


def charge() -> str:
    warrior = CL["warrior"]
    pos = position(
        [agent("warrior", 3, 5)], [agent("mage", 8.5, 5)], obstacles=[_pillar(5.5, 5.8, 0.4)]
    )
    scene = Scene(
        "charge", pos, [{0: (STAY, enemy(0), 1)}], view=(1, 2, 11, 8),
        ranges=[(0, warrior.ultimate_range, f"{warrior.ultimate_name} range")],
    )  # fmt: skip
    played, film = show(scene, "Charge past a pillar")
    landed = at(played, 1, 0)
    return f"""
The {warrior.title}'s {warrior.ultimate_name} (range {_g(warrior.ultimate_range)}) is resolved
right after combat: the {warrior.title} travels in a straight line toward its target's centre,
passing over obstacles and bodies on the way, and stops when the two bodies touch (centres
{_g(2 * C.BODY_RADIUS)} apart), without pushing the target. It still needs a clear sight line to
aim. The target takes {_g(warrior.ultimate_damage)} damage, is stunned for the next tick and
slowed for {C.EFFECT_DURATION[C.SLOW_CHARGE]}. After the Charge the {warrior.title} makes its
ordinary move of the tick. Here it flies past a pillar and lands at ({_g(landed[0])},
{_g(landed[1])}).

{film}
"""


def sliding() -> str:
    pos = position(
        [agent("mage", 7, 5.25)], [agent("mage", 16, 5)], obstacles=[_wall(8, 6, 4, 0.5)]
    )
    scene = Scene("slide", pos, [{0: (NORTH_EAST, 0, 0)}], view=(4.5, 3, 11.5, 7.5))
    played, film = show(scene, "Sliding along a wall")
    start, end = at(played, 0, 0), at(played, 1, 0)
    return f"""
Every body is a circle of radius {_g(C.BODY_RADIUS)}. A step is one unit long in all eight
directions (diagonals too) times the class's speed; obstacles and the arena edge stop it.
Movement happens continuously during the tick. A step that runs into an obstacle is not
wasted: from the instant of contact the agent slides along the surface it met, at the part of
its speed that runs along it, until the tick ends or it meets something else (one slide per
tick). An agent already touching a wall slides from the start, and one moving along a wall
or away from it is not held back at all. Moving north-east into a wall above it, this
{CL["mage"].title} goes from ({_g(start[0])}, {_g(start[1])}) to ({_g(end[0])}, {_g(end[1])}).
Nothing can tunnel through a wall, however thin, at any speed.

{film}
"""


def bodies() -> str:
    pos = position(
        [agent("warrior", 8, 5), agent("mage", 8, 7.5)], [agent("warrior", 10.5, 5)], obstacles=[]
    )
    scene = Scene(
        "bodies", pos, [{0: (EAST, 0, 0), 1: (EAST, 0, 0), TEAM_SIZE: (WEST, 0, 0)}],
        view=(6, 3, 13, 9),
    )  # fmt: skip
    played, film = show(scene, "Body blocking")
    a, b = at(played, 1, 0), at(played, 1, TEAM_SIZE)
    return f"""
Living bodies block each other but never slide around each other. All bodies move at once;
when two of them touch while closing on each other, both stop at that moment and stand for
the rest of the tick, and everyone else is then judged against where they really stand. The
earliest contact is settled first, so the outcome never depends on which slot an agent sits
in. The two {CL["warrior"].title}s walking into each other stop touching, at
x = {_g(a[0])} and x = {_g(b[0])}; the {CL["mage"].title} above them walks its full step. Dead
agents block nothing, and shielded ones (after a respawn) pass through bodies.

{film}
"""


def statuses() -> str:
    hunter, rogue = CL["hunter"], CL["rogue"]
    pos = position([agent("hunter", 6, 5)], [agent("rogue", 6 + hunter.basic_range, 5)])
    scene = Scene(
        "statuses", pos,
        [{0: (STAY, enemy(0), 0), TEAM_SIZE: (EAST, 0, 0)}, {TEAM_SIZE: (EAST, 0, 0)}],
        view=(4, 3, 14.5, 7),
    )  # fmt: skip
    played, film = show(scene, "A slow acts on the next tick")
    d1 = at(played, 1, TEAM_SIZE)[0] - at(played, 0, TEAM_SIZE)[0]
    d2 = at(played, 2, TEAM_SIZE)[0] - at(played, 1, TEAM_SIZE)[0]
    slow = C.SLOW_FACTORS[C.SLOW_HUNTER]
    return f"""
Effects applied in a tick govern the **next** decision, never the tick that applied them. The
{hunter.title}'s {hunter.basic_name} slows its target to {_g(slow)} of its speed for
{C.EFFECT_DURATION[C.SLOW_HUNTER]} tick. The fleeing {rogue.title} still makes its full step
({_g(round(d1, 3))}) in the tick it is hit, and only the following step is slowed
({_g(round(d2, 3))}). Timers count down once per tick; applying an effect again resets it to
the longer of the time left and its full duration. Slows from different sources multiply,
but never below {_g(C.SLOW_FLOOR * 100)}% of base speed.

{film}
"""


def trap() -> str:
    hunter = CL["hunter"]
    pos = position(
        [agent("hunter", 6, 5), agent("mage", 7, 7)],
        [agent("warrior", 6 + hunter.ultimate_range, 5)],
    )
    b = TEAM_SIZE
    scene = Scene(
        "trap", pos,
        [
            {0: (STAY, enemy(0), 1), b: (NORTH, 0, 0)},
            {1: (STAY, enemy(0), 0), b: (NORTH, 0, 0)},
            {b: (NORTH, 0, 0)},
        ],
        view=(4, 3, 12, 9.5),
    )  # fmt: skip
    _, film = show(scene, "Freezing Trap, broken by damage")
    return f"""
The {hunter.title}'s {hunter.ultimate_name} deals {_g(hunter.ultimate_damage)} damage and
freezes its target for {C.EFFECT_DURATION[C.TRAP]} ticks: no moving, no abilities. Any damage
taken on a **later** tick breaks the Trap at once (damage in the tick the Trap lands does not).
The frozen {CL["warrior"].title} walks north in the tick it is trapped (effects wait for the
next tick), stands still in the next tick while a {CL["mage"].title} hits it, and because that
hit broke the Trap it walks on in the third tick.

{film}
"""


def points() -> str:
    pos = position(
        [agent("rogue", 16.5, 5), agent("rogue", 11, 2)],
        [agent("mage", 17.5, 5, health=5), agent("priest", 12, 2, health=5)],
    )
    scene = Scene(
        "points", pos, [{0: (STAY, enemy(0), 0), 1: (STAY, enemy(1), 0)}], view=(9, 0, 20, 7.5),
    )  # fmt: skip
    played, film = show(scene, "Red Zone deaths count double")
    depth = float(played.states[0].red_zone_depth) / 1000
    score = [int(v) for v in played.states[1].score]
    return f"""
Each death gives the other team a point, or two points if the victim started the tick inside
its own Red Zone (within {_g(depth)} units of its own spawn edge, edge included). Camping at
home is risky, pushing into the enemy's end is rewarded. Both victims below belong to the right
end's team; the one in its own Red Zone is worth double, so the score goes to {score[0]}-{score[1]}.

{film}
"""


def ending() -> str:
    pos = position(
        [agent("mage", 8, 5)], [agent("hunter", 10.5, 5, health=5)], score=[19, 7], tick=120
    )
    scene = Scene("win", pos, [{0: (STAY, enemy(0), 0)}], view=(6, 3, 12.5, 7))
    played, film = show(scene, "Reaching the winning score")
    win = int(played.states[0].winning_score)
    horizon = int(played.states[0].horizon)
    pos2 = position([agent("mage", 4, 5)], [agent("hunter", 16, 5)], score=[6, 6], tick=horizon - 1)
    _, film2 = show(Scene("horizon", pos2, [{}], width_px=420), "The horizon: a draw")
    return f"""
A team wins as soon as it reaches the winning score ({win} by default; it is a parameter) with
more points than the other team. If both reach it in the same tick with equal scores, the game
is a draw. If nobody has won after the horizon ({horizon} ticks by default), it is a draw too.
The tick that ends a game is completed in full before the game is marked done.

{film}

{film2}
"""


def respawn() -> str:
    b = TEAM_SIZE
    pos = position([agent("rogue", 11, 5)], [agent("mage", 12, 5, health=5)], wave_clocks=(5, 2))
    scene = Scene(
        "respawn", pos,
        [{0: (STAY, enemy(0), 0)}, {}, {b: (WEST, 0, 0)}],
        view=(9, 0, 20, 7), width_px=260,
    )  # fmt: skip
    _, film = show(scene, "Respawn wave and spawn shield")
    return f"""
Dead agents come back in waves. Each team has a wave clock with a period of
{C.RESPAWN_PERIOD} ticks; when it fires, every dead agent of that team returns to its own spawn
pad at full health (its Ultimate countdown is not reset). An agent that dies waits for the
first wave on a later tick, so it is dead for 1 to {C.RESPAWN_PERIOD} ticks.

A respawned agent carries a **spawn shield** for {C.SHIELD_TICKS} ticks: enemies cannot see or
target it, it cannot be healed or use abilities, it gives and receives no auras, and it moves
{_g(C.SHIELD_SPEED)} units per tick through other bodies whatever its class or slows. When the
shield ends it is moved to the nearest free spot if it is standing inside a body. Below, the
right team's clock fires one tick after the death, and the respawned {CL["mage"].title} then
runs out of its corner at shield speed.

{film}
"""


def resting() -> str:
    pos = position(
        [
            agent("mage", 3, 7, health=40, out_of_combat=C.CLASSES[C.MAGE].out_of_combat_delay),
            agent("rogue", 3, 5, health=50, out_of_combat=C.CLASSES[C.ROGUE].out_of_combat_delay),
            agent(
                "warrior", 3, 3, health=100, out_of_combat=C.CLASSES[C.ROGUE].out_of_combat_delay
            ),
        ],
        [agent("hunter", 17, 5)],
    )
    scene = Scene("rest", pos, [{}], view=(0.5, 1.5, 7, 8.5), width_px=260)
    _, film = show(scene, "Out-of-combat healing")
    delays = {c.title: c.out_of_combat_delay for c in C.CLASSES}
    slow = [t for t, d in delays.items() if d != delays["Mage"]]
    return f"""
An agent that stays out of combat recovers {_g(C.OUT_OF_COMBAT_HEAL_SHARE * 100)}% of its
maximum health every tick once it has been out of combat for
{delays["Mage"]} ticks ({", ".join(slow)}: {delays[slow[0]]}), so the first such heal comes on the
next quiet tick. Dealing or taking damage counts as combat; so does healing or being healed
while the healed agent is in combat. Poison's healing cut halves this recovery too. The
{CL["warrior"].title} below has waited only {C.CLASSES[C.ROGUE].out_of_combat_delay} ticks,
enough for the {CL["rogue"].title} but not for it.

{film}
"""


def sight() -> str:
    pos = position(
        [agent("mage", 5, 5), agent("priest", 2, 8)],
        [agent("hunter", 10, 5), agent("rogue", 9, 8), agent("warrior", 12, 1)],
        obstacles=[_wall(8, 5, 0.5, 3)],
    )
    game = Game(pos)
    seen = compute_sight(np, game.state, game.map_arrays)
    names = {TEAM_SIZE + k: f"b{k}" for k in range(3)}
    mine = [n for s, n in names.items() if seen.own_sight[0, s]]
    team = [n for s, n in names.items() if seen.team_sees[0, s]]
    scene = Scene("sight", pos, [], view=(0, 0, 13, 10), sight_of=0, width_px=520)
    _, film = show(scene, "Sight and cover (seen by a0)", view="a0")
    mage = CL["mage"]
    return f"""
Every agent sees the bodies whose centres lie within its sight radius ({_g(mage.sight)} units;
the {CL["hunter"].title}'s {CL["hunter"].passive_name} gives {_g(CL["hunter"].sight)}) and whose
straight line from its own centre touches no obstacle. A line that merely grazes an obstacle is
blocked. Bodies never block sight. The yellow circle is the {mage.title}'s sight radius and the
shaded cells inside it are hidden by the wall: it sees {", ".join(mine) or "nobody"} itself.

A team shares what its living members see, so each agent's observation includes every enemy a
teammate sees (here the team sees {", ".join(team) or "nobody"}), but only an agent's **own**
sight lets it target. The engine computes sight with exact integer geometry; the
[Sight Lab](../sight-lab.md) runs the same test in your browser.

{film}
"""


SECTIONS: tuple[tuple[str, Callable[[], str]], ...] = (
    ("The arena", arena),
    ("One tick, all at once", simultaneous),
    ("Legal actions", legality),
    ("Damage and healing are summed before deaths", summed),
    ("Auras", auras),
    ("Burst: damage from the next tick", burst),
    ("Charge", charge),
    ("Movement and sliding", sliding),
    ("Body blocking", bodies),
    ("Statuses act on the next tick", statuses),
    ("Freezing Trap, broken by damage", trap),
    ("Deaths, points and the Red Zone", points),
    ("Winning, draws and the horizon", ending),
    ("Respawn waves and the spawn shield", respawn),
    ("Out-of-combat healing", resting),
    ("Sight and cover", sight),
)


def rules_page() -> str:
    """The whole page as Markdown."""
    parts = [
        "# How a match works\n",
        "<!-- Written at build time by marl_bgs/site/rules_page.py; edit that file. -->\n",
        "Team Deathmatch: two teams of up to five agents meet in a walled arena and score by "
        "killing each other. Every picture on this page is a small position played on the "
        "engine when the site was built; the sentences under it are the engine's own event "
        "log. The precise choices the engine makes where a rule could be read two ways are "
        "on [Engine decisions](engine-decisions.md); the [Visual Key](../visual-key.md) "
        "explains the symbols.\n",
    ]
    for title, section in SECTIONS:
        parts.append(f"## {title}\n{section()}")
    return "\n".join(parts)
