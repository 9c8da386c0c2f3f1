"""A fingerprint of whole games, so that a speed-up can prove it changed no result.

Three hashes (SHA-256 over every array, in order):

- `numpy_engine`: games of uniformly random legal actions on several maps (and an open
  arena), played tick by tick on the NumPy engine; every state, every `TickInfo` and every
  legal-action mask goes in.
- `jax_engine`: the same action sequences replayed on the JAX engine under jit, vmap and
  lax.scan; its states and records must hash exactly like the NumPy engine's.
- `jax_env`: the batched environment (several maps, mixed spawn ends) stepped with
  `sample_actions`, `step` and `reset_done`; observations, states, rewards, dones and infos.

    python benchmarks/fingerprint.py --write benchmarks/golden_fingerprint.json
    python benchmarks/fingerprint.py --check benchmarks/golden_fingerprint.json

`--check` exits with status 1 if any hash differs from the file (or the two engines differ).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

import numpy as np

from marl_bgs import Game
from marl_bgs.core import classes
from marl_bgs.core.observation import MAX_TURNED_WALLS
from marl_bgs.core.position import starting_position
from marl_bgs.core.state import MAX_OBSTACLES, map_arrays
from marl_bgs.random_play import decode

MAPS = (47, 42, 49, 28, {"obstacles": []})
ENV_MAPS = (47, 42, 49, 28)


class Hasher:
    """SHA-256 over arrays, normalised so NumPy and JAX outputs of equal value agree."""

    def __init__(self) -> None:
        self.h = hashlib.sha256()

    def add(self, *arrays) -> None:
        for a in arrays:
            a = np.asarray(a)
            if a.dtype.kind in "biu":
                a = a.astype(np.int64)
            self.h.update(str(a.shape).encode())
            self.h.update(np.ascontiguousarray(a).tobytes())

    def hexdigest(self) -> str:
        return self.h.hexdigest()


def _start(i: int, rng: np.random.Generator, ticks: int) -> dict:
    rosters = tuple(
        tuple(classes.CLASS_NAMES[int(c)] for c in rng.integers(0, 5, rng.integers(1, 6)))
        for _ in range(2)
    )
    ends = ("left", "right") if i % 2 == 0 else ("right", "left")
    return starting_position(MAPS[i % len(MAPS)], rosters, ends, horizon=ticks, winning_score=60)


def play_numpy(games: int, ticks: int, seed: int) -> tuple[list, str]:
    """Play the games on the NumPy engine; returns what the JAX replay needs and the hash."""
    rng = np.random.default_rng(seed)
    h = Hasher()
    played = []
    for i in range(games):
        g = Game(_start(i, rng, ticks))
        first, actions, records = g.state, [], []
        while not g.done:
            legal = g.legal_actions().reshape(10, -1)
            slots = np.zeros((10, 3), np.int32)
            for k in range(10):
                slots[k] = decode(int(rng.choice(np.flatnonzero(legal[k]))))
            info = g.step_slots(slots)
            h.add(legal, *g.state, *info)
            actions.append(slots)
            records.append((g.state, info))
        padded = map_arrays(
            g.obstacles,
            boxes=MAX_OBSTACLES,
            polys=MAX_TURNED_WALLS,
            pillars=MAX_OBSTACLES,
            rects=MAX_OBSTACLES,
        )
        played.append((first, padded, actions, records))
    return played, h.hexdigest()


def replay_jax(played: list) -> str:
    """Replay the NumPy games' actions on the JAX engine, all games in one compiled call."""
    import jax
    import jax.numpy as jnp

    from marl_bgs.core.tick import step

    def stack(items):
        return jax.tree.map(lambda *xs: np.stack(xs), *items)

    starts = stack([p[0] for p in played])
    maps = stack([p[1] for p in played])
    lengths = [len(p[2]) for p in played]
    actions = np.zeros((max(lengths), len(played), 10, 3), np.int32)
    for i, p in enumerate(played):
        actions[: lengths[i], i] = np.stack(p[2])

    def play(state, acts, m):
        def tick(s, a):
            s2, info = step(jnp, s, a, m)
            return s2, (s2, info)

        return jax.lax.scan(tick, state, acts)[1]

    run = jax.jit(jax.vmap(play, in_axes=(0, 1, 0), out_axes=1))
    states, infos = jax.device_get(run(starts, jnp.asarray(actions), maps))
    # Masks of the JAX engine's own start-of-tick states, in the order the NumPy hash took them.
    joint = jax.jit(jax.vmap(_joint))
    first_masks = np.asarray(joint(starts, maps))
    later_masks = np.stack(
        [
            np.asarray(joint(type(states)(*(x[t] for x in states)), maps))
            for t in range(len(actions))
        ]
    )
    h = Hasher()
    for i in range(len(played)):
        for t in range(lengths[i]):
            h.add(first_masks[i] if t == 0 else later_masks[t - 1, i])
            h.add(*(x[t, i] for x in states), *(x[t, i] for x in infos))
    return h.hexdigest()


