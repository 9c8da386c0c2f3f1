"""Demonstrations from replay files (the BattleClient's human games, LLM games): each game
is re-run on the NumPy engine to regenerate the recorded side's observations and masks."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ...core.observation import OBS_WIDTH
from ...core.state import TEAM_SIZE
from .format import FIELDS, new_folder, new_manifest, write_manifest, write_shard


def demos_from_replays(
    paths: Sequence[str | Path], side: str, out: str | Path, force: bool = False
) -> Path:
    """Demonstrations of one side of recorded games: each replay is played again on the NumPy
    engine with its recorded actions, and the side's observations, masks and choices are
    taken at every tick (the file's own copies are not trusted: the engine makes them).

    The games follow each other in one sequence (one "game" column, `new_game` where each
    starts), one shard per replay.

    Args:
        paths: Replay files (`.json` or `.json.gz`), as `marl_bgs.replay.load_replay` reads.
        side: "a" or "b": the side whose choices are the demonstrations.
        out: A new folder (or one holding demonstrations, with `force`).
        force: Replace the demonstrations `out` already holds.

    Returns:
        The folder.

    Raises:
        ValueError: A bad side, a replay that cannot be read or does not repeat on the
            engine (naming the file and tick), or a folder already holding demonstrations.
    """
    from ...version import __version__

    if side not in ("a", "b"):
        raise ValueError(f"side: expected 'a' or 'b', got {side!r}")
    if not paths:
        raise ValueError("replays: give one or more replay files")
    folder = new_folder(out, force)
    manifest = new_manifest("replays", None, 1, {
            "replays": [Path(p).name for p in paths],
            "side": side,
            "reward": None,
            "package_version": __version__,
        })  # fmt: skip
    started = time.perf_counter()
    for path in paths:
        arrays, result = _replay_arrays(Path(path), side)
        manifest["games_finished"] += 1
        outcome = (
            "draws" if result == "draw" else "teacher_won" if result == side else "teacher_lost"
        )
        manifest["results"][outcome] += 1
        write_shard(folder, manifest, [arrays])
    manifest["seconds"] = round(time.perf_counter() - started, 2)
    write_manifest(folder, manifest)
    return folder


def _replay_arrays(path: Path, side: str) -> tuple[dict, str]:
    """One replay's game on the engine: the side's arrays (T, 1, ...) and the result."""
    from ...core.actions import compass_move, encode
    from ...game import Game
    from ...replay import load_replay

    try:
        replay = load_replay(path)
    except (ValueError, OSError) as err:
        raise ValueError(f"replays: {path.name}: {err}") from None
    if replay.view is not None:
        raise ValueError(f"replays: {path.name}: a point-of-view replay ({replay.view!r}) "
                         "cannot be played again")  # fmt: skip
    game = Game.from_state(replay.state_at(0), {"obstacles": replay.map["obstacles"]})
    team = 0 if side == "a" else 1
    mine = slice(team * TEAM_SIZE, (team + 1) * TEAM_SIZE)
    rows: dict[str, list] = {name: [] for name in FIELDS}
    for t in range(replay.ticks):
        inputs = game.team_inputs(team)
        acts = replay.actions[t].astype(np.int32)
        try:
            info = game.step_slots(acts)
        except ValueError as err:
            raise ValueError(f"replays: {path.name}: actions[{t}]: {err}") from None
        if not np.array_equal(np.asarray(info.actions), replay.actions[t]):
            raise ValueError(f"replays: {path.name}: actions[{t}]: the engine did not accept "
                             "these actions as recorded")  # fmt: skip
        # The accepted compass moves back in each agent's own frame (a mirror: its own inverse).
        own = acts[mine]
        end = np.asarray(game.state.spawn_end)[team]
        move = compass_move(np, own[:, 0], np.full(TEAM_SIZE, end))
        flat = encode(move, own[:, 1], own[:, 2])
        rows["obs"].append(np.asarray(inputs.obs, np.float32))
        rows["avail"].append(np.packbits(np.asarray(inputs.avail, bool), axis=-1))
        rows["present"].append(np.asarray(inputs.present, bool))
        rows["alive"].append(np.asarray(inputs.alive, bool))
        rows["classes"].append(np.asarray(inputs.classes, np.int8))
        rows["new_game"].append(np.asarray(t == 0))
        rows["action"].append(np.asarray(flat).astype(np.int16))
        rows["reward"].append(np.zeros(TEAM_SIZE, np.float32))
        rows["done"].append(np.asarray(t == replay.ticks - 1))
        rows["world"].append(np.zeros(OBS_WIDTH, np.float32))
    if not rows["done"]:
        raise ValueError(f"replays: {path.name}: no ticks")
    arrays = {name: np.stack(v)[:, None].astype(FIELDS[name][0]) for name, v in rows.items()}
    return arrays, game.result or "draw"
