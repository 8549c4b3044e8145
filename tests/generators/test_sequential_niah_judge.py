"""Sequential-NIAH judge data and prompts: the paper's label rule, answer groups as named, disjoint
deterministic sets, and the Figure 9-11 templates.

The QA pool is the two real QA slices and synthetic diary and procedure QAs
(:mod:`tests.support.sequential_qas`).
"""

from __future__ import annotations

from collections import Counter

import pytest

from needlework.errors import SpecError
from generators.sequential_niah.judge import (
    CELLS,
    GROUPS,
    JudgeSpec,
    build_judge_sets,
    format_date,
    judge_records,
    label_for,
    rewrite_dates,
    split_judge_qas,
)
from generators.sequential_niah.prompts import JUDGE_PROMPTS, judge_prompt, order_type_of
from generators.sequential_niah.qa import SequentialQA
from tests.support.sequential_qas import real_qas, synthetic_qas

# --- QA pool -----------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def qa_pool(shared_file) -> list[SequentialQA]:
    return real_qas(shared_file) + synthetic_qas(60)


@pytest.fixture(scope="module")
def judge_sets(qa_pool) -> dict:
    return build_judge_sets(qa_pool, JudgeSpec(train_size=300, test_size=500), seed=11)


# --- prompts -----------------------------------------------------------------------------------------------


def test_the_six_templates_fill_every_field_and_keep_the_json_block():
    for (kind, lang) in JUDGE_PROMPTS:
        result = "incorrect" if kind == "reason" else None
        text = judge_prompt(kind, lang, query="Q?", answer="A-text", ref_answer="R-text", result=result)
        assert "{query}" not in text and "Q?" in text and "A-text" in text and "R-text" in text
        assert text.count("{") == text.count("}") == 1  # the JSON object's own braces, undoubled
        assert ("```json" in text) == (lang == "zh")
        assert ('"eval_label"' in text) == (kind != "reason")
        assert ('"order_analysis"' in text) == (kind != "logical")
        tags = ("<问题开始>", "<待评估答案开始>", "<标准答案开始>") if lang == "zh" else \
            ("<query_start>", "<answer_start>", "<ref_answer_start>")
        positions = [text.index(tag) for tag in tags]
        assert positions == sorted(positions) and text.index("Q?") > positions[0]
    reason_zh = judge_prompt("reason", "zh", query="q", answer="a", ref_answer="r", result="correct")
    assert "<已知结论开始>\n正确\n<已知结论结束>" in reason_zh
    reason_en = judge_prompt("reason", "en", query="q", answer="a", ref_answer="r", result="incorrect")
    assert "<result_start>\nincorrect\n<result_end>" in reason_en
    assert "only a complete match can be considered correct" in judge_prompt("logical", "en", query="q", answer="a",
                                                                               ref_answer="r")
    assert "chronological order" in judge_prompt("temporal", "en", query="q", answer="a", ref_answer="r")


def test_prompt_errors():
    with pytest.raises(SpecError, match="kinds"):
        judge_prompt("summary", "en", query="q", answer="a", ref_answer="r")
    with pytest.raises(SpecError, match="result"):
        judge_prompt("reason", "en", query="q", answer="a", ref_answer="r")
    with pytest.raises(SpecError, match="result"):
        judge_prompt("temporal", "zh", query="q", answer="a", ref_answer="r", result="correct")
    assert order_type_of("real-logical") == "logical" and order_type_of("real-temporal") == "temporal"


# --- the label rule -----------------------------------------------------------------------------------------


def test_label_rule_of_appendix_a():
    expected = {("gt", False, True): "correct", ("gt", True, True): "incorrect",
                ("gt", False, False): "correct", ("gt", True, False): "correct"}
    for group in GROUPS:
        for shuffled in (False, True):
            for ordered in (False, True):
                want = expected.get((group, shuffled, ordered), "incorrect")
                assert label_for(group, shuffled, ordered) == want, (group, shuffled, ordered)
    with pytest.raises(SpecError, match="^answer group must be one of 'gt', 'missing', 'redundant', 'incorrect'; got 'shuffled'$"):
        label_for("shuffled", True, True)


def test_records_are_labelled_by_the_rule(judge_sets):
    for records in judge_sets.values():
        for r in records:
            want = "correct" if r.group == "gt" and (not r.shuffled or not r.ordered) else "incorrect"
            assert r.label == want, r.id
            assert r.order_type == ("logical" if r.pipeline == "real-logical" else "temporal")
            if r.order_type == "logical":
                assert r.ordered
        cells = Counter((r.group, r.shuffled) for r in records)
        assert set(cells) == set(CELLS)
        labels = Counter((r.order_type, r.ordered, r.label) for r in records)
        assert labels[("temporal", False, "correct")] and labels[("temporal", True, "incorrect")]


