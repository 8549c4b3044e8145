"""M-RT of the per-depth layout scored per needle depth: metadata, per-needle hits, the summary cells, and the
report's table and heatmap.

Source of truth (open-compass/opencompass, read, not copied): ``opencompass/datasets/needlebench_v2/parallel.py``
(``NeedleBenchParallelDataset``: one needle per depth of the list; ``NeedleBenchParallelEvaluator``: per
dataset, i.e. per length and language, ``scores_by_depth[depth] += 100 / len(predictions)`` for each keyword
found in a prediction, ``average_score`` their mean over the depths).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from builders.needlebench import NeedleBenchBuild, build
from eval.benchmarks import get_task
from eval.benchmarks.needlebench.summary import needlebench_summary
from eval.benchmarks.needlebench.tasks import NEEDLEBENCH_METRIC
from eval.release import open_release
from eval.report import write_report
from eval.results import aggregate_scores
from eval.scored import ScoredSample, score_records
from eval.task import TaskOptions

KEYWORDS = ["Vanako", "Starfire Chalice", "梦境权杖"]
DEPTHS = [0, 50, 100]


@pytest.fixture(scope="module")
def per_depth_rows(tmp_path_factory, cl100k) -> list[dict]:
    out = tmp_path_factory.mktemp("nb-depths") / "needlebench"
    spec = NeedleBenchBuild(tasks=("m-rt",), langs=("en",), lengths=(1000,), depths=(0.0, 50.0, 100.0), repeats=1,
                            mrt_needles=3, mrt_layout="per-depth")
    build(spec, out, tokens=cl100k, progress=False)
    return list(open_release(str(out)).iter_rows("m-rt-en", "test"))


def test_per_depth_rows_carry_each_needles_depth_in_keyword_order(per_depth_rows):
    task = get_task("needlebench/m-rt", TaskOptions())
    (row,) = per_depth_rows
    meta = task.metadata(row)
    assert meta["depth"] is None and meta["needle_depths"] == DEPTHS
    assert [n["keyword"] for n in row["needles"]] == row["answers"]  # needle i is keyword i, at depth i
    hits = task.secondary_scores(f"{row['answers'][0]} and {row['answers'][1]}", task.references(row))
    assert hits == {"needle_0": 1.0, "needle_1": 1.0, "needle_2": 0.0}
    assert task.score(f"{row['answers'][0]} and {row['answers'][1]}", task.references(row)) == pytest.approx(2 / 3)
    assert get_task("needlebench/s-rt", TaskOptions()).secondary_scores("x", ["x"]) == {}


def test_spread_rows_have_no_needle_depths():
    row = {"task": "m-rt", "lang": "en", "needle_count": 3, "question_type": "retrieval", "n_tokens": 9,
           "target_tokens": 1000, "depth": 50.0, "needles": [{"requested_depth": 50.0}] * 3}
    assert "needle_depths" not in get_task("needlebench/m-rt", TaskOptions()).metadata(row)


def crafted() -> list[ScoredSample]:
    """m-rt-en per depth at 1,000 tokens: needles [0, 50] then [0] found; at 2,000: all three, then an error.
    Scored through the registered task, as ``python -m eval score`` does."""
    plan = [(1000, KEYWORDS[:2]), (1000, KEYWORDS[:1]), (2000, KEYWORDS), (2000, None)]
    expected, records = [], {}
    for i, (length, named) in enumerate(plan):
        key = f"k{i}"
        metadata = {"length": length, "depth": None, "lang": "en", "needle_count": 3, "question_type": "retrieval",
                    "n_tokens": length - 100, "needle_depths": DEPTHS}
        expected.append({"key": key, "config": "m-rt-en", "task": "needlebench/m-rt", "metadata": metadata})
        if named is None:
            records[key] = {"key": key, "task": "needlebench/m-rt", "error": {"kind": "timeout", "final": True}}
        else:
            records[key] = {"key": key, "task": "needlebench/m-rt", "text": "; ".join(named), "references": KEYWORDS,
                            "error": None}
    return score_records(expected, records, lambda name: get_task(name, TaskOptions()))


def test_depth_cells_by_hand_and_their_mean_is_the_m_rt_score():
    block = needlebench_summary(crafted())
    cells = {(c["length"], c["depth"]): (c["score"], c["n"]) for c in block["m_rt_depth_cells"]}
    assert cells == {(1000, 0): (1.0, 2), (1000, 50): (0.5, 2), (1000, 100): (0.0, 2),
                     (2000, 0): (0.5, 2), (2000, 50): (0.5, 2), (2000, 100): (0.5, 2)}
    mean = sum(score for score, _ in cells.values()) / len(cells)
    assert mean == pytest.approx(block["tasks"]["m-rt"]["en"]["score"]) == pytest.approx(0.5)
    # OpenCompass's average_score per length: the mean over depths equals that length's mean sample score.
    for length in (1000, 2000):
        samples = [s for s in crafted() if s.metadata["length"] == length]
        by_depth = [cells[(length, d)][0] for d in DEPTHS]
        assert sum(by_depth) / 3 == pytest.approx(sum(0.0 if s.error_kind else s.score for s in samples) / 2)


@pytest.fixture(scope="module")
def report_text(tmp_path_factory) -> tuple[str, Path]:
    root = tmp_path_factory.mktemp("nb-depth-report")
    results = {"schema_version": 1, "complete": True, "reportable": True,
               "run": {"dataset": "needlebench", "configs": ["m-rt-en"], "split": "test", "model": "m"},
               "scores": aggregate_scores(crafted(), NEEDLEBENCH_METRIC)}
    (root / "run").mkdir()
    (root / "run" / "results.json").write_text(json.dumps(results), encoding="utf-8")
    report = write_report([root / "run"], root / "report")
    return report.markdown.read_text(encoding="utf-8"), report.markdown.parent


def test_report_shows_the_depth_table_and_its_heatmap(report_text):
    text, out = report_text
    assert "### Multi-needle retrieval by needle depth" in text
    assert "#### m-rt-en, m" in text
    assert "| depth (%) | 1,000 | 2,000 | mean |" in text
    for line in ("| 0 | 100.0 | 50.0 | 75.0 |", "| 50 | 50.0 | 50.0 | 50.0 |", "| 100 | 0.0 | 50.0 | 25.0 |",
                 "| mean | 50.0 | 50.0 | 50.0 |"):
        assert line in text, line
    assert "](heatmap_m-rt-en_per_depth.png)" in text
    assert (out / "heatmap_m-rt-en_per_depth.png").read_bytes().startswith(b"\x89PNG")
    assert not (out / "heatmap_m-rt-en.png").exists()  # its rows have no depth: no generic heatmap
    assert "| m | — | 50.00 | 50.00 | 50.00 |" in text  # the sparse table's M-RT en: the same 50
