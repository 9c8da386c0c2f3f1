"""How the site writes numbers, names and markup (`marl_bgs/site/formatting.py`).

Escaping: a string from a file (an entrant's name, a weights file, a briefing) must reach the
page as the characters it holds, never as markup: `<script>` stays text, `&` stays an
ampersand, Markdown punctuation does not turn into emphasis, links or table cells. These tests
check the escapers' output by hand and then render it with Python-Markdown (the site's
extensions) and read back what a browser would show. Numbers: every formatter on hand-worked
values, rounding and the missing-number dash."""

from __future__ import annotations

import html as std_html
from html.parser import HTMLParser

import markdown
import pytest

from marl_bgs.site import formatting
from marl_bgs.site.formatting import (
    DASH,
    FILTERS,
    code_block,
    elo,
    fixed,
    g,
    inline_code,
    join_words,
    md,
    num,
    numbers,
    p_sig,
    p_value,
    pct,
    plural,
    season_title,
    signed,
    size,
    text,
    ticks,
    trimmed,
    url,
    viewer_div,
)
from marl_bgs.site.formatting import html as html_escape

HOSTILE = [
    "<script>alert('x')</script>",
    "Tom & Jerry",
    "a|b",
    "*bold* _it_ __u__",
    "[click](javascript:alert(1))",
    "`code`",
    "# heading",
    'say "hi"',
    "<img src=x onerror=alert(1)>",
    "&amp; &lt;",  # already-escaped text must show as typed, not as & and <
    "back\\slash",
    "{: .cls }",
]


