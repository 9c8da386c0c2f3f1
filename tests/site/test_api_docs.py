"""The API reference teaches, and cannot go stale.

- Every public call that mkdocstrings renders on site_src/api/*.md has a google-style
  docstring: an Args entry for each parameter, Returns where it returns something, Raises
  where it raises, Attributes for each field of a record.
- The shapes and dtypes documented for `reset` and `step` are the env's own, read from the
  real functions with `jax.eval_shape` (traced, not compiled).
- The Command line page lists every subcommand and every option of the real parser.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import html
import importlib
import inspect
import re
import textwrap
from pathlib import Path

import markdown
import pytest
import yaml

from marl_bgs.cli import build_parser
from marl_bgs.site import build as site_build
from marl_bgs.site import cli_page

ROOT = Path(__file__).resolve().parents[2]
API_PAGES = sorted((ROOT / "site_src" / "api").glob("*.md"))
SECTION = re.compile(r"^(Args|Keyword Args|Returns|Raises|Attributes):\s*$")
ITEM = re.compile(r"^(\*{0,2}\w+)\s*(\([^)]*\))?:")
# Validators that raise for their caller (marl_bgs.core.checks): a call means "raises".
CHECKERS = {"whole", "number", "boolean", "choice", "sequence", "string", "mapping", "fields"}


# ---- what the API pages render -------------------------------------------------------------
def directives(page: Path) -> list[tuple[str, dict]]:
    """Each `::: target` of a page with its `options:` (YAML indented under it)."""
    lines = page.read_text().splitlines()
    out = []
    for i, line in enumerate(lines):
        if not line.startswith("::: "):
            continue
        block = []
        for more in lines[i + 1 :]:
            if more.strip() and not more.startswith(" "):
                break
            block.append(more)
        config = yaml.safe_load(textwrap.dedent("\n".join(block))) or {}
        out.append((line[4:].strip(), config.get("options", {})))
    return out


def resolve(path: str):
    try:
        return importlib.import_module(path)
    except ModuleNotFoundError:
        module, _, name = path.rpartition(".")
        return getattr(resolve(module), name)


def _public(name: str) -> bool:
    return not name.startswith("_")


def _class_members(cls: type, names: list[str] | None) -> list[tuple[str, object]]:
    if names is None:
        names = [n for n in vars(cls) if _public(n)]
    out = []
    for n in names:
        value = inspect.getattr_static(cls, n)  # inherited members too (EnvViews')
        if isinstance(value, (staticmethod, classmethod)):
            value = value.__func__
        if isinstance(value, property) or (callable(value) and not isinstance(value, type)):
            out.append((n, value))
    return out


def rendered() -> list[tuple[str, object]]:
    """(dotted name, object) of every public function, class, method and property that the
    API pages render (or would render, were its docstring missing)."""
    out: list[tuple[str, object]] = []

    def add_class(name: str, cls: type, members: list[str] | None = None) -> None:
        out.append((name, cls))
        out.extend((f"{name}.{n}", v) for n, v in _class_members(cls, members))

    for page in API_PAGES:
        for target, options in directives(page):
            obj = resolve(target)
            members = options.get("members")
            if inspect.ismodule(obj):
                if members is None:
                    members = getattr(obj, "__all__", None) or [
                        n
                        for n, v in vars(obj).items()
                        if _public(n)
                        and (inspect.isfunction(v) or inspect.isclass(v))
                        and v.__module__ == obj.__name__
                    ]
                for n in members:
                    value = getattr(obj, n)
                    if inspect.isclass(value):
                        add_class(f"{target}.{n}", value)
                    elif callable(value):
                        out.append((f"{target}.{n}", value))
            elif inspect.isclass(obj):
                add_class(target, obj, members)
            else:
                out.append((target, obj))
    return out


def test_the_api_pages_render_the_calls_the_issue_names():
    names = {n for n, _ in rendered()}
    env = "marl_bgs.env.TeamDeathmatch."
    wanted = {
        "marl_bgs.registration.make",
        "marl_bgs.evaluation.evaluate",
        "marl_bgs.evaluation.crossplay",
    }
    wanted |= {
        env + m
        for m in (
            "reset", "step", "reset_done", "reset_to", "sample_actions", "get_avail_actions",
            "world_state", "team_inputs", "teams_inputs",
        )
    }  # fmt: skip
    wanted |= {"marl_bgs.game.Game", "marl_bgs.game.Game.step", "marl_bgs.replay.load_replay"}
    wanted |= {"marl_bgs.replay.record_game", "marl_bgs.maps.load_map", "marl_bgs.systems.team"}
    assert wanted <= names, sorted(wanted - names)


# ---- docstrings ----------------------------------------------------------------------------
def sections(doc: str) -> dict[str, list[str]]:
    """Google-style sections of a docstring: section -> the names (or first words) of its
    items. Items sit 4 spaces in; their continuation lines further."""
    out: dict[str, list[str]] = {}
    current = None
    for line in inspect.cleandoc(doc).splitlines():
        header = SECTION.match(line)
        if header:
            current = out.setdefault(header.group(1), [])
        elif line and not line.startswith(" "):
            current = None
        elif current is not None and line.startswith("    ") and not line.startswith("     "):
            item = ITEM.match(line.strip())
            current.append(item.group(1).lstrip("*") if item else line.strip())
    return out


def _function(obj):
    while hasattr(obj, "__wrapped__"):  # jax.jit keeps the function it compiles here
        obj = obj.__wrapped__
    return obj


def _tree(fn) -> ast.AST:
    return ast.parse(textwrap.dedent(inspect.getsource(fn)))


def _returns_value(fn, annotation) -> bool:
    if annotation is not inspect.Signature.empty:
        return annotation not in (None, "None")
    body = _tree(fn).body[0]
    nodes = [n for stmt in body.body for n in ast.walk(stmt)]
    return any(isinstance(n, ast.Return) and n.value is not None for n in nodes)


def _raises(fn) -> bool:
    for node in ast.walk(_tree(fn)):
        if isinstance(node, ast.Raise):
            return True
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) in CHECKERS:
            return True
    return False


def problems(name: str, obj) -> list[str]:
    """What the docstring of one rendered object lacks."""
    if isinstance(obj, property):
        return [] if (obj.__doc__ or "").strip() else [f"{name}: no docstring"]
    doc = inspect.getdoc(obj) if inspect.isclass(obj) else _function(obj).__doc__
    if not (doc or "").strip():
        return [f"{name}: no docstring"]
    found = sections(doc)
    out = []
    if inspect.isclass(obj):
        if issubclass(obj, BaseException):
            return []
        if hasattr(obj, "_fields") or dataclasses.is_dataclass(obj):
            fields = obj._fields if hasattr(obj, "_fields") else [
                f.name for f in dataclasses.fields(obj)
            ]  # fmt: skip
            missing = [f for f in fields if f not in found.get("Attributes", [])]
            return [f"{name}: Attributes lacks {missing}"] if missing else []
        if "__init__" not in vars(obj):
            return []
        fn, where = obj.__init__, "Args (for __init__, merged into the class)"
    else:
        fn, where = _function(obj), "Args"
    signature = inspect.signature(fn)
    params = [p for p in signature.parameters if p not in ("self", "cls")]
    documented = found.get("Args", [])
    missing = [p for p in params if p not in documented]
    if missing:
        out.append(f"{name}: {where} lacks {missing}")
    unknown = [p for p in documented if p not in params]
    if unknown:
        out.append(f"{name}: Args names {unknown}, not parameters")
    if not inspect.isclass(obj):
        if _returns_value(fn, signature.return_annotation) and not found.get("Returns"):
            out.append(f"{name}: no Returns section")
    if _raises(fn) and not found.get("Raises"):
        out.append(f"{name}: raises, but no Raises section")
    return out


def test_every_rendered_call_has_args_returns_and_raises():
    bad = [p for name, obj in rendered() for p in problems(name, obj)]
    assert not bad, "\n".join(bad)


def test_the_section_reader_reads_google_style():
    doc = """Summary.

    Args:
        key (jax.Array): A key,
            continued.
        **kwargs: More.

    Returns:
        obs: First.
        state: Second.

    Raises:
        ValueError: When.
    """
    assert sections(doc) == {
        "Args": ["key", "kwargs"],
        "Returns": ["obs", "state"],
        "Raises": ["ValueError"],
    }


def test_every_page_target_is_on_the_built_page():
    """A member listed on a page but not rendered (no docstring, a typo) fails here."""
    built = site_build.build_once().site
    missing = []
    for page in API_PAGES:
        text = (built / "api" / page.stem / "index.html").read_text()
        for target, options in directives(page):
            for member in [target] + [f"{target}.{m}" for m in options.get("members", [])]:
                if f'id="{member}"' not in text:
                    missing.append(f"{page.name}: {member}")
    assert not missing


# ---- the documented shapes are the env's -----------------------------------------------------
def _shape(shape: tuple[int, ...], games: int | None) -> str:
    dims = [str(d) for d in shape]
    if games is not None:
        assert shape[0] == games
        dims[0] = "N"
    return "(" + (dims[0] + "," if len(dims) == 1 else ", ".join(dims)) + ")"


@pytest.mark.parametrize("games", [None, 2])
def test_documented_reset_and_step_shapes_match_the_env(games):
    jax = pytest.importorskip("jax")
    from marl_bgs.core.actions import NUM_JOINT
    from marl_bgs.core.observation import OBS_WIDTH
    from marl_bgs.registration import make

    assert (OBS_WIDTH, NUM_JOINT) == (784, 198)  # the numbers the docstrings and pages give
    env = make("tdm", map_id=47, num_envs=games)
    key = jax.random.key(0)
    obs, state = jax.eval_shape(env.reset, key)
    lead = () if games is None else (games,)
    actions = {a: jax.ShapeDtypeStruct(lead, "int32") for a in env.agents}
    obs2, _, reward, done, info = jax.eval_shape(env.step, key, state, actions)

    def doc(method: str) -> str:
        return _function(getattr(type(env), method)).__doc__  # SingleGame's step for one game

    for leaf in (obs["a0"], obs2["a0"]):
        assert leaf.dtype == "float32" and leaf.shape == (*lead, OBS_WIDTH)
    want = _shape(obs["a0"].shape, games)
    assert want in doc("reset") and want in doc("step") and "float32" in doc("step")
    assert _shape(reward["a0"].shape, games) in doc("step") and reward["a0"].dtype == "float32"
    assert set(done) == {*env.agents, "__all__"} and '`"__all__"`' in doc("step")
    assert _shape(done["__all__"].shape, games) in doc("step")
    for name, value in info.items():
        assert f"`{name}`" in doc("step"), f"info[{name!r}] is not documented"
        if name in ("record", "metrics"):  # a TickInfo; a width set by `metrics`
            continue
        leaf = value["a0"] if isinstance(value, dict) else value
        assert _shape(leaf.shape, games) in doc("step"), (name, leaf.shape)
        assert str(leaf.dtype) in doc("step")
    avail = jax.eval_shape(env.get_avail_actions, state)["a0"]
    assert _shape(avail.shape, games) in doc("get_avail_actions")
    inputs = jax.eval_shape(lambda s: env.team_inputs(s, 0), state)
    for field in ("obs", "avail"):
        trailing = _shape(getattr(inputs, field).shape[len(lead) :], None)
        assert trailing in doc("team_inputs"), (field, trailing)
    world = jax.eval_shape(env.world_state, state)
    assert _shape(world.shape, games) in doc("world_state")


# ---- the command line page -----------------------------------------------------------------
def test_cli_page_lists_every_subcommand_and_option():
    parser = build_parser()
    page = cli_page.cli_page(parser)
    subs = cli_page.subcommands(parser)
    assert [name for name, _, _ in subs] == [
        "play", "eval", "crossplay", "scenarios", "view", "client", "train",
        "demos record", "demos from-replays", "plot", "launch",
    ]  # fmt: skip
    for name, _, sub in subs:
        start = page.index(f"## marl-bgs {name} {{#{name.replace(' ', '-')}}}")
        end = page.find("\n## ", start + 1)
        section = page[start : end if end > 0 else len(page)]
        assert cli_page.usage(sub) in section
        actions = [a for a in sub._actions if not isinstance(a, argparse._HelpAction)]
        assert actions
        for action in actions:
            row = next(
                (line for line in section.splitlines() if line.startswith(
                    f"| {cli_page.code(cli_page.flags(action))} |")),
                None,
            )  # fmt: skip
            assert row is not None, f"{name}: no row for {action.option_strings or action.dest}"
            for flag in action.option_strings:
                assert flag in row
            if action.help:
                assert cli_page.escape(action.help) in row
            for choice in action.choices or ():
                assert f"`{choice}`" in row
            assert cli_page.default(action) in row
            if action.option_strings and action.nargs != 0 and action.default is not None:
                assert f"default `{action.default}`" in row


def test_cli_page_is_built_and_reads_as_the_help_does():
    built = site_build.build_once().site / "reference" / "cli" / "index.html"
    text = built.read_text()
    parser = build_parser()
    for _, _, sub in cli_page.subcommands(parser):
        for action in cli_page.options(sub):
            for flag in action.option_strings:
                assert f">{flag}" in text or f" {flag}" in text, flag
    body = text[text.index("<article") :]
    assert "&amp;#" not in body and "\\|" not in body and "\\_" not in body


@pytest.mark.parametrize(
    "text",
    [
        "a | b <c> & d",
        "API key from $MARL_BGS_LLM_API_KEY",
        "run folder (the config's `out`)",
        "one `odd backtick *here* [x](y) # no",
        "nested `a|b` code",
    ],
)
def test_help_text_escape_renders_as_the_same_text(text):
    rendered_html = markdown.markdown(
        f"| h |\n|---|\n| {cli_page.escape(text)} |", extensions=["tables"]
    )
    cell = re.search(r"<td>(.*)</td>", rendered_html, re.S).group(1)
    plain = html.unescape(re.sub(r"<[^>]+>", "", cell))
    expected = text if text.count("`") % 2 else text.replace("`", "")
    assert plain == expected