def _joint(state, m):
    import jax.numpy as jnp

    from marl_bgs.core import compute_sight, joint_mask, legal_masks

    return joint_mask(legal_masks(jnp, state, compute_sight(jnp, state, m)))


def env_rollout(num_envs: int, ticks: int, seed: int) -> str:
    """Hash a compiled rollout of the batched environment (Listing S1's loop)."""
    import jax

    import marl_bgs

    env = marl_bgs.make("tdm", map_id=list(ENV_MAPS), num_envs=num_envs, horizon=120)
    obs, state = env.reset(jax.random.key(seed))

    def body(carry, _):
        state, key = carry
        key, k_act, k_step, k_reset = jax.random.split(key, 4)
        actions = env.sample_actions(k_act, state)
        obs, state, reward, done, info = env.step(k_step, state, actions)
        obs2, state = env.reset_done(k_reset, state)
        return (state, key), (actions, obs, reward, done, info, obs2, state)

    run = jax.jit(lambda s, k: jax.lax.scan(body, (s, k), None, length=ticks))
    (_, _), outs = run(state, jax.random.key(seed + 1))
    h = Hasher()
    h.add(*jax.tree.leaves(jax.device_get((obs, state))))
    h.add(*jax.tree.leaves(jax.device_get(outs)))
    return h.hexdigest()


def fingerprint(games: int, ticks: int, env_games: int, env_ticks: int, seed: int) -> dict:
    begin = time.perf_counter()
    played, numpy_hash = play_numpy(games, ticks, seed)
    numpy_s = time.perf_counter() - begin
    jax_hash = replay_jax(played)
    env_hash = env_rollout(env_games, env_ticks, seed)
    return {
        "games": games,
        "ticks": ticks,
        "env_games": env_games,
        "env_ticks": env_ticks,
        "seed": seed,
        "numpy_ticks_played": sum(len(p[2]) for p in played),
        "numpy_seconds": round(numpy_s, 1),
        "numpy_engine": numpy_hash,
        "jax_engine": jax_hash,
        "jax_env": env_hash,
    }


HASHES = ("numpy_engine", "jax_engine", "jax_env")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--ticks", type=int, default=120)
    parser.add_argument("--env-games", type=int, default=32)
    parser.add_argument("--env-ticks", type=int, default=300)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--write", type=Path)
    parser.add_argument("--check", type=Path)
    args = parser.parse_args()
    if args.check:
        golden = json.loads(args.check.read_text())
        for k in ("games", "ticks", "env_games", "env_ticks", "seed"):
            setattr(args, k, golden[k])
    got = fingerprint(args.games, args.ticks, args.env_games, args.env_ticks, args.seed)
    print(json.dumps(got, indent=2))
    ok = got["numpy_engine"] == got["jax_engine"]
    if not ok:
        print("MISMATCH: the JAX engine does not replay the NumPy engine's games")
    if args.write:
        args.write.write_text(json.dumps(got, indent=2) + "\n")
        print(f"wrote {args.write}")
    if args.check:
        for k in HASHES:
            if got[k] != golden[k]:
                ok = False
                print(f"MISMATCH {k}: {got[k]} != golden {golden[k]}")
        print("fingerprint matches" if ok else "fingerprint DIFFERS")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
