"""NeedleBench eval: answer extraction and scoring, equation 4 on the paper's Table 3, the results
breakdowns and ``needlebench`` block on hand-made scored samples, and the report's tables and plots."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from builders.needlebench import NeedleBenchBuild, build
from eval.benchmarks import TASKS, get_task, task_name_for_row
from eval.benchmarks.needlebench.summary import needlebench_summary
from eval.benchmarks.needlebench.tasks import NEEDLEBENCH_METRIC, plain_number
from eval.release import open_release
from eval.report import write_report
from eval.report_runs import load_runs
from eval.results import aggregate_scores
from eval.scored import ScoredSample
from eval.scoring import (
    OFFICIAL_NO_ANSWER,
    enl,
    exact_answer_match,
    keyword_match,
    keyword_recall,
    normalize_boxed_answer,
    official_boxed_answer,
    official_exact_match,
    weighted_average,
)
from eval.task import TaskOptions
from needlework.errors import SpecError

NEEDLEBENCH_TASKS = ("needlebench/s-rt", "needlebench/m-rt", "needlebench/m-rs", "needlebench/atc")


def score(task: str, response: str, references: list[str], thinking_end: str | None = "</think>",
          scoring: str = "official") -> float:
    """The score of a raw response under a registered NeedleBench task."""
    scorer = get_task(f"needlebench/{task}", TaskOptions(thinking_end=thinking_end, scoring=scoring))  # type: ignore[arg-type]
    return scorer.score(scorer.extract(response), references)


# --- registry and rows ---------------------------------------------------------------------------------


def test_the_four_tasks_are_registered_and_named_from_rows():
    assert set(NEEDLEBENCH_TASKS) <= set(TASKS)
    for name in NEEDLEBENCH_TASKS:
        task = get_task(name, TaskOptions())
        assert task.name == name and task.metric == NEEDLEBENCH_METRIC
    assert task_name_for_row("needlebench", {"id": "x", "task": "m-rs"}) == "needlebench/m-rs"
    with pytest.raises(SpecError, match="needlebench/atc"):
        get_task("needlebench/m-rx", TaskOptions())


@pytest.fixture(scope="module")
def built_rows(tmp_path_factory, cl100k) -> dict[str, list[dict[str, Any]]]:
    """A tiny built release: S-RT and ATC in English, depths 0 and 100."""
    out = tmp_path_factory.mktemp("nb-rows") / "needlebench"
    spec = NeedleBenchBuild(tasks=("s-rt", "atc"), langs=("en",), lengths=(1000,), depths=(0.0, 100.0), repeats=1,
                            atc_needles=(2,))
    build(spec, out, tokens=cl100k, progress=False)
    release = open_release(str(out))
    return {config: list(release.iter_rows(config, "test")) for config in ("s-rt-en", "atc-en")}


def test_render_is_the_prompt_as_one_user_turn_and_metadata_keeps_requested_depths(built_rows):
    task = get_task("needlebench/s-rt", TaskOptions())
    rows = built_rows["s-rt-en"]
    assert task.render(rows[0]) == ({"role": "user", "content": rows[0]["input"]},)
    assert task.references(rows[0]) == rows[0]["answers"]
    metadata = [task.metadata(row) for row in rows]
    assert [m["depth"] for m in metadata] == [0, 100]
    assert all(isinstance(m["depth"], int) for m in metadata)
    assert metadata[1] == {"length": 1000, "depth": 100, "lang": "en", "needle_count": 1, "question_type": "retrieval",
                           "n_tokens": rows[1]["n_tokens"]}


def test_atc_rows_have_no_length_or_depth(built_rows):
    task = get_task("needlebench/atc", TaskOptions())
    for row in built_rows["atc-en"]:
        meta = task.metadata(row)
        assert meta["length"] is None and meta["depth"] is None and meta["needle_count"] == 2
        assert meta["n_tokens"] == row["n_tokens"] > 0
        assert task.score(task.extract(f"<think>hmm</think>\\boxed{{{row['answers'][0]}}}"), task.references(row)) == 1.0


def test_plain_number_keeps_fractions():
    assert [plain_number(100.0), plain_number(12.5), plain_number(0.0), plain_number(None)] == [100, 12.5, 0, None]


# --- S-RT and M-RT: keyword containment --------------------------------------------------------------


@pytest.mark.parametrize(
    ("response", "keywords", "official", "lenient"),
    [
        ("The ruler of the Prabonumon star system is High Regent Vanako.", ["Vanako"], 1.0, 1.0),
        ("the ruler is VANAKO", ["Vanako"], 0.0, 1.0),  # OpenCompass: `keyword in prediction`, case counts
        ("Ｖａｎａｋｏ", ["Vanako"], 0.0, 1.0),  # lenient folds full-width Latin to ASCII (NFKC)
        ("The ruler is Vanak.", ["Vanako"], 0.0, 0.0),
        ("Hidden on the island is the Starfire\n   Chalice.", ["Starfire Chalice"], 0.0, 1.0),
        ("Hidden on the island is the StarfireChalice.", ["Starfire Chalice"], 0.0, 0.0),
        ("希扬岛上隐藏的传说中的物品是梦境权杖。", ["梦境权杖"], 1.0, 1.0),
        ("希扬岛上隐藏的传说中的物品是梦境。", ["梦境权杖"], 0.0, 0.0),
        # OpenCompass scores the whole response, reasoning included; lenient reads after the marker.
        ("<think>It is Vanako.</think>I do not know.", ["Vanako"], 1.0, 0.0),
        ("", ["Vanako"], 0.0, 0.0),
    ],
)
def test_single_needle_retrieval_is_keyword_containment(response: str, keywords: list[str], official: float,
                                                        lenient: float):
    assert score("s-rt", response, keywords) == official
    assert score("s-rt", response, keywords, scoring="lenient") == lenient


M_RT_EN = ["Starfire Chalice", "Shebe", "Bakaste", "Nebula Harp", "Priman"]
M_RT_ZH = ["寒霜卷轴", "肖雅诺", "培特", "寒霜明镜", "凯门"]


@pytest.mark.parametrize(
    ("response", "keywords", "official", "lenient"),
    [
        ("The item is the Starfire Chalice, the ruler is Shebe, the capital is Bakaste, the item is the Nebula Harp, "
         "the ruler is Priman.", M_RT_EN, 1.0, 1.0),
        ("starfire chalice, shebe, bakaste, nebula harp, and someone else", M_RT_EN, 0.0, 0.8),
        ("Shebe.", M_RT_EN, 0.2, 0.2),
        ("I cannot find them.", M_RT_EN, 0.0, 0.0),
        ("约多岛上隐藏的传说中的物品是寒霜卷轴，戈洛缇星系的统治者是肖雅诺。", M_RT_ZH, 0.4, 0.4),
        ("寒霜卷轴，肖雅诺，培特城，寒霜明镜，凯门。", M_RT_ZH, 1.0, 1.0),
    ],
)
def test_multi_needle_retrieval_credits_each_needle(response: str, keywords: list[str], official: float,
                                                    lenient: float):
    assert score("m-rt", response, keywords) == pytest.approx(official)
    assert score("m-rt", response, keywords, scoring="lenient") == pytest.approx(lenient)


def test_officially_a_keyword_inside_another_asked_keyword_counts_on_its_own():
    """NeedleBenchParallelEvaluator tests each keyword with ``in``: ``Vete`` is in ``Vetera``."""
    assert score("m-rt", "Vetera", ["Vete", "Vetera"]) == 1.0
    assert score("m-rt", "Vetera", ["Vete", "Vetera"], scoring="lenient") == 0.5


def test_a_keyword_inside_a_longer_asked_keyword_is_not_credited_twice():
    keywords = ["舍凯", "舍凯梅", "培特"]
    assert keyword_recall(keywords, "答案是舍凯梅和培特。") == pytest.approx(2 / 3)
    assert keyword_recall(keywords, "答案是舍凯、舍凯梅和培特。") == 1.0
    assert keyword_recall(["Vana", "Vanako"], "vanako") == 0.5
    assert keyword_match(["Vana", "Vanako"], "vanako") == 1.0  # equation 1 needs any one


def test_keyword_scorers_need_a_keyword():
    with pytest.raises(ValueError, match="keyword"):
        keyword_match(["", "  "], "anything")
    with pytest.raises(ValueError, match="keyword"):
        keyword_recall([], "anything")
    assert keyword_match(["", "Vanako"], "vanako") == 1.0
    assert keyword_match(["Alpha", "Vanako"], "vanako") == 1.0  # equation 1: any keyword
    assert keyword_recall(["Alpha", "Vanako"], "vanako") == 0.5


# --- M-RS and ATC: official exact match of the last box (lenient readings as the named alternative) ---

@pytest.mark.parametrize(
    ("response", "official", "lenient"),
    [
        ("So the oldest relative is \\boxed{Samuel Middleton}.", 1.0, 1.0),
        ("\\boxed{\\text{Samuel Middleton}}", 1.0, 1.0),
        ("First \\boxed{Faith Dudley}, no wait: \\boxed{samuel middleton}", 0.0, 1.0),  # official: case counts
        ("Samuel Middleton is Faith's parent, so the answer is \\boxed{Faith Dudley}.", 0.0, 0.0),
        ("The eldest relative is Samuel Middleton.", 0.0, 1.0),  # no box: official 0, lenient reads the response
        ("The eldest relative is Faith Dudley.", 0.0, 0.0),
        ("\\boxed{Samuel Middleton and Faith Dudley}", 0.0, 1.0),  # lenient: the name anywhere in the box
        ("<think>\\boxed{Samuel Middleton}</think>\\boxed{Faith Dudley}", 0.0, 0.0),
        ("所以宫阳能够向上追溯到的最年长的亲人是\\boxed{阿柳}。", 1.0, 1.0),
        ("最年长的亲人是\\boxed{甘健}，不是阿柳。", 0.0, 0.0),
    ],
)
def test_multi_needle_reasoning_scores_the_last_box_as_the_official_code(response: str, official: float, lenient: float):
    """Official: OpenCompass's v2 M-RS configs (``configs/datasets/needlebench_v2/needlebench_v2_*k/
    needlebench_v2_multi_reasoning_*k.py``) evaluate with the ATC eval config, i.e.
    ``needlebench_atc_postprocess_v2`` + ``NeedleBenchATCEvaluator`` (``opencompass/datasets/needlebench_v2/atc.py``)."""
    reference = ["阿柳"] if "阿柳" in response or "甘健" in response else ["Samuel Middleton"]
    assert score("m-rs", response, reference) == official
    assert score("m-rs", response, reference, scoring="lenient") == lenient


@pytest.mark.parametrize(
    ("response", "reference", "official", "lenient"),
    [
        ("So the answer is \\boxed{Nina Watts}.", "Nina Watts", 1.0, 1.0),
        ("\\boxed{nina   watts.}", "Nina Watts", 0.0, 1.0),
        ("\\boxed{\\text{Nina Watts}}", "Nina Watts", 1.0, 1.0),
        ("\\boxed{{Nina Watts}}", "Nina Watts", 1.0, 0.0),  # official drops one pair of outer braces
        ("\\boxed{\\textbf{\\text{Nina Watts}}}", "Nina Watts", 0.0, 1.0),  # official keeps "textbf{...}"
        ("\\boxed{'Nina Watts'}", "Nina Watts", 1.0, 1.0),  # official removes ' and "
        ("\\boxed{“Nina Watts”}", "Nina Watts", 0.0, 1.0),  # ... but not curly quotes
        ("\\boxed{Nina~Watts}", "Nina Watts", 1.0, 1.0),
        ("\\boxed{Nina}", "Nina Watts", 0.0, 0.0),
        ("\\boxed{Nina Watts (her great-grandmother)}", "Nina Watts", 0.0, 0.0),
        ("\\boxed{Nina Watts and Joyce Hobbs}", "Nina Watts", 0.0, 0.0),
        ("The eldest ancestor is Nina Watts.", "Nina Watts", 0.0, 0.0),  # no box: an instruction-following error
        ("\\boxed{}", "Nina Watts", 0.0, 0.0),
        ("\\fbox{Nina Watts}", "Nina Watts", 0.0, 0.0),
        ("\\boxed {Nina Watts}", "Nina Watts", 0.0, 1.0),  # official needs "\\boxed{" exactly
        ("\\boxed{Nina Watts} ... on reflection \\boxed{Joyce Hobbs}", "Nina Watts", 0.0, 0.0),
        ("\\boxed{Joyce Hobbs} ... on reflection \\boxed{Nina Watts}", "Nina Watts", 1.0, 1.0),
        ("\\boxed{Nina Watts", "Nina Watts", 0.0, 1.0),  # unclosed: official reads no answer, lenient to the end
        ("<think>\\boxed{Nina Watts}</think>\\boxed{Joyce Hobbs}", "Nina Watts", 0.0, 0.0),
        ("\\boxed{湛俊}", "湛俊", 1.0, 1.0),
        ("所以答案是\\boxed{「湛俊」。}", "湛俊", 0.0, 1.0),
        ("\\boxed{湛}", "湛俊", 0.0, 0.0),
        ("\\boxed{5}", "5", 1.0, 1.0),
        ("\\boxed{05}", "5", 0.0, 1.0),
        ("\\boxed{５}", "5", 0.0, 1.0),
        ("\\boxed{5 generations}", "5", 0.0, 1.0),
        ("\\boxed{\\text{5 Generations}}", "5", 0.0, 1.0),
        ("相隔\\boxed{5}代", "5", 1.0, 1.0),
        ("\\boxed{5代}", "5", 0.0, 1.0),
        ("\\boxed{15}", "5", 0.0, 0.0),
        ("\\boxed{6}", "5", 0.0, 0.0),
        ("\\boxed{five}", "5", 0.0, 0.0),
        ("\\boxed{about 5}", "5", 0.0, 0.0),
        ("\\boxed{5 or 6}", "5", 0.0, 0.0),
    ],
)
def test_atc_is_exact_match_of_the_last_box_as_the_official_code(response: str, reference: str, official: float,
                                                                  lenient: float):
    """Official: ``needlebench_atc_postprocess_v2`` then ``NeedleBenchATCEvaluator``'s ``pred.strip() == ref.strip()``
    (``opencompass/datasets/needlebench_v2/atc.py``); lenient: :func:`eval.scoring.exact_answer_match`."""
    assert score("atc", response, [reference]) == official
    assert score("atc", response, [reference], scoring="lenient") == lenient


def test_official_boxed_answer_reads_as_needlebench_v2_postprocess():
    assert official_boxed_answer('So \\boxed{\\text{"Nina  Watts"}}.') == "Nina Watts"
    assert official_boxed_answer("\\boxed{\\[Nina\\]}") == "Nina"
    assert official_boxed_answer("no box") == official_boxed_answer("\\boxed{{}}") == OFFICIAL_NO_ANSWER
    assert official_exact_match(["Nina Watts "], " Nina Watts") == 1.0 and official_exact_match(["Nina Watts"], "None") == 0.0


def test_runs_recorded_before_official_scoring_re_score_leniently():
    assert TaskOptions.from_record({"thinking_end": "</think>", "answer_prefix": "user"}).scoring == "lenient"
    assert TaskOptions.from_record({"thinking_end": None, "answer_prefix": "user", "scoring": "official"}).scoring == "official"
    assert get_task("needlebench/m-rs", TaskOptions(scoring="lenient")).metric != get_task("needlebench/m-rs", TaskOptions()).metric
    with pytest.raises(ValueError, match="scoring must be official or lenient"):
        TaskOptions(scoring="strict")  # type: ignore[arg-type]


def test_boxed_answer_normalization():
    assert normalize_boxed_answer('\\text{"Nina  Watts."}') == "nina watts"
    assert normalize_boxed_answer("\\mathrm{Nina}\\ \\mathrm{Watts}") == "nina watts"
    assert normalize_boxed_answer("  「湛俊」！ ") == "湛俊"
    assert exact_answer_match(["Nina Watts"], "") == 0.0
    assert exact_answer_match(["Joyce Hobbs", "Nina Watts"], "nina watts") == 1.0


def test_thinking_end_none_keeps_the_whole_response():
    assert score("atc", "<think>x</think>\\boxed{Nina Watts}", ["Nina Watts"], thinking_end=None) == 1.0
    assert score("s-rt", "<think>Vanako</think>no idea", ["Vanako"], thinking_end=None) == 1.0


# --- equation 4 on the paper's Table 3 -----------------------------------------------------------------

NEEDLES = (2, 4, 8, 16, 32, 64, 128, 256, 512)
SHORT = NEEDLES[:6]  # the "<=2K" column: 0.4K .. 1.5K tokens
TABLE_3 = {
    # model: (accuracy % per needle count, weighted <=2K, weighted all, ENL-50)
    "GPT-4.1": ((100, 95, 87.5, 82.5, 75, 62.5, 37.5, 2.5, 0), 71.43, 14.13, 64),
    "DeepSeek-R1": ((100, 100, 87.5, 95, 97.5, 90, 70, 65, 15), 92.86, 44.01, 256),
    "o3-mini": ((97.5, 100, 97.5, 92.5, 82.5, 30, 0, 0, 0), 58.85, 7.26, 32),
    "Qwen1.5-1.8B": ((5, 0, 0, 0, 0, 0, 0, 0, 0), 0.08, 0.01, 0),
}


@pytest.mark.parametrize("model", list(TABLE_3))
def test_weighted_average_and_enl_reproduce_table_3(model: str):
    row, short, whole, expected_enl = TABLE_3[model]
    accuracy = dict(zip(NEEDLES, row))
    assert round(weighted_average(accuracy), 2) == whole
    assert round(weighted_average({n: accuracy[n] for n in SHORT}), 2) == short
    assert enl(accuracy, tau=50) == expected_enl
    fractions = {n: p / 100 for n, p in accuracy.items()}
    assert enl(fractions) == expected_enl
    assert weighted_average(fractions) == pytest.approx(weighted_average(accuracy) / 100)


def test_gpt41_by_hand():
    # (200 + 380 + 700 + 1320 + 2400 + 4000 + 4800 + 640 + 0) / 1022 = 14440 / 1022
    accuracy = dict(zip(NEEDLES, TABLE_3["GPT-4.1"][0]))
    assert weighted_average(accuracy) == pytest.approx(14440 / 1022)
    assert weighted_average({n: accuracy[n] for n in SHORT}) == pytest.approx(9000 / 126)


def test_enl_is_the_largest_count_reaching_tau_not_the_first_failure():
    assert enl({2: 0.9, 4: 0.4, 8: 0.6, 16: 0.1}) == 8
    assert enl({2: 0.5, 4: 0.49}) == 2  # at tau counts
    assert enl({2: 0.1}) == 0 and enl({}) == 0


def test_weighted_average_rejects_empty_and_bad_counts():
    with pytest.raises(ValueError, match="at least one"):
        weighted_average({})
    with pytest.raises(ValueError, match=">= 1"):
        weighted_average({0: 1.0})


# --- results: by_config and the needlebench block ------------------------------------------------------


def sample(task: str, lang: str, value: float, *, index: int, length: int | None = 1000, depth: int | None = 0,
           needles: int = 1, question_type: str = "retrieval", n_tokens: int = 900, error: str | None = None) -> ScoredSample:
    config = f"{task}-{lang}"
    metadata = {"length": length, "depth": depth, "lang": lang, "needle_count": needles,
                "question_type": question_type, "n_tokens": n_tokens}
    return ScoredSample(f"{config}-{index}", config, f"needlebench/{task}", metadata,
                        0.0 if error else value, error)


def atc_samples(lang: str, accuracy_percent: tuple[float, ...], tokens: tuple[int, ...], per_count: int = 40,
                ) -> list[ScoredSample]:
    """``per_count`` ATC samples per needle count, the first ``round(P_N * per_count)`` of them right."""
    samples = []
    for count, percent, n_tokens in zip(NEEDLES, accuracy_percent, tokens):
        right = round(percent * per_count / 100)
        for i in range(per_count):
            samples.append(sample("atc", lang, 1.0 if i < right else 0.0, index=count * 1000 + i, length=None, depth=None,
                                  needles=count, question_type="eldest_ancestor", n_tokens=n_tokens + i % 3))
    return samples


PAPER_TOKENS = (400, 500, 600, 700, 1000, 1500, 2700, 5000, 9600)


def sparse_samples() -> list[ScoredSample]:
    """S-RT en 3/4, zh 2/2; M-RT en [0.8, 0.6], zh [1.0]; M-RS en: 2 needles right at depth 0, 3 needles wrong."""
    return [
        *(sample("s-rt", "en", v, index=i, depth=d) for i, (v, d) in enumerate([(1, 0), (1, 100), (1, 0), (0, 100)])),
        *(sample("s-rt", "zh", 1.0, index=i, depth=100) for i in range(2)),
        sample("m-rt", "en", 0.8, index=0, needles=5), sample("m-rt", "en", 0.6, index=1, needles=5),
        sample("m-rt", "zh", 1.0, index=0, needles=5),
        sample("m-rs", "en", 1.0, index=0, needles=2, depth=0, question_type="eldest_ancestor"),
        sample("m-rs", "en", 0.0, index=1, needles=3, depth=0, question_type="eldest_ancestor"),
        sample("m-rs", "en", 0.0, index=2, needles=3, depth=100, question_type="eldest_ancestor", error="timeout"),
        sample("m-rs", "en", 0.0, index=3, needles=3, depth=100, length=2000, question_type="eldest_ancestor"),
    ]


def test_by_config_breaks_each_config_down_by_every_category_column():
    scores = aggregate_scores(sparse_samples(), "m")
    s_rt = scores["by_config"]["s-rt-en"]
    assert set(s_rt) == {"length", "depth", "lang", "needle_count", "question_type"}  # n_tokens is a measure
    assert {k: v["score"] for k, v in s_rt["depth"].items()} == {"0": 1.0, "100": 0.5}
    mrs = scores["by_config"]["m-rs-en"]["needle_count"]
    assert {k: (v["score"], v["n"], v["n_errors"]) for k, v in mrs.items()} == {"2": (1.0, 1, 0), "3": (0.0, 3, 1)}
    assert "n_tokens" not in scores["by"]
    assert set(scores["by"]["depth"]) == {"0", "100"}


def test_needlebench_block_task_scores_and_overall_by_hand():
    block = aggregate_scores(sparse_samples(), "m")["needlebench"]
    tasks = block["tasks"]
    assert list(tasks) == ["s-rt", "m-rt", "m-rs"]
    assert list(tasks["s-rt"]) == ["zh", "en", "overall"]
    assert (tasks["s-rt"]["en"]["score"], tasks["s-rt"]["zh"]["score"], tasks["s-rt"]["overall"]) == (0.75, 1.0, 0.875)
    assert (tasks["m-rt"]["en"]["score"], tasks["m-rt"]["zh"]["score"], tasks["m-rt"]["overall"]) == (0.7, 1.0, 0.85)
    assert tasks["m-rs"]["en"]["score"] == 0.25 and "zh" not in tasks["m-rs"] and tasks["m-rs"]["overall"] == 0.25
    assert block["overall"] == {"score": round((0.875 + 0.85 + 0.25) / 3, 6), "tasks": ["s-rt", "m-rt", "m-rs"]}
    assert block["atc"] == {}
    cells = [(c["config"], c["needle_count"], c["length"], c["depth"], c["score"], c["n"]) for c in block["m_rs_cells"]]
    assert cells == [("m-rs-en", 2, 1000, 0, 1.0, 1), ("m-rs-en", 3, 1000, 0, 0.0, 1), ("m-rs-en", 3, 1000, 100, 0.0, 1),
                     ("m-rs-en", 3, 2000, 100, 0.0, 1)]


def test_needlebench_atc_block_reproduces_table_3_from_samples():
    samples = atc_samples("en", TABLE_3["GPT-4.1"][0], PAPER_TOKENS) + atc_samples("zh", TABLE_3["o3-mini"][0], PAPER_TOKENS)
    block = needlebench_summary(samples)
    assert block is not None and list(block["atc"]) == ["zh", "en"]
    en, zh = block["atc"]["en"], block["atc"]["zh"]
    assert en["short_needle_counts"] == list(SHORT)
    assert round(100 * en["weighted_short"], 2) == 71.43 and round(100 * en["weighted_all"], 2) == 14.13
    assert en["enl_50"] == 64 and zh["enl_50"] == 32
    assert round(100 * zh["weighted_all"], 2) == 7.26
    assert en["by_needles"]["64"]["score"] == 0.625 and en["by_needles"]["64"]["n"] == 40
    assert en["by_needles"]["2"]["mean_n_tokens"] == pytest.approx(400 + (14 * 0 + 13 * 1 + 13 * 2) / 40, abs=0.05)
    assert block["overall"] == {"score": None, "tasks": []}  # ATC is not an information-sparse task
    # Equation 2 for ATC is the plain mean over its 360 samples per language: 217 and 200 right.
    assert (block["tasks"]["atc"]["en"]["score"], block["tasks"]["atc"]["zh"]["score"]) == (0.602778, 0.555556)
    assert block["tasks"]["atc"]["overall"] == round((0.602778 + 0.555556) / 2, 6)


def test_short_counts_follow_the_mean_prompt_length():
    samples = atc_samples("en", (100, 100, 0), (1999, 2000, 2001))
    block = needlebench_summary(samples)["atc"]["en"]
    assert block["short_needle_counts"] == [2]  # 2000 + (0, 1, 2) averages 2001 > 2000
    assert block["weighted_short"] == 1.0 and block["weighted_all"] == round(6 / 14, 6) and block["enl_50"] == 4


def test_errors_count_zero_and_other_benchmarks_get_no_block():
    samples = [sample("s-rt", "en", 1.0, index=0), sample("s-rt", "en", 1.0, index=1, error="timeout")]
    assert aggregate_scores(samples, "m")["needlebench"]["tasks"]["s-rt"]["en"]["score"] == 0.5
    ruler = ScoredSample("k", "mk_niah_basic", "rulerv2/mk_niah_basic", {"length": 1024, "depth": 0}, 1.0, None)
    scores = aggregate_scores([ruler], "m")
    assert "needlebench" not in scores and scores["by_config"]["mk_niah_basic"]["depth"]["0"]["score"] == 1.0


# --- report --------------------------------------------------------------------------------------------


def write_run(root: Path, name: str, model: str, samples: list[ScoredSample]) -> Path:
    """A run directory whose results.json aggregates ``samples``."""
    configs = sorted({s.config for s in samples})
    results = {"schema_version": 1, "complete": True, "reportable": True,
               "run": {"dataset": "needlebench", "configs": configs, "split": "test", "model": model},
               "scores": aggregate_scores(samples, NEEDLEBENCH_METRIC)}
    run_dir = root / name
    run_dir.mkdir()
    (run_dir / "results.json").write_text(json.dumps(results), encoding="utf-8")
    return run_dir


@pytest.fixture(scope="module")
def report_runs(tmp_path_factory) -> list[Path]:
    root = tmp_path_factory.mktemp("nb-report")
    first = sparse_samples() + atc_samples("en", TABLE_3["GPT-4.1"][0], PAPER_TOKENS)
    second = atc_samples("en", TABLE_3["DeepSeek-R1"][0], PAPER_TOKENS) + atc_samples("zh", TABLE_3["o3-mini"][0], PAPER_TOKENS)
    return [write_run(root, "a", "gpt-4.1", first), write_run(root, "b", "deepseek-r1", second)]


@pytest.fixture(scope="module")
def nb_report(report_runs, tmp_path_factory):
    return write_report(report_runs, tmp_path_factory.mktemp("nb-report-out"))


def test_report_tables_hold_the_papers_numbers(nb_report):
    text = nb_report.markdown.read_text(encoding="utf-8")
    assert ("| run | S-RT zh | S-RT en | S-RT overall | M-RT zh | M-RT en | M-RT overall | M-RS zh | M-RS en | "
            "M-RS overall | Overall |") in text
    assert "| gpt-4.1 | 100.00 | 75.00 | 87.50 | 100.00 | 70.00 | 85.00 | — | 25.00 | 25.00 | 65.83 |" in text
    assert "| deepseek-r1 | 100.00" not in text  # ATC only: no row in the sparse table
    header = "| needles | 2 | 4 | 8 | 16 | 32 | 64 | 128 | 256 | 512 | weighted ≤2K | weighted all | ENL-50 |"
    assert text.count(header) == 2
    assert "| length (tokens) | 0.4K | 0.5K | 0.6K | 0.7K | 1K | 1.5K | 2.7K | 5K | 9.6K |  |  |  |" in text
    assert "| gpt-4.1 | 100.0 | 95.0 | 87.5 | 82.5 | 75.0 | 62.5 | 37.5 | 2.5 | 0.0 | 71.43 | 14.13 | 64 |" in text
    assert "| deepseek-r1 | 100.0 | 100.0 | 87.5 | 95.0 | 97.5 | 90.0 | 70.0 | 65.0 | 15.0 | 92.86 | 44.01 | 256 |" in text
    assert "| deepseek-r1 | 97.5 | 100.0 | 97.5 | 92.5 | 82.5 | 30.0 | 0.0 | 0.0 | 0.0 | 58.85 | 7.26 | 32 |" in text
    assert text.index("#### ATC, Chinese (zh)") < text.index("#### ATC, English (en)")
    assert "](atc_curve.png)" in text
    assert "](heatmap_m-rs-en_needles=2.png)" in text and "](heatmap_m-rs-en_needles=3.png)" in text


def test_report_writes_the_atc_curve_and_needle_heatmaps(nb_report):
    out = nb_report.markdown.parent
    names = [p.name for p in nb_report.plots]
    # Configs in the runs' declared (sorted) order; ATC has no depth, so no generic heatmap.
    assert names == ["score_vs_length.png", "heatmap_m-rs-en.png", "heatmap_m-rt-en.png", "heatmap_m-rt-zh.png",
                     "heatmap_s-rt-en.png", "heatmap_s-rt-zh.png", "atc_curve.png", "heatmap_m-rs-en_needles=2.png",
                     "heatmap_m-rs-en_needles=3.png"]
    assert sorted(names) == sorted(p.name for p in out.glob("*.png"))
    for plot in nb_report.plots:
        assert plot.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


def test_report_bytes_are_deterministic(report_runs, nb_report, tmp_path):
    again = write_report(report_runs, tmp_path / "again")
    assert again.markdown.read_bytes() == nb_report.markdown.read_bytes()
    assert [p.read_bytes() for p in again.plots] == [p.read_bytes() for p in nb_report.plots]


def test_atc_curve_draws_each_run_and_language_with_its_enl_and_the_threshold(report_runs):
    from eval.benchmarks.needlebench.report import plot_atc_curve

    figure = plot_atc_curve(load_runs(report_runs))
    ax = figure.axes[0]
    lines = [line for line in ax.get_lines() if line.get_label() and not line.get_label().startswith("_")]
    assert [line.get_label() for line in lines] == ["gpt-4.1 · en", "deepseek-r1 · en", "deepseek-r1 · zh"]
    assert list(lines[0].get_xdata()) == list(NEEDLES)
    assert list(lines[0].get_ydata()) == pytest.approx(TABLE_3["GPT-4.1"][0])
    stars = [(line.get_xdata()[0], line.get_ydata()[0]) for line in ax.get_lines() if line.get_marker() == "*"]
    assert stars == [(64, 62.5), (256, 65.0), (32, 82.5)]
    dashed = [line for line in ax.get_lines() if line.get_linestyle() == "--" and line.get_gid() != "paper"]
    assert len(dashed) == 1 and list(dashed[0].get_ydata()) == [50, 50]
    assert ax.get_xscale() == "log"


def test_depth_100_is_its_own_heatmap_row(report_runs):
    from eval.report_plots import plot_depth_heatmap

    figure = plot_depth_heatmap(load_runs(report_runs), "s-rt-en")
    assert [t.get_text() for t in figure.axes[0].get_yticklabels()] == ["0", "100"]


# --- the paper's rows beside the runs ------------------------------------------------------------------


def test_atc_tables_show_table_3_in_italics_after_the_runs(nb_report):
    """Every ATC table has all nine counts, so Table 3's rows are whole: accuracies, weighted, ENL-50."""
    text = nb_report.markdown.read_text(encoding="utf-8")
    paper_row = ("| *DeepSeek-R1 (paper, Table 3)* | *100.0* | *100.0* | *87.5* | *95.0* | *97.5* | *90.0* | *70.0* "
                 "| *65.0* | *15.0* | *92.86* | *44.01* | *256* |")
    assert text.count(paper_row) == 2  # under Chinese and under English: the paper does not say which
    assert text.count("| *length (paper, Table 3)* | *0.4K* | *0.5K* | *0.6K* | *0.7K* | *1.0K* | *1.5K* | *2.7K* "
                      "| *5K* | *9.6K* |  |  |  |") == 2
    assert "| *Mistral-7B (paper, Table 3)* | *40.0* | *17.5* | *2.5* | *2.5* |" in text
    # the runs' rows render as before, above the paper's
    run_row = "| deepseek-r1 | 100.0 | 100.0 | 87.5 | 95.0 | 97.5 | 90.0 | 70.0 | 65.0 | 15.0 | 92.86 | 44.01 | 256 |"
    english = text.index("#### ATC, English (en)")
    assert english < text.index(run_row) < text.index(paper_row, english)
    assert "The paper does not say which language Table 3 is in" in text


