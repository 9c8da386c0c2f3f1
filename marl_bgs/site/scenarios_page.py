"""The Scenarios pages: the endgame scenarios, how their winning lines were found and checked,
and one page per scenario (page generators registered by the hook).

Everything comes from `exports/scenarios/` (written by `scripts/export_scenarios.py`):
`index.json` describes every exported scenario, `scenario_<id>/` holds the start position
and two replays (a winning line, and the same line with one key action changed), and the
optional `results.json` holds the results table. The pages list exactly the scenarios of
the index: no page, row or placeholder for one that has not been exported, and no section
at all before the first export.

Every string read from these files is escaped before it reaches the Markdown: prose from a
file goes in raw HTML blocks as escaped text (Markdown leaves those blocks alone), and
strings inside Markdown (tables, headings, lists) also have their Markdown punctuation
backslash-escaped, so a name or briefing is shown as written and never becomes markup.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from html import escape
from pathlib import Path
from typing import Any

from ..core import checks
from ..core import classes as C
from ..core.state import ARENA_HEIGHT, ARENA_WIDTH, TEAM_SIZE
from ..game import Game
from ..replay import Replay, load_replay
from .draw import PALETTE, Marks, draw
from .formatting import join_words, viewer_div
from .scenes import QUIET, tick_sentences

SCENARIO_DIR = "exports/scenarios"
EXPORT = "scripts/export_scenarios.py"
PAGE_DIR = "scenarios"
LABELS = {"random": "Random", "tdm-alpha": "TDM-Alpha", "tdm-beta": "TDM-Beta",
          "tdm-gamma": "TDM-Gamma"}  # fmt: skip
RESULT_WORDS = {"a": "Team A wins", "b": "Team B wins", "draw": "a draw"}
MOVES = (
    ("stays where it is", "staying where it is"),
    ("moves north", "moving north"),
    ("moves south", "moving south"),
    ("moves east", "moving east"),
    ("moves west", "moving west"),
    ("moves north-east", "moving north-east"),
    ("moves north-west", "moving north-west"),
    ("moves south-east", "moving south-east"),
    ("moves south-west", "moving south-west"),
)
# Backslash escapes Python-Markdown knows (with the tables extension's "|").
MD_SPECIAL = set("\\`*_{}[]()#+!|")
NBSP = "\u00a0"
ORDINALS = ("the first tick", "the second", "the third", "the fourth", "the fifth")


# ---- reading ---------------------------------------------------------------------------------


def _read(root: Path, rel: str) -> Any:
    path = root / rel
    if not path.is_file():
        raise FileNotFoundError(f"{rel}: missing; run `python {EXPORT}` to write it")
    return json.loads(path.read_text(encoding="utf-8"))


def _id(raw: Any, where: str) -> int:
    if isinstance(raw, bool) or not isinstance(raw, int) or not 1 <= raw <= 8:
        raise ValueError(f"{where}: expected a scenario id 1..8, got {raw!r}")
    return raw


def _whole(raw: Any, where: str, lo: int = 0, hi: int | None = None) -> int:
    """A count or index the pages print: the project's checker, with 0 as the floor."""
    return checks.whole(raw, where, lo, hi)


def _action(raw: Any, where: str) -> None:
    """[move, target, ultimate] as the line format holds it."""
    if len(checks.sequence(raw, where)) != 3:
        raise ValueError(f"{where}: expected [move, target, ultimate]")
    for h, (v, hi) in enumerate(zip(raw, (8, 10, 1), strict=True)):
        _whole(v, f"{where}[{h}]", 0, hi)


