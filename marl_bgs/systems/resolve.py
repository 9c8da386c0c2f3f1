"""One place that turns what a user writes for a System into the System.

Evaluation (`team_a`, `team_b`), seasons' entrants files, training configs' opponents and the
command line (`--vs`) all name Systems the same ways: a registered name, an LLM, a training
run folder, an exported policy `.npz`, or five of them (one per slot). Learned and LLM forms
import their code only when used, so resolving a scripted name needs neither flax nor HTTP.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..core.state import TEAM_SIZE
from .base import System
from .registry import BUILDERS, by_name


def resolve_system(spec: Any, where: str) -> System:
    """A System from a System, a registered name, an LLM (`"llm:MODEL@http://host:port/v1"`,
    see `marl_bgs.llm`), a trained run (`{"checkpoint": folder,
    "step": n, "greedy": false}`, step and greedy optional), an exported actor
    (`{"weights": "policy.npz", "greedy": false}`), or five of them (one per slot).

    Args:
        spec: The System in any of the forms above (`evaluate`'s `team_a` and `team_b`).
        where: The field to name in errors (`"team_a"`).

    Returns:
        The `System`; five specs become one per-slot `marl_bgs.systems.team`.

    Raises:
        ValueError: An unknown name or a spec of no known form, naming `where`.
    """
    if isinstance(spec, System):
        return spec
    if isinstance(spec, dict) and "weights" in spec:
        from ..learn.npz_policy import system_from_weights_spec

        return system_from_weights_spec(spec, where)
    if isinstance(spec, dict) and "checkpoint" in spec:
        from ..learn.policy import system_from_spec

        return system_from_spec(spec, where)
    if isinstance(spec, str) and spec.startswith("llm:"):
        from ..llm.system import system_from_spec

        try:
            return system_from_spec(spec)
        except (TypeError, ValueError) as err:
            raise ValueError(f"{where}: {err}") from None
    if isinstance(spec, str):
        try:
            return by_name(spec)
        except ValueError as err:
            raise ValueError(f"{where}: {err}") from None
    if isinstance(spec, (list, tuple)) and len(spec) == TEAM_SIZE:
        from .mix import team

        members = [resolve_system(s, f"{where}[{k}]") for k, s in enumerate(spec)]
        return team(*members, name="|".join(m.name for m in members))
    raise ValueError(
        f"{where}: expected a System, a system name, {{'checkpoint': run folder}}, "
        f"{{'weights': policy .npz}} or "
        f"{TEAM_SIZE} of them (one per slot), got {spec!r}"
    )


def system_from_text(text: str, where: str, *, host: bool = True) -> System:
    """A System named by one string, as on a command line or in a training config.

    Registered names come first (a folder that happens to share a name does not shadow it).

    Args:
        text: A registered name, `llm:MODEL@URL`, a policy `.npz` file or a training run
            folder.
        where: The field to name in errors (`"--vs"`, `"config.fixed_opponents[0]"`).
        host: Whether host Systems (an LLM) may play here; training's games run inside one
            compiled program, so its opponents may not.

    Returns:
        The `System`.

    Raises:
        ValueError: None of these forms, a file or folder that cannot be loaded, or an LLM
            where only compiled Systems may play, naming `where` and the text.
    """
    if text in BUILDERS:
        return by_name(text)
    if text.startswith("llm:"):
        if not host:
            raise ValueError(
                f"{where}: {text!r}: an LLM plays on the host, and here only Systems that "
                "run inside the compiled loop may play"
            )
        return resolve_system(text, where)
    path = Path(text).expanduser()
    if text.endswith(".npz"):
        return _from_file("weights", path, text, where)
    if path.is_dir():
        return _from_file("checkpoint", path, text, where)
    raise ValueError(
        f"{where}: {text!r} is not a registered System ({', '.join(BUILDERS)}), "
        f"{'an LLM (llm:MODEL@URL), ' if host else ''}a training run folder or a policy "
        ".npz file"
    )


def _from_file(kind: str, path: Path, text: str, where: str) -> System:
    """A learned System from a path; a refusal names `where` and the text as written (the
    `.weights`/`.checkpoint` sub-field of the dict form is not a field the user wrote)."""
    try:
        return resolve_system({kind: str(path)}, where)
    except ValueError as err:
        message = str(err)
        if message.startswith(f"{where}."):
            message = message.split(": ", 1)[1]
        raise ValueError(f"{where}: {text!r}: {message}") from None