# --- groups are what they are called --------------------------------------------------------------------------


def test_groups_really_are_missing_redundant_incorrect_and_shuffled(judge_sets, qa_pool):
    from eval.benchmarks.sequential_niah.items import normalize_item

    by_qid = {qa.qid: qa for qa in qa_pool}
    for split, records in judge_sets.items():
        pool = {qa.qid for qa in split_judge_qas(qa_pool, JudgeSpec(300, 500), seed=11)[split]}
        for r in records:
            qa = by_qid[r.qid]
            kept = [i for i in r.item_answer_index if i >= 0]
            extras = [item for item, i in zip(r.candidate_items, r.item_answer_index) if i < 0]
            assert len(set(kept)) == len(kept)
            if r.group == "gt":
                assert sorted(kept) == list(range(len(qa.answers))) and not extras
            elif r.group == "missing":
                assert 0 < len(kept) < len(qa.answers) and not extras
            elif r.group == "redundant":
                assert sorted(kept) == list(range(len(qa.answers))) and extras
            else:
                assert 0 < len(kept) < len(qa.answers) and extras
            assert r.shuffled == (kept != sorted(kept)), r.id
            # extra items are the question's distractors or answers of other questions of the set in its
            # language and pipeline (in its language when no other question has its pipeline)
            peers = [o for o in qa_pool if o.qid in pool and o.qid != qa.qid and o.lang == qa.lang]
            peers = [o for o in peers if o.pipeline == qa.pipeline] or peers
            allowed = {normalize_item(d) for d in qa.distractors} | {normalize_item(a) for o in peers for a in o.answers}
            assert all(normalize_item(e) in allowed for e in extras), r.id
            assert not {normalize_item(e) for e in extras} & {normalize_item(a) for a in qa.answers}
            # the written items are the reference items (dates maybe in another format), in the text, in order
            for item, index in zip(r.candidate_items, r.item_answer_index):
                if index >= 0:
                    assert normalize_item(item) == normalize_item(qa.answers[index])
            offsets = [r.candidate.index(item) for item in r.candidate_items]
            assert offsets == sorted(offsets)
            assert r.candidate.count("\n") >= len(r.candidate_items)  # a lead line, then one line per item


def test_shuffle_is_impossible_with_one_remaining_item():
    qa = SequentialQA("x/en/1", "en", "synthetic-temporal", "q?", ("On May 1, 2001, A ate.", "On May 2, 2001, A ran."),
                      ("n1", "n2"), True, "ref", ("On May 9, 2001, A slept.",), "test")
    records = judge_records([qa], "test", 16, seed=0)
    for r in records:
        if r.group in ("missing", "incorrect"):
            assert not r.shuffled and len([i for i in r.item_answer_index if i >= 0]) == 1
        if r.group in ("gt", "redundant") and r.shuffled:
            assert [i for i in r.item_answer_index if i >= 0] == [1, 0]
    assert {(r.group, r.shuffled) for r in records} == {("gt", False), ("gt", True), ("redundant", False),
                                                       ("redundant", True), ("missing", False), ("incorrect", False)}


# --- sets --------------------------------------------------------------------------------------------------


def test_sets_have_their_sizes_disjoint_questions_and_are_deterministic(qa_pool, judge_sets):
    assert {k: len(v) for k, v in judge_sets.items()} == {"train": 300, "test": 500}
    assert not {r.qid for r in judge_sets["train"]} & {r.qid for r in judge_sets["test"]}
    assert len({r.id for records in judge_sets.values() for r in records}) == 800
    again = build_judge_sets(list(reversed(qa_pool)), JudgeSpec(train_size=300, test_size=500), seed=11)
    assert [r.to_row() for r in again["test"]] == [r.to_row() for r in judge_sets["test"]]
    other = build_judge_sets(qa_pool, JudgeSpec(train_size=300, test_size=500), seed=12)
    assert [r.candidate for r in other["test"]] != [r.candidate for r in judge_sets["test"]]
    row = judge_sets["test"][0].to_row()
    assert isinstance(row["candidate_items"], list) and row["prompt"].startswith(("You will", "你将"))


