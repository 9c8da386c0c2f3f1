"""Driving the BattleClient page (web_demo/play/) in Chromium, for both of its engines:
set a game up, play it by keyboard while recording what the page offered and showed, then
check all of it against the Python engine through the downloaded replay."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from marl_bgs import Game
from marl_bgs.replay import load_replay, replay_game
from marl_bgs.replay.view import visible_masks

ROOT_SEL = ".bgp-root"
# Key presses toward the enemy end (team a starts left): east, then north-east, south-east.
EAST_KEYS = (("ArrowRight", 3), ("Numpad9", 5), ("Numpad3", 7), ("ArrowUp", 1), ("ArrowDown", 2))


def wait_state(page, *states: str, timeout: float = 90_000) -> str:
    cond = " || ".join(f"r.dataset.state === '{s}'" for s in states)
    page.wait_for_function(
        f"() => {{ const r = document.querySelector('{ROOT_SEL}'); return r && ({cond}); }}",
        timeout=timeout,
    )
    return page.get_attribute(ROOT_SEL, "data-state")


def set_up(page, *, sizes=(1, 1), classes=(("mage",), ("mage",)), controllers=None,
           winning_score=3, horizon=40, map_id=47, seed=0) -> None:  # fmt: skip
    """Fill the setup form (slots a0.., b0..) and start the game."""
    page.select_option("select[name=map]", str(map_id))
    for team, side in enumerate("ab"):
        page.select_option(f"select[name=size_{side}]", str(sizes[team]))
        for k, cls in enumerate(classes[team]):
            page.select_option(f"select[name=class_{side}{k}]", cls)
    for slot, who in (controllers or {"a0": "human", "b0": "tdm-alpha"}).items():
        page.select_option(f"select[name=controller_{slot}]", who)
    page.fill("input[name=winning_score]", str(winning_score))
    page.fill("input[name=horizon]", str(horizon))
    page.fill("input[name=seed]", str(seed))
    page.click(".bgp-start")
    wait_state(page, "turn", "over", timeout=30_000)


def _data(page, name: str):
    return json.loads(page.get_attribute(ROOT_SEL, f"data-{name}") or "null")


def play_by_keyboard(page, human: str = "a0") -> list[dict]:
    """Play one human agent to the game's end with keys only: move toward the enemy, fire at
    the first enemy the builder offers, press U when the Ultimate is offered, undo once, and
    commit with Space. Returns one record per tick: what was offered and committed, and
    which agents the page showed hidden."""
    records = []
    while wait_state(page, "turn", "over", timeout=30_000) == "turn":
        tick = int(page.get_attribute(ROOT_SEL, "data-tick"))
        legal = _data(page, "legal")
        first = _data(page, "offered")
        for key, move in EAST_KEYS:  # the first of these moves the builder offers
            if move in first["moves"]:
                page.keyboard.press(key)
                break
        if tick == 1:  # Backspace undoes the move just chosen
            page.keyboard.press("ArrowLeft")
            page.keyboard.press("Backspace")
        offered = _data(page, "offered")
        enemies = [t for t in offered["targets"] if t >= 6]
        if enemies:
            page.keyboard.press(f"Digit{enemies[0] - 5}")
        if tick % 7 == 3:
            page.keyboard.press("KeyU")
        offered = _data(page, "offered")
        hidden = page.eval_on_selector_all(
            ".mbg-agents tr.mbg-hidden", "rows => rows.map(r => r.dataset.agent)"
        )
        records.append(
            {
                "tick": tick,
                "legal": legal[human],
                "first": first,
                "offered": offered,
                "hidden": hidden,
            }  # fmt: skip
        )
        page.keyboard.press("Space")
        page.wait_for_function(
            f"() => {{ const r = document.querySelector('{ROOT_SEL}'); return r.dataset.state "
            f"=== 'over' || r.dataset.tick !== '{tick}'; }}",
            timeout=30_000,
        )
    return records


def download_replay(page, folder: Path) -> Path:
    with page.expect_download() as info:
        page.click(".bgp-download")
    path = folder / info.value.suggested_filename
    info.value.save_as(path)
    return path


def check_against_engine(path: Path, records: list[dict], human: str = "a0") -> None:
    """The replay reads back and replays identically on the NumPy engine; at every tick the
    page offered exactly the engine's legal choices, committed what it showed, and hid
    exactly the enemies the team could not see."""
    replay = load_replay(path)
    assert replay_game(replay, "numpy") == replay.ticks
    slot = ["a0", "a1", "a2", "a3", "a4", "b0", "b1", "b2", "b3", "b4"].index(human)
    assert replay.systems[slot] == "human"
    assert int(replay.frames["result"][-1]) != -1  # a whole game
    vis = visible_masks(replay.frames, replay.sight, human[0])
    start = replay.frames["tick"][0]
    ticks = [r["tick"] - start for r in records]
    assert ticks == sorted(set(ticks)) and ticks[0] == 0 and ticks[-1] < replay.ticks
    for rec in records:
        t = rec["tick"] - start
        state = replay.state_at(t)
        game = Game.from_state(state, {"obstacles": replay.map["obstacles"]})
        legal = np.flatnonzero(game.legal_actions().reshape(10, -1)[slot]).tolist()
        assert rec["legal"] == legal, f"tick {t}: the page's legal list differs"
        for seen in (rec["first"], rec["offered"]):
            m = seen["order"][0]
            assert seen["moves"] == sorted({f // 22 for f in legal}), f"tick {t}: moves"
            assert seen["targets"] == sorted({(f // 2) % 11 for f in legal if f // 22 == m})
            assert (seen["order"][0] * 11 + seen["order"][1]) * 2 + seen["order"][2] in legal
        assert replay.actions[t][slot].tolist() == rec["offered"]["order"], f"tick {t}"
        names = [f"{'ab'[s // 5]}{s % 5}" for s in range(10)]
        present = replay.frames["present"][t].astype(bool)
        want_hidden = [names[s] for s in range(10) if present[s] and not vis[t][s]]
        assert rec["hidden"] == want_hidden, f"tick {t}: hidden agents"


def start_position(page, doc: dict, controllers: dict[str, str]) -> None:
    """Start a game from the position file `doc` with these slots' players."""
    page.set_input_files(
        "input[name=position]",
        files=[
            {"name": "p.json", "mimeType": "application/json", "buffer": json.dumps(doc).encode()}
        ],
    )
    for slot, who in controllers.items():
        page.select_option(f"select[name=controller_{slot}]", who)
    page.click(".bgp-start")
    wait_state(page, "turn", "over", timeout=30_000)


def commit_to_the_end(page, ticks: int) -> None:
    """Commit every human agent's order (Enter) until the game is over."""
    for _ in range(ticks):
        if page.get_attribute(ROOT_SEL, "data-state") == "over":
            break
        tick = page.get_attribute(ROOT_SEL, "data-tick")
        page.keyboard.press("Enter")
        page.wait_for_function(
            f"() => {{ const r = document.querySelector('{ROOT_SEL}'); return r.dataset.state "
            f"=== 'over' || (r.dataset.state === 'turn' && r.dataset.tick !== '{tick}'); }}",
            timeout=30_000,
        )
    assert wait_state(page, "over") == "over"


def arena_points(page, points: list[tuple[int, int]], arena: list[int]) -> list[dict]:
    """Map points (milli-units) as offsets in the arena canvas's padding box, by the
    viewer's own scale (web_demo/viewer/render.js), for `locator.click(position=...)`."""
    return page.evaluate(
        """async ([points, arena]) => {
          const { makeScale } = await import('/web_demo/viewer/render.js');
          const sc = makeScale(document.querySelector('.bgp-canvas').clientWidth, { arena });
          return points.map(([x, y]) => ({ x: sc.x(x), y: sc.y(y) }));
        }""",
        [points, arena],
    )
