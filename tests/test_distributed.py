"""Many processes joined by `jax.distributed` (issue 47), on this CPU: two real processes of
2 devices each, started by `marl-bgs launch`, give the same `evaluate` games, the same saved
season fixture and the same ff-IPPO updates as one process of 4 devices; the 2-process run's
checkpoint resumes in one process; a process that dies stops the others with a clear error
(the launcher at once; JAX's heartbeat without it). The environment's settings and the
launcher's pieces are checked alone first."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from marl_bgs import distributed
from marl_bgs.launcher import command_line, launch, process_env

ROOT = Path(__file__).resolve().parents[1]
WORKER = ROOT / "tests" / "distributed_worker.py"
LATE_S = 35


# ---- the environment and the launcher's pieces -----------------------------------------------
def test_no_settings_means_one_process():
    assert distributed.settings_from_env({}) is None
    assert distributed.initialize_from_env({}) is False


def test_settings_from_the_environment():
    env = {"MARL_BGS_COORDINATOR": "10.0.0.1:4321", "MARL_BGS_NUM_PROCESSES": "4",
           "MARL_BGS_PROCESS_ID": "3", "MARL_BGS_HEARTBEAT_S": "20"}  # fmt: skip
    assert distributed.settings_from_env(env) == {
        "coordinator_address": "10.0.0.1:4321",
        "num_processes": 4,
        "process_id": 3,
        "heartbeat_timeout_seconds": 20,
    }
    auto = distributed.settings_from_env({"MARL_BGS_DISTRIBUTED": "auto"})
    assert auto == {"heartbeat_timeout_seconds": distributed.DEFAULT_HEARTBEAT_S}


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"MARL_BGS_COORDINATOR": "h:1"}, "MARL_BGS_NUM_PROCESSES, MARL_BGS_PROCESS_ID: not set"),
        ({"MARL_BGS_COORDINATOR": "h:1", "MARL_BGS_NUM_PROCESSES": "two",
          "MARL_BGS_PROCESS_ID": "0"}, "MARL_BGS_NUM_PROCESSES: 'two' is not a whole number"),
        ({"MARL_BGS_COORDINATOR": "h:1", "MARL_BGS_NUM_PROCESSES": "2",
          "MARL_BGS_PROCESS_ID": "2"}, "MARL_BGS_PROCESS_ID: 2 with MARL_BGS_NUM_PROCESSES=2"),
        ({"MARL_BGS_COORDINATOR": "nohost", "MARL_BGS_NUM_PROCESSES": "2",
          "MARL_BGS_PROCESS_ID": "0"}, "MARL_BGS_COORDINATOR: 'nohost' is not host:port"),
        ({"MARL_BGS_DISTRIBUTED": "yes"}, "MARL_BGS_DISTRIBUTED: 'yes'; the one value"),
        ({"MARL_BGS_DISTRIBUTED": "auto", "MARL_BGS_PROCESS_ID": "0"}, "unset MARL_BGS_PROCESS_ID"),
        ({"MARL_BGS_DISTRIBUTED": "auto", "MARL_BGS_HEARTBEAT_S": "0"}, "MARL_BGS_HEARTBEAT_S: 0"),
    ],
)  # fmt: skip
def test_bad_settings_are_refused_naming_the_variable(env, message):
    with pytest.raises(ValueError, match=message):
        distributed.settings_from_env(env)


def test_one_process_writes_and_keeps_its_arrays():
    assert distributed.process_count() in (1,) and distributed.is_writer()
    assert distributed.to_host(np.arange(3)).tolist() == [0, 1, 2]


def test_one_process_runs_programs_at_once_without_meeting():
    import jax

    double = jax.jit(lambda x: 2 * x)
    assert distributed.run_together(double, np.arange(3)).tolist() == [0, 2, 4]
    distributed.meet("nobody else")  # nothing to wait for
    distributed.barrier("nobody else")
    assert not distributed._MEETINGS and double not in distributed._COMPILED


def test_each_launched_process_gets_its_number_and_devices():
    env = process_env({"XLA_FLAGS": "--xla_dump_to=x", "KEEP": "1"}, 1, 3, 5000, cpu_devices=2,
                      gpus_per_process=2)  # fmt: skip
    assert env["KEEP"] == "1"
    assert env["MARL_BGS_COORDINATOR"] == "127.0.0.1:5000"
    assert (env["MARL_BGS_NUM_PROCESSES"], env["MARL_BGS_PROCESS_ID"]) == ("3", "1")
    assert env["XLA_FLAGS"] == "--xla_dump_to=x --xla_force_host_platform_device_count=2"
    assert env["CUDA_VISIBLE_DEVICES"] == "2,3"
    assert command_line(["train", "algo=ff-ippo"])[1:] == [
        "-m",
        "marl_bgs.cli",
        "train",
        "algo=ff-ippo",
    ]
    assert command_line(["scripts/x.py", "--a"])[1:] == ["scripts/x.py", "--a"]


@pytest.mark.parametrize(
    ("command", "processes", "message"),
    [([], 2, "command: nothing to launch"), (["train"], 0, "-n: 0 processes")],
)
def test_the_launcher_refuses_nothing_to_run(command, processes, message):
    with pytest.raises(ValueError, match=message):
        launch(command, processes)


def test_the_launch_command_refuses_an_unknown_command(capsys):
    from marl_bgs.cli import main

    assert main(["launch", "-n", "2", "--", "nosuch"]) == 2
    assert (
        "command: 'nosuch' is neither a marl-bgs command nor a .py script"
        in capsys.readouterr().err
    )


def _documented_launches() -> list[str]:
    lines = []
    for page in (ROOT / "README.md", ROOT / "site_src" / "scaling.md"):
        lines += re.findall(r"^\.venv/bin/marl-bgs launch .+$", page.read_text(), re.M)
    return lines


def test_the_documented_launch_commands_parse():
    """README's and the site's `marl-bgs launch` lines: the launcher's options and the
    launched command (a marl-bgs command's own options, or a script that exists)."""
    from marl_bgs.cli import build_parser

    lines = _documented_launches()
    assert len(lines) >= 6
    for line in lines:
        words = shlex.split(line)[1:]
        args = build_parser().parse_args(words)
        inner = args.launched[1:] if args.launched[:1] == ["--"] else args.launched
        if inner[0].endswith(".py"):
            assert (ROOT / inner[0]).is_file(), line
            continue
        launched, extra = build_parser().parse_known_args(inner)
        assert all("=" in e for e in extra), line  # train's key=value settings
        assert launched.command == inner[0]


# ---- two real processes ------------------------------------------------------------------------
def _env(**more: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MARL_BGS_")}
    env.pop("XLA_FLAGS", None)
    return {**env, "JAX_PLATFORMS": "cpu", "PYTHONPATH": str(ROOT), **more}


def _launch(args: list[str], timeout: float, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "marl_bgs.cli", "launch", *args], env=_env(**env), cwd=ROOT,
        capture_output=True, text=True, timeout=timeout,
    )  # fmt: skip


def _alone(args: list[str], timeout: float) -> subprocess.CompletedProcess:
    env = _env(XLA_FLAGS="--xla_force_host_platform_device_count=4")
    return subprocess.run([sys.executable, str(WORKER), *args], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout)  # fmt: skip


def _gap(a: list[list[float]], b: list[list[float]]) -> float:
    assert [len(x) for x in a] == [len(x) for x in b]
    return max(float(np.max(np.abs(np.subtract(x, y)))) for x, y in zip(a, b, strict=True))


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The worker's results: 2 processes x 2 devices (launched), then 1 process x 4 devices,
    which then resumes both runs' checkpoints to a third update."""
    one, two = tmp_path_factory.mktemp("one"), tmp_path_factory.mktemp("two")
    # Process 1 starts 35 s late: past gloo's 30 s, which ended such runs before every
    # program spanning both processes began with a meeting (`distributed.run_together`).
    args = ["-n", "2", "--cpu-devices", "2", "--", str(WORKER), str(two)]
    out = _launch(args, 1200, MARL_BGS_TEST_LATE_S=str(LATE_S))
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    alone = _alone([str(one), "--resume", str(two / "run"), str(one / "run")], 1200)
    assert alone.returncode == 0, alone.stderr[-4000:]
    read = lambda path: json.loads(path.read_text())  # noqa: E731
    return {
        "two": [read(two / f"result-{p}.json") for p in (0, 1)],
        "one": read(one / "result-0.json"),
        "resumed_two": read(one / "resumed-0.json"),
        "resumed_one": read(one / "resumed-1.json"),
        "folders": (two, one),
        "launch_output": out.stdout,
    }


def test_two_processes_see_every_device_and_return_the_same(runs):
    p0, p1 = runs["two"]
    assert (p0["processes"], p0["devices"]) == (2, 4)
    assert (runs["one"]["processes"], runs["one"]["devices"]) == (1, 4)
    assert p0 == {**p1, "processes": 2}  # every process gets the same return values
    assert "[0] " in runs["launch_output"] and "[1] " in runs["launch_output"]


def test_evaluate_and_a_season_fixture_give_the_games_of_one_process(runs):
    two, one = runs["two"][0], runs["one"]
    assert two["games"] == one["games"]
    assert min(two["games"]["ticks"]) > 20
    assert two["fixtures"] == one["fixtures"] == {"0": "played"}
    store_two, store_one = (f / "store" for f in runs["folders"])
    files = sorted(p.name for p in store_two.iterdir())
    assert files == sorted(p.name for p in store_one.iterdir()) and len(files) == 2
    parquet = next(n for n in files if n.endswith(".parquet"))
    assert (store_two / parquet).read_bytes() == (store_one / parquet).read_bytes()


def test_the_update_on_two_processes_equals_one_process(runs):
    two, one = runs["two"][0], runs["one"]
    assert two["update"] == one["update"] == 2 and two["steps"] == one["steps"] == 32
    assert two["live"] == one["live"]  # the games are integer-exact on any split
    assert _gap(two["params"], one["params"]) < 1e-4
    # process 0 alone wrote the logs, each update once (the third: the resumed run's)
    run = runs["folders"][0] / "run"
    updates = [int(r.split(",")[0]) for r in (run / "updates.csv").read_text().splitlines()[1:]]
    assert updates == [1, 2, 3] and (run / "config.json").is_file()


def test_a_two_process_checkpoint_resumes_in_one_process(runs):
    resumed_two, resumed_one = runs["resumed_two"], runs["resumed_one"]
    assert resumed_two["update"] == resumed_one["update"] == 3
    assert _gap(resumed_two["params"], resumed_one["params"]) < 1e-4


# ---- a process that dies ---------------------------------------------------------------------
DIES = """
import os, sys, time
sys.path.insert(0, {root!r})
from marl_bgs.distributed import initialize_from_env
initialize_from_env()
import jax
from marl_bgs.distributed import barrier
if jax.process_index() == 1:
    time.sleep(1)
    os._exit(3)
for k in range(600):  # process 0 waits for the others, again and again
    barrier(f"wait {{k}}")
    time.sleep(0.5)
"""


def test_the_launcher_stops_the_others_when_one_dies(tmp_path):
    script = tmp_path / "dies.py"
    script.write_text(DIES.format(root=str(ROOT)))
    began = time.monotonic()
    out = _launch(["-n", "2", "--", str(script)], 120)
    assert out.returncode == 3, out.stdout[-3000:]
    assert "marl-bgs launch: process 1 of 2 exited with status 3; stopped the others" in out.stdout
    assert time.monotonic() - began < 60


def test_without_the_launcher_jax_stops_the_others_within_the_heartbeat(tmp_path):
    script = tmp_path / "dies.py"
    script.write_text(DIES.format(root=str(ROOT)))
    from marl_bgs.launcher import free_port

    port = free_port()
    began = time.monotonic()
    procs = [
        subprocess.Popen(
            [sys.executable, str(script)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=_env(
                MARL_BGS_COORDINATOR=f"127.0.0.1:{port}",
                MARL_BGS_NUM_PROCESSES="2",
                MARL_BGS_PROCESS_ID=str(i),
                MARL_BGS_HEARTBEAT_S="5",
            ),
        )  # fmt: skip
        for i in range(2)
    ]
    try:
        output = procs[0].communicate(timeout=90)[0]
    finally:
        for p in procs:
            p.kill()
    assert procs[0].returncode != 0
    assert "another task died" in output or "stopped sending heartbeats" in output, output[-2000:]
    assert time.monotonic() - began < 90
