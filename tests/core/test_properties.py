"""Properties over random positions and random legal play (hypothesis draws the seeds)."""

from __future__ import annotations

import os

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from marl_bgs import Game
from marl_bgs.core import classes
from marl_bgs.core.geometry import body_overlap
from tests.gen import (
    as_team_lists,
    mirror_actions,
    mirror_position,
    permute_actions,
    permute_position,
    random_position,
    random_slots,
)
from tests.helpers import pillar, wall

# MARL_BGS_EXAMPLES raises the number of random games for a deeper local search.
SETTINGS = settings(
    max_examples=int(os.environ.get("MARL_BGS_EXAMPLES", "25")),
    # The default run (CI) draws the same examples every time; a deeper local search with
    # MARL_BGS_EXAMPLES draws new ones and may find cases still open (see issue 13's note).
    derandomize="MARL_BGS_EXAMPLES" not in os.environ,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
SEEDS = st.integers(min_value=0, max_value=2**32 - 1)

MIRRORED_INLINE = {
    "obstacles": [
        pillar(7.0, 4.0, 0.6), pillar(13.0, 4.0, 0.6),
        wall(10.0, 5.0, 0.3, 3.0), wall(4.5, 7.0, 2.0, 0.4, 0.5), wall(15.5, 7.0, 2.0, 0.4, -0.5),
        wall(3.0, 2.5, 0.01, 2.0), wall(17.0, 2.5, 0.01, 2.0),
    ]
}  # fmt: skip


def check_invariants(game: Game) -> None:
    s = game.state
    max_hp = classes.MAX_HEALTH_MILLI[s.cls]
    living = s.present & s.alive
    assert np.all((s.health > 0)[living]) and np.all(s.health <= max_hp)
    assert np.all(s.health[~living] == 0)
    assert np.all(s.pos[living] >= 500)
    assert np.all(s.pos[living, 0] <= 19500) and np.all(s.pos[living, 1] <= 9500)
    assert not np.any(body_overlap(np, s.pos, game.map_arrays).any[living])
    solid = living & (s.shield == 0)
    p = s.pos[solid].astype(np.int64)
    d2 = ((p[:, None, :] - p[None, :, :]) ** 2).sum(-1)
    np.fill_diagonal(d2, 10**12)
    assert np.all(d2 >= 1000**2), "living unshielded bodies overlap"
    assert np.all(s.effects >= 0) and np.all(s.effects <= np.asarray(classes.EFFECT_DURATION))
    assert np.all((s.ultimate_cooldown >= 0) & (s.ultimate_cooldown < 30))
    assert np.all((s.shield >= 0) & (s.shield <= 3))


@SETTINGS
@given(seed=SEEDS, inline=st.booleans())
def test_invariants_hold_in_random_play(seed, inline):
    rng = np.random.default_rng(seed)
    g = Game(random_position(rng, MIRRORED_INLINE if inline else 47))
    check_invariants(g)
    for _ in range(40):
        if g.done:
            break
        g.step(as_team_lists(g, random_slots(g, rng)))
        check_invariants(g)


@SETTINGS
@given(seed=SEEDS, inline=st.booleans())
def test_mirroring_the_map_and_swapping_teams_mirrors_the_game(seed, inline):
    rng = np.random.default_rng(seed)
    p = random_position(rng, MIRRORED_INLINE if inline else 47)
    g, mirrored = Game(p), Game(mirror_position(p))
    assert mirrored.state_dict() == mirror_position(g.state_dict())
    for _ in range(25):
        if g.done:
            break
        actions = as_team_lists(g, random_slots(g, rng))
        events = g.step(actions)
        mirrored_events = mirrored.step(mirror_actions(actions))
        assert mirrored.state_dict() == mirror_position(g.state_dict())
        assert len(events) == len(mirrored_events)
    assert mirrored.result == {"a": "b", "b": "a", "draw": "draw", None: None}[g.result]


@SETTINGS
@given(seed=SEEDS)
def test_permuting_slots_permutes_the_result(seed):
    rng = np.random.default_rng(seed)
    p = random_position(rng, 47, wave_clocks=(5, 5))  # no wave in the first four ticks
    perms = [list(rng.permutation(len(t["agents"]))) for t in p["teams"]]
    perms = [[int(i) for i in perm] for perm in perms]
    g, permuted = Game(p), Game(permute_position(p, perms))
    for _ in range(4):
        if g.done:
            break
        actions = as_team_lists(g, random_slots(g, rng))
        g.step(actions)
        permuted.step(permute_actions(actions, perms))
        assert permuted.state_dict() == permute_position(g.state_dict(), perms)
