"""The site's one template mechanism (marl_bgs/site/templates.py): every page's words are
Jinja2 templates under site_src/_templates/, rendered strictly (a missing value is an error,
never a blank), and every string from a file is escaped on its way to the page."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from types import SimpleNamespace as NS

import jinja2
import markdown
import pytest

from marl_bgs.site import formatting, templates

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "marl_bgs" / "site"
HOSTILE = '<script>alert("x")</script> | *b* _u_ [l](javascript:alert(1)) &amp; `c` {#id}'
NAMES = templates.template_names()
SUFFIX = templates.SUFFIX


def _names_in_code() -> set[str]:
    """Every template name written in the site code (string constants ending in .md.j2, but
    nbconvert's own template for the notebooks, marl_bgs/site/tutorial.md.j2)."""
    found = set()
    for path in SITE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                name = node.value
                if name.endswith(templates.SUFFIX) and name not in (SUFFIX, "tutorial.md.j2"):
                    found.add(name)
    return found


def test_the_templates_live_under_site_src_templates_and_are_not_published():
    assert templates.TEMPLATES == ROOT / "site_src" / "_templates"
    assert "/_templates/" in (ROOT / "mkdocs.yml").read_text()
    assert len(NAMES) > 30
    # one mechanism: no template of another format is left beside them
    others = [p for p in templates.TEMPLATES.rglob("*") if p.is_file()]
    assert {p.name for p in others if not p.name.endswith(templates.SUFFIX)} == {"README.md"}


@pytest.mark.parametrize("name", NAMES)
def test_each_template_parses_and_says_what_it_is(name):
    templates.environment().get_template(name)  # a syntax error fails here
    source = (templates.TEMPLATES / name).read_text()
    assert source.startswith("{#"), f"{name}: open with a comment saying what fills it"


def test_every_template_the_code_names_exists():
    named = _names_in_code()
    named |= {f"classes/{n}.md.j2" for n in ("mage", "warrior", "hunter", "rogue", "priest")}
    assert len(named) > 15
    assert not named - set(NAMES), sorted(named - set(NAMES))


def test_a_missing_value_is_an_error_never_a_blank():
    with pytest.raises(jinja2.UndefinedError, match="links"):
        templates.render("home-game.md.j2")
    env = templates.environment()
    with pytest.raises(jinja2.UndefinedError):
        env.from_string("{{ a.b }}").render(a={})
    with pytest.raises(jinja2.UndefinedError):
        env.from_string("{% if missing %}x{% endif %}").render()
    words = templates.macros("leaderboard/words.md.j2")
    with pytest.raises(TypeError):  # a macro refuses a value it does not take
        words.maps_text(True, extra=1)


def test_block_tags_leave_no_blank_lines_and_the_last_newline_stays():
    out = templates.environment().from_string(
        "a\n{% if x %}\nb\n{% endif %}\n{# note #}\nc{% if x %} d{% endif +%}\ne\n"
    )
    assert out.render(x=True) == "a\nb\nc d\ne\n"
    assert out.render(x=False) == "a\nc\ne\n"


def test_strings_from_files_are_escaped_where_they_land():
    page = templates.render(
        "home-game.md.j2",
        replay={"title": HOSTILE, "file": "x.json", "src": "a/x.json", "score": [HOSTILE, 1],
                "fighting_from": HOSTILE},
        links=[],
    )  # fmt: skip
    assert "<script" not in page and "&lt;script&gt;" in page
    assert "data-tick" not in page  # a start that is not a whole number is left out
    seat = templates.macros("leaderboard/words.md.j2").seat_taken
    shown = seat(NS(admitted=True, replaced=HOSTILE))
    assert "<" not in shown and "|" not in shown.replace("&#124;", "") and "`" not in shown
    assert formatting.text(HOSTILE) in shown
    html = markdown.markdown(f"| a |\n|---|\n| {shown} |", extensions=["tables"])
    assert "<script" not in html and "<em>" not in html and "href=" not in html


def test_the_scenario_words_escape_markdown_in_what_the_files_say():
    words = templates.module("scenarios/words.md.j2", target_name=lambda actor, target: "b0")
    note = templates.words(words.learned_note([(HOSTILE, "w/*x*.npz")], []))
    assert "<script" not in note and "`w/*x*.npz`" in note  # a code span shows it as written
    html = markdown.markdown(note)
    assert "<em>" not in html and "<script" not in html and "href=" not in html
    assert "<code>w/*x*.npz</code>" in html  # no backslashes shown inside the code span
    res = {"games_per_scenario": 8, "root_seed": 1, "engine": "<b>", "versions": {"a|b": "*"}}
    said = templates.words(words.provenance(res))
    assert said == "8 games per System per scenario; root seed 1; the &lt;b&gt; engine; " + (
        "versions: a\\|b \\*"
    )


def test_the_escapers():
    assert formatting.text("TDM-Alpha 2.0") == "TDM-Alpha 2.0"
    assert formatting.text("a|b<c>") == "a&#124;b&#60;c&#62;"
    assert formatting.md("a_b (c)") == "a\\_b \\(c\\)"
    assert formatting.html("<a href='x'>") == "&lt;a href=&#x27;x&#x27;&gt;"
    assert formatting.url("a b.svg") == "a%20b.svg"
    assert formatting.join_words(["a", "b", "c"]) == "a, b and c"
    assert formatting.inline_code("a`b") == "``a`b``"


def test_no_page_module_imports_another_pages_helpers():
    """Shared helpers live in formatting.py, templates.py, seasons.py and the drawing
    modules; a page module never imports from another page module."""
    pages = {
        "classes_page", "cli_page", "data_pages", "explorer_page", "leaderboard_page",
        "llm_page", "metrics_page", "rules_page", "scenarios_page", "tutorials", "viewer_key",
    }  # fmt: skip
    for name in pages:
        source = (SITE / f"{name}.py").read_text()
        imported = set(re.findall(r"^\s*from \.(\w+) import", source, re.M))
        imported |= {m for m in re.findall(r"^\s*from \. import (\w+)", source, re.M)}
        assert not imported & pages, (name, imported & pages)
