"""The BattleClient's games: humans beside or against Systems, one tick at a time, recorded.

One module, two transports: the play page (`web_demo/play/`) calls these functions inside
Pyodide through `web_demo/play/backends.js`, and `marl-bgs client` (`marl_bgs/client_server.py`)
calls the very same ones behind a small JSON API on 127.0.0.1. Everything crosses as JSON
text. Nothing here imports JAX: Systems are built by a factory, by default the NumPy twins
of the registered Systems and the learned entrants through their `.npz` NumPy forward
pass (`numpy_decider`); the local client passes one that also plays JAX Systems and runs.

A session holds one `Game`, who controls each slot ("human" or a System's label), and every
state and tick info so far. Each tick:

1. the page asks for `view(who)`: the last tick as a two-frame replay seen by team `who`
   (the replay point-of-view filter: unseen enemies carry placeholders, events naming them
   are dropped), the exact legal actions of that team's human agents, and the clock;
2. the humans' actions come back with `step`; every AI slot decides from the same
   start-of-tick state, illegal human actions are refused (the page offers only legal ones);
3. at the end, `replay_text` gives the whole game as a `marl-bgs/replay` file whose systems
   name "human" for the human slots.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from .browser_api import SPEC_KEYS as GAME_KEYS
from .browser_api import position_of
from .core import classes
from .core.actions import HEAD_LIMITS, MIRROR_FLAT, decode, encode
from .core.checks import whole
from .core.movement import planned_strides
from .core.position import MAX_HORIZON, MAX_WINNING_SCORE
from .core.state import AGENT_NAMES, LEFT, NUM_SLOTS, SPAWN_END_NAMES, TEAM_SIZE, State
from .core.tick import TickInfo
from .game import Game
from .maps import MAP_IDS, load_map, split_of
from .replay.record import empty_infos, map_file_of, package_versions, replay_from_arrays
from .replay.schema import Replay

HUMAN = "human"
SPEC_KEYS = GAME_KEYS | {"position", "controllers", "title"}


class Decider(Protocol):
    """One System playing one team of one game: own-frame flat actions for its 5 slots."""

    name: str

    def decide(self, game: Game, team: int) -> np.ndarray: ...


DeciderFactory = Callable[[str, int], Decider]  # (label, seed) -> a fresh Decider


class _NumpyDecider:
    def __init__(self, label: str, seed: int) -> None:
        from .systems.numpy_play import numpy_system

        self.name = label
        self.system = numpy_system(label)
        self.memory = self.system.init()
        self.rng = np.random.default_rng(seed)

    def decide(self, game: Game, team: int) -> np.ndarray:
        from .systems.numpy_play import decide

        flat, self.memory = decide(game, team, self.system, self.memory, self.rng)
        return flat


class _PolicyDecider:
    """A learned entrant's `.npz` actor on NumPy, acting as Season 0 plays it: a policy
    learner samples its actions, a Q-learner plays its best legal action."""

    def __init__(self, label: str, path: Path, seed: int) -> None:
        from .learn.npz_policy import NumpyPolicy

        self.name = label
        self.policy = NumpyPolicy.load(path)
        self.memory = self.policy.init_memory()
        self.rng = np.random.default_rng(seed)

    def decide(self, game: Game, team: int) -> np.ndarray:
        actions, self.memory = self.policy.act(
            game.team_inputs(team), self.memory, greedy=False, rng=self.rng
        )
        return actions


# Learned entrants by label: seasons/entrants/NAME/policy.npz in a checkout, or the copy
# the engine wheel carries (scripts/engine_wheel.py reads this very list from this file).
# The first published one, then Season 0's six, then the imitation of TDM-Alpha that reads
# its steering scores (issue 43).
ENTRANTS = (
    "ppo-rec-ippo-0",
    "rec-ippo-500k",
    "rec-mappo-500k",
    "ff-ippo-500k",
    "ff-mappo-500k",
    "qmix-500k",
    "pqn-vdn-500k",
    "nav-dagger-0",
)


def entrant_path(name: str) -> Path | None:
    here = Path(__file__).resolve().parent
    for path in (
        here / "_entrants" / f"{name}.npz",
        here.parent / "seasons" / "entrants" / name / "policy.npz",
    ):
        if path.is_file():
            return path
    return None


def numpy_decider(label: str, seed: int) -> Decider:
    """The registered System or learned entrant `label` on NumPy (what the browser plays)."""
    path = entrant_path(label) if label in ENTRANTS else None
    if path is not None:
        return _PolicyDecider(label, path, seed)
    return _NumpyDecider(label, seed)


def numpy_labels() -> list[str]:
    """Who can play a slot without JAX: the registered Systems and the learned entrants."""
    from .systems.numpy_play import NAMES

    return [*NAMES, *(e for e in ENTRANTS if entrant_path(e) is not None)]


@cache
def map_list() -> list[dict]:
    """Every map's id, name and split (for the page's map menu)."""
    return [{"id": m, "name": load_map(m)["name"], "split": split_of(m)} for m in MAP_IDS]


def catalog(labels: list[str] | None = None) -> dict:
    """What a page may offer: maps, classes, who can play a slot, the default settings."""
    return {
        "maps": map_list(),
        "classes": [{"name": c.name, "title": c.title} for c in classes.CLASSES],
        "systems": [HUMAN, *(labels if labels is not None else numpy_labels())],
        "limits": {"horizon": MAX_HORIZON, "winning_score": MAX_WINNING_SCORE},
        "official": official_game(),
    }


def official_game() -> dict:
    """The official game's winning score and horizon: `starting_position`'s defaults."""
    import inspect

    from .core.position import starting_position

    params = inspect.signature(starting_position).parameters
    return {k: params[k].default for k in ("winning_score", "horizon")}


def _whole(spec: dict, key: str, default: int, lo: int, hi: int) -> int:
    return whole(spec.get(key, default), key, lo, hi)


def _position(spec: dict) -> dict:
    """The starting position: the engine bridge's reading of the game fields."""
    game = {k: v for k, v in spec.items() if k in GAME_KEYS | {"position"} and k != "seed"}
    return position_of(game)


