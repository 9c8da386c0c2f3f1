"""Publish a training run as a season entrant: its policy file, how it was trained, and how
it plays on the test maps.

    .venv/bin/python scripts/publish_entrant.py --run runs/ppo-rec-ippo-0 \
        --out seasons/entrants/ppo-rec-ippo-0

Writes into `--out` (next to the run's training config, which stays as it is):
- `policy.npz`: the actor of the validation's best check (`best/`; the newest checkpoint
  when the run never validated), in the `.npz` format `NumpyPolicy` reads;
- `config.json` (the resolved config), `updates.csv` (one row per update), `validation.csv`
  and the learning-curve plots under `plots/`, copied from the run;
- `training.json`: the budget (updates, game steps, the logged wall time of the updates and
  of the validation checks, which a resumed run still adds up right; machine) and which
  check was kept;
- `test_results.json` and `test_results.csv`: `--games` games (spawn-swapped pairs, sampled
  actions, or the best legal Q-value for QMIX and PQN-VDN, as the entrant plays in seasons) against each `--opponents` System on the test
  maps 47-51, with wins, draws, losses, the decisive-win share and its 95% Wilson interval,
  and the mean point margin with its interval; `test_games.csv` holds every game;
- `README.md`: the above as a short model card.

`--card-only` rewrites everything but the test games from the run, reusing `--out`'s
`test_results.json` (for a card whose wording or budget changed; the games would not).

`--earlier RUN ...` names the runs a staged recipe went through before `--run`, in order
(a behaviour-cloning run, then kickstarted PPO started from it by `init_from`): each run's
`init_from` must name the one before it. Their configs, logs and plots are copied under
`stages/`, `training.json` gives each stage's budget and the totals, and the card lists the
stages with their teacher and budget. `--recipe FILE ...` (one per run, in the same order)
copies the config file each run was started with beside its config as `train.toml`.

The test maps are used here only to report; nothing in training or selection reads them.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import pandas as pd  # noqa: E402

from marl_bgs.learn.policy import run_folder  # noqa: E402
from marl_bgs.outputs import folder_argument  # noqa: E402
from marl_bgs.provenance import cpu_model  # noqa: E402

OPPONENTS = ("random", "tdm-alpha", "tdm-beta", "tdm-gamma")
COPIED = ("config.json", "updates.csv", "validation.csv")


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a share k/n (NaN bounds when n = 0)."""
    if n == 0:
        return math.nan, math.nan
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    # At k = 0 or k = n a bound equals 0 or 1 exactly; rounding could print it as -0.0%.
    return max(0.0, centre - half), min(1.0, centre + half)


def decisive_share(wins: int, losses: int) -> dict:
    """The share of decisive games won and its 95% Wilson interval (None without any)."""
    decisive = wins + losses
    lo, hi = wilson(wins, decisive)
    return {
        "decisive_win_share": round(wins / decisive, 4) if decisive else None,
        "decisive_win_share_95": [round(lo, 4), round(hi, 4)] if decisive else None,
    }


def budget(run: Path, selected: dict) -> dict:
    """What training cost, read from the run folder."""
    import jax

    updates = pd.read_csv(run / "updates.csv")
    cfg = json.loads((run / "config.json").read_text())
    # Logged times, not file dates: a resumed run rewrites config.json when it restarts.
    checks = run / "validation.csv"
    check_s = float(pd.read_csv(checks)["seconds"].sum()) if checks.exists() else 0.0
    replayed = run / "updates_replayed.jsonl"  # updates a resumed run played again
    again = pd.read_json(replayed, lines=True) if replayed.exists() else pd.DataFrame()
    update_s = float(updates["seconds"].sum()) + (
        float(again["seconds"].sum()) if len(again) else 0.0
    )
    out = {
        "algo": cfg["algo"],
        "seed": cfg["seed"],
        "updates": int(updates["update"].iloc[-1]),
        "game_steps": int(updates["steps"].iloc[-1]),
        "updates_wall_s": round(update_s, 1),
        "replayed_updates": len(again),
        "validation_wall_s": round(check_s, 1),
        "run_wall_s": round(update_s + check_s, 1),
        "run_wall_note": "every logged update (compiling after each start, and checkpoints, "
        "included; updates played again after a stop counted each time) plus every "
        "validation check; process start-up and any pause between a stop and its resume "
        "left out",
        "median_steps_per_s": round(float(updates["steps_per_s"].median()), 1),
        "machine": {
            "cpu": cpu_model(),
            "cores": os.cpu_count(),
            "platform": platform.platform(),
            "jax": jax.__version__,
            "device": str(jax.devices()[0].device_kind),
        },
        "selected": selected,
    }
    return out


