"""Tutorials: the Jupyter notebooks in site_src/tutorials/, executed and rendered for the site.

The notebooks are stored without outputs. `scripts/export_tutorials.py` executes each one in a
fresh kernel (nbclient, CPU only, in a temporary folder) and renders it with nbconvert into
exports/tutorials/: `NN-name.md` (the page: prose, code and the outputs the run printed), its
figures under `NN-name/`, and `index.json` (per notebook: its title, a hash of its cells, and
the CPU and packages that recorded its outputs). Same notebooks and packages, same bytes: nothing
in the files depends on the time, the run's folder or how long a cell took.

The MkDocs hook builds the Tutorials section from those files (`pages`, `nav`; the overview's
words are site_src/_templates/tutorials/); it never runs a notebook, so `mkdocs serve` stays
fast. tests/site/test_tutorials.py executes every notebook and
compares its rendering with the export.

Outputs of cells tagged `cpu-float` (training numbers and curves) depend on the float32
arithmetic of the CPU that ran them: another kind of CPU may sum in another order. They are
compared exactly only on the CPU model that recorded them; elsewhere `stale_files` leaves
those outputs out (and says so) and compares everything else.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import json
import os
import platform
import re
import struct
import tempfile
import time
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from . import templates

SOURCE_DIR = Path("site_src") / "tutorials"
EXPORT_DIR = Path("exports") / "tutorials"
PAGE_DIR = "tutorials"  # under the docs: tutorials/NN-name.md, tutorials/index.md
FORMAT = "marl-bgs/tutorials"
VERSION = 1
CPU_FLOAT = "cpu-float"  # the cell tag of outputs that depend on the CPU's float arithmetic
CELL_TIMEOUT = 900  # seconds per cell: a cold compile of a full-metrics game loop takes minutes
TEMPLATE = Path(__file__).with_name("tutorial.md.j2")
RECORDED_PACKAGES = ("jax", "jaxlib", "numpy", "pandas", "matplotlib", "flax", "optax", "nbconvert")
_MARKED = re.compile(r"<!-- cpu-float -->.*?<!-- /cpu-float -->", re.DOTALL)
_ADDRESS = re.compile(r"\bat 0x[0-9a-fA-F]{6,}")  # reprs such as <function f at 0x7f...>
_IMAGE = re.compile(r"!\[[^\]]*\]\(([^)\s]+)\)")


@dataclass(frozen=True)
class Executed:
    """One notebook after a run: the notebook with outputs, and the run's wall time."""

    stem: str
    notebook: Any  # nbformat.NotebookNode
    seconds: float


def notebook_paths(root: Path) -> list[Path]:
    """The tutorial notebooks, in their numbered order."""
    return sorted((root / SOURCE_DIR).glob("*.ipynb"))


def read_notebook(path: Path) -> Any:
    import nbformat

    return nbformat.read(path, as_version=4)


def title_of(nb: Any) -> str:
    """The notebook's title: the first level-1 heading of its first Markdown cell."""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
            break
    raise ValueError("a tutorial notebook must open with a Markdown cell titled '# ...'")


def summary_of(nb: Any) -> str:
    """The first paragraph after the title, for the Tutorials index."""
    text = nb.cells[0].source.split("\n\n")
    paragraphs = [p for p in text if p.strip() and not p.lstrip().startswith("#")]
    return " ".join(paragraphs[0].split()) if paragraphs else ""


def source_hash(nb: Any) -> str:
    """A hash of what the notebook says (cell kinds, sources, tags, figure text), not of how Jupyter
    saved it, so re-saving a notebook unchanged does not make its export stale."""
    cells = [
        [c.cell_type, c.source, sorted(c.metadata.get("tags", [])), c.metadata.get("alt")]
        for c in nb.cells
    ]
    return hashlib.sha256(json.dumps(cells).encode()).hexdigest()


def kernel_env() -> dict[str, str]:
    """The kernel's environment: this one, on the CPU, with the compile cache the tests use,
    and no output that depends on a terminal."""
    env = dict(os.environ)
    env["JAX_PLATFORMS"] = "cpu"
    env.setdefault("JAX_COMPILATION_CACHE_DIR", str(Path.home() / ".cache" / "marl_bgs" / "jax"))
    env["PYTHONHASHSEED"] = "0"
    env.pop("MPLBACKEND", None)  # the kernel's inline backend draws the figures
    return env


