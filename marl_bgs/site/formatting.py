"""How the site writes numbers, names and small pieces of markup: one module for every page.

The page modules and the templates (as Jinja2 filters, see `templates.py`) use these, so a
number or a name is written the same way on every page and no page imports helpers from
another. Three escapers, one per kind of place a string from a file can land:

- `text`: Markdown and HTML alike (tables, attributes): every character but letters,
  digits, spaces and harmless punctuation becomes a numeric character reference;
- `md`: Markdown text: HTML-escaped, and Markdown punctuation backslash-escaped;
- `html`: HTML only (`html.escape`), for raw HTML blocks and Markdown that only needs its
  `<`, `>`, `&` and quotes neutralised.
"""

from __future__ import annotations

import html as _html
import math
import re
from collections.abc import Sequence
from typing import Any
from urllib.parse import quote

import numpy as np

DASH = "–"  # a missing number
NBSP = "\u00a0"
SAFE_CHARS = re.compile(r"[A-Za-z0-9 .,:;()/=%?!+-]")
# Backslash escapes Python-Markdown knows (with the tables extension's "|").
MD_SPECIAL = set("\\`*_{}[]()#+!|")


# ---- escaping --------------------------------------------------------------------------------
def text(value: Any) -> str:
    """Plain text safe in Markdown, tables and HTML (attributes included).

    Letters, digits, spaces and harmless punctuation stay; every other character (`<`, `&`,
    `|`, `*`, `_`, `[`, backticks, quotes, newlines...) becomes a numeric character reference,
    which Markdown passes through untouched and the browser shows as the character itself.
    """
    return "".join(c if SAFE_CHARS.fullmatch(c) else f"&#{ord(c)};" for c in str(value))


def md(value: Any) -> str:
    """A string from a file as Markdown text: HTML-escaped, Markdown punctuation escaped."""
    out = _html.escape(str(value))
    return "".join(f"\\{ch}" if ch in MD_SPECIAL else ch for ch in out)


def html(value: Any, quote: bool = True) -> str:
    """A string from a file inside HTML (or Markdown that needs no more than HTML's escape)."""
    return _html.escape(str(value), quote=quote)


def url(value: Any) -> str:
    """A file name as a path segment of a link."""
    return quote(str(value))


# ---- numbers ---------------------------------------------------------------------------------
def g(v: float) -> str:
    """A number from the class table or the engine, as short as it is exact ('2.5', '3',
    '1234567'): `:g` where its six significant digits hold the value (in the value's own
    precision, so a float32 0.1 is '0.1'), else the shortest positional form."""
    short = f"{v:g}"
    same = type(v)(short) == v if isinstance(v, (float, np.floating)) else float(short) == v
    return short if same else np.format_float_positional(v, trim="-")


def trimmed(v: float, digits: int = 3) -> str:
    """v with at most `digits` decimals, trailing zeros dropped (2.50 -> '2.5', 3.0 -> '3')."""
    out = f"{v:.{digits}f}"
    if "." in out:
        out = out.rstrip("0").rstrip(".")
    return "0" if out == "-0" else out


def num(n: float, digits: int | None = None) -> str:
    """A count with thousands separators ('12,345'), or a number with `digits` decimals
    ('1,234.5')."""
    return f"{n:,}" if digits is None else f"{n:,.{digits}f}"


def elo(v: float | None) -> str:
    """A rating as printed everywhere: whole Elo, rounded half up (as the tiers place it)."""
    return DASH if v is None else str(math.floor(v + 0.5))


def signed(v: float | None, digits: int = 1) -> str:
    return DASH if v is None else f"{v:+.{digits}f}"


def pct(v: float | None, digits: int = 1) -> str:
    """A share (0-1) as a percentage with its unit."""
    return DASH if v is None else f"{100 * v:.{digits}f}%"


def fixed(v: float | None, digits: int = 3) -> str:
    return DASH if v is None else f"{v:.{digits}f}"


def p_value(v: float | None) -> str:
    if v is None:
        return DASH
    return "< 0.001" if v < 0.001 else f"{v:.3f}"


def p_sig(v: float | None) -> str:
    """A p-value to three significant digits ('0.0559'), or '< 0.001'."""
    if v is None:
        return DASH
    p = float(v)
    return "< 0.001" if p < 0.001 else f"{p:.3g}"


def size(n: int) -> str:
    """A file's size in B, kB or MB."""
    return f"{n / 1e6:.1f} MB" if n >= 1e6 else f"{n / 1e3:.1f} kB" if n >= 1e3 else f"{n} B"


# ---- words -----------------------------------------------------------------------------------
def plural(count: int, word: str) -> str:
    """'1 pillar', '2 pillars'."""
    return f"{count} {word}{'' if count == 1 else 's'}"


def ticks(n: int) -> str:
    """'1 tick', '5 ticks'."""
    return plural(n, "tick")


def join_words(items: Sequence[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def numbers(values: Sequence[int]) -> str:
    """'47, 48, 49'."""
    return ", ".join(str(v) for v in values)


def season_title(folder: str) -> str:
    """'season0' -> 'Season 0'; other names are shown as they are (plain text)."""
    m = re.fullmatch(r"season[-_]?(\d+)", folder)
    return f"Season {int(m.group(1))}" if m else folder


# ---- markup ----------------------------------------------------------------------------------
def code_block(body: str, lang: str) -> str:
    """A fenced code block whose fence is longer than any run of backticks in `body`, so a
    file's text cannot end it early (the highlighter escapes what is inside)."""
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{lang}\n{body.rstrip()}\n{fence}\n"


def inline_code(body: str) -> str:
    """A Markdown code span showing `body` exactly as written: Markdown escapes what is
    inside a code span itself, so no character reference is needed (one would be shown as
    its own characters); the backtick run is longer than any inside `body`."""
    body = " ".join(body.splitlines())
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if body.startswith("`") or body.endswith("`") else ""
    return f"{fence}{pad}{body}{pad}{fence}"


def viewer_div(src: str, *, compact: bool, extra: str = "") -> str:
    """An element the site's script turns into a replay viewer (`mountAll` in embed.js)."""
    return (
        f'<div class="mbg-viewer" data-src="{_html.escape(src)}" data-view="oracle" '
        f'data-compact="{"true" if compact else "false"}"{extra}></div>'
    )


FILTERS = {
    "text": text,
    "md": md,
    "html": html,
    "url": url,
    "g": g,
    "trimmed": trimmed,
    "num": num,
    "elo": elo,
    "signed": signed,
    "pct": pct,
    "fixed": fixed,
    "p_value": p_value,
    "p_sig": p_sig,
    "size": size,
    "plural": plural,
    "ticks": ticks,
    "join_words": join_words,
    "numbers": numbers,
    "code_block": code_block,
    "inline_code": inline_code,
}
