"""report.md as HTML: the same tables and plots, so the page shows exactly what report.md computes.

Only the Markdown :mod:`eval.report` and the benchmarks' sections write is understood: ``#`` headings,
pipe tables (a header row, a ``|---|---:|`` rule, body rows; ``\\|`` inside a cell), a line holding one
image (``![alt](file.png)``, embedded as a data-URI PNG read from the report folder), ``- `` list items and
paragraphs, with inline ``code``, ``**bold**`` and ``*italic*`` (the papers' rows).
"""

from __future__ import annotations

import base64
import re
from html import escape
from pathlib import Path

_IMAGE = re.compile(r"^!\[(?P<alt>[^\]]*)\]\((?P<src>[^)\s]+)\)$")
_CODE = re.compile(r"`([^`]+)`")
_BOLD = re.compile(r"\*\*(.+?)\*\*")
_ITALIC = re.compile(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])")
_CELL_SPLIT = re.compile(r"(?<!\\)\|")


def slug(text: str) -> str:
    """A heading's anchor id: lower case, runs of other characters made ``-``."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "section"


def inline(text: str) -> str:
    """One line's inline Markdown as HTML (escaped first; code spans keep their text as written)."""
    codes: list[str] = []

    def keep(match: re.Match[str]) -> str:
        codes.append(f"<code>{escape(match.group(1))}</code>")
        return f"\x00{len(codes) - 1}\x00"

    html = escape(_CODE.sub(keep, text), quote=False)
    html = _BOLD.sub(r"<strong>\1</strong>", html)
    html = _ITALIC.sub(r"<em>\1</em>", html)
    return re.sub(r"\x00(\d+)\x00", lambda m: codes[int(m.group(1))], html)


def _cells(line: str) -> list[str]:
    inner = line.strip()
    inner = inner.removeprefix("|")
    inner = inner[:-1] if inner.endswith("|") and not inner.endswith("\\|") else inner
    return [cell.strip().replace("\\|", "|") for cell in _CELL_SPLIT.split(inner)]


def _table(lines: list[str]) -> str:
    header, rule, *body = lines
    align = ["right" if cell.endswith(":") else "left" for cell in _cells(rule)]
    head = "".join(f"<th>{inline(cell)}</th>" for cell in _cells(header))
    rows = []
    for line in body:
        cells = _cells(line)
        tds = "".join(f'<td class="{align[i] if i < len(align) else "left"}">{inline(cell)}</td>'
                      for i, cell in enumerate(cells))
        paper = ' class="paper"' if cells and cells[0].startswith("*") and cells[0].endswith("*") else ""
        rows.append(f"<tr{paper}>{tds}</tr>")
    return f'<div class="scroll"><table class="md"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table></div>'


def image_uri(path: Path) -> str | None:
    """A PNG as a ``data:`` URI, or None when the file is not there."""
    if not path.is_file():
        return None
    return "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode("ascii")


def markdown_html(markdown: str, folder: Path, *, skip_heading: str = "") -> str:
    """``markdown`` (report.md's text) as HTML, its images read from ``folder`` and embedded.

    Args:
        markdown: The Markdown text.
        folder: Where the images it names are.
        skip_heading: A level-1 heading to drop (the page has its own title).
    """
    out: list[str] = []
    lines = markdown.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if not stripped or stripped == skip_heading:
            i += 1
            continue
        if stripped.startswith("|"):
            block = []
            while i < len(lines) and lines[i].strip().startswith("|"):
                block.append(lines[i])
                i += 1
            out.append(_table(block) if len(block) >= 2 else f"<p>{inline(block[0])}</p>")
            continue
        if stripped.startswith("- "):
            items = []
            while i < len(lines) and lines[i].strip().startswith("- "):
                items.append(f"<li>{inline(lines[i].strip()[2:])}</li>")
                i += 1
            out.append(f"<ul>{''.join(items)}</ul>")
            continue
        heading = re.match(r"^(#{1,6})\s+(.*)$", stripped)
        image = _IMAGE.match(stripped)
        if heading:
            level, text = len(heading.group(1)), heading.group(2)
            out.append(f'<h{level + 1} id="md-{slug(text)}">{inline(text)}</h{level + 1}>')
        elif image:
            uri = image_uri(folder / image.group("src"))
            alt = escape(image.group("alt"))
            out.append(f'<figure><img src="{uri}" alt="{alt}" loading="lazy"><figcaption>{alt}</figcaption></figure>'
                       if uri else f"<p>[missing plot {escape(image.group('src'))}]</p>")
        else:
            out.append(f"<p>{inline(stripped)}</p>")
        i += 1
    return "\n".join(out)