def execute(path: Path, workdir: Path | None = None, timeout: int = CELL_TIMEOUT) -> Executed:
    """Run a notebook top to bottom in a fresh kernel; raises on the first cell that fails
    (nbclient's CellExecutionError names the cell and shows its traceback).

    The kernel starts in `workdir` (a new temporary folder by default), where the notebook
    writes its results/ and runs/ folders.
    """
    from nbclient import NotebookClient

    nb = read_notebook(path)
    with tempfile.TemporaryDirectory(prefix="marl-bgs-tutorial-") as tmp:
        cwd = Path(workdir) if workdir is not None else Path(tmp)
        client = NotebookClient(
            nb,
            timeout=timeout,
            kernel_name="python3",
            resources={"metadata": {"path": str(cwd)}},
            record_timing=False,
        )
        start = time.perf_counter()
        client.execute(env=kernel_env())
        seconds = time.perf_counter() - start
    return Executed(path.stem, nb, seconds)


# ---- rendering -------------------------------------------------------------------------------
def strip_png_text(data: bytes) -> bytes:
    """A PNG without its text and time chunks (matplotlib writes its version into one)."""
    signature, at, out = data[:8], 8, [data[:8]]
    if signature != b"\x89PNG\r\n\x1a\n":
        return data
    while at < len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        kind = data[at + 4 : at + 8]
        end = at + 12 + length
        if kind not in (b"tEXt", b"zTXt", b"iTXt", b"tIME"):
            out.append(data[at:end])
        at = end
    return b"".join(out)


def tidy_html(html: str) -> str:
    """A pandas table as plain HTML that the site's theme styles like its own tables: no
    inline style, no classes, and the index name moved up into the header row instead of a
    second header row of empty cells."""
    html = re.sub(r"<style scoped>.*?</style>\s*", "", html, flags=re.DOTALL)
    html = html.replace(' border="1" class="dataframe"', "")
    html = html.replace('<tr style="text-align: right;">', "<tr>")
    head = re.search(r"<thead>\s*<tr>(.*?)</tr>\s*<tr>(.*?)</tr>\s*</thead>", html, re.DOTALL)
    if head:
        top = re.findall(r"<th[^>]*>(.*?)</th>", head.group(1), re.DOTALL)
        names = re.findall(r"<th[^>]*>(.*?)</th>", head.group(2), re.DOTALL)
        # pandas' second row: the index name, then one empty cell per column
        if top and names and top[0] == "" and names[0] and not any(names[1:]):
            cells = "".join(f"<th>{c}</th>" for c in [names[0], *top[1:]])
            html = (
                html[: head.start()]
                + f"<thead>\n    <tr>{cells}</tr>\n  </thead>"
                + html[head.end() :]
            )
    return "\n".join(line.rstrip() for line in html.strip().splitlines())


def _clean(nb: Any) -> Any:
    """A copy of the executed notebook with what must not reach the page taken out:
    stderr (warnings that depend on the machine and its package versions) and the text
    chunks of PNG figures; consecutive pieces of printed text are joined into one, however
    the kernel happened to flush them. An output showing a memory address is refused."""
    nb = copy.deepcopy(nb)
    for number, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        kept = []
        for out in cell.get("outputs", []):
            if out.output_type == "stream" and out.name == "stderr":
                continue
            text = out.get("text", "") + out.get("data", {}).get("text/plain", "")
            if _ADDRESS.search(text):
                raise ValueError(
                    f"cell {number} prints a memory address ({_ADDRESS.search(text).group(0)}), "
                    "which differs on every run: print something else"
                )
            png = out.get("data", {}).get("image/png")
            if png:
                data = strip_png_text(base64.b64decode(png))
                out.data["image/png"] = base64.b64encode(data).decode()
            last = kept[-1] if kept else None
            if out.output_type == "stream" and last is not None and last.output_type == "stream":
                last.text += out.text  # the kernel flushes a print in pieces as it likes
                continue
            kept.append(out)
        cell.outputs = kept
    return nb


def render(executed: Executed) -> dict[str, bytes]:
    """The page `NN-name.md` and its figures `NN-name/figure_C_K.png` (cell C, output K),
    as file name (relative to exports/tutorials/) -> bytes."""
    from nbconvert import MarkdownExporter
    from traitlets.config import Config

    config = Config()
    config.ExtractOutputPreprocessor.output_filename_template = (
        "figure_{cell_index}_{index}{extension}"
    )
    exporter = MarkdownExporter(config=config, template_file=str(TEMPLATE))
    exporter.register_filter("tidy_html", tidy_html)
    exporter.register_filter("trim_newlines", lambda text: text.strip("\n"))
    body, resources = exporter.from_notebook_node(
        _clean(executed.notebook), resources={"output_files_dir": executed.stem}
    )
    files = {f"{executed.stem}.md": (_single_blank_lines(body) + "\n").encode()}
    for name, data in sorted(resources.get("outputs", {}).items()):
        files[name] = data
    return files


