"""The site's one template mechanism: Jinja2 templates under `site_src/_templates/`.

Every generated page's words live in those templates (Markdown with Jinja2 tags; see
`site_src/_templates/README.md`), so a writer edits Markdown, not Python. The page modules
compute the numbers, tables and pictures and hand them over as context; the formatting
helpers of `formatting.py` are the templates' filters.

The environment is strict: an undefined name or attribute is an error, never an empty gap
(`StrictUndefined`), and a macro called with a value it does not take fails too. Nothing is
escaped automatically: HTML escaping is wrong for Markdown, so every value from a file is
escaped by the page code or by an explicit filter (`text`, `md`, `html`) in the template.
Block tags on a line of their own leave no blank line (`trim_blocks`, `lstrip_blocks`), and
a template keeps its final newline.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import jinja2

from . import formatting

TEMPLATES = Path(__file__).resolve().parents[2] / "site_src" / "_templates"
SUFFIX = ".md.j2"


@functools.cache
def environment(folder: Path = TEMPLATES) -> jinja2.Environment:
    """The Jinja2 environment of the templates in `folder`, with the site's filters."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(folder),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters.update(formatting.FILTERS)
    env.globals["viewer_div"] = formatting.viewer_div
    return env


def render(name: str, **context: Any) -> str:
    """The template `name` (a path under site_src/_templates/) filled with `context`."""
    return environment().get_template(name).render(**context)


def module(name: str, **context: Any) -> Any:
    """The template `name` run with `context` for what it defines: its macros and the
    values of its top-level `{% set %}` blocks, as attributes."""
    return environment().get_template(name).make_module(context)


def macros(name: str) -> Any:
    """The macros of the template `name` (it needs no context of its own)."""
    return environment().get_template(name).module


def words(value: Any) -> str:
    """A macro's result or a `{% set %}` block's text as a string, without the newline that
    ends its last line in the template."""
    return str(value).rstrip("\n")


def template_names(folder: Path = TEMPLATES) -> list[str]:
    """Every template under `folder`, as the names `render` takes."""
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob(f"*{SUFFIX}"))
