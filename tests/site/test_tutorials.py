"""The tutorials: notebooks in site_src/tutorials/, stored without outputs, executed here
without an error, rendered into exports/tutorials/ exactly as they print now, and shown in
the built site.

Executing all five takes a few minutes with a warm JAX compilation cache
(JAX_COMPILATION_CACHE_DIR, which conftest.py sets and the kernels inherit) and far longer
without one: every notebook compiles its own game loops. Each test prints its notebook's
execution time (`pytest -s`).
"""

from __future__ import annotations

import base64
import json
import math
import re
from pathlib import Path

import pytest

from marl_bgs.site import tutorials

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = tutorials.notebook_paths(ROOT)
STEMS = [
    "01-first-game",
    "02-write-a-system",
    "03-train-rec-ippo",
    "04-crossplay",
    "05-results-and-pandas",
]


def _needs_jupyter() -> None:
    for module in ("nbformat", "nbclient", "nbconvert", "ipykernel"):
        pytest.importorskip(module)


def test_the_five_tutorials_are_there():
    assert [p.stem for p in NOTEBOOKS] == STEMS


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_is_stored_without_outputs(path):
    pytest.importorskip("nbformat")
    import nbformat

    nb = tutorials.read_notebook(path)
    nbformat.validate(nb)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code and all(c.outputs == [] and c.execution_count is None for c in code)
    assert tutorials.title_of(nb) and tutorials.summary_of(nb)
    assert len({c.id for c in nb.cells}) == len(nb.cells)


def test_export_is_of_these_notebooks():
    """Cheap staleness check (no kernel): every notebook has an export made from its cells
    as they are now, with its page and figures on disk."""
    pytest.importorskip("nbformat")
    index = tutorials.read_index(ROOT)
    assert index is not None, "run scripts/export_tutorials.py"
    entries = {e["notebook"]: e for e in index["tutorials"]}
    assert sorted(entries) == [p.name for p in NOTEBOOKS]
    for path in NOTEBOOKS:
        entry = entries[path.name]
        assert entry["source_sha256"] == tutorials.source_hash(tutorials.read_notebook(path)), (
            f"{path.name} changed since its export: run scripts/export_tutorials.py"
        )
        for name in [entry["page"], *entry["figures"]]:
            assert (ROOT / tutorials.EXPORT_DIR / name).is_file(), name


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_executes_and_its_page_is_what_it_prints(path, tmp_path):
    """Every cell runs without an error (nbclient raises CellExecutionError naming the cell),
    and the rendered page and figures are byte for byte the exported ones (outputs tagged
    cpu-float aside on another kind of CPU than the one that recorded them)."""
    _needs_jupyter()
    run = tutorials.execute(path, workdir=tmp_path)
    print(f"\n{path.stem}: executed in {run.seconds:.1f} s")
    old = tutorials.existing_files(ROOT / tutorials.EXPORT_DIR)
    new = tutorials.build_files(ROOT, [run], previous=old)
    if path.stem == "04-crossplay":
        check_league_and_grids(new["04-crossplay.md"].decode())
    stale, notes = tutorials.stale_files(new, old)
    for note in notes:
        print(f"note: {note}")
    assert stale == [], f"stale: {stale}; run scripts/export_tutorials.py {path.stem}"


# ---- tutorial 4 computes its league and its grids --------------------------------------------
LEAGUE = ["league-0", "league-1", "league-2"]
CPU0 = "Rec-IPPO CPU-0"


def _tables(page: str) -> list[list[list[str]]]:
    """Every HTML table of a rendered page, as rows of cell texts (header row first)."""
    tables = []
    for table in re.findall(r"<table>(.*?)</table>", page, re.DOTALL):
        rows = re.findall(r"<tr>(.*?)</tr>", table, re.DOTALL)
        tables.append([[c.strip() for c in re.findall(r"<t[hd]>(.*?)</t[hd]>", r, re.DOTALL)]
                       for r in rows])  # fmt: skip
    return tables