def _single_blank_lines(text: str) -> str:
    """nbconvert's output with trailing spaces cut and, outside fenced code, runs of blank
    lines made one (code keeps its own blank lines)."""
    out: list[str] = []
    fenced = False
    for line in text.strip().splitlines():
        line = line.rstrip()
        if line.startswith("```"):
            fenced = not fenced
        if not line and not fenced and out and not out[-1]:
            continue
        out.append(line)
    return "\n".join(out)


def recorded_environment() -> dict:
    """The CPU model and package versions that produced the outputs (stored in index.json)."""
    from ..provenance import cpu_model

    versions = {"python": platform.python_version()}
    for name in RECORDED_PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return {"cpu": cpu_model(), "platform": "cpu", "versions": versions}


def build_files(
    root: Path, executed: list[Executed], previous: dict[str, bytes] | None = None
) -> dict[str, bytes]:
    """Every file of exports/tutorials/ for these executed notebooks. With `previous` (the
    export as it is), notebooks that were not run this time keep their exported files and
    index entry, so one notebook can be re-exported alone. Each entry records the CPU and
    packages of its own run."""
    runs = {run.stem: run for run in executed}
    old_entries = {e["notebook"]: e for e in _index_of(previous or {}).get("tutorials", [])}
    files: dict[str, bytes] = {}
    entries = []
    for path in notebook_paths(root):
        source = read_notebook(path)
        if path.stem in runs:
            rendered = render(runs[path.stem])
            entry = {
                "notebook": path.name,
                "page": f"{path.stem}.md",
                "title": title_of(source),
                "summary": summary_of(source),
                "source_sha256": source_hash(source),
                "figures": sorted(n for n in rendered if not n.endswith(".md")),
                "recorded": recorded_environment(),
            }
        elif path.name in old_entries:
            entry = old_entries[path.name]
            rendered = {n: previous[n] for n in [entry["page"], *entry["figures"]] if n in previous}
        else:
            continue
        files.update(rendered)
        entries.append(entry)
    index = {"format": FORMAT, "version": VERSION, "tutorials": entries}
    files["index.json"] = (json.dumps(index, indent=2) + "\n").encode()
    return files


def _index_of(files: dict[str, bytes]) -> dict:
    return json.loads(files["index.json"]) if "index.json" in files else {}


def changed_notebooks(root: Path) -> list[Path]:
    """Notebooks whose cells differ from those their export was made from, or with no
    export (what `export_tutorials.py --resume` executes)."""
    files = existing_files(root / EXPORT_DIR)
    done = {e["notebook"]: e for e in _index_of(files).get("tutorials", [])}
    out = []
    for path in notebook_paths(root):
        entry = done.get(path.name)
        names = [entry["page"], *entry["figures"]] if entry else []
        fresh = (
            entry is not None
            and entry["source_sha256"] == source_hash(read_notebook(path))
            and all(n in files for n in names)
        )
        if not fresh:
            out.append(path)
    return out


def existing_files(folder: Path) -> dict[str, bytes]:
    """exports/tutorials/ as it is: relative name -> bytes."""
    if not folder.is_dir():
        return {}
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def _without_cpu_float(files: dict[str, bytes], page: str) -> dict[str, bytes]:
    """The files with the cpu-float output regions of one page cut out, and the figures
    drawn only inside those regions left out."""
    if page not in files:
        return files
    text = files[page].decode()
    stem = page[: -len(".md")]
    dropped = {
        f"{stem}/{Path(src).name}"
        for region in _MARKED.findall(text)
        for src in _IMAGE.findall(region)
    }
    out = {n: d for n, d in files.items() if n not in dropped}
    out[page] = _MARKED.sub("<!-- cpu-float -->", text).encode()
    return out


def _plain_index(index: dict) -> dict:
    """index.json without the records of machines and packages."""
    entries = [{k: v for k, v in e.items() if k != "recorded"} for e in index.get("tutorials", [])]
    return {**index, "tutorials": entries}