def _who(who: Any) -> str:
    if who not in ("a", "b", "oracle", "auto"):
        raise ValueError(f"who: expected 'a', 'b', 'oracle' or 'auto', got {who!r}")
    return who


class Session:
    """One game between humans and Systems; see the module docstring."""

    def __init__(self, spec: dict, factory: DeciderFactory, labels: list[str]) -> None:
        if not isinstance(spec, dict):
            raise ValueError("game: expected an object")
        unknown = set(spec) - SPEC_KEYS
        if unknown:
            raise ValueError(
                f"game: unknown field(s) {sorted(unknown)}; known: {sorted(SPEC_KEYS)}"
            )
        seed = _whole(spec, "seed", 0, 0, 2**31 - 1)
        title = spec.get("title", "")
        if not isinstance(title, str) or len(title) > 120:
            raise ValueError("title: expected a string of at most 120 characters")
        self.game = Game(_position(spec))
        present = np.asarray(self.game.state.present, bool)
        controllers = spec.get("controllers", [HUMAN] + ["tdm-alpha"] * (NUM_SLOTS - 1))
        if not isinstance(controllers, list) or len(controllers) != NUM_SLOTS:
            raise ValueError("controllers: expected 10 entries, one per slot (a0..a4, b0..b4)")
        self.controllers: list[str | None] = []
        for s, c in enumerate(controllers):
            if not present[s]:
                self.controllers.append(None)
                continue
            if c != HUMAN and c not in labels:
                known = ", ".join([HUMAN, *labels])
                raise ValueError(
                    f"controllers[{s}] ({AGENT_NAMES[s]}): {c!r} is not one of {known}"
                )
            self.controllers.append(c)
        self.deciders: dict[tuple[int, str], Decider] = {}
        for s, c in enumerate(self.controllers):
            if c not in (None, HUMAN) and (s // TEAM_SIZE, c) not in self.deciders:
                team = s // TEAM_SIZE
                self.deciders[(team, c)] = factory(c, seed * 2 + team)
        self.humans = [s for s, c in enumerate(self.controllers) if c == HUMAN]
        self.title = title or self._title()
        self.seed = seed
        self.states: list[State] = [self.game.state]
        self.infos: list[TickInfo] = []

    def _title(self) -> str:
        def side(team: int) -> str:
            used = [c for c in self.controllers[team * TEAM_SIZE : (team + 1) * TEAM_SIZE] if c]
            return " + ".join(dict.fromkeys(used))

        where = self.game.map_ref if isinstance(self.game.map_ref, int) else "inline"
        return f"BattleClient: {side(0)} vs {side(1)}, map {where}"

    # ---- reading ---------------------------------------------------------------------------
    def _replay(self, first: int) -> Replay:
        states = State(
            *(
                np.stack([np.asarray(s[k]) for s in self.states[first:]])
                for k in range(len(State._fields))
            )
        )
        infos = self.infos[first:]
        if infos:
            info = TickInfo(
                *(np.stack([np.asarray(i[k]) for i in infos]) for k in range(len(TickInfo._fields)))
            )
        else:
            info = empty_infos(self.game)
        systems = [c if c is not None else HUMAN for c in self.controllers]
        return replay_from_arrays(
            map_file_of(self.game.map_ref, self.game.obstacles),
            None,
            states,
            info,
            None,
            systems,
            {"root": self.seed, "game": None},
            title=self.title,
            versions=_versions(),
        )

    def view(self, who: str) -> dict:
        """The last tick (two frames; one before the first tick) as `who` saw it, and the
        legal actions of `who`'s human agents (all humans' for "oracle") with each one's
        planned stride per move (`strides`, milli-units: the tick's own `planned_strides`,
        so the page's ghosts show slows, Blessing and shields). "auto" is the first team
        with a human agent, or the oracle when Systems play every slot."""
        who = _who(who)
        if who == "auto":
            who = "ab"[self.humans[0] // TEAM_SIZE] if self.humans else "oracle"
        window = self._replay(max(len(self.states) - 2, 0))
        if who != "oracle":
            window = window.as_seen_by(who)
        legal = self.game.legal_actions()
        state = self.game.state
        strides = planned_strides(np, state)
        humans = []
        for s in self.humans:
            team = s // TEAM_SIZE
            if who != "oracle" and "ab"[team] != who:
                continue
            k = s % TEAM_SIZE
            cls = int(state.cls[s])
            humans.append(
                {
                    "slot": AGENT_NAMES[s],
                    "class": classes.CLASSES[cls].name,
                    "alive": bool(state.alive[s]),
                    "speed": round(float(classes.SPEED[cls]) * 1000),
                    "strides": strides[s].tolist(),
                    "legal": np.flatnonzero(legal[team, k]).tolist(),
                }
            )
        return {
            "window": window.to_dict(),
            "tick": int(state.tick),
            "done": self.game.done,
            "result": self.game.result,
            "score": [int(x) for x in state.score],
            "humans": humans,
            "human_teams": sorted({"ab"[s // TEAM_SIZE] for s in self.humans}),
            "controllers": self.controllers,
            "spawn_ends": [SPAWN_END_NAMES[int(e)] for e in state.spawn_end],
        }

    def replay(self) -> Replay:
        """The whole game so far, every field (the oracle's replay)."""
        return self._replay(0)

    # ---- playing ---------------------------------------------------------------------------
    def step(self, human_actions: Any) -> list[dict]:
        """One tick: `{"a0": [move, target, ultimate], ...}` for every living human agent
        (compass frame, as `Game.step`); AI slots decide from the same state. Returns the
        tick's events (every one, for the caller to filter)."""
        if self.game.done:
            raise RuntimeError("the game is finished; no more ticks can be played")
        if not isinstance(human_actions, dict):
            raise ValueError(
                "actions: expected an object of agent name -> [move, target, ultimate]"
            )
        unknown = set(human_actions) - {AGENT_NAMES[s] for s in self.humans}
        if unknown:
            raise ValueError(f"actions: {sorted(unknown)} are not human agents of this game")
        legal = self.game.legal_actions()
        slots = np.zeros((NUM_SLOTS, 3), np.int32)
        for s in self.humans:
            name = AGENT_NAMES[s]
            act = human_actions.get(name, [0, 0, 0])
            if (
                not isinstance(act, list)
                or len(act) != 3
                or not all(isinstance(v, int) and not isinstance(v, bool) for v in act)
            ):
                raise ValueError(f"actions.{name}: expected [move, target, ultimate]")
            move, target, ult = act
            flat = encode(move, target, ult)
            if (
                not all(0 <= v < n for v, n in zip(act, HEAD_LIMITS, strict=True))
                or not legal[s // TEAM_SIZE, s % TEAM_SIZE, flat]
            ):
                raise ValueError(f"actions.{name}: {act} is not a legal action now")
            slots[s] = act
        for (team, label), decider in self.deciders.items():
            flat = np.asarray(decider.decide(self.game, team), np.int32)
            if int(self.game.state.spawn_end[team]) != LEFT:
                flat = MIRROR_FLAT[flat]  # own frame -> compass (a mirror undoes itself)
            for k in range(TEAM_SIZE):
                s = team * TEAM_SIZE + k
                if self.controllers[s] == label:
                    slots[s] = decode(int(flat[k]))
        from .core.events import tick_events

        before = self.game.state
        info = self.game.step_slots(slots)
        self.infos.append(info)
        self.states.append(self.game.state)
        return tick_events(before, info, self.game.state)


@cache
def _versions() -> dict:
    return package_versions()


class Battles:
    """Sessions by id behind JSON text, with the Systems one transport can play."""

    def __init__(self, factory: DeciderFactory = numpy_decider, labels: list[str] | None = None):
        self.factory = factory
        self.labels = labels if labels is not None else numpy_labels()
        self.sessions: dict[int, Session] = {}
        self.next_id = 0

    def catalog(self) -> str:
        return json.dumps(catalog(self.labels))

    def new(self, spec_json: str) -> int:
        try:
            spec = json.loads(spec_json)
        except ValueError as err:
            raise ValueError(f"game: not JSON ({err})") from None
        session = Session(spec, self.factory, self.labels)
        self.next_id += 1
        self.sessions[self.next_id] = session
        return self.next_id

    def get(self, sid: Any) -> Session:
        if sid not in self.sessions:
            raise ValueError(f"game: no game with id {sid!r}")
        return self.sessions[sid]

    def view(self, sid: int, who: str) -> str:
        return json.dumps(self.get(sid).view(who))

    def step(self, sid: int, actions_json: str, who: str) -> str:
        try:
            actions = json.loads(actions_json)
        except ValueError as err:
            raise ValueError(f"actions: not JSON ({err})") from None
        session = self.get(sid)
        session.step(actions)
        return json.dumps(session.view(who))

    def replay_text(self, sid: int) -> str:
        return self.get(sid).replay().to_bytes().decode("utf-8")

    def close(self, sid: int) -> None:
        self.sessions.pop(sid, None)


# The browser's sessions (Pyodide calls these module functions).
BROWSER = Battles()
browser_catalog = BROWSER.catalog
new_session = BROWSER.new
view = BROWSER.view
step = BROWSER.step
replay_text = BROWSER.replay_text
close_session = BROWSER.close