def _grid(page: str, rows: list[str], columns: list[str]) -> list[list[float]]:
    """The numbers of the one table with these row and column labels (all finite)."""
    found = [t for t in _tables(page) if t[0] == ["", *columns] and [r[0] for r in t[1:]] == rows]
    assert len(found) == 1, f"no single table of {rows} x {columns}"
    values = [[float(v) for v in row[1:]] for row in found[0][1:]]
    assert all(len(row) == len(columns) for row in values)
    # A game ends at the winning score of 20, but one tick can take a team past it (five
    # kills in the last tick: 24), so a mean margin lies within 24.
    assert all(math.isfinite(v) and -24 <= v <= 24 for row in values for v in row), values
    return values


def check_league_and_grids(page: str) -> None:
    """Tutorial 4's page shows a league that was trained (three members, every update
    logged, one compiled learner) and the two grids played from it: the cross-play grid
    (4 learned rows x 6 columns, the learned block antisymmetric) and the zero-shot
    coordination grid (3 x 3), each with its heatmap."""
    trained = re.findall(
        r"(league-\d): (\d+) updates of (\d+) games x (\d+) ticks, (\d+) game steps", page
    )
    assert [t[0] for t in trained] == LEAGUE, trained
    for _, updates, games, ticks, steps in trained:
        assert int(updates) >= 8 and int(steps) == int(updates) * int(games) * int(ticks)
    assert "one compiled learner for all three: True" in page
    learned = [*LEAGUE, CPU0]
    assert "18 evaluate calls of 8 games; grid 4 x 6" in page
    cross = _grid(page, learned, [*learned, "Random", "TDM-Alpha"])
    for i in range(4):
        for j in range(4):
            if i != j:
                assert cross[i][j] == -cross[j][i], (i, j)
    assert len({v for row in cross for v in row}) > 3  # not one constant
    assert "9 teams against Random, 8 games each" in page
    mixers = ["league-0", "league-1", CPU0]
    zsc = _grid(page, mixers, mixers)
    check_reading(cross, zsc)
    for alt in ("the rolling mean reward", "Heatmap of the cross-play grid",
                "Heatmap of the zero-shot coordination grid"):  # fmt: skip
        assert re.search(rf"!\[[^\]]*{alt}[^\]]*\]\(04-crossplay/figure_\d+_\d+\.png\)", page), alt


def check_reading(cross: list[list[float]], zsc: list[list[float]]) -> None:
    """What tutorial 4's prose reads off its two grids holds for the numbers printed.

    Cross-play (rows league-0..2, CPU-0; columns those, Random, TDM-Alpha): every learned
    System beats Random and loses to TDM-Alpha, CPU-0 by more and by less than every
    member; CPU-0's row is ahead of every member; the members' cells against each other
    have both signs and are under three times the largest diagonal cell. Zero-shot grid
    (league-0, league-1, CPU-0 in slots 0-1 by slots 2-4): every team with CPU-0's agents
    scores more than every team without; the two league-only mixes land in different places
    against their parents (below both, between, above both)."""
    random, alpha = [row[4] for row in cross], [row[5] for row in cross]
    assert min(random) > 0 and random[3] > max(random[:3]), random
    assert max(alpha) < 0 and alpha[3] > max(alpha[:3]), alpha
    assert min(cross[3][:3]) > 0, cross[3]
    members = [cross[i][j] for i in range(3) for j in range(3) if i != j]
    diagonal = [abs(cross[i][i]) for i in range(4)]
    assert min(members) < 0 < max(members), members
    assert max(diagonal) > 0 and max(map(abs, members)) < 3 * max(diagonal), (members, diagonal)
    with_cpu0 = [zsc[i][j] for i in range(3) for j in range(3) if 2 in (i, j)]
    without = [zsc[i][j] for i in range(2) for j in range(2)]
    assert min(with_cpu0) > max(without), (with_cpu0, without)

    def place(x: int, y: int) -> int:
        mixed, parents = zsc[x][y], (zsc[x][x], zsc[y][y])
        return (mixed > min(parents)) + (mixed > max(parents))

    assert place(0, 1) != place(1, 0), zsc