def _check_entry(e: Any, where: str) -> dict:
    """One index entry: every field the pages print is of the type they print it as (the
    strings are escaped where they are used)."""
    if not isinstance(e, dict):
        raise ValueError(f"{where}: expected an object")
    _id(e.get("id"), f"{where}.id")
    for key in ("name", "controller", "briefing"):
        if not isinstance(e.get(key), str):
            raise ValueError(f"{where}.{key}: expected a string")
    for k, skill in enumerate(checks.sequence(e.get("skills"), f"{where}.skills")):
        if not isinstance(skill, str):
            raise ValueError(f"{where}.skills[{k}]: expected a string")
    _whole(e.get("ticks_left"), f"{where}.ticks_left", 1)
    _whole(e.get("lines"), f"{where}.lines", 1)
    if len(checks.sequence(e.get("score"), f"{where}.score")) != 2:
        raise ValueError(f"{where}.score: expected two numbers")
    for k, v in enumerate(e["score"]):
        _whole(v, f"{where}.score[{k}]")
    for k, v in enumerate(checks.sequence(e.get("line_lengths"), f"{where}.line_lengths")):
        _whole(v, f"{where}.line_lengths[{k}]", 1)
    living = checks.sequence(e.get("living"), f"{where}.living")
    if len(living) != 2:
        raise ValueError(f"{where}.living: expected two teams")
    for team in living:
        for name in checks.sequence(team, f"{where}.living[]"):
            _class_index(name)
    for t, tick in enumerate(checks.sequence(e.get("shown_line"), f"{where}.shown_line")):
        for k, act in enumerate(checks.sequence(tick, f"{where}.shown_line[{t}]")):
            _action(act, f"{where}.shown_line[{t}][{k}]")
    v = e.get("variant")
    if not isinstance(v, dict):
        raise ValueError(f"{where}.variant: expected an object")
    _whole(v.get("tick"), f"{where}.variant.tick")
    _whole(v.get("agent"), f"{where}.variant.agent", 0, TEAM_SIZE - 1)
    _whole(v.get("alternatives"), f"{where}.variant.alternatives", 1)
    if v.get("head") not in ("move", "combat"):
        raise ValueError(f"{where}.variant.head: expected 'move' or 'combat'")
    if v.get("variant_result") not in ("b", "draw", None):
        raise ValueError(f"{where}.variant.variant_result: expected 'b', 'draw' or null")
    for key in ("line_action", "variant_action"):
        _action(v.get(key), f"{where}.variant.{key}")
    search = e.get("search")
    if not isinstance(search, dict):
        raise ValueError(f"{where}.search: expected an object")
    for key in ("depth", "exhaustive_depth", "samples", "sample_seed"):
        _whole(search.get(key), f"{where}.search.{key}")
    for key in ("sequences", "nodes"):
        for k, n in enumerate(checks.sequence(search.get(key), f"{where}.search.{key}")):
            _whole(n, f"{where}.search.{key}[{k}]")
    for key in ("wins_by_length", "sampled_wins_by_length"):
        wins = search.get(key)
        if not isinstance(wins, dict):
            raise ValueError(f"{where}.search.{key}: expected an object")
        for length, n in wins.items():
            if not length.isdigit():
                raise ValueError(f"{where}.search.{key}.{length}: expected a line length")
            _whole(n, f"{where}.search.{key}.{length}")
    return e


def entries(root: Path) -> list[dict]:
    """The scenarios of exports/scenarios/index.json, by id; [] before the first export."""
    path = root / SCENARIO_DIR / "index.json"
    if not path.is_file():
        return []
    doc = _read(root, f"{SCENARIO_DIR}/index.json")
    if not isinstance(doc, dict) or not isinstance(doc.get("scenarios"), list):
        raise ValueError(f"{SCENARIO_DIR}/index.json: expected {{'scenarios': [...]}}")
    out = []
    for k, e in enumerate(doc["scenarios"]):
        out.append(_check_entry(e, f"{SCENARIO_DIR}/index.json: scenarios[{k}]"))
    ids = [e["id"] for e in out]
    if len(set(ids)) != len(ids):
        raise ValueError(f"{SCENARIO_DIR}/index.json: a scenario id is listed twice")
    return sorted(out, key=lambda e: e["id"])


def results(root: Path) -> dict | None:
    """exports/scenarios/results.json, or None when it has not been written."""
    rel = f"{SCENARIO_DIR}/results.json"
    if not (root / rel).is_file():
        return None
    doc = _read(root, rel)
    if not isinstance(doc, dict) or not isinstance(doc.get("systems"), dict):
        raise ValueError(f"{rel}: expected an object with 'systems'")
    for key in ("games_per_scenario", "root_seed"):
        _whole(doc.get(key), f"{rel}.{key}")
    for system, rows in doc["systems"].items():
        if not isinstance(rows, list):
            raise ValueError(f"{rel}.systems.{system}: expected a list of rows")
        for k, row in enumerate(rows):
            where = f"{rel}.systems.{system}[{k}]"
            if not isinstance(row, dict):
                raise ValueError(f"{where}: expected an object")
            _id(row.get("scenario"), f"{where}.scenario")
            for key in ("games", "wins", "draws", "losses"):
                _whole(row.get(key), f"{where}.{key}")
            if row.get("reference_wins") is not None:
                _whole(row["reference_wins"], f"{where}.reference_wins")
            p = row.get("fisher_p")
            if p is not None and (isinstance(p, bool) or not isinstance(p, int | float)):
                raise ValueError(f"{where}.fisher_p: expected a number or null")
    return doc


def _fresh_results(root: Path, entry: dict, res: dict) -> bool:
    """Whether results.json was played on this scenario's current file."""
    played = res.get("scenario_sha256", {})
    return isinstance(played, dict) and played.get(str(entry["id"])) == entry.get("file_sha256")


def _position(root: Path, sid: int) -> dict:
    return _read(root, f"{SCENARIO_DIR}/scenario_{sid}/position.json")


def _replay(root: Path, sid: int, name: str) -> Replay:
    rel = f"{SCENARIO_DIR}/scenario_{sid}/{name}"
    if not (root / rel).is_file():
        raise FileNotFoundError(f"{rel}: missing; run `python {EXPORT}` to write it")
    return load_replay(root / rel)