def test_pools_are_stratified_and_full_size_takes_one_question_per_candidate(qa_pool):
    pools = split_judge_qas(qa_pool, JudgeSpec(train_size=30, test_size=20), seed=1)
    assert (len(pools["train"]), len(pools["test"])) == (30, 20)
    assert Counter(qa.lang for qa in pools["test"]) == Counter({"en": 10, "zh": 10})
    proportional = split_judge_qas(qa_pool, JudgeSpec(train_size=600, test_size=196), seed=1)
    assert len(proportional["test"]) == round(len(qa_pool) * 196 / 796)
    assert len(proportional["train"]) + len(proportional["test"]) == len(qa_pool)
    test_only = build_judge_sets(qa_pool, JudgeSpec(train_size=0, test_size=40), seed=1)
    assert test_only["train"] == [] and len({r.qid for r in test_only["test"]}) == 40


def test_prompts_are_the_question_languages_judge_prompt(judge_sets):
    for r in judge_sets["test"][:80]:
        assert r.prompt == judge_prompt(r.order_type, r.lang, query=r.question, answer=r.candidate,
                                        ref_answer=r.reference)
        assert r.reason_prompt == judge_prompt("reason", r.lang, query=r.question, answer=r.candidate,
                                               ref_answer=r.reference, result=r.label)


def test_judge_data_errors(qa_pool):
    lonely = SequentialQA("x/en/1", "en", "real-temporal", "q?", ("a one", "a two", "a three"), ("n1", "n2", "n3"),
                          False, "ref", (), "test")
    with pytest.raises(SpecError, match="no extra items"):
        judge_records([lonely], "test", 8, seed=0)
    with pytest.raises(SpecError, match="distinct"):
        build_judge_sets([qa_pool[0], qa_pool[0]], JudgeSpec(1, 1), seed=0)
    with pytest.raises(SpecError, match="at least 2 questions"):
        build_judge_sets(qa_pool[:1], JudgeSpec(1, 1), seed=0)
    with pytest.raises(SpecError, match="sizes"):
        JudgeSpec(train_size=0, test_size=0)
    with pytest.raises(SpecError, match="split"):
        judge_records(qa_pool, "dev", 1, seed=0)


def test_dates_are_rewritten_to_the_same_day():
    assert rewrite_dates("On October 12, 2007, Obama met Iran.", "iso") == "On 2007-10-12, Obama met Iran."
    assert rewrite_dates("November 2nd, 2007, marked a day", "dmy") == "2 November 2007, marked a day"
    assert rewrite_dates("2006年02月01日：看电影", "zh-unpadded") == "2006年2月1日：看电影"
    assert rewrite_dates("2006-02-27：参观", "zh") == "2006年02月27日：参观"
    assert rewrite_dates("On 5 May 2010 and 2010-13-40", "mdy") == "On May 5, 2010 and 2010-13-40"
    assert format_date(2001, 3, 4, "mdy") == "March 4, 2001"
    with pytest.raises(SpecError):
        format_date(2001, 3, 4, "roman")


def test_extra_items_widen_to_the_language_and_then_the_whole_question_set():
    def career(key: str, answers: tuple[str, ...], lang: str = "en") -> SequentialQA:
        return SequentialQA(f"real-logical/{lang}/w/{key}", lang, "real-logical", "steps?", answers,
                            tuple(f"step: {a}" for a in answers), True, "ref", (), "w")

    # in a small world two careers share every item: the pipeline's peers have nothing new to add
    subset = career("a", ("Joined X", "Joined Y"))
    superset = career("b", ("Joined X", "Joined Y", "Retired from Y"))
    other_pipeline = SequentialQA("synthetic-temporal/en/1", "en", "synthetic-temporal", "events?",
                                  ("Went to Z on May 1, 2001", "Left Z on May 2, 2001"), ("n1", "n2"), True, "ref", (), "syn")
    records = judge_records([subset, superset, other_pipeline], "test", 24, seed=0)
    def extras_of(qa: SequentialQA, judged) -> set[str]:
        return {item for r in judged if r.qid == qa.qid for item, index in zip(r.candidate_items, r.item_answer_index)
                if index < 0}

    assert extras_of(subset, records) == {"Retired from Y"}  # its pipeline peer has an item it lacks
    assert extras_of(superset, records) == set(other_pipeline.answers)  # its peer has none: the language's other pipeline
    # alone in its set (and its language), a question draws extras from the build's other questions of its language
    chinese = career("c", ("加入了甲", "加入了乙"), lang="zh")
    alone = judge_records([subset], "test", 8, seed=0, fallback=[subset, superset, chinese])
    assert extras_of(subset, alone) == {"Retired from Y"}