def test_tutorial_4_export_shows_the_league_and_the_grids():
    """Cheap (no kernel): the exported page of tutorial 4, which the execution test above
    proves is what the notebook prints now, holds a trained league and both grids."""
    page = ROOT / tutorials.EXPORT_DIR / "04-crossplay.md"
    check_league_and_grids(page.read_text())


def test_the_grid_check_refuses_a_page_without_the_grids():
    page = (ROOT / tutorials.EXPORT_DIR / "04-crossplay.md").read_text()
    for cut in ("one compiled learner for all three: True", "TDM-Alpha</th>", "league-1: "):
        with pytest.raises(AssertionError):
            check_league_and_grids(page.replace(cut, ""))


def test_the_reading_check_refuses_grids_the_prose_would_misread():
    page = (ROOT / tutorials.EXPORT_DIR / "04-crossplay.md").read_text()
    learned = [*LEAGUE, CPU0]
    cross = _grid(page, learned, [*learned, "Random", "TDM-Alpha"])
    mixers = ["league-0", "league-1", CPU0]
    zsc = _grid(page, mixers, mixers)
    check_reading(cross, zsc)
    breaks = [
        lambda c, z: c[0].__setitem__(4, -1.0),  # a member behind Random
        lambda c, z: c[3].__setitem__(5, -20.5),  # CPU-0 losing to Alpha by the most
        lambda c, z: c[3].__setitem__(0, -1.0),  # a member ahead of CPU-0
        lambda c, z: [c[i].__setitem__(i, 0.0) for i in range(4)],  # a noiseless diagonal
        lambda c, z: z[0].__setitem__(0, 30.0),  # a team without CPU-0 on top
        lambda c, z: (z[0].__setitem__(1, z[1][0]), z[1].__setitem__(0, z[1][0])),  # same place
    ]
    for k, spoil in enumerate(breaks):
        c, z = [list(r) for r in cross], [list(r) for r in zsc]
        spoil(c, z)
        with pytest.raises(AssertionError):
            check_reading(c, z)
            raise RuntimeError(f"break {k} passed the check")


def test_tutorial_pages_are_in_the_built_site():
    from marl_bgs.site.build import build_once

    site = build_once().site
    index = tutorials.read_index(ROOT)
    assert (site / "tutorials" / "index.html").is_file()
    overview = (site / "tutorials" / "index.html").read_text()
    for entry in index["tutorials"]:
        stem = entry["page"][: -len(".md")]
        page = site / "tutorials" / stem / "index.html"
        assert page.is_file(), stem
        html = page.read_text()
        assert f'href="../{stem}/"' in overview or f'href="{stem}/"' in overview, stem
        assert '<span class="filename">Output</span>' in html, f"{stem}: no output block"
        assert (site / "tutorials" / entry["notebook"]).is_file()  # the download link
        for figure in entry["figures"]:
            assert (site / tutorials.EXPORT_DIR / figure).is_file(), figure
            assert f"{tutorials.EXPORT_DIR.as_posix()}/{figure}" in html, figure
    nav = (site / "index.html").read_text()
    assert "Tutorials" in nav


# ---- the rendering helpers -----------------------------------------------------------------
def _export(page: str, cpu: str, figure: str) -> dict[str, bytes]:
    entry = {"notebook": "x.ipynb", "page": "x.md", "figures": ["x/figure_3_0.png"]}
    entry["recorded"] = {"cpu": cpu, "platform": "cpu", "versions": {"jax": "1"}}
    index = {"format": tutorials.FORMAT, "version": tutorials.VERSION, "tutorials": [entry]}
    return {
        "index.json": json.dumps(index).encode(),
        "x.md": page.encode(),
        "x/figure_3_0.png": figure.encode(),
    }


