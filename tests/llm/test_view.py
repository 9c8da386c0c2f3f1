"""actor-text-v1: built only from the agent's permitted view, deterministic, and pinned."""

from __future__ import annotations

import numpy as np
import pytest

from marl_bgs.core import classes
from marl_bgs.core.position import starting_position
from marl_bgs.core.state import MILLI, TEAM_SIZE
from marl_bgs.game import Game
from marl_bgs.llm import example
from marl_bgs.llm.view import (
    MOVE_NAMES,
    VIEW_VERSION,
    format_actor_view,
    game_over,
    legal_menu,
)
from marl_bgs.systems.base import TeamInputs
from marl_bgs.systems.numpy_play import numpy_system, play_tick


def played_game(ticks: int = 12, map_id: int = 47) -> Game:
    game = Game(starting_position(map_id), backend="numpy")
    systems = (numpy_system("tdm-alpha"), numpy_system("tdm-beta"))
    memories = [s.init() for s in systems]
    rng = np.random.default_rng(0)
    for _ in range(ticks):
        play_tick(game, systems, memories, rng)
    return game


@pytest.fixture(scope="module")
def game() -> Game:
    return played_game()


def scrambled(inputs: TeamInputs, agent: int, rng: np.random.Generator) -> TeamInputs:
    """Everything of the team's inputs that is not the agent's own replaced by noise."""
    obs = np.array(inputs.obs, copy=True)
    avail = np.array(inputs.avail, copy=True)
    others = [k for k in range(TEAM_SIZE) if k != agent]
    obs[others] = rng.uniform(-2, 2, obs[others].shape).astype(np.float32)
    avail[others] = rng.random(avail[others].shape) < 0.5
    return TeamInputs(
        obs=obs,
        avail=avail,
        present=inputs.present,
        alive=rng.random(TEAM_SIZE) < 0.5,
        classes=inputs.classes,
        new_game=np.asarray(not bool(inputs.new_game)),
    )


def test_golden_prompt_is_pinned():
    """actor-text-v1 must not change silently; a deliberate change rewrites the file with
    `python -m marl_bgs.llm.example --write` (and a new version name if the format changes)."""
    assert example.GOLDEN.read_text(encoding="utf-8") == example.golden_prompt()
    assert example.golden_prompt().startswith(f"MARL-BGs {VIEW_VERSION}\n")


@pytest.mark.parametrize("team", [0, 1])
def test_other_agents_rows_and_unread_fields_do_not_change_the_text(game, team):
    inputs = game.team_inputs(team)
    rng = np.random.default_rng(team)
    for agent in range(TEAM_SIZE):
        text = format_actor_view(inputs, agent)
        for _ in range(3):
            assert format_actor_view(scrambled(inputs, agent, rng), agent) == text


def _unseen_enemy(game: Game, team: int) -> int:
    team_sees = game._sight().team_sees
    enemies = range((1 - team) * TEAM_SIZE, (2 - team) * TEAM_SIZE)
    return next(s for s in enemies if not team_sees[team * TEAM_SIZE, s])


def _with_state(game: Game, **changes) -> Game:
    out = Game(game.state_dict())
    out.state = out.state._replace(**changes)
    return out


def test_hidden_enemies_state_does_not_change_the_text_but_seen_state_does(game):
    team = 0
    hidden = _unseen_enemy(game, team)
    s = game.state
    health = s.health.copy()
    health[hidden] = max(1, health[hidden] // 3)
    cooldown = s.ultimate_cooldown.copy()
    cooldown[hidden] = 17
    effects = s.effects.copy()
    effects[hidden, classes.SLOW_POISON] = 3
    pos = s.pos.copy()
    pos[hidden, 1] = 9500 if pos[hidden, 1] < 5000 else 500  # far along its own end
    changed = _with_state(game, health=health, ultimate_cooldown=cooldown, effects=effects)
    moved = _with_state(changed, pos=pos)
    assert not moved._sight().team_sees[team * TEAM_SIZE, hidden]  # still unseen
    for agent in range(TEAM_SIZE):
        text = format_actor_view(game.team_inputs(team), agent)
        assert format_actor_view(moved.team_inputs(team), agent) == text
    # the control: a seen enemy's health shows, so the comparison can fail
    seen = next(
        j for j in range(TEAM_SIZE, 2 * TEAM_SIZE) if game._sight().team_sees[0, j] and j != hidden
    )
    health2 = s.health.copy()
    health2[seen] -= 5 * MILLI
    hurt = _with_state(game, health=health2)
    assert format_actor_view(hurt.team_inputs(team), 0) != format_actor_view(
        game.team_inputs(team), 0
    )


def test_the_text_reads_numbers_from_the_class_table(game):
    text = format_actor_view(game.team_inputs(0), 0)
    for spec in classes.CLASSES:
        assert f"- {spec.title} (class " in text
        assert spec.basic_name in text and spec.ultimate_name in text
        for value in (spec.basic_damage, spec.ultimate_damage):
            if value:
                assert f" {value:g} damage" in text
    assert f"{classes.ULTIMATE_COOLDOWN}-tick cooldown" in text


def test_menu_matches_the_mask_exactly(game):
    for team in (0, 1):
        inputs = game.team_inputs(team)
        for agent in range(TEAM_SIZE):
            menu = legal_menu(inputs, agent)
            avail = np.asarray(inputs.avail[agent])
            assert sorted(menu.flat.values()) == np.flatnonzero(avail).tolist()
            text = format_actor_view(inputs, agent)
            assert "Legal moves: " + ", ".join(menu.moves) + "\n" in text
            assert "Legal combat: " + ", ".join(menu.combats) + "\n" in text
            assert set(menu.moves) <= set(MOVE_NAMES)


def test_right_end_agents_see_their_own_frame():
    game = Game(starting_position(47, spawn_ends=("right", "left")), backend="numpy")
    inputs = game.team_inputs(0)
    text = format_actor_view(inputs, 0)
    x = 20 - game.state.pos[0, 0] / MILLI
    assert f"- ally_0 (you): Mage, x={x:g} " in text
    assert "Legal moves: stay" in text


def test_finished_games_are_recognised():
    pos = starting_position(47, winning_score=1)
    game = Game(pos, backend="numpy")
    assert not game_over(game.team_inputs(0).obs[0])
    game.state = game.state._replace(score=np.asarray([1, 0], game.state.score.dtype))
    game._sight_of = None
    assert game_over(game.team_inputs(0).obs[0])
    assert game_over(game.team_inputs(1).obs[3])


def test_bad_inputs_name_the_field(game):
    inputs = game.team_inputs(0)
    with pytest.raises(ValueError, match="^agent: 7"):
        format_actor_view(inputs, 7)
    with pytest.raises(TypeError, match="^agent:"):
        format_actor_view(inputs, "0")
    with pytest.raises(TypeError, match="^team_inputs:"):
        format_actor_view({"obs": inputs.obs}, 0)
    batch = TeamInputs(*(np.stack([np.asarray(x)] * 2) for x in inputs))
    with pytest.raises(ValueError, match=r"^team_inputs\.obs: expected shape"):
        format_actor_view(batch, 0)
    absent = inputs._replace(present=np.asarray([True, True, False, True, True]))
    with pytest.raises(ValueError, match="^agent: slot 2 is not used"):
        format_actor_view(absent, 2)
