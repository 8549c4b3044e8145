"""Sequential-NIAH eval: the order-aware scorer (edge cases, and >= 99 % on judge-test data in the
layout of the paper's Table 4), judge-output parsing, the LLM judge over a finished run, and the
report's accuracy groups and Table 5 noise analysis on hand-made samples."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from eval.benchmarks import TASKS, get_task, task_name_for_row
from eval.benchmarks.sequential_niah.items import (
    normalize_item,
    parse_items,
    score_items,
)
from eval.benchmarks.sequential_niah.judge import JUDGE_RUBRIC, JudgeCase, judge_case
from eval.benchmarks.sequential_niah.report import (
    plot_groups,
    sequential_niah_plots,
    sequential_niah_section,
    summary,
)
from eval.benchmarks.sequential_niah.summary import (
    noise_analysis,
    sequential_niah_summary,
)
from eval.benchmarks.sequential_niah.task import ORDERED, UNORDERED
from eval.judge import judge_run
from eval.report import write_report
from eval.report_plots import png_bytes
from eval.report_runs import load_runs
from eval.rubric import LlmJudge
from eval.runner import RunSpec, run
from eval.scored import ScoredSample
from eval.task import TaskOptions
from generators.sequential_niah.judge import GROUPS, build_judge_sets
from generators.sequential_niah.prompts import parse_eval_label, parse_judge_json
from generators.sequential_niah.spec import JudgeSpec
from needlework.errors import SpecError
from tests.support.releases import write_test_release
from tests.support.scripted import ScriptedBackend
from tests.support.sequential_qas import real_qas, synthetic_qas

EN_REFS = ["On October 12, 2007, Barack Obama had a consultation with Iran.",
           "On November 2, 2007, Barack Obama engaged in diplomatic cooperation with Iran.",
           "On July 25, 2008, Barack Obama demanded certain actions or concessions from Iran."]
ZH_REFS = ["2006年02月01日：晚上看了《爱尔兰人》，剧情很精彩。", "2006年02月04日：晚上在家学习了一些天文学知识。",
           "2006年02月06日：晚上学习了一些新的音乐技巧。"]
STEPS = ["Fill out the renewal application form", "Attach a recent passport photo", "Pay the renewal fee by check"]


def verdict(response: str, references: list[str], ordered: bool = True) -> bool:
    return score_items(response, references, ordered=ordered).correct


# --- registry -------------------------------------------------------------------------------------------------


def test_tasks_are_registered_and_chosen_by_the_rows_order_flag():
    assert {ORDERED, UNORDERED} <= set(TASKS)
    row = make_row("a", ["x one", "x two"], True)
    assert task_name_for_row("sequential-niah", row) == ORDERED
    assert task_name_for_row("sequential-niah", {**row, "ordered": False}) == UNORDERED
    with pytest.raises(SpecError, match="input, answers, ordered"):
        task_name_for_row("sequential-niah", {"id": "t", "text": "a raw long text"})
    with pytest.raises(SpecError, match="no input column"):  # a judge-data row
        task_name_for_row("sequential-niah", {"id": "j", "answers": ["a"], "ordered": True, "candidate": "a"})
    with pytest.raises(SpecError, match="sequential-niah/ordered"):
        get_task("sequential-niah/shuffled", TaskOptions())
    task = get_task(ORDERED, TaskOptions())
    assert task.render(row) == ({"role": "user", "content": row["input"]},)
    assert task.references(row) == ["x one", "x two"]
    assert task.metadata(row) == {"length_bucket": "8k-16k", "needle_count": 2, "pipeline": "synthetic-temporal",
                                  "lang": "en", "ordered": True, "variant": "original", "original_id": "a",
                                  "qid": "q-a", "n_tokens": 9000}


# --- the scorer ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("response", [
    ("Here are the events:\n1. On October 12, 2007, Barack Obama had a consultation with Iran.\n"
    "2. On November 2, 2007, Barack Obama engaged in diplomatic cooperation with Iran.\n"
    "3. On July 25, 2008, Barack Obama demanded certain actions or concessions from Iran."),
    ("- 2007-10-12: Barack Obama had a consultation with Iran\n- 2007-11-02: Barack Obama engaged in diplomatic "
    "cooperation with Iran\n- 2008-07-25: Barack Obama demanded certain actions or concessions from Iran"),
    ("1) On 12 Oct 2007, Barack Obama had a consultation with Iran.\n2) On the 2nd of November, 2007, Barack Obama "
    "engaged in diplomatic cooperation with Iran.\n3) On 25th July 2008, Barack Obama demanded certain actions or "
    "concessions from Iran."),
    ("The interactions, in order:\n\n1. **October 12, 2007**\n   - Barack Obama had a consultation with Iran.\n\n"
    "2. **November 2nd, 2007**\n   - Barack Obama engaged in diplomatic cooperation with Iran.\n\n"
    "3. **July 25, 2008**\n   - Barack Obama demanded certain actions or concessions from Iran.\n\n"
    "These were the key interactions."),
    ("(1) 2007/10/12 Barack Obama had a consultation with Iran.\n(2) 2007/11/2 Barack Obama engaged in diplomatic "
    "cooperation with Iran.\n(3) 2008/7/25 Barack Obama demanded certain actions or concessions from Iran."),
    ("• October 12, 2007: Barack Obama had a consultation with Iran. This opened a dialogue between the two.\n"
    "• November 2, 2007: Barack Obama engaged in diplomatic cooperation with Iran.\n"
    "• July 25, 2008: Barack Obama demanded certain actions or concessions from Iran."),
    ("On October 12, 2007, Barack Obama had a consultation with Iran. On November 2, 2007, Barack Obama engaged in "
    "diplomatic cooperation with Iran. Then, on July 25, 2008, Barack Obama demanded certain actions or concessions "
    "from Iran. These show a changing relationship."),
    ("<think>1. Obama met Iraq on 2001-01-01.</think>\n* On October 12, 2007, Barack Obama had a consultation with Iran.\n"
    "* On November 2, 2007, Barack Obama engaged in diplomatic cooperation with Iran.\n"
    "* On July 25, 2008, Barack Obama demanded certain actions or concessions from Iran."),
])
def test_english_formats_dates_and_numbering_styles_are_correct(response):
    task = get_task(ORDERED, TaskOptions())
    assert task.score(task.extract(response), EN_REFS) == 1.0


@pytest.mark.parametrize("response", [
    ("根据文档，按时间顺序整理如下：\n1、2006年2月1日：晚上看了《爱尔兰人》，剧情很精彩。\n2、2006年2月4日：晚上在家学习了一些天文学知识。\n"
    "3、2006年2月6日：晚上学习了一些新的音乐技巧。"),
    "（1）2006-02-01，晚上看了《爱尔兰人》，剧情很精彩\n（2）2006-02-04，晚上在家学习了一些天文学知识\n（3）2006-02-06，晚上学习了一些新的音乐技巧",
    "① February 1, 2006：晚上看了《爱尔兰人》，剧情很精彩。\n② 2006年02月04日：晚上在家学习了一些天文学知识。\n③ 6 February 2006：晚上学习了一些新的音乐技巧。",
    "2006年02月01日：晚上看了《爱尔兰人》，剧情很精彩。2006年02月04日：晚上在家学习了一些天文学知识。2006年02月06日：晚上学习了一些新的音乐技巧。",
])
def test_chinese_answers_are_correct(response):
    assert verdict(response, ZH_REFS)


def test_logical_steps_with_step_markers():
    assert verdict("Here are the steps:\nStep 1: Fill out the renewal application form.\nStep 2: Attach a recent "
                   "passport photo.\nStep 3: Pay the renewal fee by check.", STEPS)
    assert verdict("第1步：准备身份证\n第2步：填写申请表\n第3步：缴纳工本费", ["准备身份证", "填写申请表", "缴纳工本费"])
    assert verdict("一、准备身份证\n二、填写申请表\n三、缴纳工本费", ["准备身份证", "填写申请表", "缴纳工本费"])
    assert not verdict("Step 1: Attach a recent passport photo\nStep 2: Fill out the renewal application form\n"
                       "Step 3: Pay the renewal fee by check", STEPS)


def test_extra_missing_wrong_date_and_duplicate_items_are_incorrect_with_details():
    listed = [f"- {r}" for r in EN_REFS]
    extra = score_items("\n".join([*listed, "- On May 1, 2009, Barack Obama visited Egypt."]), EN_REFS, ordered=True)
    assert not extra.correct and extra.extra == (3,) and not extra.missing and extra.order_ok
    missing = score_items("\n".join(listed[:1] + listed[2:]), EN_REFS, ordered=False)
    assert not missing.correct and missing.missing == (1,) and not missing.extra
    wrong_date = score_items("\n".join([listed[0], listed[1].replace("November 2", "November 3"), listed[2]]), EN_REFS,
                             ordered=True)
    assert not wrong_date.correct and wrong_date.missing == (1,) and wrong_date.extra == (1,)
    duplicate = score_items("\n".join([*listed, listed[2]]), EN_REFS, ordered=False)
    assert not duplicate.correct and len(duplicate.extra) == 1 and not duplicate.missing
    assert [(i, j) for i, j, _ in extra.matched] == [(0, 0), (1, 1), (2, 2)]
    assert extra.as_dict()["matched"][0][:2] == [0, 0]
    substitute = score_items("\n".join([listed[0], "- On November 2, 2007, Barack Obama engaged in trade with Chile.",
                                        listed[2]]), EN_REFS, ordered=True)
    assert not substitute.correct and substitute.missing == (1,)


def test_swapped_order_counts_only_when_order_is_required():
    swapped = "\n".join(f"{n}. {r}" for n, r in enumerate([EN_REFS[1], EN_REFS[0], EN_REFS[2]], 1))
    ordered = score_items(swapped, EN_REFS, ordered=True)
    unordered = score_items(swapped, EN_REFS, ordered=False)
    assert (ordered.correct, ordered.order_ok, ordered.missing, ordered.extra) == (False, False, (), ())
    assert (unordered.correct, unordered.order_ok) == (True, False)
    zh_swapped = "\n".join(f"- {r}" for r in reversed(ZH_REFS))
    assert not verdict(zh_swapped, ZH_REFS, ordered=True) and verdict(zh_swapped, ZH_REFS, ordered=False)
    task = get_task(UNORDERED, TaskOptions())
    assert task.score(swapped, EN_REFS) == 1.0 and get_task(ORDERED, TaskOptions()).score(swapped, EN_REFS) == 0.0
    assert task.secondary_scores(swapped, EN_REFS) == {"item_recall": 1.0, "item_precision": 1.0, "order_ok": 0.0}


def test_item_parsing_and_normalization():
    items, listed = parse_items("Intro sentence:\n\n1. first\n2. second\n   continued here\n\n- third\nClosing words.")
    assert (items, listed) == (["first", "second continued here", "third"], True)
    assert parse_items("Answer: A happened. B happened; C happened.")[1] is False
    assert parse_items("第一次去了博物馆。然后看了电影。")[1] is False
    assert parse_items("第一、去了博物馆\n第二、看了电影")[0] == ["去了博物馆", "看了电影"]
    assert normalize_item("**October 12th, 2007**: Obama") == normalize_item("2007-10-12 obama")
    assert normalize_item("February-15-2006，阅读") == normalize_item("2006年2月15日 阅读")
    assert normalize_item("In March 2009") == "in 2009 03"
    assert not verdict("", EN_REFS)
    with pytest.raises(ValueError):
        score_items("1. a", [], ordered=True)


# --- Table 4: the scorer on judge-test data --------------------------------------------------------------------


def test_scorer_labels_judge_test_data_like_the_paper_table_4(shared_file):
    qas = real_qas(shared_file) + synthetic_qas(120, seed=5)
    records = build_judge_sets(qas, JudgeSpec(train_size=0, test_size=1960), seed=7)["test"]
    assert {r.qid for r in records} == {qa.qid for qa in qas}
    cells: dict[tuple[str, str], Counter] = defaultdict(Counter)
    table6: dict[tuple[str, bool, str, bool], Counter] = defaultdict(Counter)
    for r in records:
        said = "correct" if score_items(r.candidate, r.answers, ordered=r.ordered).correct else "incorrect"
        cells[(r.order_type, r.group)][said == r.label] += 1
        table6[(r.order_type, r.ordered, r.group, r.shuffled)][said] += 1
    lines = ["", "Rule scorer on judge-test data (layout of Table 4)", (f"{'Needle types':<16}{'Answer groups':<15}"
             f"{'No.':>6}{'Acc. (%)':>10}")]
    for order_type in ("temporal", "logical"):
        for group in GROUPS:
            counts = cells[(order_type, group)]
            total = counts[True] + counts[False]
            lines.append(f"{order_type + ' order':<16}{group:<15}{total:>6}{100 * counts[True] / total:>10.2f}")
    right = sum(c[True] for c in cells.values())
    lines.append(f"{'Total/Avg.':<31}{len(records):>6}{100 * right / len(records):>10.2f}")
    lines.append("Table 6 layout (incorrect / correct judgments):")
    for (order_type, ordered, group, shuffled), counts in sorted(table6.items()):
        lines.append(f"  {order_type:<9}{'w/ order' if ordered else 'w/o order':<10}{group:<10}"
                     f"{'w/ shuffle' if shuffled else 'w/o shuffle':<12}{counts['incorrect']} / {counts['correct']}")
    print("\n".join(lines))
    assert all(cells[(t, g)] for t in ("temporal", "logical") for g in GROUPS)
    assert right / len(records) >= 0.99


# --- judge output ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "label"), [
    ('```json\n{\n "order_analysis": "问题要求按时间顺序",\n "eval_analysis": "完全一致",\n "eval_label": "正确"\n}\n```', "correct"),
    ('分析如下。\n```json\n{"eval_analysis": "缺少一项", "eval_label": "错误"}\n```', "incorrect"),
    (('{\n "order_analysis": "The question asks for chronological order.",\n "eval_analysis": "All items match.",\n'
     ' "eval_label": "correct"\n}'), "correct"),
    ('{"eval_analysis": "The second item is missing, so it is not correct.", "eval_label": "Incorrect."}', "incorrect"),
    ('Sure.\n{"eval_analysis": "trailing comma", "eval_label": "incorrect",}', "incorrect"),
    ('{"eval_analysis": "unquoted", "eval_label": <incorrect>}', "incorrect"),
    ('"eval_label"：“正确”', "correct"),
    ('{"order_analysis": "no label here", "eval_analysis": "..."}', None),
    ("I cannot judge this.", None),
])
def test_judge_output_parsing_in_both_languages(text, label):
    assert parse_eval_label(text) == label


def test_judge_json_tolerates_the_figure_9_punctuation():
    parsed = parse_judge_json('```json\n{\n"order_analysis": "要求"，\n"eval_analysis": "原因"，\n}\n```')
    assert parsed == {"order_analysis": "要求", "eval_analysis": "原因"}


def test_llm_judge_uses_the_paper_prompt_by_order_type_and_language_and_keeps_the_raw_output():
    seen: list[str] = []

    def complete(messages):
        seen.append(messages[0]["content"])
        return '```json\n{"eval_analysis": "一致", "eval_label": "正确"}\n```'

    judge = LlmJudge(JUDGE_RUBRIC, complete)
    zh_row = {"question": "按日期罗列", "reference": "- a", "pipeline": "synthetic-temporal", "lang": "zh"}
    result = judge.judge(zh_row, "1. a", key="k1")
    assert (result.key, result.value, result.score) == ("k1", "correct", 1.0) and "正确" in result.raw
    assert "<问题开始>\n按日期罗列\n<问题结束>" in seen[0] and "order_analysis" in seen[0]
    assert (judge_case("k1", zh_row, "1. a") == JudgeCase("k1", "按日期罗列", "1. a", "- a", "temporal", "zh")
            and JudgeCase("k1", "按日期罗列", "1. a", "- a", "temporal", "zh").messages()[0]["content"] == seen[0])
    en_row = {"question": "Steps?", "reference": "1. a", "pipeline": "real-logical", "lang": "en"}
    assert judge.score(en_row, "1. a") == 1.0
    assert "only a complete match" in seen[1] and "order_analysis" not in seen[1]
    assert [JUDGE_RUBRIC.score(v) for v in ("correct", "incorrect", None)] == [1.0, 0.0, None]


# --- report aggregation on hand-made samples --------------------------------------------------------------------


def sample(key: str, original: str, variant: str, correct: bool, *, error: str | None = None, bucket: str = "8k-16k",
           needles: int = 3, pipeline: str = "synthetic-temporal", lang: str = "en", config: str = "test"
           ) -> ScoredSample:
    metadata = {"length_bucket": bucket, "needle_count": needles, "pipeline": pipeline, "lang": lang, "ordered": True,
                "variant": variant, "original_id": original, "qid": f"q-{original}", "n_tokens": 9000}
    return ScoredSample(key, config, ORDERED, metadata, 0.0 if error else float(correct), error)


def hand_made() -> list[ScoredSample]:
    """Originals A (correct), B (incorrect), C (correct), D (correct, no variants) and their variants:
    A: TM 1 1 0, RO 1 1 1; B: TM 0 0 0, RO 1 0 0; C: TM 1 1 0 (the third ended in an error, which
    counts incorrect); a second record of original A in another config (ignored); and a TM variant
    whose original is not in the run."""
    rows = [sample("a", "A", "original", True, bucket="8k-16k", needles=3, lang="en"),
            sample("b", "B", "original", False, bucket="16k-32k", needles=5, lang="zh", pipeline="real-logical"),
            sample("c", "C", "original", True, bucket="16k-32k", needles=5, lang="zh"),
            sample("d", "D", "original", True, bucket="64k-128k", needles=12, lang="en", pipeline="real-temporal"),
            sample("a-dup", "A", "original", False, config="other")]  # the same original again: counted once
    plan = {"A": {"tiny-movement": [1, 1, 0], "reorder": [1, 1, 1]}, "B": {"tiny-movement": [0, 0, 0],
                                                                           "reorder": [1, 0, 0]},
            "C": {"tiny-movement": [1, 1, 1]}}
    for original, types in plan.items():
        for noise, values in types.items():
            for k, value in enumerate(values, 1):
                error = "timeout" if (original, noise, k) == ("C", "tiny-movement", 3) else None
                rows.append(sample(f"{original}-{noise}-{k}", original, f"{noise}/{k}", bool(value), error=error,
                                   config=f"noise-{noise}"))
    rows.append(sample("z", "Z", "tiny-movement/1", True, config="noise-tiny-movement"))
    return rows


def test_noise_analysis_acc_and_cons_by_hand():
    block = sequential_niah_summary(hand_made())
    assert block is not None
    noise = block["noise"]
    # originals with variants: A (1), B (0), C (1); D has none and stays out of Table 5
    assert noise["n_originals"] == 3 and noise["ref"] == round(2 / 3, 6) and noise["orphan_variants"] == 1
    assert noise["types"] == ["tiny-movement", "reorder"]
    tm, ro, everything = noise["by_type"]["tiny-movement"], noise["by_type"]["reorder"], noise["all"]
    # TM: A 1+1+1+0, B 0+0+0+0, C 1+1+1+0 (the error) -> 6/12; consistent: only B
    assert (tm["label"], tm["acc"], tm["cons"], tm["n_originals"], tm["n_variants"]) == ("TM", 0.5, round(1 / 3, 6), 3, 9)
    # RO: A 1+1+1+1, B 0+1+0+0 -> 5/8; consistent: A
    assert (ro["label"], ro["acc"], ro["cons"], ro["n_originals"]) == ("RO", 0.625, 0.5, 2)
    # All: A 1 + (1,1,0,1,1,1) = 6/7, B 0 + (0,0,0,1,0,0) = 1/7, C 1 + (1,1,0) = 3/4 -> 10/18; consistent: none
    assert (everything["acc"], everything["cons"], everything["n_variants"]) == (round(10 / 18, 6), 0.0, 15)


def test_accuracy_groups_count_each_original_once_and_no_variant():
    block = sequential_niah_summary(hand_made())
    assert block["overall"] == {"accuracy": 0.75, "n": 4, "n_errors": 0}
    assert block["by"]["length_bucket"] == {"8k-16k": {"accuracy": 1.0, "n": 1}, "16k-32k": {"accuracy": 0.5, "n": 2},
                                            "64k-128k": {"accuracy": 1.0, "n": 1}}
    assert list(block["by"]["needle_count"]) == ["3", "5", "12"]
    assert block["by"]["pipeline"] == {"synthetic-temporal": {"accuracy": 1.0, "n": 2},
                                       "real-temporal": {"accuracy": 1.0, "n": 1},
                                       "real-logical": {"accuracy": 0.0, "n": 1}}
    assert block["by"]["lang"] == {"en": {"accuracy": 1.0, "n": 2}, "zh": {"accuracy": 0.5, "n": 2}}
    assert sequential_niah_summary([ScoredSample("k", "c", "rulerv2/mk_niah_basic", {}, 1.0, None)]) is None
    assert noise_analysis({"A": True}, [("B", "reorder/1", True)]) is None


# --- a run through the harness, the judge and the report ----------------------------------------------------------


def make_row(row_id: str, answers: list[str], ordered: bool, *, variant: str = "original", original: str | None = None,
             lang: str = "en", pipeline: str = "synthetic-temporal", bucket: str = "8k-16k") -> dict[str, Any]:
    question = "List the events in order." if lang == "en" else "按日期罗列内容"
    return {"id": row_id, "input": f"Document: filler {row_id} {' '.join(answers)}\n\nQuestion: \n{question}",
            "question": question, "answers": answers, "reference": "\n".join(f"- {a}" for a in answers),
            "ordered": ordered, "lang": lang, "pipeline": pipeline, "length_bucket": bucket, "n_tokens": 9000,
            "qid": f"q-{row_id}", "source": "test", "variant": variant, "original_id": original or row_id}


SCHEMA = pa.schema([("id", pa.string()), ("input", pa.string()), ("question", pa.string()),
                    ("answers", pa.list_(pa.string())), ("reference", pa.string()), ("ordered", pa.bool_()),
                    ("lang", pa.string()), ("pipeline", pa.string()), ("length_bucket", pa.string()),
                    ("n_tokens", pa.int32()), ("qid", pa.string()), ("source", pa.string()), ("variant", pa.string()),
                    ("original_id", pa.string())])


def write_release(folder: Path, configs: dict[str, list[dict[str, Any]]]) -> Path:
    return write_test_release(folder, {"benchmark": "sequential-niah"}, SCHEMA, configs)


@pytest.fixture(scope="module")
def judged_run(tmp_path_factory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("seq-run")
    refs = {"o1": EN_REFS, "o2": ZH_REFS}
    originals = [make_row("o1", EN_REFS, True), make_row("o2", ZH_REFS, False, lang="zh", bucket="16k-32k")]
    variants = [make_row(f"{o}/reorder/{k}", refs[o], o == "o1", variant=f"reorder/{k}", original=o,
                         lang="en" if o == "o1" else "zh", bucket="8k-16k" if o == "o1" else "16k-32k")
                for o in refs for k in (1, 2)]
    release = write_release(root / "release", {"test": originals, "noise-reorder": variants})
    answers = {  # o1 right; its variant 1 wrong (swapped, order required), variant 2 right;
        "o1": "\n".join(f"{n}. {r}" for n, r in enumerate(EN_REFS, 1)),  # o2 right (order not required)
        "o1/reorder/1": "\n".join(f"- {r}" for r in [EN_REFS[1], EN_REFS[0], EN_REFS[2]]),
        "o1/reorder/2": "\n".join(f"- {r}" for r in EN_REFS),
        "o2": "\n".join(f"- {r}" for r in reversed(ZH_REFS)),
        "o2/reorder/1": "\n".join(f"- {r}" for r in ZH_REFS[:2]),  # missing one: wrong
        "o2/reorder/2": "\n".join(f"- {r}" for r in ZH_REFS),
    }
    by_prompt = {row["input"]: answers[row["id"]] for row in originals + variants}
    spec = RunSpec(dataset=str(release), configs=("test", "noise-reorder"), model="scripted", backend="vllm",
                   output_dir=root / "run")
    outcome = run(spec, backend=ScriptedBackend(lambda content: by_prompt[content]), progress=False)

    def judge_answer(prompt: str) -> str:  # says correct unless the answer has fewer than three lines
        english = "<query_start>" in prompt
        start, end = ("<answer_start>\n", "\n<answer_end>") if english else ("<待评估答案开始>\n", "\n<待评估答案结束>")
        complete = len(prompt.split(start, 1)[1].split(end, 1)[0].splitlines()) >= 3
        label = ("correct" if complete else "incorrect") if english else ("正确" if complete else "错误")
        return f'```json\n{{"eval_analysis": "checked", "eval_label": "{label}"}}\n```'

    judge = ScriptedBackend(judge_answer)
    verdicts = judge_run(outcome.run_dir, judge, judge_model="scripted-judge")
    return {"outcome": outcome, "verdicts": verdicts, "judge": judge, "root": root, "judge_answer": judge_answer}


def test_run_scores_with_the_rule_scorer_and_summarizes_table_5(judged_run):
    results = judged_run["outcome"].results
    assert results["complete"] and results["counts"]["answered"] == 6
    assert results["scores"]["by"]["task"][ORDERED]["n"] == 3
    written = results["scores"]["sequential-niah"]  # the harness writes the block under the benchmark's id
    assert written["overall"] == {"accuracy": 1.0, "n": 2, "n_errors": 0}
    noise = written["noise"]  # the rule matcher's Table 5: o1: 1 + (0, 1); o2: 1 + (0, 1) -> 4/6; consistent: neither
    assert (noise["ref"], noise["by_type"]["reorder"]["acc"], noise["by_type"]["reorder"]["cons"]) == \
           (1.0, round(4 / 6, 6), 0.0)


def test_a_judged_run_is_scored_by_the_judge_with_the_rule_matcher_beside_it(judged_run):
    """The paper's metric is the judge's verdict (§4-5): once judged, the headline, groups and Table 5 are the
    judge's, the rule matcher's accuracy and agreement stand beside them, and the judge model is named."""
    block = summary(load_runs([judged_run["outcome"].run_dir])[0])
    assert block["scored_by"] == "scripted-judge"
    assert block["overall"] == {"accuracy": 1.0, "n": 2, "n_errors": 0}
    assert block["rule"] == {"accuracy": 1.0, "n": 2, "not_judged": 0}
    assert block["judge"] == {"accuracy": 1.0, "agreement": 1.0, "n": 2}
    noise = block["noise"]  # the judge calls o1/reorder/1 (all items, wrong order) correct, o2/reorder/1 incorrect:
    # o1: 1 + (1, 1); o2: 1 + (0, 1) -> 5/6; consistent: o1 only
    assert (noise["ref"], noise["by_type"]["reorder"]["acc"], noise["by_type"]["reorder"]["cons"]) == \
           (1.0, round(5 / 6, 6), 0.5)


def test_a_run_never_judged_says_the_rule_matcher_scored_it(judged_run, tmp_path):
    import shutil

    run_dir = tmp_path / "unjudged"
    shutil.copytree(judged_run["outcome"].run_dir, run_dir)
    (run_dir / "judge.jsonl").unlink()
    runs = load_runs([run_dir])
    block = summary(runs[0])
    assert block["scored_by"] == "rule matcher" and "rule" not in block and "judge" not in block
    assert block["noise"]["by_type"]["reorder"]["acc"] == round(4 / 6, 6)
    text = "\n".join(sequential_niah_section(runs, {}))
    assert "| scripted | rule matcher | 100.00 | 2 | 0 | — | — | — |" in text


def test_judge_run_keeps_raw_outputs_parses_labels_and_resumes(judged_run):
    run_dir = judged_run["outcome"].run_dir
    verdicts = judged_run["verdicts"]
    assert len(verdicts) == 6 and all(v.raw and v.raw.startswith("```json") for v in verdicts.values())
    lines = [json.loads(line) for line in (run_dir / "judge.jsonl").read_text(encoding="utf-8").splitlines()]
    assert {line["eval_label"] for line in lines} == {"correct", "incorrect"}
    assert {line["judge_model"] for line in lines} == {"scripted-judge"}  # the report names the judge from these
    assert sum(line["eval_label"] == "incorrect" for line in lines) == 1  # o2/reorder/1 lacks an item
    prompts = judged_run["judge"].prompts
    assert sum("<待评估答案开始>" in p for p in prompts) == 3 and sum("<answer_start>" in p for p in prompts) == 3
    assert all("order_analysis" in p for p in prompts)  # synthetic-temporal: Figure 10
    again = ScriptedBackend(lambda content: pytest.fail("a judged sample was judged again"))
    assert judge_run(run_dir, again) == verdicts


def test_report_section_tables_and_plot(judged_run):
    runs = load_runs([judged_run["outcome"].run_dir])
    block = summary(runs[0])
    # the judge calls o1/reorder/1 (all items, wrong order) correct: on originals it agrees with the rules
    assert block["judge"] == {"accuracy": 1.0, "agreement": 1.0, "n": 2}
    plots = sequential_niah_plots(runs)
    assert [(view, name) for view, name, _ in plots] == [("groups", "sequential_niah_groups.png")]
    assert png_bytes(plots[0][2]()).startswith(b"\x89PNG")
    lines = sequential_niah_section(runs, {"groups": "sequential_niah_groups.png"})
    text = "\n".join(lines)
    assert "## Sequential-NIAH" in text
    assert "| scripted | scripted-judge | 100.00 | 2 | 0 | 100.00 | 100.00 | 0 |" in text  # judge headline, rule beside
    assert "| scripted | scripted-judge | Acc. | 100.00 | — | — | 83.33 | — | 83.33 |" in text  # TM SM RO SN
    assert "| scripted | scripted-judge | Cons. | - | — | — | 50.00 | — | 50.00 |" in text
    assert "| *Qwen-2.5 (paper)* | *the paper's evaluation model* | *Acc.* | *51.50* | *48.50* | *48.25* | *48.00* | " \
           "*43.00* | *45.88* |" in text  # Table 5 beside the run's noise analysis
    assert "| *LLaMA-3.3 (paper)* | *the paper's evaluation model* | *Cons.* | *-* | *63.50* |" in text
    assert "| run | 8k-16k | 16k-32k |" in text
    assert "(paper, §5.2)" not in text and "Table 2" not in text  # a hand-made test config: not the paper's setup
    assert sequential_niah_section([], {}) == []


def test_report_computes_the_block_of_results_written_without_it(judged_run, tmp_path):
    """Results from before the harness wrote the block: the report scores the run directory itself."""
    import shutil

    run_dir = tmp_path / "older"
    shutil.copytree(judged_run["outcome"].run_dir, run_dir)
    results = json.loads((run_dir / "results.json").read_text(encoding="utf-8"))
    del results["scores"]["sequential-niah"]
    (run_dir / "results.json").write_text(json.dumps(results), encoding="utf-8")
    assert summary(load_runs([run_dir])[0]) == summary(load_runs([judged_run["outcome"].run_dir])[0])
    assert summary(load_runs([run_dir])[0])["noise"]["ref"] == 1.0


def test_groups_plot_on_hand_made_blocks():
    block = sequential_niah_summary(hand_made())
    figure = plot_groups([(type("R", (), {"label": "m"})(), block)])
    assert len(figure.axes) == 4 and png_bytes(figure)[:4] == b"\x89PNG"


def test_write_report_includes_the_section_and_its_plot(judged_run, tmp_path):
    files = write_report([judged_run["outcome"].run_dir], tmp_path / "report")
    text = files.markdown.read_text(encoding="utf-8")
    assert "## Sequential-NIAH" in text and "![Sequential-NIAH accuracy by group](sequential_niah_groups.png)" in text
    assert (tmp_path / "report" / "sequential_niah_groups.png").read_bytes().startswith(b"\x89PNG")
    assert tmp_path / "report" / "sequential_niah_groups.png" in files.plots


def test_judge_command_judges_a_copied_run_and_reports_counts(judged_run, tmp_path, monkeypatch):
    import shutil

    from click.testing import CliRunner

    import needlework.backends
    from eval.cli import main

    run_dir = tmp_path / "run"
    shutil.copytree(judged_run["outcome"].run_dir, run_dir)
    (run_dir / "judge.jsonl").unlink()
    made: list[tuple[str, str, str | None]] = []

    def scripted(name, model, *, base_url=None, **_):
        made.append((name, model, base_url))
        return ScriptedBackend(judged_run["judge_answer"])

    monkeypatch.setattr(needlework.backends, "backend_for", scripted)
    result = CliRunner().invoke(main, ["judge", str(run_dir), "--model", "judge-7b", "--base-url", "http://127.0.0.1:9/v1"])
    assert result.exit_code == 0, result.output
    assert made == [("openai", "judge-7b", "http://127.0.0.1:9/v1")]
    assert result.output == f"{run_dir}: 6 judged, 5 correct (full marks), mean score 0.833 of 1 ({run_dir / 'judge.jsonl'})\n"
    assert len((run_dir / "judge.jsonl").read_text(encoding="utf-8").splitlines()) == 6


def test_judge_command_without_an_endpoint_fails_in_one_line(judged_run, tmp_path):
    from click.testing import CliRunner

    from eval.cli import main

    result = CliRunner().invoke(main, ["judge", str(judged_run["outcome"].run_dir), "--model", "judge-7b"])
    assert result.exit_code == 2 and result.output.count("\n") == 1 and "--base-url" in result.output, result.output
