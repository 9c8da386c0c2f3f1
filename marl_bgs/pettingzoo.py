"""Team Deathmatch as a PettingZoo `ParallelEnv`, over the NumPy engine (no JAX needed).

The door for learners outside JAX (BenchMARL and TorchRL, EPyMARL, CleanRL-style scripts):
PettingZoo's Parallel API with the same agents, observations, exact masks, flat actions and
rewards as `marl_bgs.make("tdm")`. Needs the `pettingzoo` extra
(`pip install 'marl-bgs[pettingzoo]'`).

```python
from marl_bgs.pettingzoo import parallel_env

env = parallel_env(map_id=47, opponent="tdm-beta")   # you play team a, TDM-Beta team b
observations, infos = env.reset(seed=0)
while env.agents:
    actions = {a: env.action_space(a).sample(observations[a]["action_mask"]) for a in env.agents}
    observations, rewards, terminations, truncations, infos = env.step(actions)
```

- **Agents** `a0`...`a4` and `b0`...`b4` (as many as the rosters hold; only team a's with an
  `opponent`). An agent that dies stays in `agents` until its team's respawn wave brings it
  back: PettingZoo lets agents leave, but ours return, so between death and respawn its
  mask allows "stay" alone (flat action 0) and its observation says it is dead.
- **Observations**: a `Dict` of `"observation"` (float32 `(784,)`, the agent's own frame, as
  the JAX env gives it) and `"action_mask"` (int8 `(198,)`, 1 where the flat action is legal).
- **Actions**: `Discrete(198)`, flat indices in the agent's own frame. An action outside
  0..197, or not a whole number, or a missing or unknown agent, is refused with a
  `ValueError` naming the agent, as the JAX env refuses them. An action in range that the
  mask forbids is played as the rules play it (the move as "stay", the target and Ultimate
  as none), as in the JAX env; `strict=True` refuses it instead. `infos[agent]["accepted"]`
  is what was played.
- **Rewards**: +1 to every agent of the team that wins and -1 to the other on the tick the
  game is won; 0 otherwise (draws included), as `make("tdm")`.
- **Ends**: `terminations` when a team reaches the winning score, `truncations` at the tick
  limit; `agents` is then empty.
- **Infos**: the flat action each agent played (`accepted`, -1 for none), the tick, the
  score (own, enemy) and the tick's events, the referee's whole list (not filtered to what
  the agent's team saw: do not feed it to a policy).
- `render_mode="rgb_array"` draws the arena (`render()` returns an RGB array; matplotlib),
  `"human"` shows it in a window; `replay()` gives the episode as a `marl-bgs/replay` file's
  `Replay` (`env.replay().save("game.json")`), which the replay viewer plays.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

try:
    from gymnasium import spaces
    from pettingzoo import ParallelEnv
except ImportError as err:  # pragma: no cover - the message is the point
    raise ImportError(
        f"marl_bgs.pettingzoo needs PettingZoo ({err}); pip install 'marl-bgs[pettingzoo]'"
    ) from None

from .battle_games import numpy_decider
from .core.actions import NUM_JOINT, own_frame_flat
from .core.checks import choice, sequence, whole
from .core.classes import CLASS_NAMES
from .core.events import tick_events
from .core.position import MAX_HORIZON, MAX_WINNING_SCORE, OFFICIAL_ROSTER, starting_position
from .core.sight import TEAM as TEAM_OF
from .core.state import AGENT_NAMES, TEAM_SIZE, State
from .core.tick import TickInfo
from .game import Game
from .maps import MAP_IDS

OBS_SIZE = 784
RENDER_MODES = ("rgb_array", "human")
OPTION_KEYS = ("map_id", "position")


def _map_id(value: Any, where: str) -> int:
    return whole(value, where, min(MAP_IDS), max(MAP_IDS))


def parallel_env(**settings: Any) -> TeamDeathmatchParallelEnv:
    """A Team Deathmatch `ParallelEnv`; the keywords are `TeamDeathmatchParallelEnv`'s."""
    return TeamDeathmatchParallelEnv(**settings)


