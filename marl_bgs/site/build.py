"""Build the site into a folder and check its internal links (used by the tests and by hand).

    .venv/bin/python -m marl_bgs.site.build OUT_DIR     # strict build, link check, numbers

The build runs `mkdocs build --strict` in a subprocess, exactly as a contributor would, so
any warning fails it. The link check reads every built HTML file and resolves each internal
`href`/`src` (and its `#fragment`) against the built files.
"""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

ROOT = Path(__file__).resolve().parents[2]
# data-src and data-replay-pick hold the files the embedded replay viewers open.
LINK_ATTRS = {"href", "src", "data-src", "data-replay-pick"}
EXTERNAL_SCHEMES = {"http", "https", "mailto", "data", "javascript", "blob"}


@dataclass(frozen=True)
class Built:
    site: Path
    seconds: float
    log: str


def build_site(dest: Path, root: Path = ROOT) -> Built:
    """`mkdocs build --strict` into `dest`; raises RuntimeError with the log on failure."""
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-d", str(dest)],
        cwd=root,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    seconds = time.perf_counter() - start
    log = proc.stdout + proc.stderr
    if proc.returncode != 0:
        raise RuntimeError(f"mkdocs build --strict failed ({proc.returncode}):\n{log}")
    return Built(dest, seconds, log)


@functools.cache
def build_once() -> Built:
    """One strict build per process into a temporary folder, shared by the site tests."""
    dest = Path(tempfile.mkdtemp(prefix="marl-bgs-site-"))
    atexit.register(shutil.rmtree, dest, ignore_errors=True)
    return build_site(dest / "site")


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list) -> None:
        for name, value in attrs:
            if name in LINK_ATTRS and value is not None:
                self.links.append(value)
            if name in ("id", "name") and value:
                self.ids.add(value)


def _parse(path: Path) -> _Links:
    parser = _Links()
    parser.feed(path.read_text(errors="replace"))
    return parser


def _target(site: Path, page: Path, path: str) -> Path:
    base = page.parent if path and not path.startswith("/") else site
    target = (base / unquote(path.lstrip("/"))).resolve() if path else page
    if target.is_dir():
        target = target / "index.html"
    return target


def broken_links(site: Path) -> list[str]:
    """Every internal link or resource in the built site that points at nothing."""
    site = site.resolve()
    parsed = {p: _parse(p) for p in site.rglob("*.html")}
    broken = []
    for page, links in parsed.items():
        for link in links.links:
            parts = urlsplit(link)
            if parts.scheme in EXTERNAL_SCHEMES or parts.netloc:
                continue
            target = _target(site, page, parts.path)
            where = f"{page.relative_to(site)}: {link}"
            if not target.is_file() or site not in target.parents:
                broken.append(f"{where} (no file)")
                continue
            frag = unquote(parts.fragment)
            if frag and target.suffix == ".html":
                ids = parsed[target].ids if target in parsed else _parse(target).ids
                if frag not in ids:
                    broken.append(f"{where} (no anchor #{frag})")
    return sorted(set(broken))


def external_references(site: Path) -> list[str]:
    """Resources (src, stylesheet hrefs) that a page would fetch from another host."""
    found = []
    for page in site.rglob("*.html"):
        text = page.read_text(errors="replace")
        for marker in ('src="http', "src='http", 'href="//', 'src="//', "@import url(http"):
            if marker in text:
                found.append(f"{page.relative_to(site)}: {marker}")
    return found


def weight(site: Path) -> dict[str, int]:
    """Pages (the documentation's, not web_demo's standalone viewer page) and bytes."""
    files = [p for p in site.rglob("*") if p.is_file()]
    demo = site / "web_demo"
    return {
        "pages": sum(1 for p in files if p.name == "index.html" and demo not in p.parents),
        "bytes": sum(p.stat().st_size for p in files),
        "html_bytes": sum(p.stat().st_size for p in files if p.suffix == ".html"),
    }


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m marl_bgs.site.build OUT_DIR", file=sys.stderr)
        return 2
    built = build_site(Path(args[0]).resolve())
    broken = broken_links(built.site)
    print(f"built {built.site} in {built.seconds:.1f} s; {weight(built.site)}")
    for line in broken:
        print(f"broken: {line}")
    return 1 if broken else 0


if __name__ == "__main__":
    raise SystemExit(main())