def check_stages(runs: list[Path]) -> list[str]:
    """Problems with a staged recipe: each run after the first must start from the one
    before it (`init_from`, compared as resolved folders)."""
    from marl_bgs.learn.kickstart import start_folder

    problems = []
    for before, run in zip(runs, runs[1:], strict=False):
        cfg = json.loads((run / "config.json").read_text())
        start = cfg.get("init_from") or ""
        if not start or start_folder(start)[0].resolve() != before.resolve():
            problems.append(f"{run.name}'s init_from is {start!r}, not the run before it "
                            f"({before})")  # fmt: skip
    return problems


TEACHER_FIELDS = (
    "teacher",
    "kick_weight",
    "kick_floor",
    "kick_until",
    "teacher_plays",
    "teacher_plays_floor",
    "teacher_plays_until",
    "ppo_weight",
    "init_from",
)


def stage_line(k: int, facts: dict) -> str:
    """One stage of a staged recipe, for the card."""
    cfg, teacher = facts["teaching"], ""
    if cfg.get("teacher"):
        teacher = (f"; teacher {cfg['teacher']} (weight {cfg['kick_weight']:g} to "
                   f"{cfg['kick_floor']:g} by {cfg['kick_until']:.0%} of the stage; it plays "
                   f"{cfg['teacher_plays']:.0%} of Team A's games, falling to "
                   f"{cfg['teacher_plays_floor']:.0%} by {cfg['teacher_plays_until']:.0%}; "
                   f"PPO term x{cfg['ppo_weight']:g})")  # fmt: skip
    return (f"{k}. `{facts['algo']}` (`{facts['folder']}/`): {facts['game_steps']:,} "
            f"game steps in {facts['updates']:,} updates, {facts['run_wall_s'] / 3600:.2f} h "
            f"logged, median {facts['median_steps_per_s']:,.0f} steps/s{teacher}.")  # fmt: skip


def selected_check(run: Path) -> tuple[bool, dict]:
    """The validation row of the kept check (best margin, update 0 excluded)."""
    vpath = run / "validation.csv"
    if not (run / "best").is_dir() or not vpath.exists():
        return False, {"kind": "newest checkpoint", "why": "the run never validated"}
    rows = pd.read_csv(vpath)
    best = rows[rows["best"].astype(str).str.lower() == "true"].iloc[-1]
    keep = {k: (v.item() if hasattr(v, "item") else v) for k, v in best.items()}
    return True, {"kind": "best validation margin", **keep}


def test_table(policy: Path, opponents: list[str], games: int, seed: int, out: Path) -> list:
    import marl_bgs

    rows, frames = [], []
    for name in opponents:
        result = marl_bgs.evaluate({"weights": str(policy)}, name, maps="test", games=games,
                                   seed=seed, progress=True)  # fmt: skip
        s = result.summary()
        g = result.games.assign(opponent=name)
        frames.append(g)
        wins, losses, draws = int(s["wins"]), int(s["losses"]), int(s["draws"])
        rows.append({
            "opponent": name, "games": games, "wins": wins, "draws": draws, "losses": losses,
            **decisive_share(wins, losses),
            "mean_margin": round(s["margin_mean"], 3),
            "mean_margin_95": [round(float(x), 3) for x in s["margin_ci95"]],
        })  # fmt: skip
        print(f"vs {name}: W-D-L {wins}-{draws}-{losses}, margin {s['margin_mean']:+.2f}")
    pd.concat(frames).to_csv(out / "test_games.csv", index=False, lineterminator="\n")
    return rows


