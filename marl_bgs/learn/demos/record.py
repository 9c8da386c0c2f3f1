"""Recording demonstrations inside one compiled `lax.scan`: the teacher as Team A, the
opponents as Team B (env `i` always against opponent `i % len(opponents)`), written in
shards of whole chunks of ticks so that each game's ticks stay in order."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ...core.actions import NUM_JOINT
from ...core.state import TEAM_SIZE
from .format import (
    FIELDS,
    REWARD_FIELDS,
    DemoSettings,
    new_folder,
    new_manifest,
    plain,
    write_manifest,
    write_shard,
)


class _Recorder:
    """One compiled chunk of `chunk_ticks` ticks: the teacher and the opponents act, the
    games tick and restart, and Team A's inputs and choices come back as arrays."""

    def __init__(self, settings: DemoSettings, teacher: Any, opponents: Sequence[Any]) -> None:
        import jax

        from ...registration import make
        from ..config import PPOConfig
        from ..rewards import make_reward_fn

        s = settings
        self.settings, self.teacher, self.opponents = s, teacher, tuple(opponents)
        roster = tuple(s.roster)
        self.env = make(
            "tdm",
            num_envs=s.num_envs,
            map_id=list(s.maps),
            rosters=[(roster, roster)],
            winning_score=s.winning_score,
            horizon=s.horizon,
        )
        # The reward every learner trains on by default (amounts recorded in the manifest).
        self.reward_config = PPOConfig()
        self.reward_fn = make_reward_fn(self.reward_config)
        self.pick = jax.numpy.arange(s.num_envs) % len(self.opponents)
        self.chunk = jax.jit(self._chunk)

    def init(self, key: Any) -> tuple:
        import jax

        k_env, k_a, k_b = jax.random.split(key, 3)
        _, state = self.env.reset(k_env)
        return state, self._fresh(self.teacher, k_a), self._opponents_fresh(k_b)

    def _fresh(self, system: Any, key: Any) -> Any:
        import jax

        return jax.vmap(system.init)(jax.random.split(key, self.settings.num_envs))

    def _opponents_fresh(self, key: Any) -> tuple:
        import jax

        keys = jax.random.split(key, len(self.opponents))
        return tuple(self._fresh(o, k) for o, k in zip(self.opponents, keys, strict=True))

    @staticmethod
    def _keep(new_game: Any, fresh: Any, old: Any) -> Any:
        import jax
        import jax.numpy as jnp

        def one(a, b):
            return jnp.where(new_game.reshape(new_game.shape + (1,) * (a.ndim - 1)), a, b)

        return jax.tree.map(one, fresh, old)

    def _tick(self, carry: tuple, key: Any) -> tuple:
        import jax
        import jax.numpy as jnp

        from ...systems.base import check_jax_actions

        state, mem_a, mem_b = carry
        n = self.settings.num_envs
        k_fa, k_fb, k_a, k_b, k_reset = jax.random.split(key, 5)
        mem_a = self._keep(state.new_game, self._fresh(self.teacher, k_fa), mem_a)
        mem_b = self._keep(state.new_game, self._opponents_fresh(k_fb), mem_b)
        inputs_a, inputs_b = self.env.teams_inputs(state)
        acts_a, mem_a = jax.vmap(self.teacher.act)(jax.random.split(k_a, n), inputs_a, mem_a)
        acts_a = check_jax_actions(acts_a, n, self.teacher, "teacher")
        acts_b, new_b = jnp.zeros((n, TEAM_SIZE), jnp.int32), []
        for i, (system, k) in enumerate(
            zip(self.opponents, jax.random.split(k_b, len(self.opponents)), strict=True)
        ):
            acts, mem = jax.vmap(system.act)(jax.random.split(k, n), inputs_b, mem_b[i])
            acts = check_jax_actions(acts, n, system, f"opponents[{i}]")
            acts_b = jnp.where((self.pick == i)[:, None], acts, acts_b)
            new_b.append(mem)
        actions = jnp.concatenate([acts_a, acts_b], axis=1).astype(jnp.int32)
        _, after, _, done, info = self.env.step_env(None, state, actions)
        reward = self.reward_fn(state, after, info)[:, :TEAM_SIZE].astype(jnp.float32)
        _, restarted = self.env.reset_done(k_reset, after)
        in_range = (acts_a >= 0) & (acts_a < NUM_JOINT)
        chosen = jnp.take_along_axis(
            inputs_a.avail, jnp.clip(acts_a, 0, NUM_JOINT - 1)[..., None], -1
        )[..., 0]
        record = {
            "obs": inputs_a.obs,
            "avail": inputs_a.avail,
            "present": inputs_a.present,
            "alive": inputs_a.alive,
            "classes": inputs_a.classes,
            "new_game": state.new_game,
            "action": acts_a,
            "reward": reward,
            "done": done["__all__"],
            "world": self.env.world_state(state)[:, 0],
            # Checks, not stored: out-of-range or illegal choices of the teacher (living
            # agents of open games), out-of-range ones of the opponents.
            "teacher_illegal": jnp.sum(inputs_a.alive & ~(in_range & chosen)),
            "invalid_action": jnp.sum(info["invalid_action"]),
            "result": jnp.where(done["__all__"], after.game.result, -1),
            "margin": after.game.score[:, 0] - after.game.score[:, 1],
        }
        return (restarted, mem_a, tuple(new_b)), record

    def _chunk(self, carry: tuple, key: Any) -> tuple:
        import jax

        keys = jax.random.split(key, self.settings.chunk_ticks)
        return jax.lax.scan(self._tick, carry, keys)


