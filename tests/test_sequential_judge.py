"""Sequential-NIAH judge data and prompts: the paper's label rule, answer groups as named, disjoint
deterministic sets, and the Figure 9-11 templates.

The QA pool is the two real QA slices (``sequential_niah/source/QA``, read here into
:class:`SequentialQA` by splitting their reference answers into ``- `` items) and synthetic QAs
built below: diary-style temporal questions in English and Chinese (with and without an order
requirement, distractors that are the same subject's events outside the period) and procedures
whose steps are in logical order (distractor: a step of another procedure).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from generators.errors import SpecError
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

# --- QA pool -----------------------------------------------------------------------------------------------

EN_EVENTS = ("visited the city museum and saw an exhibition on ancient Egypt", "attended a pottery class at the community center",
             "went hiking with friends on the northern ridge trail", "cooked a Thai curry for the first time",
             "read a novel about a lighthouse keeper", "volunteered at the animal shelter in the afternoon",
             "played chess online and won three games", "repaired the old bicycle in the garage",
             "joined a choir rehearsal at the church hall", "watched a documentary about deep sea creatures",
             "planted tomatoes in the backyard garden", "took a photography workshop on night skies",
             "wrote a letter to an old school friend", "went to a jazz concert downtown",
             "baked sourdough bread with a new starter", "cleaned out the attic and found old photographs",
             "visited grandparents in the countryside")
ZH_EVENTS = ("参观了城市博物馆的古埃及展览", "在社区中心上了一节陶艺课", "和朋友去北山步道徒步", "第一次做了泰式咖喱",
             "读了一本关于灯塔看守人的小说", "下午去动物收容所做志愿者", "在网上下棋赢了三局", "在车库里修好了旧自行车",
             "参加了教堂的合唱排练", "看了一部关于深海生物的纪录片", "在后院种了西红柿", "参加了夜空摄影工作坊",
             "给老同学写了一封信", "去市中心听了一场爵士音乐会", "用新酵种烤了酸面包", "清理了阁楼发现了老照片", "去乡下看望了祖父母")
EN_NAMES = ("James Clark", "Mary Jones", "Paul Ramirez", "Linda Chen", "Omar Haddad", "Grace Kim")
ZH_NAMES = ("胡慧聪", "李明远", "张晓琳", "王建国", "陈思雨", "赵子龙")
EN_STEPS = {
    "renew a passport": ("Fill out the renewal application form", "Attach a recent passport photo",
                         "Include your most recent passport", "Pay the renewal fee by check",
                         "Mail the package to the passport agency", "Track the application status online"),
    "brew pour-over coffee": ("Boil water to about 94 degrees", "Grind the beans to a medium-fine size",
                              "Rinse the paper filter with hot water", "Add the grounds and let them bloom briefly",
                              "Pour the remaining water in slow circles", "Remove the dripper and serve"),
    "change a flat tire": ("Park on flat ground and turn on the hazard lights", "Loosen the lug nuts slightly",
                           "Raise the car with the jack", "Remove the lug nuts and the flat tire",
                           "Mount the spare tire and tighten the nuts by hand", "Lower the car and tighten the nuts fully"),
    "open a bank account": ("Choose the type of account you need", "Gather your identity documents",
                            "Visit a branch or the bank website", "Complete the application form",
                            "Make the initial deposit", "Activate online banking"),
}
ZH_STEPS = {
    "办理护照": ("在网上预约办理时间", "准备身份证和户口本", "到出入境大厅填写申请表", "现场拍照并采集指纹", "缴纳护照工本费", "按约定时间领取护照"),
    "冲泡手冲咖啡": ("把水烧到九十四度左右", "将咖啡豆磨成中细粉", "用热水冲洗滤纸", "倒入咖啡粉闷蒸片刻", "以画圈方式缓慢注水", "移开滤杯后即可饮用"),
    "更换汽车轮胎": ("把车停在平地并打开双闪", "稍微拧松轮胎螺丝", "用千斤顶把车顶起", "卸下螺丝和坏轮胎", "装上备胎并用手拧紧螺丝", "放下车辆后彻底拧紧螺丝"),
    "开立银行账户": ("选择需要的账户类型", "准备好身份证明材料", "前往网点或登录银行网站", "填写开户申请表", "存入首笔资金", "开通网上银行"),
}
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")


def temporal_qa(lang: str, index: int, ordered: bool, rng: np.random.Generator) -> SequentialQA:
    """A diary question: 3-10 dated events of one subject in one month; distractors outside the period."""
    n = int(rng.integers(3, 11))
    year, month = int(rng.integers(2000, 2020)), int(rng.integers(1, 13))
    days = sorted(int(d) for d in rng.choice(np.arange(1, 29), size=n, replace=False))
    pool = EN_EVENTS if lang == "en" else ZH_EVENTS
    events = [pool[int(i)] for i in rng.choice(len(pool), size=n + 2, replace=False)]
    if lang == "en":
        name = EN_NAMES[index % len(EN_NAMES)]
        answers = tuple(f"On {MONTHS[month - 1]} {d}, {year}, {name} {e}." for d, e in zip(days, events))
        needles = tuple(f"Record of {name}: {year}-{month:02d}-{d:02d}: I {e}." for d, e in zip(days, events))
        question = (f"List the events in the record of {name} in {MONTHS[month - 1]} {year} in chronological order."
                    if ordered else f"What did {name} do in {MONTHS[month - 1]} {year} according to the record?")
        distractors = (f"On {MONTHS[month - 1]} 3, {year + 1}, {name} {events[n]}.",
                       f"On {MONTHS[(month + 5) % 12]} 9, {year}, {name} {events[n + 1]}.")
        reference = "The events are:\n" + "\n".join(f"- {a}" for a in answers)
    else:
        name = ZH_NAMES[index % len(ZH_NAMES)]
        answers = tuple(f"{year}年{month:02d}月{d:02d}日：{e}" for d, e in zip(days, events))
        needles = tuple(f"{name}记事-{year}年{month:02d}月{d:02d}日，{e}" for d, e in zip(days, events))
        question = f"按日期罗列{name}记事在{year}年{month}月的内容" if ordered else f"{name}记事在{year}年{month}月都记录了什么？"
        distractors = (f"{year + 1}年{month:02d}月03日：{events[n]}",)
        reference = f"{name}记事的内容如下：\n" + "\n".join(f"- {a}" for a in answers)
    return SequentialQA(f"synthetic-temporal/{lang}/{index:06d}", lang, "synthetic-temporal", question, answers,
                        needles, ordered, reference, distractors, "test")


def logical_qa(lang: str, index: int, rng: np.random.Generator) -> SequentialQA:
    """A procedure question: the first 3-6 steps in order; distractor: a step of another procedure."""
    table = EN_STEPS if lang == "en" else ZH_STEPS
    names = sorted(table)
    task, other = names[index % len(names)], table[names[(index + 1) % len(names)]]
    answers = table[task][: int(rng.integers(3, len(table[task]) + 1))]
    if lang == "en":
        question, needles = f"What are the steps to {task}?", tuple(f"To {task}, {s.lower()}." for s in answers)
        reference = f"To {task}:\n" + "\n".join(f"{i}. {s}" for i, s in enumerate(answers, 1))
    else:
        question, needles = f"{task}的步骤是什么？", tuple(f"{task}时，需要{s}。" for s in answers)
        reference = f"{task}的步骤：\n" + "\n".join(f"{i}. {s}" for i, s in enumerate(answers, 1))
    return SequentialQA(f"real-logical/{lang}/{index:06d}", lang, "real-logical", question, answers, needles, True,
                        reference, (other[int(rng.integers(0, len(other)))],), "test")


def synthetic_qas(count: int, seed: int = 0) -> list[SequentialQA]:
    """``count`` QAs cycling through English/Chinese and ordered temporal, unordered temporal, logical."""
    rng = np.random.default_rng(seed)
    qas = []
    for index in range(count):
        lang, kind = ("en", "zh")[index % 2], (index // 2) % 3
        qas.append(logical_qa(lang, index, rng) if kind == 2 else temporal_qa(lang, index, kind == 0, rng))
    return qas


def real_qas(shared_file: Callable[[str], Path]) -> list[SequentialQA]:
    """The two real QA slices: an English TKG question (not asking for order) and a Chinese diary list."""
    qas = []
    for lang, pipeline, ordered in (("en", "real-temporal", False), ("zh", "synthetic-temporal", True)):
        for line in shared_file(f"sequential_niah/source/QA/QA_{lang}.jsonl").read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            items = tuple(row[2:].strip() for row in record["answer"].split("\n") if row.startswith("- "))
            qas.append(SequentialQA(f"{pipeline}/{lang}/{record['md5']}", lang, pipeline, record["question"], items,
                                    tuple(record["needles"]), ordered, record["answer"], (), "real"))
    return qas


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
    with pytest.raises(SpecError, match="groups"):
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
    from eval.tasks.sequential_niah import normalize_item

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