def test_table_3_rows_keep_only_the_tables_needle_counts():
    from eval.benchmarks.needlebench.report import paper_atc_rows

    rows = paper_atc_rows([2, 4, 8, 1024])
    assert rows[0] == ["*length (paper, Table 3)*", "*0.4K*", "*0.5K*", "*0.6K*", "—", "", "", ""]
    gpt = next(row for row in rows if row[0] == "*GPT-4.1 (paper, Table 3)*")
    assert gpt == ["*GPT-4.1 (paper, Table 3)*", "*100.0*", "*95.0*", "*87.5*", "—", "—", "—", "—"]
    assert paper_atc_rows([1024, 2048]) == []


def test_sparse_table_names_the_grid_without_a_paper_table(nb_report):
    text = nb_report.markdown.read_text(encoding="utf-8")
    assert "- gpt-4.1: lengths up to 2,000 tokens; the paper has no table for this grid" in text
    assert "(paper, Table 1" not in text and "(paper, Table 2" not in text


def sparse_run(length: int, tasks: tuple[str, ...], langs: tuple[str, ...]) -> list[ScoredSample]:
    """One sample right per task and language at ``length``, and one wrong at half of it."""
    return [sample(task, lang, value, index=i, length=at, needles=2 if task == "m-rs" else 1)
            for task in tasks for lang in langs for i, (value, at) in enumerate([(1.0, length), (0.0, length // 2)])]


@pytest.fixture(scope="module")
def setting_report(tmp_path_factory):
    root = tmp_path_factory.mktemp("nb-settings")
    runs = [write_run(root, "a", "qwen-32k", sparse_run(32_000, ("s-rt", "m-rt", "m-rs"), ("zh", "en"))),
            write_run(root, "b", "qwen-128k", sparse_run(131_072, ("s-rt",), ("en",)))]
    return write_report(runs, tmp_path_factory.mktemp("nb-settings-out")).markdown.read_text(encoding="utf-8")


def test_sparse_table_shows_table_1_beside_a_32k_run_and_table_2_beside_a_128k_run(setting_report):
    text = setting_report
    # the runs' own rows, as before
    assert "| qwen-32k | 50.00 | 50.00 | 50.00 | 50.00 | 50.00 | 50.00 | 50.00 | 50.00 | 50.00 | 50.00 |" in text
    assert "| qwen-128k | — | 50.00 | 50.00 | — | — | — | — | — | — | 50.00 |" in text
    # Table 1 whole: the 32K run has every task in both languages
    assert ("| *Qwen-2.5-72B (paper, Table 1, 32K)* | *100.00* | *100.00* | *100.00* | *98.71* | *99.96* | *99.33* "
            "| *39.80* | *52.07* | *45.93* | *81.76* |") in text
    # Table 2 only where the 128K run has a score: S-RT English; no task overall or Overall without both languages
    assert "| *Gemma-3-27B (paper, Table 2, 128K)* | — | *98.98* | — | — | — | — | — | — | — | — |" in text
    assert text.index("| qwen-128k |") < text.index("| *Qwen-2.5-1.5B (paper, Table 1, 32K)* |") < text.index(
        "| *InternLM3-8B (paper, Table 2, 128K)* |")
    assert "- qwen-32k: lengths up to 32,000 tokens, the paper's NeedleBench 32K setting" in text
    assert "- qwen-128k: lengths up to 131,072 tokens, the paper's NeedleBench 128K setting" in text


def test_sparse_setting_reads_the_largest_information_sparse_length(tmp_path):
    from eval.benchmarks.needlebench.report import sparse_setting

    cases = {32_768: "32K", 32_000: "32K", 128_000: "128K", 31_999: None, 200_000: None}
    for length, expected in cases.items():
        run_dir = write_run(tmp_path, f"r{length}", "m", sparse_run(length, ("s-rt",), ("en",))
                            + atc_samples("en", TABLE_3["GPT-4.1"][0], PAPER_TOKENS))
        assert sparse_setting(load_runs([run_dir])[0]) == (expected, length)


def test_atc_curve_draws_table_3_dashed_grey_behind_the_runs(report_runs):
    from eval.benchmarks.needlebench.paper import TABLE3
    from eval.benchmarks.needlebench.report import PAPER_COLOUR, plot_atc_curve

    figure = plot_atc_curve(load_runs(report_runs))
    ax = figure.axes[0]
    paper = [line for line in ax.get_lines() if line.get_gid() == "paper"]
    assert len(paper) == len(TABLE3)
    assert {line.get_linestyle() for line in paper} == {"--"} and {line.get_color() for line in paper} == {PAPER_COLOUR}
    assert all(line.get_label().startswith("_") for line in paper)  # one legend entry for them all
    gpt = paper[list(TABLE3).index("GPT-4.1")]
    assert list(gpt.get_xdata()) == list(NEEDLES) and list(gpt.get_ydata()) == list(TABLE_3["GPT-4.1"][0])
    legend = [text.get_text() for legend in figure.legends for text in legend.get_texts()]
    assert "paper, Table 3" in legend