def actions_of(cfg: dict) -> str:
    """How the entrant picks actions (the algorithm's acting kind in the registry)."""
    from marl_bgs.learn.registry import acts_greedily

    return "greedy (best legal Q-value)" if acts_greedily(cfg["algo"]) else "sampled"


def inputs_lines(cfg: dict) -> list[str]:
    """What the actor reads and learned from, when that is more than its own observation:
    a reader comparing entrants must know that one walks by a scripted team's plan."""
    lines = []
    if cfg.get("nav_inputs"):
        lines.append(
            "Inputs: each agent's observation and class, and TDM-Alpha's score for each of "
            "its nine moves (`nav_inputs`, `marl_bgs/learn/actor_view.py`): the scripted "
            "team's walking plan, computed from the team's own observations. The policy "
            "chooses its move (or to stand), its target and its Ultimate itself."
        )
    if cfg.get("teacher") and not cfg.get("init_from"):
        lines.append(
            f"Teacher: {cfg['teacher']} (imitation weight {cfg['kick_weight']:g}, PPO term "
            f"x{cfg['ppo_weight']:g}; the teacher plays {cfg['teacher_plays']:.0%} of Team "
            f"A's games, falling to {cfg['teacher_plays_floor']:.0%} by "
            f"{cfg['teacher_plays_until']:.0%} of the run, and labels every decision of the "
            "rest)."
        )
    return [line for text in lines for line in (text, "")]


def model_card(name: str, facts: dict, rows: list, cfg: dict, recipe: bool = False) -> str:
    """A short README for the entrant folder, every number read from the files beside it
    (`recipe`: the folder holds the config file the run started with, `train.toml`)."""
    sel = facts["selected"]
    hours = facts["run_wall_s"] / 3600
    lines = [
        f"# {name}",
        "",
        f"A `{facts['algo']}` policy trained by `marl-bgs train` on "
        f"{facts['machine']['cores']} CPU cores ({facts['machine']['cpu']}), seed "
        f"{facts['seed']}: {facts['game_steps']:,} game steps in {facts['updates']:,} updates, "
        f"{hours:.2f} h of logged wall time (the updates, with their compiling and "
        f"checkpoints, plus {facts['validation_wall_s'] / 3600:.2f} h of validation checks; "
        f"{facts['updates_wall_s'] / 3600:.2f} h in the updates themselves, median "
        f"{facts['median_steps_per_s']:,.0f} game steps/s).",
        "",
        f"Games: {', '.join(cfg['roster'])} against the same roster, first to "
        f"{cfg['winning_score']} points or tick {cfg['horizon']}, on maps "
        f"{min(cfg['maps'])}-{max(cfg['maps'])}; hidden width {cfg['hidden']}, "
        f"{cfg['num_envs']} games x {cfg['rollout_len']} ticks per update. Team B: the "
        f"current weights {cfg['opponent_self']:.0%} of games, "
        + ", ".join(f"{n}" for n in cfg["scripted_opponents"])
        + f" {cfg['opponent_scripted']:.0%}. Full settings: `config.json`"
        + (" (and the recipe, `train.toml`)." if recipe else "."),
        "",
        f"Kept: {sel['kind']}"
        + (
            f", update {sel['update']} ({sel['steps']:,} steps), validation margin "
            f"{sel['margin']:+.2f} on maps {', '.join(map(str, cfg['validation_maps']))} "
            f"against {', '.join(cfg['validation_opponents'])}."
            if "update" in sel
            else "."
        ),
        "Learning curves: `plots/`; every update: `updates.csv`; every check: `validation.csv`.",
        "",
        *inputs_lines(cfg),
        f"## On the test maps 47-51 ({actions_of(cfg)} actions, spawn-swapped pairs)",
        "",
        "| opponent | games | W-D-L | decisive wins (95% CI) | mean margin (95% CI) |",
        "|---|---|---|---|---|",
    ]
    stages = facts.get("stages")
    if stages:
        total = facts["total"]
        lines[2:2] = [
            f"Trained in {len(stages)} stages, {total['game_steps']:,} game steps and "
            f"{total['run_wall_s'] / 3600:.2f} h of logged wall time in all; the numbers "
            "below are the last stage's.",
            "",
            *[stage_line(k + 1, st) for k, st in enumerate(stages)],
            "",
        ]
    for r in rows:
        ci = r["decisive_win_share_95"]
        share = (
            f"{r['decisive_win_share']:.1%} [{ci[0]:.1%}, {ci[1]:.1%}]"
            if r["decisive_win_share"] is not None
            else "no decisive game"
        )
        m = r["mean_margin_95"]
        lines.append(
            f"| {r['opponent']} | {r['games']} | {r['wins']}-{r['draws']}-{r['losses']} | "
            f"{share} | {r['mean_margin']:+.2f} [{m[0]:+.2f}, {m[1]:+.2f}] |"
        )
    lines += [
        "",
        "Reproduce the table: `python scripts/publish_entrant.py --run RUN --out DIR`.",
        "",
    ]
    return "\n".join(lines)