class TeamDeathmatchParallelEnv(ParallelEnv):
    """Team Deathmatch under PettingZoo's Parallel API (see the module's docstring).

    Args:
        map_id: A map id (0-51), or several, one drawn at each reset.
        rosters: Each team's classes, 1 to 5 names (default: the official five each).
        winning_score: Points that win a game (1 to 1,000; default 20).
        horizon: Ticks before an open game ends as a draw (default 300).
        opponent: None (both teams are PettingZoo agents), or who plays team b inside the
            env: a registered System that runs on NumPy (`"tdm-alpha"`, `"tdm-beta"`,
            `"tdm-gamma"`, `"random"`), a published entrant (`"nav-dagger-0"`) or the path
            of a learned policy's `.npz`.
        render_mode: None, `"rgb_array"` or `"human"`.
        swap_spawns: Draw at each reset which end team a starts from (a fair coin, as
            the JAX env does); False keeps team a on the left.
        strict: Refuse actions the mask forbids instead of playing them as the rules do.

    Raises:
        ValueError: A setting out of range or unknown, naming it.
    """

    metadata = {"name": "marl_bgs_tdm_v0", "render_modes": list(RENDER_MODES),
                "render_fps": 4, "is_parallelizable": True}  # fmt: skip

    def __init__(
        self,
        map_id: int | Sequence[int] = 47,
        rosters: Sequence[Sequence[str]] | None = None,
        winning_score: int = 20,
        horizon: int = 300,
        opponent: str | None = None,
        render_mode: str | None = None,
        swap_spawns: bool = True,
        strict: bool = False,
    ) -> None:
        ids = [map_id] if isinstance(map_id, (int, np.integer)) else sequence(map_id, "map_id", 1)
        self.map_ids = [_map_id(m, f"map_id[{k}]" if len(ids) > 1 else "map_id")
                        for k, m in enumerate(ids)]  # fmt: skip
        rosters = (OFFICIAL_ROSTER, OFFICIAL_ROSTER) if rosters is None else rosters
        self.rosters = tuple(
            tuple(choice(c, f"rosters[{t}][{k}]", CLASS_NAMES, "class")
                  for k, c in enumerate(sequence(team, f"rosters[{t}]", 1, TEAM_SIZE)))
            for t, team in enumerate(sequence(rosters, "rosters", 2, 2))
        )  # fmt: skip
        self.winning_score = whole(winning_score, "winning_score", 1, MAX_WINNING_SCORE)
        self.horizon = whole(horizon, "horizon", 1, MAX_HORIZON)
        if render_mode is not None:
            choice(render_mode, "render_mode", RENDER_MODES)
        self.render_mode = render_mode
        self.swap_spawns = bool(swap_spawns)
        self.strict = bool(strict)
        if opponent is not None:
            if not isinstance(opponent, str):
                raise ValueError(f"opponent: a System name or a .npz path, got {opponent!r}")
            self._decider(opponent, 0)  # refused now, not at the first reset
        self.opponent = opponent
        sizes = [len(r) for r in self.rosters]
        self._slots = [t * TEAM_SIZE + k for t in range(2) for k in range(sizes[t])]
        self._slots = [s for s in self._slots if opponent is None or s < TEAM_SIZE]
        self.possible_agents = [AGENT_NAMES[s] for s in self._slots]
        self._slot_of = dict(zip(self.possible_agents, self._slots, strict=True))
        self._observation_space = spaces.Dict({
            "observation": spaces.Box(-np.inf, np.inf, (OBS_SIZE,), np.float32),
            "action_mask": spaces.Box(0, 1, (NUM_JOINT,), np.int8),
        })  # fmt: skip
        self._action_space = spaces.Discrete(NUM_JOINT)
        self.agents: list[str] = []
        self.game: Game | None = None
        self._rng = np.random.default_rng()
        self._window = None

    # ---- spaces ---------------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Dict:
        self._check_agent(agent, "agent")
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Discrete:
        self._check_agent(agent, "agent")
        return self._action_space

    def _check_agent(self, agent: Any, where: str) -> None:
        if agent not in self._slot_of:
            raise ValueError(
                f"{where}: no agent {agent!r} (agents: {', '.join(self.possible_agents)})"
            )

    # ---- reset ----------------------------------------------------------------------------
    @staticmethod
    def _decider(label: str, seed: int):
        try:
            return numpy_decider(label, seed)
        except (ValueError, OSError) as err:
            raise ValueError(f"opponent: {err}") from None

    def _position(self, options: dict) -> dict:
        unknown = sorted(map(str, set(options) - set(OPTION_KEYS)))
        if unknown:  # PettingZoo's own test passes options of its own: said, not refused
            warnings.warn(
                f"options: ignoring {', '.join(map(repr, unknown))} (known: {', '.join(OPTION_KEYS)})",
                stacklevel=3,
            )
        if "position" in options and "map_id" in options:
            raise ValueError("options: a position holds its map; give 'position' or 'map_id'")
        if "position" in options:
            return options["position"]
        if "map_id" in options:
            map_id = _map_id(options["map_id"], "options['map_id']")
        else:
            map_id = self.map_ids[int(self._rng.integers(len(self.map_ids)))]
        swap = self.swap_spawns and bool(self._rng.integers(2))
        ends = ("right", "left") if swap else ("left", "right")
        return starting_position(map_id, self.rosters, spawn_ends=ends, horizon=self.horizon,
                                 winning_score=self.winning_score)  # fmt: skip

    def reset(self, seed: int | None = None, options: dict | None = None):
        """A new game: drawn from `seed` (a map among `map_id`, the spawn ends), or
        `options={"map_id": id}`, or an authored position (`options={"position": doc}`, a
        `marl-bgs/position` dict whose rosters must match the env's)."""
        if seed is not None:
            self._rng = np.random.default_rng(whole(seed, "seed", 0, 2**63 - 1))
        options = {} if options is None else options
        if not isinstance(options, dict):
            raise ValueError(f"options: expected a dict, got {type(options).__name__}")
        game = Game(self._position(options))
        present = [s for s in range(2 * TEAM_SIZE) if game.state.present[s]]
        wanted = [t * TEAM_SIZE + k for t in range(2) for k in range(len(self.rosters[t]))]
        if present != wanted:
            raise ValueError(
                "options['position']: its agents "
                f"{', '.join(AGENT_NAMES[s] for s in present)} are not this env's "
                f"{', '.join(AGENT_NAMES[s] for s in wanted)}"
            )
        self.game = game
        self._team_b = None
        if self.opponent is not None:
            self._team_b = self._decider(self.opponent, int(self._rng.integers(2**31)))
        self.agents = list(self.possible_agents)
        self._states = [game.state]
        self._infos: list[TickInfo] = []
        observations = self._observations()
        infos = {a: {"tick": int(game.state.tick), "score": self._score(a)} for a in self.agents}
        return observations, infos

    # ---- what each agent gets --------------------------------------------------------------
    def _observations(self) -> dict[str, dict[str, np.ndarray]]:
        inputs = [self.game.team_inputs(t) for t in range(2)]
        out = {}
        for agent in self.agents:
            slot = self._slot_of[agent]
            mine = inputs[slot // TEAM_SIZE]
            k = slot % TEAM_SIZE
            out[agent] = {"observation": mine.obs[k].astype(np.float32),
                          "action_mask": mine.avail[k].astype(np.int8)}  # fmt: skip
        return out

    def _score(self, agent: str) -> list[int]:
        team = self._slot_of[agent] // TEAM_SIZE
        score = self.game.state.score
        return [int(score[team]), int(score[1 - team])]

    def _flat(self, actions: dict) -> tuple[np.ndarray, np.ndarray]:
        """Both teams' five own-frame flat actions, checked (team b's from the opponent)."""
        if not isinstance(actions, dict):
            raise ValueError(
                f"actions: expected a dict of agent -> action, got {type(actions).__name__}"
            )
        for agent in actions:
            if agent not in self.agents:
                raise ValueError(f"actions: no agent {agent!r} in this game now")
        flat = np.zeros((2, TEAM_SIZE), np.int64)
        masks = None
        for agent in self.agents:
            if agent not in actions:
                raise ValueError(f"actions[{agent!r}]: no action for this agent")
            value = actions[agent]
            raw = np.asarray(value)
            if (
                raw.shape not in ((), (1,))
                or raw.dtype == bool
                or not np.issubdtype(raw.dtype, np.integer)
            ):
                raise ValueError(
                    f"actions[{agent!r}]: expected one whole number 0..197, got {value!r}"
                )
            a = int(raw.reshape(()))
            if not 0 <= a < NUM_JOINT:
                raise ValueError(f"actions[{agent!r}]: {a} is outside 0..197")
            if self.strict:
                masks = masks if masks is not None else self._observations()
                if not masks[agent]["action_mask"][a]:
                    raise ValueError(f"actions[{agent!r}]: {a} is not legal now (strict=True)")
            slot = self._slot_of[agent]
            flat[slot // TEAM_SIZE, slot % TEAM_SIZE] = a
        if self._team_b is not None:
            flat[1] = np.asarray(self._team_b.decide(self.game, 1))
        return flat[0], flat[1]

    # ---- step -----------------------------------------------------------------------------
    def step(self, actions: dict):
        """One tick of every agent's action (and the opponent's, if any)."""
        if self.game is None or not self.agents:
            raise RuntimeError("step: the game is over (or never started); call reset()")
        flat_a, flat_b = self._flat(actions)
        before = self.game.state
        info = self.game.step_slots(self.game.slots_from_flat(flat_a, flat_b))
        after = self.game.state
        self._states.append(after)
        self._infos.append(info)
        events = tick_events(before, info, after)
        ended = self.game.done
        result = self.game.result
        won = any(int(s) >= int(after.winning_score) for s in after.score)
        accepted = self._accepted(info, after)
        rewards, terminations, truncations, infos = {}, {}, {}, {}
        for agent in self.agents:
            slot = self._slot_of[agent]
            team = "ab"[slot // TEAM_SIZE]
            rewards[agent] = 0.0 if result in (None, "draw") else (1.0 if result == team else -1.0)
            terminations[agent] = ended and won
            truncations[agent] = ended and not won
            infos[agent] = {"accepted": int(accepted[slot]), "tick": int(after.tick),
                            "score": self._score(agent), "events": events}  # fmt: skip
        observations = self._observations()
        if ended:
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return observations, rewards, terminations, truncations, infos

    @staticmethod
    def _accepted(info: TickInfo, state: State) -> np.ndarray:
        """Each slot's played action as a flat index in its own frame (-1: none)."""
        ends = np.asarray(state.spawn_end)[np.asarray(TEAM_OF)]
        flat = own_frame_flat(np, np.asarray(info.actions), ends)
        return np.where(np.asarray(state.present), flat, -1)

    # ---- pictures and the record ---------------------------------------------------------
    def render(self):
        """`"rgb_array"`: the arena now as a uint8 `(H, W, 3)` array; `"human"`: the same in
        a window (matplotlib); None without a render mode."""
        if self.render_mode is None:
            return None
        if self.game is None:
            raise RuntimeError("render: call reset() first")
        from .frame_image import frame_rgb, show

        image = frame_rgb(self.game.state, self.game.obstacles)
        if self.render_mode == "rgb_array":
            return image
        self._window = show(image, self._window)
        return None

    def replay(self):
        """The episode so far as a `Replay` (`.save(path)` writes the file the replay viewer
        and `marl_bgs.replay.load_replay` read)."""
        from .replay.record import empty_infos, map_file_of, replay_from_arrays

        if self.game is None:
            raise RuntimeError("replay: call reset() first")
        states = State(*(np.stack([np.asarray(s[k]) for s in self._states])
                         for k in range(len(State._fields))))  # fmt: skip
        if self._infos:
            infos = TickInfo(*(np.stack([np.asarray(i[k]) for i in self._infos])
                               for k in range(len(TickInfo._fields))))  # fmt: skip
        else:
            infos = empty_infos(self.game)
        systems = ["pettingzoo", self.opponent if self.opponent is not None else "pettingzoo"]
        return replay_from_arrays(map_file_of(self.game.map_ref, self.game.obstacles), None,
                                  states, infos, None, systems, None,
                                  title=f"PettingZoo: {systems[0]} vs {systems[1]}")  # fmt: skip

    def close(self) -> None:
        if self._window is not None:
            from .frame_image import close

            close(self._window)
            self._window = None