# ---- words ------------------------------------------------------------------------------------


def md(text: Any) -> str:
    """A string from a file as Markdown text: HTML-escaped, Markdown punctuation escaped."""
    out = escape(str(text))
    return "".join(f"\\{ch}" if ch in MD_SPECIAL else ch for ch in out)


def text_block(text: str, cls: str) -> str:
    """A paragraph of plain text as a raw HTML block (escaped; Markdown does not touch it)."""
    return f'<p class="{cls}">{escape(text)}</p>'


def label(system: str) -> str:
    return LABELS.get(system, system)


def _num(n: int) -> str:
    return f"{n:,}"


def _ticks(n: int) -> str:
    return f"{n} tick" if n == 1 else f"{n} ticks"


def _class_index(name: Any) -> int:
    if name not in C.CLASS_INDEX:
        raise ValueError(f"{SCENARIO_DIR}/index.json: unknown class {name!r}")
    return C.CLASS_INDEX[name]


def letters(classes: list) -> str:
    """Classes as the initials M W H R P ("W P", joined by no-break spaces)."""
    return NBSP.join(C.CLASSES[_class_index(c)].title[0] for c in classes)


def teams_text(entry: dict) -> str:
    living = entry["living"]
    return f"{letters(living[0])}{NBSP}v{NBSP}{letters(living[1])}"


def _lengths(entry: dict) -> str:
    return ", ".join(str(n) for n in entry["line_lengths"])


def _by_length(wins: dict) -> str:
    """{"5": 73} as '73 (all 5 ticks)'; {} as 'none'."""
    if not wins:
        return "none"
    return f"{_num(sum(wins.values()))} ({_lengths_of(wins)})"


def _lengths_of(wins: dict) -> str:
    """{"5": 73} as 'all 5 ticks'; {"3": 2, "4": 5} as '2 of 3 ticks, 5 of 4 ticks'."""
    if len(wins) == 1:
        (n,) = wins
        return f"all {_ticks(int(n))}"
    items = sorted(wins.items(), key=lambda kv: int(kv[0]))
    return ", ".join(f"{_num(v)} of {_ticks(int(k))}" for k, v in items)


def _p(value: Any) -> str:
    if value is None:
        return "–"
    p = float(value)
    if p < 0.001:
        return "< 0.001"
    return f"{p:.3g}"


def _wdl(row: dict) -> str:
    return f"{row['wins']}-{row['draws']}-{row['losses']}"


class _Agents:
    """Names an agent of the start position with its class: 'the Priest (a4)'."""

    def __init__(self, position: dict) -> None:
        self.cls = {}
        for team, side in enumerate(position["teams"]):
            for k, a in enumerate(side["agents"]):
                self.cls[f"{'ab'[team]}{k}"] = C.CLASSES[_class_index(a["class"])]

    def spec(self, name: str) -> C.ClassSpec:
        return self.cls[name]

    def who(self, name: str) -> str:
        return f"the {self.cls[name].title} ({name})"


def _target_name(actor: str, target: int) -> str:
    team = "ab".index(actor[0])
    if 1 <= target <= TEAM_SIZE:
        return f"{'ab'[team]}{target - 1}"
    return f"{'ab'[1 - team]}{target - TEAM_SIZE - 1}"


def combat_words(agents: _Agents, actor: str, target: int, ult: int) -> tuple[str, str]:
    """A (target, Ultimate) pair in words: (present tense, -ing form)."""
    spec = agents.spec(actor)
    if target == 0 and not ult:
        return "uses no ability", "using no ability"
    if target == 0:
        return f"uses {spec.ultimate_name}", f"using {spec.ultimate_name}"
    ability = spec.ultimate_name if ult else spec.basic_name
    name = _target_name(actor, target)
    whom = "itself" if name == actor else agents.who(name)
    return f"uses {ability} on {whom}", f"using {ability} on {whom}"


def action_words(agents: _Agents, actor: str, action: list) -> str:
    move, target, ult = action
    return f"{MOVES[move][0]} and {combat_words(agents, actor, target, ult)[0]}"


def variant_sentence(entry: dict, position: dict) -> str:
    """What the variant changes, in words: 'At tick 1 of 5 (game tick 296), the Priest (a4)
    uses no ability instead of using Holy Word: Salvation on itself; it still moves west.'"""
    v = entry["variant"]
    agents = _Agents(position)
    actor = f"a{v['agent']}"
    t = int(v["tick"])
    start = int(position["tick"])
    when = f"At tick {t + 1} of {entry['ticks_left']} (game tick {start + t + 1})"
    line, changed = v["line_action"], v["variant_action"]
    if v["head"] == "move":
        now, before = MOVES[changed[0]][0], MOVES[line[0]][1]
        kept = f"it still {combat_words(agents, actor, line[1], line[2])[0]}, as in the line"
    else:
        now = combat_words(agents, actor, changed[1], changed[2])[0]
        before = combat_words(agents, actor, line[1], line[2])[1]
        kept = f"it still {MOVES[line[0]][0]}, as in the line"
    return f"{when}, {agents.who(actor)} {now} instead of {before}; {kept}."


