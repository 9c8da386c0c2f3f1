"""README's two fresh-machine commands stay true: CI runs the second, the first's parts exist."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    head = text[
        text.index("## Two commands") : text.index("## ", text.index("## Two commands") + 3)
    ]
    return re.findall(r"```bash\n(.+?)\n```", head)


def test_readme_shows_exactly_two_commands():
    assert len(_commands()) == 2


def test_ci_runs_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text().strip().splitlines()[-1]
    assert ci == _commands()[1]


def test_main_job_parts_exist():
    main = _commands()[0]
    for part in main.split("&&"):
        words = shlex.split(part)
        scripts = [w for w in words if w.endswith(".py")]
        for script in scripts:
            assert (ROOT / script).is_file(), script
    assert "mkdocs serve" in main
    assert (ROOT / "mkdocs.yml").is_file()