def test_cpu_float_outputs_are_compared_only_on_the_cpu_that_recorded_them():
    page = "text\n<!-- cpu-float -->\n```text\n{}\n```\n![plot](x/figure_3_0.png)\n<!-- /cpu-float -->\n"
    old = _export(page.format("0.125"), "CPU one", "curve 1")
    same_cpu = _export(page.format("0.126"), "CPU one", "curve 2")
    other_cpu = _export(page.format("0.126"), "CPU two", "curve 2")
    assert tutorials.stale_files(same_cpu, old)[0] == ["x.md", "x/figure_3_0.png"]
    stale, notes = tutorials.stale_files(other_cpu, old)
    assert stale == [] and "left out" in notes[0]
    # Outside a cpu-float region every byte still counts, on any CPU.
    changed = _export(page.format("0.126").replace("text\n<", "txet\n<"), "CPU two", "curve 2")
    assert tutorials.stale_files(changed, old)[0] == ["x.md"]


def test_tidy_html_gives_a_plain_table_with_one_header_row():
    html = (
        "<div>\n<style scoped>\n    .dataframe tbody tr th {}\n</style>\n"
        '<table border="1" class="dataframe">\n  <thead>\n'
        '    <tr style="text-align: right;">\n      <th></th>\n      <th>wins</th>\n    </tr>\n'
        "    <tr>\n      <th>map_id</th>\n      <th></th>\n    </tr>\n  </thead>\n"
        "  <tbody>\n    <tr>\n      <th>47</th>\n      <td>1</td>\n    </tr>\n  </tbody>\n"
        "</table>\n</div>"
    )
    tidy = tutorials.tidy_html(html)
    assert "style" not in tidy and "class=" not in tidy and "border" not in tidy
    assert tidy.count("<tr>") == 2 and "<th>map_id</th><th>wins</th>" in tidy


def test_png_text_chunks_are_dropped():
    import matplotlib

    matplotlib.use("Agg")
    import io

    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=(1, 1))
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    data = buf.getvalue()
    assert b"tEXt" in data and b"Software" in data
    stripped = tutorials.strip_png_text(data)
    assert b"tEXt" not in stripped and stripped.startswith(b"\x89PNG") and b"IEND" in stripped
    assert base64.b64encode(stripped)  # still a whole file


def test_an_output_showing_a_memory_address_is_refused():
    """Such an output differs on every run, so the export could never be checked."""
    nbformat = pytest.importorskip("nbformat")
    pytest.importorskip("nbconvert")
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

    cell = new_code_cell("f")
    cell.outputs = [new_output("execute_result", {"text/plain": "<function f at 0x7f3a2c1b9e40>"})]
    nb = new_notebook(cells=[new_markdown_cell("# T\n\nA test."), cell])
    nbformat.validate(nb)
    with pytest.raises(ValueError, match="memory address"):
        tutorials.render(tutorials.Executed("x", nb, 0.0))


def test_printed_text_is_one_block_however_the_kernel_flushed_it():
    """A print can reach the notebook in several stream pieces, differently from run to run."""
    nbformat = pytest.importorskip("nbformat")
    pytest.importorskip("nbconvert")
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

    cell = new_code_cell('print("same:", True)')
    cell.outputs = [
        new_output("stream", name="stdout", text="same:"),
        new_output("stream", name="stdout", text=" True\n"),
        new_output("stream", name="stderr", text="a warning\n"),
    ]
    nb = new_notebook(cells=[new_markdown_cell("# T\n\nA test."), cell])
    nbformat.validate(nb)
    page = tutorials.render(tutorials.Executed("x", nb, 0.0))["x.md"].decode()
    assert page.count('```text title="Output"') == 1
    assert "same: True" in page and "a warning" not in page