def saved_results(out: Path, seed: int, opponents: list[str], games: int) -> list[dict]:
    """The test table already published in `out`, refused unless it is the one asked for."""
    path = out / "test_results.json"
    try:
        doc = json.loads(path.read_text())
    except (OSError, ValueError) as err:
        raise SystemExit(f"--card-only: cannot read {path} ({err})") from None
    rows = doc.get("results") if isinstance(doc, dict) else None
    if not isinstance(rows, list) or doc.get("seed") != seed:
        raise SystemExit(f"--card-only: {path} holds no results for --seed {seed}")
    if [r.get("opponent") for r in rows] != opponents or any(r.get("games") != games for r in rows):
        raise SystemExit(
            f"--card-only: {path} holds other opponents or game counts than "
            f"--opponents {' '.join(opponents)} --games {games}"
        )
    # the interval is a function of the counts, so a fix to it reaches saved tables too
    return [{**r, **decisive_share(r["wins"], r["losses"])} for r in rows]


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--run", type=Path, required=True, help="the training run folder")
    p.add_argument("--out", type=folder_argument, required=True, help="the entrant's folder")
    p.add_argument("--opponents", nargs="+", default=list(OPPONENTS))
    p.add_argument("--games", type=int, default=200, help="games per opponent (even)")
    p.add_argument("--seed", type=int, default=0, help="root seed of the test games")
    p.add_argument("--name", default=None, help="the entrant's display name (README title)")
    p.add_argument("--earlier", type=Path, nargs="+", default=[],
                   help="the runs of a staged recipe before --run, in order")  # fmt: skip
    p.add_argument("--recipe", type=Path, nargs="+", default=[],
                   help="the config file each run was started with, in the order of --earlier "
                   "then --run; copied beside each stage's config as train.toml")  # fmt: skip
    p.add_argument(
        "--card-only",
        action="store_true",
        help="rewrite the policy, copies, training.json and README from the run, reusing the "
        "test games already in --out (test_results.json) instead of playing them again",
    )
    args = p.parse_args(argv)

    from marl_bgs.learn.kickstart import start_folder
    from marl_bgs.learn.policy import export_npz

    run, out = args.run, args.out
    # Every argument is checked before the entrant's folder is touched.
    try:
        run_folder(run)
    except ValueError as err:
        p.error(f"--run: {err}")
    for k, earlier in enumerate(args.earlier):
        try:
            run_folder(earlier)
        except ValueError as err:
            p.error(f"--earlier[{k}]: {err}")
    problems = check_stages([*args.earlier, run])
    if problems:
        p.error("--earlier: " + "; ".join(problems))
    if args.recipe and len(args.recipe) != len(args.earlier) + 1:
        p.error(f"--recipe: expected one file per run ({len(args.earlier) + 1}), got "
                f"{len(args.recipe)}")  # fmt: skip
    for k, recipe in enumerate(args.recipe):
        if not recipe.is_file():
            p.error(f"--recipe[{k}]: {recipe} is not a file")
    if args.games < 2 or args.games % 2:
        p.error(f"--games: expected an even number of at least 2, got {args.games}")
    from marl_bgs.systems.resolve import resolve_system

    for k, name in enumerate(args.opponents):
        try:
            resolve_system(name, f"--opponents[{k}]")
        except ValueError as err:
            p.error(str(err))
    out.mkdir(parents=True, exist_ok=True)
    use_best, selected = selected_check(run)
    policy = export_npz(run, out / "policy.npz", best=use_best)
    for name in COPIED:
        if (run / name).exists():
            shutil.copyfile(run / name, out / name)
    if (run / "plots").is_dir():
        shutil.copytree(run / "plots", out / "plots", dirs_exist_ok=True)
    if args.recipe:
        shutil.copyfile(args.recipe[-1], out / "train.toml")
    facts = budget(run, selected)
    if args.earlier:
        stages = []
        for k, stage in enumerate([*args.earlier, run]):
            into = out / "stages" / f"{k + 1}-{stage.name}"
            into.mkdir(parents=True, exist_ok=True)
            for name in COPIED:
                if (stage / name).exists():
                    shutil.copyfile(stage / name, into / name)
            if (stage / "plots").is_dir():
                shutil.copytree(stage / "plots", into / "plots", dirs_exist_ok=True)
            if args.recipe:
                shutil.copyfile(args.recipe[k], into / "train.toml")
            cfg = json.loads((stage / "config.json").read_text())
            teaching = {k: cfg[k] for k in TEACHER_FIELDS if k in cfg}
            if teaching.get("init_from"):
                start, sub = start_folder(teaching["init_from"])
                teaching["init_from"] = start.name + ("/best" if sub == "best" else "")
            stages.append({"run": stage.name, "folder": into.relative_to(out).as_posix(),
                           "teaching": teaching, **budget(stage, {})})  # fmt: skip
        facts["stages"] = stages
        facts["total"] = {
            key: round(sum(st[key] for st in stages), 1)
            for key in ("game_steps", "updates", "updates_wall_s", "validation_wall_s",
                        "run_wall_s")
        }  # fmt: skip
    (out / "training.json").write_text(json.dumps(facts, indent=2) + "\n")
    if args.card_only:
        rows = saved_results(out, args.seed, args.opponents, args.games)
    else:
        rows = test_table(policy, args.opponents, args.games, args.seed, out)
    cfg = json.loads((run / "config.json").read_text())
    doc = {"maps": "test (47-51)", "actions": actions_of(cfg), "seed": args.seed,
           "results": rows}  # fmt: skip
    (out / "test_results.json").write_text(json.dumps(doc, indent=2) + "\n")
    flat = pd.DataFrame(rows).drop(columns=["decisive_win_share_95", "mean_margin_95"])
    flat.to_csv(out / "test_results.csv", index=False, lineterminator="\n")
    card = model_card(args.name or out.name, facts, rows, cfg, (out / "train.toml").is_file())
    (out / "README.md").write_text(card)
    print(f"wrote {out} ({policy.stat().st_size / 1024:.0f} KiB policy)")


if __name__ == "__main__":
    main()
