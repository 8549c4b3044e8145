"""The multiple-choice ATC in eval: the letter read as OpenCompass reads it, the few-shot prompt, the circular
scores and the report section.

Source of truth (open-compass/opencompass, read, not copied):

- ``opencompass/utils/text_postprocessors.py``: ``first_option_postprocess(text, options='ABCD')``, the pattern
  list tried in order on the stripped text (``re.DOTALL``), the first of ``options`` in the captured text;
- ``opencompass/openicl/icl_evaluator/icl_circular_evaluator.py``: ``CircularEvaluator``: ``acc_4`` (rotations
  right), ``acc_1`` (the ``ABCD`` rotation), ``perf_4`` (questions with all four rotations right);
- ``opencompass/configs/datasets/needlebench/atc/atc_choice.py``: the few-shot rounds then ``Question: {question}``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from builders.needlebench import NeedleBenchBuild, build
from eval.benchmarks import TASKS, get_task, task_name_for_row
from eval.benchmarks.needlebench.choice import (
    circular_scores,
    first_option,
    letter_match,
)
from eval.benchmarks.needlebench.summary import needlebench_summary
from eval.benchmarks.needlebench.tasks import NEEDLEBENCH_METRIC
from eval.release import open_release
from eval.report import write_report
from eval.results import aggregate_scores
from eval.scored import ScoredSample
from eval.task import TaskOptions

PATTERNS = ("ABCD", "BCDA", "CDAB", "DABC")
RIGHT = {"ABCD": "A", "BCDA": "D", "CDAB": "C", "DABC": "B"}


@pytest.mark.parametrize(
    ("response", "letter"),
    [
        ("Answer: C", "C"),
        ("answer:d", ""),  # (?i)ANSWER\s*:\s*([ABCD]) matches, but its capture "d" holds none of A-D
        ("回答: B", "B"),
        ("所以答案是：D", "D"),
        ("答案是BD", "B"),  # 答案是?\s*([ABCD]) captures "B"
        ("答案是 DA。", "D"),
        ("Based on the chain, Victor Dean is the eldest. The answer is: A", "A"),
        ("The correct answer is \\boxed{C}", "C"),
        ("I think (B) is right", "B"),  # the cushion pattern: the first capital A-D anywhere
        ("Dave Sandoval", "D"),  # ... even inside a name, as OpenCompass reads it
        ("no idea", ""),
        ("", ""),
    ],
)
def test_first_option_reads_the_letter_as_opencompass(response: str, letter: str):
    assert first_option(response) == letter


def test_pattern_order_decides_not_position_in_the_text():
    """The first *pattern* that yields a letter wins, and within its capture the first of A, B, C, D."""
    assert first_option("A is wrong; the answer is C") == "C"  # a letter ending the text beats the cushion's first capital
    assert first_option("答案是DB") == "D"  # captures one letter: "D"
    assert first_option("答案是：最年长的是B和A") == "A"  # 答案是\s?(\S+) captures "：最年长的是B和A": A before B


def test_choice_tasks_are_registered_and_score_the_rotations_letter():
    for task in ("atc-choice", "atc-choice-reasoning"):
        name = f"needlebench/{task}"
        assert name in TASKS and task_name_for_row("needlebench", {"id": "x", "task": task}) == name
        scorer = get_task(name, TaskOptions())
        assert scorer.metric == NEEDLEBENCH_METRIC
        assert scorer.score(scorer.extract("<think>A or B?</think>The answer is: D"), ["D"]) == 1.0
        assert scorer.score(scorer.extract("The answer is: D"), ["A"]) == 0.0
        lenient = get_task(name, TaskOptions(scoring="lenient"))
        assert lenient.score(lenient.extract("Answer: B"), ["B"]) == 1.0
    assert letter_match(["A"], "") == 0.0


@pytest.fixture(scope="module")
def choice_rows(tmp_path_factory, cl100k) -> list[dict]:
    out = tmp_path_factory.mktemp("nb-choice") / "needlebench"
    build(NeedleBenchBuild(tasks=("atc-choice-reasoning",), langs=("en",), choice_needles=(3,), repeats=1), out,
          tokens=cl100k, progress=False)
    return list(open_release(str(out)).iter_rows("atc-choice-reasoning-en", "test"))


def test_render_puts_the_few_shot_rounds_before_the_question(choice_rows):
    task = get_task("needlebench/atc-choice-reasoning", TaskOptions())
    row = choice_rows[1]
    messages = task.render(row)
    assert [m["role"] for m in messages] == ["user", "assistant"] * 4 + ["user"]
    assert messages[0]["content"].startswith("Question: Sharon House, as Jessica Stewart's father")
    assert messages[1]["content"].endswith("The answer is: C")
    assert messages[-1] == {"role": "user", "content": row["input"]}
    assert task.references(row) == ["D"] and row["circular_pattern"] == "BCDA"
    meta = task.metadata(row)
    assert meta["qid"] == "atc-choice-reasoning/en/needles=3/r=000" and meta["circular_pattern"] == "BCDA"
    assert meta["needle_count"] == 3 and meta["length"] is None and meta["depth"] is None


def rotation(qid: str, count: int, pattern: str, right: bool, *, error: str | None = None,
             n_tokens: int = 500, task: str = "atc-choice", lang: str = "en") -> ScoredSample:
    metadata = {"length": None, "depth": None, "lang": lang, "needle_count": count, "question_type": "eldest_ancestor",
                "n_tokens": n_tokens, "qid": qid, "circular_pattern": pattern}
    return ScoredSample(f"{qid}/{pattern}", f"{task}-{lang}", f"needlebench/{task}", metadata,
                        0.0 if error or not right else 1.0, error)


def crafted() -> list[ScoredSample]:
    """2 people: q0 all right, q1 wrong on DABC. 5 people: q2 all right, q3 an error on BCDA, q4 all wrong."""
    samples = []
    plan = {("q0", 2): "", ("q1", 2): "DABC", ("q2", 5): "", ("q3", 5): "BCDA", ("q4", 5): "ABCD BCDA CDAB DABC"}
    for (qid, count), wrong in plan.items():
        for pattern in PATTERNS:
            error = "timeout" if qid == "q3" and pattern in wrong else None
            samples.append(rotation(qid, count, pattern, pattern not in wrong, error=error, n_tokens=400 + 10 * count))
    return samples


def test_circular_scores_by_hand():
    block = circular_scores(crafted())
    two, five = block["by_needles"]["2"], block["by_needles"]["5"]
    assert (two["circular"], two["accuracy"], two["accuracy_abcd"], two["n_questions"], two["n"]) == (0.5, 0.875, 1.0, 2, 8)
    assert (five["circular"], five["accuracy"], five["accuracy_abcd"]) == (round(1 / 3, 6), 0.583333, round(2 / 3, 6))
    assert two["mean_n_tokens"] == 420.0 and five["mean_n_tokens"] == 450.0
    assert (block["circular"], block["accuracy"], block["accuracy_abcd"], block["n_questions"]) == (0.4, 0.7, 0.8, 5)
    partial = circular_scores([s for s in crafted() if s.metadata["qid"] == "q0"][:3])
    assert partial["circular"] is None and partial["accuracy"] == 1.0  # no question with all four rotations


def test_summary_keeps_each_task_and_language_apart():
    samples = crafted() + [rotation("r0", 2, p, True, task="atc-choice-reasoning", lang="zh") for p in PATTERNS]
    block = needlebench_summary(samples)
    assert list(block["atc_choice"]) == ["atc-choice", "atc-choice-reasoning"]
    assert block["atc_choice"]["atc-choice"]["en"]["circular"] == 0.4
    assert block["atc_choice"]["atc-choice-reasoning"]["zh"]["circular"] == 1.0
    assert block["tasks"]["atc-choice"]["en"]["score"] == 0.7  # equation 2: the plain mean over rotations
    assert block["overall"] == {"score": None, "tasks": []} and block["atc"] == {}
    by = aggregate_scores(samples, "m")["by"]
    assert "qid" not in by and set(by["circular_pattern"]) == set(PATTERNS)


def test_report_section_shows_circular_and_per_rotation_accuracy(tmp_path):
    results = {"schema_version": 1, "complete": True, "reportable": True,
               "run": {"dataset": "needlebench", "configs": ["atc-choice-en"], "split": "test", "model": "m"},
               "scores": aggregate_scores(crafted(), NEEDLEBENCH_METRIC)}
    run = tmp_path / "run"
    run.mkdir()
    (run / "results.json").write_text(json.dumps(results), encoding="utf-8")
    text = write_report([run], tmp_path / "report").markdown.read_text(encoding="utf-8")
    assert "### Ancestral Trace Challenge, multiple choice" in text
    assert "#### Ancestral Trace Challenge, multiple choice, English (en)" in text
    assert "| needles | 2 | 5 | all |" in text
    assert "| length (tokens) | 0.4K | 0.5K |  |" in text
    assert "| m · circular | 50.0 | 33.3 | 40.0 |" in text
    assert "| m · per rotation | 87.5 | 58.3 | 70.0 |" in text
    assert "heatmap_atc-choice" not in text and not list(Path(tmp_path / "report").glob("heatmap_atc*"))