class Shown(HTMLParser):
    """The text a browser shows and the tags it builds."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)

    def handle_data(self, data):
        self.text.append(data)


def render(source: str) -> Shown:
    page = markdown.markdown(source, extensions=["tables", "attr_list", "md_in_html"])
    shown = Shown()
    shown.feed(page)
    return shown


# ---- text ------------------------------------------------------------------------------------
def test_text_by_hand():
    # < is 60, > is 62, & is 38, " is 34, | is 124, _ is 95, * is 42, ` is 96, [ ] are 91 93
    written = ["<script>", "Tom & Jerry", 'say "hi"', "a|b_c*d`e[f]", "line\nbreak", "é"]
    assert [text(s) for s in written] == [
        "&#60;script&#62;", "Tom &#38; Jerry", "say &#34;hi&#34;",
        "a&#124;b&#95;c&#42;d&#96;e&#91;f&#93;", "line&#10;break",
        "&#233;",  # é is not in the safe set: a reference the browser shows as é
    ]  # fmt: skip
    assert text("Alpha-2 (v1.0): 50% ok? yes! a/b=c, d+e") == (
        "Alpha-2 (v1.0): 50% ok? yes! a/b=c, d+e"
    )  # letters, digits, spaces and harmless punctuation stay
    assert text(1200.5) == "1200.5" and text(None) == "None"  # anything, as str()


def test_text_keeps_only_safe_characters_raw():
    every = "".join(chr(c) for c in range(32, 127))
    out = text(every)
    raw = out
    for c in range(32, 127):
        raw = raw.replace(f"&#{c};", "")
    assert set(raw) <= set(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 .,:;()'/=%?!+-"
    )
    assert std_html.unescape(out) == every  # and every reference stands for the character


@pytest.mark.parametrize("name", HOSTILE)
def test_text_is_shown_as_written_in_a_table_cell_and_builds_no_markup(name):
    shown = render(f"| Entrant |\n|---|\n| {text(name)} |")
    assert shown.tags == ["table", "thead", "tr", "th", "tbody", "tr", "td"]
    assert "".join(shown.text).strip().endswith(name)


@pytest.mark.parametrize("name", HOSTILE)
def test_text_is_safe_inside_a_double_quoted_attribute(name):
    shown = Shown()
    shown.feed(f'<span title="{text(name)}">x</span>')
    assert shown.tags == ["span"] and shown.text == ["x"]
    assert shown.get_starttag_text() == f'<span title="{text(name)}">'


# ---- md --------------------------------------------------------------------------------------
def test_md_by_hand():
    written = ["<script>", "Tom & Jerry", "a_b*c", "[x](y)", "a|b", "# h", "`c`", "x\\y", '"q"']
    assert [md(s) for s in written] == [
        "&lt;script&gt;", "Tom &amp; Jerry", "a\\_b\\*c", "\\[x\\]\\(y\\)", "a\\|b", "\\# h",
        "\\`c\\`", "x\\\\y", "&quot;q&quot;",
    ]  # fmt: skip
    assert md("plain words 12") == "plain words 12"


@pytest.mark.parametrize("name", HOSTILE)
def test_md_is_shown_as_written_in_a_paragraph(name):
    shown = render(f"Name: {md(name)} here.")
    assert shown.tags == ["p"]
    assert "".join(shown.text) == f"Name: {name} here."


@pytest.mark.parametrize("name", HOSTILE)
def test_md_is_shown_as_written_in_a_table_cell(name):
    shown = render(f"| Entrant |\n|---|\n| {md(name)} |")
    assert shown.tags == ["table", "thead", "tr", "th", "tbody", "tr", "td"]
    assert "".join(shown.text).strip().endswith(name)


# ---- html and url ----------------------------------------------------------------------------
def test_html_by_hand():
    assert html_escape("<b>Tom & 'Jerry'</b>") == "&lt;b&gt;Tom &amp; &#x27;Jerry&#x27;&lt;/b&gt;"
    assert html_escape('"x"') == "&quot;x&quot;"
    assert html_escape('"x"', quote=False) == '"x"'  # quotes only escaped when asked
    assert html_escape("<x>", quote=False) == "&lt;x&gt;"


@pytest.mark.parametrize("name", HOSTILE)
def test_html_is_shown_as_written_in_a_raw_html_block(name):
    shown = render(f'<div markdown="0">{html_escape(name)}</div>')
    assert shown.tags == ["div"]
    assert "".join(shown.text) == name


def test_url_by_hand():
    assert url("a b.svg") == "a%20b.svg"  # space is %20
    assert url("maps/47.json") == "maps/47.json"  # / kept: a path
    assert url("x&y?z#w") == "x%26y%3Fz%23w"  # & is 26, ? is 3F, # is 23
    assert url("<x>") == "%3Cx%3E"
    assert url("é") == "%C3%A9"  # UTF-8 bytes C3 A9


# ---- numbers ---------------------------------------------------------------------------------
def test_g_is_short():
    assert g(2.5) == "2.5" and g(3.0) == "3" and g(3) == "3"
    assert g(0.25) == "0.25" and g(-1.75) == "-1.75" and g(100.0) == "100"


def test_trimmed_by_hand():
    assert trimmed(2.50) == "2.5"  # 2.500 -> 2.5
    assert trimmed(3.0) == "3"  # 3.000 -> 3
    assert trimmed(10.0) == "10"  # the zero before the point stays
    assert trimmed(2.0004) == "2"  # 2.000 -> 2
    assert trimmed(0.1236) == "0.124"  # rounded to 3 decimals
    assert trimmed(1.23456, 2) == "1.23"
    assert trimmed(1.5, 0) == "2"  # .0f rounds half to even: 1.5 -> 2
    assert trimmed(1200.0, 2) == "1200"


def test_num_by_hand():
    assert num(12345) == "12,345"
    assert num(1234567) == "1,234,567"
    assert num(-9876543) == "-9,876,543"
    assert num(999) == "999"
    assert num(1234.5, 1) == "1,234.5"
    assert num(1234.56, 0) == "1,235"
    assert num(0.125, 2) == "0.12"  # 0.125 is exact in binary: half to even -> 0.12


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (1200.0, "1200"),
        (1199.5, "1200"),  # half up: floor(1200.0)
        (1199.4999, "1199"),
        (2.5, "3"),  # half up, not Python's round-half-even (round(2.5) == 2)
        (3.5, "4"),
        (-0.5, "0"),  # floor(0.0)
        (-1.5, "-1"),  # floor(-1.0)
        (-1.51, "-2"),
        (None, DASH),
    ],
)
def test_elo_is_whole_and_rounded_half_up(value, shown):
    assert elo(value) == shown


def test_signed_pct_fixed_by_hand():
    assert signed(3.14159) == "+3.1" and signed(-2, 2) == "-2.00" and signed(0) == "+0.0"
    assert signed(12.25, 0) == "+12"
    assert pct(0.1234) == "12.3%"  # 12.34 -> 12.3
    assert pct(1) == "100.0%" and pct(0) == "0.0%" and pct(0.5, 0) == "50%"
    assert pct(0.00456, 2) == "0.46%"
    assert fixed(1 / 3) == "0.333" and fixed(2, 1) == "2.0" and fixed(-0.0005, 2) == "-0.00"
    for f in (signed, pct, fixed):
        assert f(None) == DASH == "–"


def test_p_values_by_hand():
    assert p_value(0.0009) == "< 0.001"
    assert p_value(0.001) == "0.001"  # the threshold itself is printed
    assert p_value(0.0559) == "0.056"
    assert p_value(0.5) == "0.500"
    assert p_value(None) == DASH
    assert p_sig(0.05594) == "0.0559"  # three significant digits
    assert p_sig(0.001234) == "0.00123"
    assert p_sig(0.5) == "0.5"
    assert p_sig(1.0) == "1"
    assert p_sig(0.00099) == "< 0.001"
    assert p_sig(None) == DASH


def test_size_by_hand():
    assert size(0) == "0 B" and size(999) == "999 B"
    assert size(1000) == "1.0 kB" and size(1500) == "1.5 kB" and size(123_456) == "123.5 kB"
    assert size(1_000_000) == "1.0 MB" and size(2_345_678) == "2.3 MB"


# ---- words -----------------------------------------------------------------------------------
def test_words_by_hand():
    assert plural(1, "pillar") == "1 pillar"
    assert plural(0, "pillar") == "0 pillars" and plural(2, "pillar") == "2 pillars"
    assert ticks(1) == "1 tick" and ticks(5) == "5 ticks"
    assert join_words(["a"]) == "a"
    assert join_words(["a", "b"]) == "a and b"
    assert join_words(["a", "b", "c", "d"]) == "a, b, c and d"
    assert numbers([47, 48, 49]) == "47, 48, 49" and numbers([]) == ""


@pytest.mark.parametrize(
    ("folder", "title"),
    [
        ("season0", "Season 0"),
        ("season12", "Season 12"),
        ("season-3", "Season 3"),
        ("season_007", "Season 7"),
        ("Season0", "Season0"),  # only the lower-case folder name is recognised
        ("season0b", "season0b"),
        ("trial", "trial"),
    ],
)
def test_season_title(folder, title):
    assert season_title(folder) == title


# ---- markup ----------------------------------------------------------------------------------
def test_code_block_fence_outlasts_the_body():
    assert code_block("x = 1\n\n", "python") == "```python\nx = 1\n```\n"
    assert code_block("a ``` b", "") == "````\na ``` b\n````\n"  # 3 inside -> 4 outside
    assert code_block("a ````` b", "json").startswith("``````json\n")  # 5 inside -> 6


def test_code_block_content_cannot_end_the_block():
    body = "before\n```\n<script>x</script>\n```\nafter"
    page = markdown.markdown(code_block(body, "text"), extensions=["fenced_code"])
    assert page.count("<pre>") == 1 and "<script>" not in page
    assert std_html.unescape(page.split("<code")[1].split(">", 1)[1].split("</code>")[0]) == (
        body + "\n"
    )


def test_inline_code_by_hand():
    assert inline_code("a_b") == "`a_b`"
    assert inline_code("a`b") == "``a`b``"  # one backtick inside -> two outside
    assert inline_code("x ``` y") == "````x ``` y````"
    assert inline_code("`x`") == "`` `x` ``"  # padded where the body starts or ends with one
    assert inline_code("two\nlines") == "`two lines`"


@pytest.mark.parametrize("body", ["a_b*c", "<b>&amp;</b>", "x `y` z", "`edge", "|pipe|"])
def test_inline_code_is_shown_exactly(body):
    shown = render(f"see {inline_code(body)} here")
    assert shown.tags == ["p", "code"]
    assert "".join(shown.text) == f"see {body} here"


def test_viewer_div_escapes_its_source():
    out = viewer_div('r/"a"&<b>.json', compact=True)
    assert out == (
        '<div class="mbg-viewer" data-src="r/&quot;a&quot;&amp;&lt;b&gt;.json" '
        'data-view="oracle" data-compact="true"></div>'
    )
    assert 'data-compact="false" data-x="1">' in viewer_div("a", compact=False, extra=' data-x="1"')


def test_every_filter_is_the_function_of_its_name():
    for name, fn in FILTERS.items():
        assert fn is getattr(formatting, name), name
    assert {"text", "md", "html", "url", "elo", "pct", "inline_code"} <= set(FILTERS)


# ---- gaps found by these tests, now mended ---------------------------------------------
def test_trimmed_without_decimals_keeps_whole_numbers():
    assert trimmed(100, 0) == "100"  # was '1' ('100'.rstrip('0'))


def test_text_turns_a_single_quote_into_a_reference():
    # the docstring: every other character ('<', '&', ..., quotes, newlines) becomes a
    # reference, 'attributes included'; an attribute in single quotes would end at it
    assert text("it's") == "it&#39;s"


def test_g_is_exact():
    assert float(g(1234567.0)) == 1234567.0  # was '1.23457e+06'


def test_g_keeps_a_float32_short_and_trimmed_never_prints_minus_zero():
    import numpy as np

    assert g(np.float32(0.1)) == "0.1"  # the class table's float32 values print as written
    assert g(np.float32(0.85)) == "0.85"
    assert trimmed(-0.0001) == "0"  # '-0.000' trimmed would read '-0'
