"""The RULERv2 paper's published values (:mod:`eval.benchmarks.rulerv2.paper`) against its text, and the
report's "Beside the paper" table: the run's rows as they are, the paper's values in italics only at its lengths."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest

from eval.benchmarks.rulerv2.paper import PAPER_LENGTHS_K, STATED, TABULATED
from eval.report import write_report
from tests.eval.test_report import ruler_results, write_run

REPO = Path(__file__).resolve().parents[2]
PAPER_LENGTHS = (8192, 16384, 32768, 65536, 112640)


@pytest.fixture(scope="module")
def paper_text() -> str:
    """``../shared/papers/rulerv2.md`` (beside ``$NEEDLEWORK_SHARED_DATA``); skips when it is absent."""
    paper = Path(os.environ.get("NEEDLEWORK_SHARED_DATA", REPO.parent / "shared" / "data")).parent / "papers" / "rulerv2.md"
    if not paper.is_file():
        pytest.skip(f"the RULERv2 paper is not at {paper}")
    return paper.read_text(encoding="utf-8")


def test_each_stated_value_is_in_the_papers_words(paper_text: str):
    for stated in STATED:
        assert stated.quote in paper_text, stated.model
        assert f"{stated.score:g}%" in stated.quote, stated.model


def test_the_paper_prints_no_table_of_scores(paper_text: str):
    """No Markdown table at all; the one numeric table (Table 1, tab-separated) lists models, not scores."""
    assert not [line for line in paper_text.splitlines() if line.startswith("|")]
    table_1 = paper_text[paper_text.index("Table 1: Summary of the selected models"):paper_text.index("## **H**")]
    assert table_1.splitlines()[2].split("\t") == ["Model Name", "Size", "Claimed Length", "Thinking",
                                                   "Huggingface / API"]
    assert TABULATED == {}
    assert "8k, 16k, 32k, 64k, and 110k" in paper_text and PAPER_LENGTHS_K == (8, 16, 32, 64, 110)


def at_lengths(data: dict[str, Any], lengths: tuple[int, ...], configs: tuple[str, ...] | None = None) -> dict[str, Any]:
    """``data`` with its cells moved to ``lengths`` (scores 0.5 at every length), kept to ``configs``."""
    keep = configs or tuple(data["run"]["configs"])
    data["scores"]["cells"] = [{"config": config, "length": length, "depth": None, "score": 0.5, "n": 4, "n_errors": 0}
                               for config in keep for length in lengths]
    data["run"]["configs"] = list(keep)
    return data


def test_paper_values_stand_beside_a_run_at_the_papers_lengths(tmp_path: Path):
    run = write_run(tmp_path, "test", at_lengths(ruler_results("qwen", "test"), PAPER_LENGTHS))
    text = write_report([run], tmp_path / "report").markdown.read_text(encoding="utf-8")
    section = text[text.index("### Beside the paper"):]
    assert "| run | mv_niah_basic | mv_niah_hard |" in section
    assert "| qwen | 50.0 | 50.0 |" in section  # the run's row: mean over its five lengths
    assert "| *GPT4.1 (paper, text)* | — | *58.0* |" in section
    assert re.search(r"\| \*7B instruct model [^|]*\(paper, text\)\* \| \*48\.6\* \| — \|", section)
    assert "- qwen: lengths 8,192, 16,384, 32,768, 65,536, 112,640 (the paper's five)" in section
    assert text.index("### By level") < text.index("### Beside the paper") < text.index("](levels.png)")


def test_paper_values_only_for_the_tasks_a_run_has_at_the_papers_lengths(tmp_path: Path):
    decimal = (8000, 16000, 32000, 64000, 110000)
    run = write_run(tmp_path, "test", at_lengths(ruler_results("qwen", "test"), decimal, ("mv_niah_hard",)))
    text = write_report([run], tmp_path / "report").markdown.read_text(encoding="utf-8")
    assert "| qwen | — | 50.0 |" in text
    assert "| *GPT4.1 (paper, text)* | — | *58.0* |" in text
    assert "| *7B instruct model" not in text  # no run has mv_niah_basic


def test_no_paper_values_beside_a_run_at_other_lengths(tmp_path: Path):
    """The fixture's runs are at 8K and 16K: the runs' rows render, the paper's do not."""
    run = write_run(tmp_path, "test", ruler_results("qwen", "test"))
    text = write_report([run], tmp_path / "report").markdown.read_text(encoding="utf-8")
    assert "| qwen | 85.0 | 35.0 |" in text  # mv_niah_basic 0.9 and 0.8, mv_niah_hard 0.4 and 0.3, pooled
    assert "(paper, text)* |" not in text
    assert "- qwen: lengths 8,192, 16,384 (not the paper's 8k, 16k, 32k, 64k, 110k)" in text
    assert "| multi-key NIAH | 75.0 (n=8) |" in text  # the section's own tables, as before
