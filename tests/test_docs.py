"""The documentation site builds as CI would publish it, and reads as people see it.

``mkdocs build --strict`` (the Material theme, the CLI reference generated from the click commands by
mkdocs-click) fails on a broken link, anchor or nav entry, a page missing from the nav, or a click
command that no longer loads. The built home page is then rendered in headless Chromium, where it is
installed, to check the navigation a reader gets. The commands the pages show are checked by
``tests/test_readme.py``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin, urlparse

import pytest

from builders.registry import REGISTERED

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = next((p for p in ("/usr/bin/chromium", shutil.which("chromium")) if p and Path(p).is_file()), None)
EVAL_COMMANDS = ("run", "score", "report", "judge", "judge-accuracy", "count")


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The site built with ``mkdocs build --strict`` into a temporary folder (never the checkout's site/)."""
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file",
                           str(ROOT / "mkdocs.yml"), "--site-dir", str(out)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"mkdocs build --strict failed:\n{done.stdout}\n{done.stderr}"
    return out


def test_every_page_is_built(site):
    pages = sorted(p.relative_to(ROOT / "docs").with_suffix("") for p in (ROOT / "docs").rglob("*.md")
                   if "hooks" not in p.parts)
    for page in pages:
        built = site / (page.parent if page.name == "index" else page) / "index.html"
        assert built.is_file(), f"{page}.md was not built"


def test_the_cli_reference_is_generated_from_every_command(site):
    needlework = (site / "reference" / "needlework" / "index.html").read_text(encoding="utf-8")
    for command in [*(b.id for b in REGISTERED), "demo"]:
        assert f'id="needlework-build-{command}"' in needlework, f"needlework build {command} is not in the reference"
        assert f"needlework build {command} [OPTIONS]" in needlework
    for command in ("validate", "info", "push"):
        assert f'id="needlework-{command}"' in needlework
    assert "--generation-reserve" in needlework and "--retrievers" in needlework
    evaluation = (site / "reference" / "eval" / "index.html").read_text(encoding="utf-8")
    for command in EVAL_COMMANDS:
        assert f"python -m eval {command} [OPTIONS]" in evaluation, f"python -m eval {command} is not in the reference"
    assert "--max-model-len" in evaluation


class _Links(HTMLParser):
    """The ``href`` of every navigation link (Material's tabs and sidebar) and of every other link."""

    def __init__(self) -> None:
        super().__init__()
        self.nav: list[str] = []
        self.title = ""
        self._in_title = False

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        classes = (attributes.get("class") or "").split()
        if tag == "a" and {"md-nav__link", "md-tabs__link"} & set(classes) and attributes.get("href"):
            self.nav.append(attributes["href"])
        self._in_title = tag == "title"

    def handle_data(self, data):
        if self._in_title:
            self.title += data

    def handle_endtag(self, tag):
        if tag == "title":
            self._in_title = False


@pytest.mark.skipif(CHROMIUM is None and not os.environ.get("NEEDLEWORK_REQUIRE_BROWSER"),
                    reason="headless Chromium is not installed (/usr/bin/chromium; Debian: apt-get install chromium): "
                           "the rendered navigation is not checked")
def test_the_home_page_as_a_browser_renders_it_lists_every_benchmark(site, tmp_path):
    assert CHROMIUM is not None, "NEEDLEWORK_REQUIRE_BROWSER is set but headless Chromium is not installed"
    index = site / "index.html"
    done = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                           f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", index.as_uri()],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    links = _Links()
    links.feed(done.stdout)
    assert links.title.strip().startswith("needlework"), links.title
    targets = {Path(urlparse(urljoin(index.as_uri(), href)).path) for href in links.nav if not href.startswith("#")}
    for target in targets:
        page = target / "index.html" if target.suffix != ".html" else target
        assert page.is_file(), f"the navigation links to {target}, which was not built"
    shown = {t.relative_to(site).as_posix() for t in targets if t.is_relative_to(site)}
    for builder in REGISTERED:
        assert f"benchmarks/{builder.id}" in shown, f"the navigation does not list the {builder.id} page"
    for section in ("guides/evaluate", "guides/scale-out", "guides/tokenizers", "guides/determinism",
                    "reference/needlework", "reference/eval", "contributing/layout", "contributing/adding-a-benchmark"):
        assert section in shown, f"the navigation does not list {section}"