def _events_said(replay: Replay, t: int) -> list[str]:
    return tick_sentences(replay.state_at(t), replay.events[t])


def _game_tick(replay: Replay, t: int) -> int:
    """The game's number of the t-th tick played (0-based), as the viewer labels it."""
    return int(replay.frames["tick"][t]) + 1


def ending(replay: Replay) -> str:
    """How a recorded game ends, in words."""
    result = int(replay.frames["result"][-1])
    score = replay.frames["score"][-1]
    last = int(replay.frames["tick"][-1])
    if result == -1:
        left = int(replay.frames["horizon"][-1]) - last
        return (
            f"the line's actions run out after game tick {last} with the game still open at "
            f"{score[0]}-{score[1]} ({_ticks(left)} before the end): Team A has not won"
        )
    words = RESULT_WORDS[("a", "b", "draw")[result]]
    return f"the game ends after game tick {last}: {words}, {score[0]}-{score[1]}"


def first_difference(line: Replay, variant: Replay) -> int | None:
    """The first tick (0-based) at which the two games' events differ, or None."""
    for t in range(max(line.ticks, variant.ticks)):
        a = line.events[t] if t < line.ticks else None
        b = variant.events[t] if t < variant.ticks else None
        if a != b:
            return t
    return None


def why_it_fails(line: Replay, variant: Replay) -> list[str]:
    """Paragraphs (plain text) comparing the two games: where their events first differ,
    and how each ends."""
    t = first_difference(line, variant)
    out = []
    if t is None:
        out.append("The two games report the same events at every tick.")
    else:
        said = []
        for name, replay in (("the line", line), ("the variant", variant)):
            if t >= replay.ticks:
                said.append(f"in {name} the game is already over")
                continue
            words = _events_said(replay, t)
            said.append(f"in {name}: " + ("; ".join(words) or "no combat or status events"))
        game_tick = _game_tick(line if t < line.ticks else variant, t)
        same = (
            f"The two games report the same events for tick{'s 1 to' if t > 1 else ''} {t} "
            "and first differ"
            if t
            else "The two games differ at once,"
        )
        out.append(
            f"{same} at tick {t + 1} (game tick {game_tick}). "
            + ". ".join(s[0].upper() + s[1:] for s in said)
            + "."
        )
    out.append(f"How they end: in the line, {ending(line)}; in the variant, {ending(variant)}.")
    return out


def event_list(replay: Replay) -> str:
    """Every tick's events as a Markdown list, as the viewer's log says them."""
    lines = []
    for t in range(replay.ticks):
        said = [md(s) for s in _events_said(replay, t)]
        lines.append(f"- game tick {_game_tick(replay, t)}: " + ("; ".join(said) or QUIET))
    return "\n".join(lines)


def line_table(entry: dict, position: dict, replay: Replay) -> str:
    """Team A's actions of the shown line, one row per tick, living agents only."""
    agents = _Agents(position)
    rows = ["| tick | game tick | Team A's actions |", "|---:|---:|---|"]
    for t, tick in enumerate(entry["shown_line"]):
        alive = replay.frames["alive"][t] if t < replay.ticks else None
        acts = []
        for k, action in enumerate(tick):
            name = f"a{k}"
            if name not in agents.cls or (alive is not None and not alive[k]):
                continue
            acts.append(f"{agents.who(name)} {action_words(agents, name, action)}")
        rows.append(f"| {t + 1} | {int(position['tick']) + t + 1} | {md('; '.join(acts))} |")
    return "\n".join(rows)


# ---- pictures ---------------------------------------------------------------------------------


def start_picture(position: dict, title: str) -> str:
    """The start position drawn by the site's still-picture code (draw.py)."""
    game = Game(position, backend="numpy")
    svg = draw(
        game.state, list(game.obstacles), (0.0, 0.0, ARENA_WIDTH, ARENA_HEIGHT), Marks(),
        title=title, width_px=720,
    )  # fmt: skip
    return (
        f'<figure class="bgs-frame bgs-scenario-start">{svg}'
        f"<figcaption>{escape(title)}</figcaption></figure>"
    )


