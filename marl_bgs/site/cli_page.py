"""The Command line reference page, written at build time from the `marl-bgs` parser itself
(`marl_bgs.cli.build_parser`): every subcommand's usage, and each option's flags, default,
help and choices, so the page lists exactly what the command accepts and cannot go stale.
The words are the template `site_src/_templates/reference/cli.md.j2`.
"""

from __future__ import annotations

import argparse
import html
import re

from marl_bgs.cli import build_parser

from . import templates

USAGE_WIDTH = 80  # usage lines are wrapped at this width, whatever the terminal's
_MARKDOWN_SPECIAL = re.compile(r"([\\*_\[\]|#])")


def escape(text: str) -> str:
    """Plain help text as Markdown that renders as the same text in a table cell.

    HTML's `&`, `<` and `>` become entities; Markdown's `\\ * _ [ ] | #` are
    backslash-escaped, outside code spans only. A `code span` (an even number of
    backticks) stays code, which renders its text literally (no escape inside it would be
    undone there); an unpaired backtick is escaped.
    """
    parts = text.split("`")
    if len(parts) % 2 == 0:  # an odd number of backticks: none of them opens code
        return _escape_plain(text).replace("`", "\\`")
    out = []
    for i, part in enumerate(parts):
        if i % 2:  # inside a code span
            out.append(f"`{part}`" if "|" not in part else _escape_plain(part))
        else:
            out.append(_escape_plain(part))
    return "".join(out)


def _escape_plain(text: str) -> str:
    return _MARKDOWN_SPECIAL.sub(r"\\\1", html.escape(text, quote=False))


def code(text: str) -> str:
    """`text` as an inline code span, fenced with enough backticks to hold any in it."""
    ticks = "`" * (max((len(m) for m in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def subcommands(
    parser: argparse.ArgumentParser, prefix: str = ""
) -> list[tuple[str, str, argparse.ArgumentParser]]:
    """(name, one-line help, parser) of each subcommand, in the order `--help` lists them;
    a command with commands of its own (`demos record`) is listed as those, by full name."""
    out = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help or "" for a in action._choices_actions}
            for name, sub in action.choices.items():
                nested = subcommands(sub, f"{prefix}{name} ")
                out += nested or [(f"{prefix}{name}", helps.get(name, ""), sub)]
    return out


def anchor(name: str) -> str:
    """A subcommand's anchor on the page (`demos record` -> `demos-record`)."""
    return name.replace(" ", "-")


def options(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """The parser's arguments and options, `--help` left out."""
    return [a for a in parser._actions if not isinstance(a, argparse._HelpAction)]


def flags(action: argparse.Action) -> str:
    """How the argument is written, as `--help` writes it: `--map MAP`, `--json`,
    `--backend {numpy,jax}`, or a positional's name (`[key=value ...]` for a list)."""
    formatter = argparse.HelpFormatter("marl-bgs")
    if not action.option_strings:
        return formatter._format_args(action, action.dest)
    return formatter._format_action_invocation(action)


def default(action: argparse.Action) -> str:
    """The default as the page shows it: `default 47`, `required`, `off unless given`."""
    if not action.option_strings:  # argparse marks a `*` positional required; it is not
        return "optional, none by default" if action.nargs in ("*", "?") else "required"
    if action.required:
        return "required"
    if action.nargs == 0:  # store_true and friends
        return "off unless given"
    if action.default is None or action.default is argparse.SUPPRESS:
        return "not set by default"
    return "default " + code(str(action.default))


def usage(parser: argparse.ArgumentParser) -> str:
    """The usage line(s), wrapped at USAGE_WIDTH columns."""
    formatter = argparse.HelpFormatter(parser.prog, width=USAGE_WIDTH)
    formatter.add_usage(parser.usage, parser._actions, parser._mutually_exclusive_groups)
    return formatter.format_help().strip()


def _rows(parser: argparse.ArgumentParser) -> list[dict]:
    """Each argument of a command as the page's table shows it."""
    return [
        {
            "flags": code(flags(action)),
            "help": escape(action.help or ""),
            "choices": [code(str(c)) for c in action.choices or ()],
            "default": default(action),
        }
        for action in options(parser)
    ]


def cli_page(parser: argparse.ArgumentParser | None = None) -> str:
    """The page's Markdown (from the real parser unless one is given)."""
    parser = build_parser() if parser is None else parser
    commands = []
    for name, text, sub in subcommands(parser):
        summary = text[:1].upper() + text[1:] + "." if text else ""
        commands.append(
            {
                "name": name,
                "code": code(name),
                "anchor": anchor(name),
                "help": escape(text),
                "summary": escape(" ".join(s for s in (summary, sub.description) if s)),
                "usage": usage(sub),
                "rows": _rows(sub),
            }
        )
    return templates.render("reference/cli.md.j2", usage=usage(parser), commands=commands)
