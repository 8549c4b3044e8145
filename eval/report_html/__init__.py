"""``report.html``: the evaluation report as one self-contained page that opens offline.

:func:`write_html_report` writes it beside report.md (:func:`eval.report.write_report` calls it). The page has:

- a leaderboard, model x benchmark headline scores with the papers' published values in italics where
  the setups match (:mod:`.leaderboard`);
- report.md's tables and plots, rendered from its Markdown with the plots embedded as data-URI PNGs
  (:mod:`.markdown`); score against length redrawn as inline SVG and the depth x length heatmaps as
  tables whose cells lead to their samples, both with the exact value and n on hover (:mod:`.charts`);
- a sample browser: filters by run, benchmark, config, context size, depth and outcome; a sample opens
  to its question, expected answer, each run's response with what the scorer extracted lit up, score and
  reason, side by side when several runs answered the same row, and the prompt with the haystack folded
  around the needles (:mod:`.samples`, :mod:`.needles`, :mod:`.folding`).

Nothing is fetched: CSS and JavaScript (plain, no build step) are inlined from the files beside this
module, and the sample data is embedded as gzip-compressed JSON in base64, which the page inflates with
the browser's ``DecompressionStream``. Only windows around the evidence are embedded, never whole
prompts, so the page stays small (about 1.5 KB a sample). Output bytes depend only on the inputs.
"""

from __future__ import annotations

import base64
import gzip
import json
import re
from collections.abc import Sequence
from html import escape
from pathlib import Path

from eval.report_html.charts import heatmaps_html, length_chart_svg
from eval.report_html.leaderboard import benchmark_of, leaderboard_html
from eval.report_html.markdown import markdown_html
from eval.report_html.samples import OUTCOMES, collect
from eval.report_runs import Run
from needlework.atomic import atomic_write

REPORT_HTML = "report.html"
ASSETS = Path(__file__).resolve().parent
TITLE = "needlework evaluation report"


def sample_payload(runs: Sequence[Run]) -> tuple[str, dict]:
    """The sample browser's data (:func:`eval.report_html.samples.collect`) as base64 of gzip of JSON, and the data."""
    data = collect(runs)
    for entry, run in zip(data["runs"], runs):
        info = run.results.get("run") or {}
        entry.update(benchmark=benchmark_of(run), dataset=str(info.get("dataset") or ""), split=run.split)
    data["outcomes"] = list(OUTCOMES)
    raw = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return base64.b64encode(gzip.compress(raw, compresslevel=9, mtime=0)).decode("ascii"), data


def _runs_html(data: dict) -> str:
    items = []
    for index, run in enumerate(data["runs"]):
        count = sum(1 for s in data["samples"] if s["r"] == index)
        notes = "".join(f'<div class="run-note">{escape(note)}</div>' for note in run["notes"])
        items.append(f'<li><b>{escape(run["label"])}</b> · {escape(run["benchmark"] or "?")} · '
                     f'<code>{escape(run["dataset"])}</code> · split {escape(run["split"])} · {count:,} samples{notes}</li>')
    return f'<ul class="runs">{"".join(items)}</ul>'


def render_page(runs: Sequence[Run], out_dir: Path, markdown: str) -> str:
    """The whole page's HTML for ``runs``, report.md's text ``markdown`` and the plots written in ``out_dir``."""
    payload, data = sample_payload(runs)
    template = (ASSETS / "page.html").read_text(encoding="utf-8")
    fills = {
        "<!--TITLE-->": escape(TITLE),
        "<!--STYLE-->": (ASSETS / "report.css").read_text(encoding="utf-8"),
        "<!--RUNS-->": _runs_html(data),
        "<!--LEADERBOARD-->": leaderboard_html(runs),
        "<!--CHARTS-->": length_chart_svg(runs),
        "<!--HEATMAPS-->": heatmaps_html(runs),
        "<!--TABLES-->": markdown_html(markdown, out_dir, skip_heading=f"# {TITLE}"),
        "<!--DATA-->": payload,
        "<!--SCRIPT-->": (ASSETS / "report.js").read_text(encoding="utf-8"),
    }
    pieces = re.split(r"(<!--[A-Z]+-->)", template)
    absent = sorted(set(fills) - set(pieces))
    if absent:
        raise ValueError(f"{ASSETS / 'page.html'}: no {', '.join(absent)}")
    page = "".join(fills.get(piece, piece) for piece in pieces)  # filled text is never searched for markers
    return page


def write_html_report(runs: Sequence[Run], out_dir: Path, markdown: str) -> Path:
    """Write ``report.html`` for the runs into ``out_dir`` (atomically) and return its path.

    Args:
        runs: The loaded runs, in report order.
        out_dir: The report folder, where report.md's plots already are.
        markdown: report.md's text.
    """
    path = Path(out_dir) / REPORT_HTML
    atomic_write(path, render_page(runs, Path(out_dir), markdown).encode("utf-8"))
    return path


__all__ = ["REPORT_HTML", "render_page", "sample_payload", "write_html_report"]