def agents_table(position: dict) -> str:
    """Every agent at the start: class, health, Ultimate, or dead and waiting for its wave."""
    game = Game(position, backend="numpy")
    s = game.state
    rows = [
        "| agent | team | class | health | Ultimate | status |",
        "|---|---|---|---:|---|---|",
    ]
    for slot in range(2 * TEAM_SIZE):
        if not s.present[slot]:
            continue
        team = slot // TEAM_SIZE
        spec = C.CLASSES[int(s.cls[slot])]
        name = f"{'ab'[team]}{slot % TEAM_SIZE}"
        if not s.alive[slot]:
            wave = int(s.wave_clock[team])
            rows.append(
                f"| {name} | {'AB'[team]} | {spec.title} | dead | – | back with its team's "
                f"respawn wave in {_ticks(wave)} |"
            )
            continue
        hp = int(s.health[slot]) / 1000
        cd = int(s.ultimate_cooldown[slot])
        ult = (
            f"{spec.ultimate_name}: ready" if cd == 0 else f"{spec.ultimate_name}: in {_ticks(cd)}"
        )
        status = [
            f"{PALETTE['effects'][e]['word']} ({_ticks(int(s.effects[slot, k]))})"
            for k, e in enumerate(C.EFFECT_NAMES)
            if s.effects[slot, k] > 0
        ]
        if s.shield[slot] > 0:
            status.append(f"spawn shield ({_ticks(int(s.shield[slot]))})")
        rows.append(
            f"| {name} | {'AB'[team]} | {spec.title} | {hp:g} / {spec.max_health:g} | {ult} | "
            f"{', '.join(status) or '–'} |"
        )
    return "\n".join(rows)


# ---- tables -------------------------------------------------------------------------------------


def scenario_table(root: Path, items: list[dict], prefix: str = "") -> str:
    rows = [
        "| id | scenario | Team A v B (living) | ticks left | score (A–B) | Team B played by "
        "| line length (ticks) | lines stored |",
        "|---:|---|---|---:|---|---|---|---:|",
    ]
    for e in items:
        sid = e["id"]
        score = e["score"]
        rows.append(
            f"| {sid} | [{md(e['name'])}]({prefix}{sid}.md) | {teams_text(e)} | "
            f"{e['ticks_left']} | {score[0]}–{score[1]} | {md(label(e['controller']))} | "
            f"{_lengths(e)} | {_num(e['lines'])} |"
        )
    return "\n".join(rows)


def coverage_table(items: list[dict], prefix: str = "") -> str:
    rows = [
        "| id | ticks searched | levels searched in full | Team A sequences tried in full "
        "(per level) | wins found in full | random sequences | random sequences that won |",
        "|---:|---:|---:|---|---|---:|---|",
    ]
    for e in items:
        s = e["search"]
        per_level = "; ".join(_num(n) for n in s["sequences"]) or "–"
        rows.append(
            f"| [{e['id']}]({prefix}{e['id']}.md) | {s['depth']} | {s['exhaustive_depth']} | "
            f"{per_level} | {_by_length(s['wins_by_length'])} | {_num(s['samples'])} | "
            f"{_by_length(s['sampled_wins_by_length'])} |"
        )
    return "\n".join(rows)


def coverage_words(entry: dict) -> str:
    """One scenario's search coverage as plain sentences."""
    s = entry["search"]
    full, depth = int(s["exhaustive_depth"]), int(s["depth"])
    out = []
    if full == 0:
        out.append(
            f"The solver could not search even the first tick in full; every line of this "
            f"scenario comes from random sampling (up to {_ticks(depth)})."
        )
    else:
        levels = "the first tick" if full == 1 else f"the first {full} ticks"
        tried = ", ".join(
            f"{_num(n)} at {ORDINALS[t] if t < len(ORDINALS) else f'tick {t + 1}'}"
            for t, n in enumerate(s["sequences"])
        )
        wins = s["wins_by_length"]
        found = (
            f"no sequence won within {_ticks(full)}, so no win that short exists"
            if not wins
            else f"{_by_length(wins)} of the sequences won (an exact count)"
        )
        whole = " That is the whole search: every line length was covered." if full >= depth else ""
        out.append(
            f"The solver searched {levels} of {depth} in full, every legal joint action of "
            f"Team A (action sequences examined: {tried}); {found}.{whole}"
        )
    if s["samples"]:
        won = sum(s["sampled_wins_by_length"].values())
        share = won / s["samples"]
        sampled = s["sampled_wins_by_length"]
        won_text = (
            f"{_num(won)} of them won ({share:.2%}; {_lengths_of(sampled)})"
            if won
            else "none of them won"
        )
        out.append(
            f"Then it played {_num(s['samples'])} random legal sequences from the start "
            f"(seed {s['sample_seed']}): {won_text}."
        )
    out.append(
        f"{_num(entry['lines'])} winning line{'s are' if entry['lines'] != 1 else ' is'} "
        f"stored (length: {_lengths(entry)} ticks); the replay below plays the first."
    )
    return " ".join(out)


def _systems(res: dict) -> list[str]:
    order = ["random", "tdm-alpha", "tdm-beta", "tdm-gamma"]
    known = [s for s in order if s in res["systems"]]
    return known + sorted(s for s in res["systems"] if s not in order)


def _row(res: dict, system: str, sid: int) -> dict | None:
    return next((r for r in res["systems"][system] if r["scenario"] == sid), None)