def _pack(record: dict) -> dict[str, np.ndarray]:
    """A chunk's arrays as a shard stores them."""
    out = {}
    for name, (dtype, _) in FIELDS.items():
        arr = np.asarray(record[name])
        if name == "avail":
            arr = np.packbits(arr.astype(bool), axis=-1)
        out[name] = arr.astype(dtype)
    return out


def record_demos(
    settings: DemoSettings,
    out: str | Path,
    force: bool = False,
    progress: bool = True,
    teacher: Any = None,
    opponents: Sequence[Any] | None = None,
) -> Path:
    """Record `settings.steps` game steps of the teacher's play into the folder `out`.

    Args:
        settings: What to record.
        out: A new folder (or one holding demonstrations, with `force`).
        force: Replace the demonstrations `out` already holds.
        progress: Show a progress bar.
        teacher: A System object to play instead of resolving `settings.teacher` (its name
            is recorded); for mixes built in Python (`systems.team(...)`).
        opponents: System objects instead of `settings.opponents`, likewise.

    Returns:
        The folder.

    Raises:
        ValueError: Bad settings, a System that cannot be resolved or returns out-of-range
            actions, or a folder that already holds demonstrations (without `force`).
    """
    import jax
    from tqdm.auto import tqdm

    from ...version import __version__
    from ..opponents import policy_system

    s = settings
    folder = new_folder(out, force)
    teacher = teacher or policy_system(s.teacher, "teacher")
    if opponents is None:
        opponents = [policy_system(o, f"opponents[{i}]") for i, o in enumerate(s.opponents)]
    if len(opponents) != len(s.opponents):
        raise ValueError(f"opponents: {len(opponents)} Systems for {len(s.opponents)} names")
    for name, system in [("teacher", teacher)] + [
        (f"opponents[{i}]", o) for i, o in enumerate(opponents)
    ]:
        if system.on_host:
            raise ValueError(f"{name}: {system.name!r} runs on the host; record it from replays")
    rec = _Recorder(s, teacher, opponents)
    key = jax.random.PRNGKey(s.seed)
    key, k_init = jax.random.split(key)
    carry = rec.init(k_init)
    manifest = new_manifest("play", s.to_dict(), s.num_envs, {
            "teacher": teacher.name,
            "opponents": [o.name for o in opponents],
            "opponent_of_env": "env i plays opponents[i % len(opponents)]",
            "reward": {
                k: plain(v) for k, v in rec.reward_config.to_dict().items() if k in REWARD_FIELDS
            },  # fmt: skip
            "package_version": __version__,
            "jax_version": jax.__version__,
            "backend": jax.default_backend(),
        })  # fmt: skip
    started = time.perf_counter()
    bar = tqdm(total=s.chunks * s.num_envs * s.chunk_ticks, disable=not progress,
               unit="step", desc=f"demos {teacher.name}")  # fmt: skip
    pending: list[dict] = []
    for c in range(s.chunks):
        key, k = jax.random.split(key)
        carry, record = rec.chunk(carry, k)
        record = jax.device_get(record)
        if int(record["invalid_action"].sum()):
            raise ValueError(
                f"opponents: {int(record['invalid_action'].sum())} out-of-range actions in chunk "
                f"{c}; a System must return flat actions 0..{NUM_JOINT - 1}"
            )
        manifest["teacher_illegal_choices"] += int(record["teacher_illegal"].sum())
        result = record["result"]
        manifest["games_finished"] += int((result >= 0).sum())
        manifest["results"]["teacher_won"] += int((result == 0).sum())
        manifest["results"]["teacher_lost"] += int((result == 1).sum())
        manifest["results"]["draws"] += int((result == 2).sum())
        pending.append(_pack(record))
        bar.update(s.num_envs * s.chunk_ticks)
        if len(pending) == s.chunks_per_shard or c == s.chunks - 1:
            write_shard(folder, manifest, pending)
            manifest["seconds"] = round(time.perf_counter() - started, 2)
            write_manifest(folder, manifest)
            pending = []
    bar.close()
    return folder