def stale_files(new: dict[str, bytes], old: dict[str, bytes]) -> tuple[list[str], list[str]]:
    """(stale names, notes): the names whose bytes differ, are missing or are left over.

    index.json is compared without the `recorded` blocks (each run's machine and packages).
    A page recorded on a CPU model other than this run's is compared without its cpu-float
    outputs, with a note saying so; when something is stale and the packages differ from
    the recorded ones, a note names them.
    """
    notes = []
    old_entries = {e["page"]: e for e in _index_of(old).get("tutorials", [])}
    for entry in _index_of(new).get("tutorials", []):
        was = old_entries.get(entry["page"], {}).get("recorded")
        now = entry.get("recorded")
        if was and now and was["cpu"] != now["cpu"]:
            notes.append(
                f"{entry['page']}: outputs of cells tagged {CPU_FLOAT!r} were recorded on "
                f"{was['cpu']!r}, not this CPU ({now['cpu']!r}); they were left out of the "
                "comparison"
            )
            new = _without_cpu_float(new, entry["page"])
            old = _without_cpu_float(old, entry["page"])
    stale = [
        name
        for name, data in new.items()
        if (name != "index.json" and old.get(name) != data)
        or (name == "index.json" and _plain_index(_index_of(new)) != _plain_index(_index_of(old)))
    ]
    stale += sorted(n for n in old if n not in new)
    if stale:
        changed = set()
        for entry in _index_of(new).get("tutorials", []):
            was = old_entries.get(entry["page"], {}).get("recorded", {}).get("versions", {})
            now = entry.get("recorded", {}).get("versions", {})
            changed |= {f"{k} {was[k]} -> {v}" for k, v in now.items() if k in was and was[k] != v}
        if changed:
            notes.append(
                "the packages differ from the recorded ones, which can change outputs: "
                + ", ".join(sorted(changed))
            )
    return stale, notes


# ---- the site --------------------------------------------------------------------------------
def read_index(root: Path) -> dict | None:
    path = root / EXPORT_DIR / "index.json"
    return json.loads(path.read_text()) if path.is_file() else None


def _entries(root: Path) -> list[dict]:
    """Exported tutorials whose notebook is still in site_src/tutorials/."""
    index = read_index(root)
    if index is None:
        return []
    return [
        e
        for e in index["tutorials"]
        if (root / SOURCE_DIR / e["notebook"]).is_file()
        and (root / EXPORT_DIR / e["page"]).is_file()
    ]


def tutorial_page(root: Path, entry: dict) -> str:
    """One tutorial's page: the exported Markdown, with its figures and links made to work
    from tutorials/ in the site, and a line on where the notebook and its outputs come from."""
    text = (root / EXPORT_DIR / entry["page"]).read_text()
    stem = entry["page"][: -len(".md")]
    text = text.replace(f"]({stem}/", f"](../{EXPORT_DIR.as_posix()}/{stem}/")
    # Links between notebooks (which work in Jupyter) become links between pages.
    text = re.sub(r"\]\((\d\d-[a-z0-9-]+)\.ipynb\)", r"](\1.md)", text)
    note = templates.render("tutorials/note.md.j2", notebook=entry["notebook"])
    head, _, rest = text.partition("\n")
    if not head.startswith("# "):
        return note + "\n" + text
    return f"{head}\n\n{note}{rest}"


def index_page(root: Path) -> str:
    """The Tutorials overview: what each one teaches, how to run them, what recorded them."""
    entries = _entries(root)
    records = {json.dumps(e.get("recorded"), sort_keys=True) for e in entries}
    shown = []
    for record in sorted(records):
        recorded = json.loads(record)
        if not recorded:
            continue
        which = [
            str(k)
            for k, e in enumerate(entries, start=1)
            if json.dumps(e.get("recorded"), sort_keys=True) == record
        ]
        versions = [(name, v) for name, v in recorded["versions"].items() if v is not None]
        shown.append(
            {
                "cpu": recorded["cpu"],
                "versions": versions,
                "which": which,
                "alone": len(records) == 1,
            }
        )
    return templates.render("tutorials/index.md.j2", entries=entries, records=shown)


def pages(root: Path) -> dict[str, Any]:
    """Generated page path -> a function writing its Markdown (empty before an export)."""
    entries = _entries(root)
    if not entries:
        return {}
    out: dict[str, Any] = {f"{PAGE_DIR}/index.md": lambda: index_page(root)}
    for e in entries:
        out[f"{PAGE_DIR}/{e['page']}"] = lambda e=e: tutorial_page(root, e)
    return out


def nav(root: Path) -> list:
    """The Tutorials section of the navigation (none before an export)."""
    entries = _entries(root)
    if not entries:
        return []
    items: list = [{"Overview": f"{PAGE_DIR}/index.md"}]
    items += [{e["title"]: f"{PAGE_DIR}/{e['page']}"} for e in entries]
    return [{"Tutorials": items}]