def results_provenance(res: dict) -> str:
    bits = [
        f"{_num(res['games_per_scenario'])} games per System per scenario",
        f"root seed {res['root_seed']}",
    ]
    if isinstance(res.get("engine"), str):
        engine = {"jax": "JAX", "numpy": "NumPy"}.get(res["engine"], res["engine"])
        bits.append(f"the {md(engine)} engine")
    versions = res.get("versions")
    if isinstance(versions, dict) and versions:
        bits.append(
            "versions: " + ", ".join(f"{md(k)} {md(v)}" for k, v in sorted(versions.items()))
        )
    return "; ".join(bits)


def learned_note(res: dict) -> str:
    """Which rows are learned policies, their weights files, and how each picks its actions
    (policy learners sample; Q-learners play their best legal action, as in the season)."""
    learned = res.get("learned")
    if not isinstance(learned, dict) or not learned:
        return ""
    sampling, argmax = [], []
    for name, info in sorted(learned.items()):
        if isinstance(info, dict) and isinstance(info.get("weights"), str):
            bit = f"{md(label(name))} (`{md(info['weights'])}`)"
            (argmax if info.get("plays") == "argmax_q" else sampling).append(bit)
    if not sampling and not argmax:
        return ""
    parts = []
    if sampling:
        parts.append(
            f"{join_words(sampling)} {'samples its' if len(sampling) == 1 else 'sample their'}"
            " actions from the learned policy"
        )
    if argmax:
        parts.append(
            f"{join_words(argmax)} {'plays its' if len(argmax) == 1 else 'play their'}"
            " highest-valued legal action (a Q-network has no distribution to sample)"
        )
    whose = "entrant" if len(sampling) + len(argmax) == 1 else "entrants"
    return (
        f" Learned rows are Season 0's learned {whose}, acting as in the season: "
        + "; ".join(parts)
        + ". None was trained or tuned on these positions."
    )


def results_index_table(res: dict, items: list[dict]) -> tuple[str, list[int]]:
    """W-D-L per System (columns) per scenario (rows), each with its Fisher p against
    Random, and Random's wins; and the ids left out because their results were played on
    an older version of their file."""
    systems = _systems(res)
    head = ["scenario"]
    for system in systems:
        tested = any(r.get("fisher_p") is not None for r in res["systems"][system])
        head.append(f"{md(label(system))}<br>W-D-L{', p' if tested else ''}")
    head.append("Random's<br>wins")
    rows = ["| " + " | ".join(head) + " |", "|---|" + "---|" * (len(head) - 2) + "---:|"]
    stale = []
    for e in items:
        sid = e["id"]
        if not any(_row(res, s, sid) for s in systems):
            continue
        if e.get("file_sha256") != res.get("scenario_sha256", {}).get(str(sid)):
            stale.append(sid)
            continue
        cells = [f"[{sid}]({sid}.md)"]
        reference = None
        for system in systems:
            row = _row(res, system, sid)
            if row is None:
                cells.append("–")
                continue
            p = row.get("fisher_p")
            cells.append(_wdl(row) + ("" if p is None else f"<br>p {_p(p)}"))
            if reference is None and row.get("reference_wins") is not None:
                reference = row["reference_wins"]
        random_row = _row(res, "random", sid) if "random" in systems else None
        if reference is None and random_row is not None:
            reference = random_row["wins"]
        cells.append("–" if reference is None else str(reference))
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows), stale


