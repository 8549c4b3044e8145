"""NeedleBench scoring against OpenCompass's own functions, response for response (issue 38).

The verdicts in ``tests/eval/data/needlebench_opencompass_verdicts.json`` were computed outside the repository by
running open-compass/opencompass a5acc4bba3b658f151617a3b393602110fb7a740 on the responses of
:func:`tests.support.crafted_needlebench.crafted_responses` over the first rows of every config of
:func:`paper_rows` (the ``paper`` preset, 1K, S-RT, M-RT, M-RS and ATC in English and Chinese):

* S-RT: ``NeedleBenchOriginEvaluator`` (``opencompass/datasets/needlebench_v2/origin.py``);
* M-RT: ``NeedleBenchParallelEvaluator`` (``parallel.py``) on the one response, keyword k at depth k;
* M-RS and ATC: ``needlebench_atc_postprocess_v2`` and ``NeedleBenchATCEvaluator`` (``atc_elder_only.py``, which the
  v2 configs import), with ``datasets/math.py``'s ``extract_boxed_answer``;
* each response scored as generated (``official``: OpenCompass's NeedleBench configs score the whole response) and
  after ``utils/text_postprocessors.py``'s ``extract_non_reasoning_content`` (``official_removed``: its
  model-level reasoning remover), which ``--reasoning remove`` stands for.

Not covered: the multiple-choice ATC (``first_option_postprocess``), M-RT's per-depth aggregation over many
responses (the summary's), and responses to rows of other lengths, which score alike.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import datasets
import pytest

from builders.needlebench import build
from builders.specs.needlebench import NeedleBenchBuild
from eval.benchmarks.needlebench.tasks import NeedleBenchTask
from eval.task import TaskOptions
from tests.support.crafted_needlebench import crafted_responses
from tests.support.verdicts import verdict_cases

VERDICTS = Path(__file__).parent / "data" / "needlebench_opencompass_verdicts.json"


@pytest.fixture(scope="module")
def paper_rows(shared_data, tmp_path_factory) -> dict[str, list[tuple[str, list[str]]]]:
    """Config -> (task, references) of its first two rows in a small ``paper``-preset release."""
    env = pytest.MonkeyPatch()
    env.setenv("NEEDLEWORK_SHARED_DATA", str(shared_data))
    spec = NeedleBenchBuild(preset="paper", tasks=("s-rt", "m-rt", "m-rs", "atc"), lengths=(1000,), repeats=1,
                            mrt_repeats=1, atc_needles=(2, 4))
    out = tmp_path_factory.mktemp("needlebench-paper") / "release"
    build(spec, out, progress=False)
    env.undo()
    rows = {}
    for config in sorted(json.loads((out / "manifest.json").read_text(encoding="utf-8"))["configs"]):
        split = datasets.load_dataset(str(out), config, split="test")
        rows[config] = [(row["task"], list(row["answers"])) for row in split.select(range(min(2, len(split))))]
    return rows


@pytest.fixture(scope="module")
def cases(paper_rows) -> list[dict[str, Any]]:
    """Every crafted response with the row it answers and OpenCompass's two verdicts."""
    return verdict_cases(VERDICTS, paper_rows, crafted_responses, ("official", "official_removed"))


def disagreements(cases: list[dict[str, Any]], options: TaskOptions, expected: str) -> list[str]:
    wrong = []
    for case in cases:
        task = NeedleBenchTask(f"needlebench/{case['task']}", options)
        got = task.score(task.extract(case["response"]), case["references"])
        if abs(got - case[expected]) > 1e-9:
            wrong.append(f"{case['key']}: needlework {got}, OpenCompass {case[expected]}, response {case['response']!r}")
    return wrong


def test_the_table_covers_every_task_and_language_with_at_least_300_responses(cases):
    assert len(cases) >= 300
    assert {case["task"] for case in cases} == {"s-rt", "m-rt", "m-rs", "atc"}
    assert {case["key"].split("/")[0].rsplit("-", 1)[1] for case in cases} == {"en", "zh"}
    assert {case["official"] for case in cases} >= {0.0, 1.0} and any(0 < case["official"] < 1 for case in cases)
    assert any(case["official"] != case["official_removed"] for case in cases)


@pytest.mark.parametrize(("options", "expected"), [
    (TaskOptions(), "official"),
    (TaskOptions(reasoning="remove"), "official_removed"),
], ids=["whole-response", "reasoning-removed"])
def test_needlework_scores_every_crafted_response_as_opencompass_does(cases, options, expected):
    wrong = disagreements(cases, options, expected)
    assert not wrong, f"{len(wrong)} of {len(cases)} disagree:\n" + "\n".join(wrong[:15])


def test_lenient_scoring_is_the_named_departure(cases):
    """``--scoring lenient`` is needlework's forgiving reading (the card's named departure): it must differ from
    OpenCompass exactly where it is more forgiving or reads after the reasoning marker, so it does disagree."""
    assert disagreements(cases, TaskOptions(scoring="lenient"), "official")