def results_scenario_table(res: dict, sid: int) -> str:
    rows = [
        "| Team A played by | games | wins | draws | losses | win rate | Random's wins "
        "| Fisher p (two-sided) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for system in _systems(res):
        row = _row(res, system, sid)
        if row is None:
            continue
        ref = row.get("reference_wins")
        if ref is None and system == "random":
            ref = row["wins"]
        rate = row["wins"] / row["games"] if row["games"] else 0.0
        rows.append(
            f"| {md(label(system))} | {row['games']} | {row['wins']} | {row['draws']} | "
            f"{row['losses']} | {rate:.1%} | {'–' if ref is None else ref} | "
            f"{_p(row.get('fisher_p'))} |"
        )
    return "\n".join(rows)


RESULTS_TEXT = (
    "W-D-L is Team A's wins, draws and losses. Random's wins are the wins of the Random "
    "System (uniformly random legal actions) in the same scenario, the same number of games "
    "and the same seed; p is a two-sided Fisher's exact test of a System's wins against "
    "Random's. A small p says the difference from Random is unlikely to be luck; it does not "
    "say the System plays the scenario well."
)


# ---- pages --------------------------------------------------------------------------------------


def index_page(root: Path) -> str:
    items = entries(root)
    res = results(root)
    ids = ", ".join(str(e["id"]) for e in items)
    count = f"{len(items)} scenarios (ids {ids})" if len(items) != 1 else f"1 scenario (id {ids})"
    results_text = ""
    if res is not None:
        table, stale = results_index_table(res, items)
        note = ""
        if stale:
            note = (
                "\n\nNot shown: the results of scenario "
                + ", ".join(str(s) for s in stale)
                + ", which were played on an earlier version of the scenario file (run "
                f"`python {EXPORT} --results` to play them again)."
            )
        results_text = f"""
## Results

Each System played Team A against the scenario's controller ({results_provenance(res)}).
The table is `{SCENARIO_DIR}/results.json`, written by `python {EXPORT} --results`; every
game is in `results_games.csv` beside it. {RESULTS_TEXT}{learned_note(res)}

<div class="bgs-fit" markdown>

{table}

</div>{note}
"""
    return f"""# Scenarios

<!-- Written at build time by marl_bgs/site/scenarios_page.py from {SCENARIO_DIR}/. -->

A scenario is the last few ticks of a game that Team A (blue, starting at the left end) is
about to lose: it is behind on points, has lost agents, or both. Team A can still win, within
5 to 10 ticks, but only with the right moves, and Team B (orange, the right end) is played by
one of the [scripted opponents](../reference/scripted-opponents.md). Each scenario page shows
the start, one winning line in the replay viewer, the same line with one action changed
(which no longer wins), and a link to play the position yourself.

The scripted opponents draw no random numbers: from the same position, facing the same
actions, they always answer the same way. So a *line* (Team A's actions, tick by tick)
meets the same replies every time it is played, and a line that wins once always wins.
That is what makes the winning lines checkable.

There are {count}.

<div class="bgs-fit" markdown>

{scenario_table(root, items)}

</div>

*Team A v B* lists the classes alive at the start by their initials (**M** Mage,
**W** Warrior, **H** Hunter, **R** Rogue, **P** Priest); dead agents come back with their
team's next respawn wave. *Line length* is how many ticks the stored winning lines take.

## How the lines are found

The solver (`marl_bgs/scenarios/search.py`) plays Team A's choices against the controller's
replies on the compiled JAX engine. It works in two parts, and the two are reported apart,
because they mean different things.

1. **Search in full.** From the start it tries every legal joint action of Team A: every
   combination of each living agent's legal moves, targets and Ultimates, each answered by
   the controller. From every position reached it does the same again, one tick (one
   *level*) at a time. Two positions are merged when the game state and the controller's
   memory are identical bit for bit, since they have the same future, and the solver counts
   how many action sequences reach each one. So over the levels searched in full it knows
   exactly how many of Team A's sequences win at each length, and when none wins there,
   no win that short exists. The number of positions grows quickly, and when the next
   level is too large the search in full stops.
2. **Random samples.** Then it plays many random legal sequences from the start (each tick,
   every living agent of Team A picks one of its legal actions at random), up to the
   scenario's length, and keeps those that win. This finds longer lines when wins are not
   too rare. It is a sample: it proves that the lines it found win, and says nothing certain
   about the sequences it did not try.

How far each part went, per scenario:

<div class="bgs-fit" markdown>

{coverage_table(items)}

</div>

*Ticks searched* is the longest line looked for; *levels searched in full* is how many of
those ticks were covered by the first part. Wins found in full are exact counts; random
wins are counts among the samples.

## How the lines are checked

- **Every stored line wins**, played against the live controller on both engines, NumPy
  (the one your browser runs on the Play page) and JAX (the one the solver and training
  use). The project's tests replay them all (`tests/test_scenarios.py`).
- **The key-action test.** A *variant* of a line changes one living agent's move, or its
  (target, Ultimate) choice, at one tick to another legal choice, and keeps the rest of Team
  A's line as written (an action that has become illegal by then is played as the rules
  play it: stay, no target). A *key action* is a choice at which every variant fails to win
  (Team A has not won when the line's actions run out): the line works only because of that
  exact choice. The tests play every one-agent variant
  of the first stored lines of each scenario (the line shown on its page among them) and
  require each of those lines to have at least one key action. Each scenario page shows
  the first key action of its line (the earliest tick, then the lowest agent slot, a move
  before a target), found again on the NumPy engine when the pages' files are exported, and
  one variant that fails there: the first that Team B wins, else the first of them.
{results_text}"""


def scenario_page(root: Path, entry: dict, items: list[dict]) -> str:
    sid = entry["id"]
    position = _position(root, sid)
    line = _replay(root, sid, "line.json")
    variant = _replay(root, sid, "variant.json")
    res = results(root)
    name = entry["name"]
    controller = label(entry["controller"])
    start_tick = int(position["tick"])
    horizon = int(position["horizon"])
    score = entry["score"]
    k = [e["id"] for e in items].index(sid)
    links = []
    if k > 0:
        p = items[k - 1]
        links.append(f"← [{p['id']} · {md(p['name'])}]({p['id']}.md)")
    links.append("[all scenarios](index.md)")
    if k + 1 < len(items):
        n = items[k + 1]
        links.append(f"[{n['id']} · {md(n['name'])}]({n['id']}.md) →")
    skills = "\n".join(f"- {md(s)}" for s in entry["skills"])
    v = entry["variant"]
    alternatives = int(v["alternatives"])
    head = "move" if v["head"] == "move" else "target and Ultimate"
    length = len(entry["shown_line"])
    shown = {
        "b": "the first of them that Team B wins",
        "draw": "the first of them; none of them lets Team B win, and this one ends in a draw",
    }.get(
        v["variant_result"],
        "the first of them; none of them lets Team B win in that time either, and this "
        "one leaves the game open when the line's actions run out",
    )
    key_text = (
        f"This is a key action: there are {alternatives} other legal "
        f"choice{'s' if alternatives != 1 else ''} of {head} for this agent at that tick, "
        f"each played with the rest of the line unchanged, and none of them wins within the "
        f"line's {_ticks(length)}. The variant shown is {shown}."
    )
    why = "\n\n".join(text_block(p, "bgs-variant-why") for p in why_it_fails(line, variant))
    picture = start_picture(
        position, f"Scenario {sid}: the start, game tick {start_tick} of {horizon}"
    )
    results_text = ""
    if res is not None and any(_row(res, s, sid) for s in res["systems"]):
        if _fresh_results(root, entry, res):
            results_text = f"""
## Results

How the Systems did as Team A here ({results_provenance(res)}; all scenarios on the
[overview](index.md#results)). {RESULTS_TEXT}{learned_note(res)}

<div class="bgs-fit" markdown>

{results_scenario_table(res, sid)}

</div>
"""
        else:
            results_text = f"""
## Results

The stored results for this scenario were played on an earlier version of its file, so they
are not shown; `python {EXPORT} --results` plays them again.
"""
    return f"""# Scenario {sid} · {md(name)}

<!-- Written at build time by marl_bgs/site/scenarios_page.py from {SCENARIO_DIR}/. -->

{" · ".join(links)}

{text_block(entry["briefing"], "bgs-briefing")}

You play **Team A** (blue, from the left end). **Team B** (orange) is played by
**{md(controller)}** ({md(entry["controller"])}), one of the
[scripted opponents](../reference/scripted-opponents.md). The game is at tick {start_tick} of
{horizon}: **{_ticks(entry["ticks_left"])} left**, the score is **{score[0]}–{score[1]}**
and the first team to {md(position["winning_score"])} points wins (a death in its own team's
Red Zone, the tinted strip at each end, gives the killers two points). Team A must win
before the clock runs out; a draw is not enough.

**Skills tested:**

{skills}

## The start

{picture}

<div class="bgs-fit" markdown>

{agents_table(position)}

</div>

## A winning line

{coverage_words(entry)} Step through it with the ▶ button: each
tick's events are listed under the arena and in the viewer's log.

{viewer_div(f"../../{SCENARIO_DIR}/scenario_{sid}/line.json", compact=True, extra=" data-scenario-line")}

<details class="bgs-line-words" markdown>
<summary>The line in words</summary>

<div class="bgs-fit" markdown>

{line_table(entry, position, line)}

</div>

Its events:

{event_list(line)}

</details>

## One action changed

{text_block(variant_sentence(entry, position), "bgs-variant-change")}

{key_text}

{viewer_div(f"../../{SCENARIO_DIR}/scenario_{sid}/variant.json", compact=True, extra=" data-scenario-variant")}

**Why it fails.**

{why}

<details class="bgs-line-words" markdown>
<summary>The variant's events in words</summary>

{event_list(variant)}

</details>
{results_text}
## Try it yourself

[Play this position](../play.md?scenario={sid}){{ .md-button .md-button--primary data-scenario-play="{sid}" }}
on the Play page: Team A's agents are yours (a dead one waits for its respawn wave), and
Team B is played by {md(controller)}, exactly as in the replays above, so the winning line
wins there too. The game engine runs in your browser; the first visit downloads it.
"""


def pages(root: Path) -> dict[str, Callable[[], str]]:
    """Page path -> writer: the overview and one page per exported scenario ({} before the
    first export)."""
    items = entries(root)
    if not items:
        return {}
    out: dict[str, Callable[[], str]] = {f"{PAGE_DIR}/index.md": lambda: index_page(root)}
    for e in items:
        out[f"{PAGE_DIR}/{e['id']}.md"] = lambda e=e: scenario_page(root, e, entries(root))
    return out


def nav(root: Path) -> list[dict]:
    """The Scenarios section of the navigation, or [] before the first export."""
    items = entries(root)
    if not items:
        return []
    pages_ = [{"Overview": f"{PAGE_DIR}/index.md"}]
    pages_ += [
        {escape(f"{e['id']} · {e['name']}", quote=False): f"{PAGE_DIR}/{e['id']}.md"} for e in items
    ]
    return [{"Scenarios": pages_}]
