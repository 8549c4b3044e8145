"""Sequential-NIAH's rule scorer against the paper's labelling rule, answer for answer (issue 38).

The paper labels an answer by its items (§4 and Appendix A, Figure 3): all reference items and nothing else is
correct; missing, redundant and incorrect items are wrong; shuffled items are wrong where the question asks
for order. No official code applies the rule (the authors' judge data was labelled as it was made), so the
table ``data/sequential_niah_rule_labels.json`` holds answers crafted by :mod:`tests.support.crafted_sequential_niah`
with the rule's label beside each: 500 answers to 50 questions of needlework's synthetic world (both languages,
all three pipelines, step-numbered and ordinal logical needles, every needle date format, multi-line diary
needles), reference-worded and needle-worded. The authors' own two example questions
(``sequential_niah/example/NIAH_{en,zh}.jsonl``: their needles, in answer order) are crafted at test time.

One departure is named (the card's scoring section): in an answer written as prose, not as a list, a leftover
sentence counts as an extra item only when it holds a number or resembles an answer item or needle (similarity
>= 50); an unrelated sentence without a number ("Steshave is a city in Democratic Republic of Molligru.") reads as
commentary, so a prose answer with such a redundant sentence is scored correct.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from eval.benchmarks.sequential_niah.items import ItemScore, score_items
from tests.support.crafted_sequential_niah import CLASSES, CraftedAnswer, Question, crafted_answers

TABLE = Path(__file__).parent / "data" / "sequential_niah_rule_labels.json"


def _table() -> tuple[list[Question], list[CraftedAnswer]]:
    stored = json.loads(TABLE.read_text(encoding="utf-8"))
    questions = [Question(q["qid"], q["lang"], q["pipeline"], q["ordered"], tuple(q["answers"]), tuple(q["needles"]))
                 for q in stored["questions"]]
    cases = []
    for case in stored["cases"]:
        cases.append(CraftedAnswer(case["key"], case["label"], case["class"], case["wording"],
                                   questions[case["question"]], case["response"]))
    return questions, cases


def is_prose_commentary(case: CraftedAnswer, found: ItemScore) -> bool:
    """The named departure: a redundant sentence in a prose answer read as commentary (no extra item found)."""
    return case.cls == "redundant" and not found.listed and not found.extra and not found.missing


def disagreements(cases: list[CraftedAnswer]) -> tuple[Counter, list[str]]:
    """Per (class, language): [cases, agreeing]; and the keys that disagree outside the named departure."""
    cells: Counter = Counter()
    unnamed = []
    for case in cases:
        q = case.question
        found = score_items(case.response, q.answers, ordered=q.ordered, needles=q.needles)
        cells[(case.cls, q.lang, "n")] += 1
        cells[(case.cls, q.lang, "agree")] += found.correct == case.label
        if found.correct != case.label and not is_prose_commentary(case, found):
            unnamed.append(case.key)
    return cells, unnamed


def test_the_table_covers_every_class_language_and_pipeline():
    questions, cases = _table()
    assert len(cases) >= 300
    assert {(c.cls, c.question.lang) for c in cases} == {(cls, lang) for cls in CLASSES for lang in ("en", "zh")}
    assert {q.pipeline for q in questions} == {"synthetic-temporal", "real-temporal", "real-logical"}
    assert any("\n" in n for q in questions for n in q.needles), "multi-line diary needles"
    assert any("step number" in n or "Step " in n for q in questions for n in q.needles), "step-numbered needles"


def test_rule_scorer_agrees_with_the_papers_labels_outside_the_named_departure():
    _, cases = _table()
    cells, unnamed = disagreements(cases)
    lines = [f"{cls:18} {lang}  {cells[(cls, lang, 'agree')]:4d} / {cells[(cls, lang, 'n')]:4d}"
             for cls in CLASSES for lang in ("en", "zh")]
    print("\n".join(["", "Rule scorer vs the paper's labels (crafted answers)", *lines]))
    assert unnamed == []
    for lang in ("en", "zh"):
        for cls in ("reference-worded", "needle-worded", "missing", "reordered", "wrong"):
            assert cells[(cls, lang, "agree")] == cells[(cls, lang, "n")], (cls, lang)


def test_needle_worded_answers_need_the_needles():
    """Without the needles (records saved before they were kept) most needle-worded answers fail: the table
    tests what the needles add."""
    _, cases = _table()
    worded = [c for c in cases if c.cls == "needle-worded"]
    without = sum(score_items(c.response, c.question.answers, ordered=c.question.ordered).correct for c in worded)
    assert without < len(worded) / 2


def test_the_authors_example_needles_in_answer_order_are_correct(shared_file):
    questions = []
    for lang, pipeline in (("en", "real-temporal"), ("zh", "synthetic-temporal")):
        record = json.loads(shared_file(f"sequential_niah/example/NIAH_{lang}.jsonl").read_text(encoding="utf-8").splitlines()[0])
        answers = tuple(line[2:] for line in record["meta_QA"]["answer"].split("\n") if line.startswith("- "))
        needles = tuple(record["meta_QA"]["raw_needles"])
        assert len(answers) == len(needles) == record["num_needles"]
        questions.append(Question(f"authors/{lang}", lang, pipeline, True, answers, needles))
    cases = [case for q in questions for case in crafted_answers(q, questions)]
    _, unnamed = disagreements(cases)
    assert unnamed == []
    for q in questions:
        in_order = "\n".join(f"- {' '.join(n.split())}" for n in q.needles)
        assert score_items(in_order, q.answers, ordered=True, needles=q.needles).correct
        raw = "\n".join(f"{i}. {n}" for i, n in enumerate(q.needles, 1))
        assert score_items(raw, q.answers, ordered=True, needles=q.needles).correct


@pytest.mark.parametrize(("response", "correct"), [
    ("1. Step 1 of Ann's career path: Joined Bupan Works\n2. Regarding Ann's career path, step number 2: Retired "
     "from Bupan Works", True),
    ("1. Joined Bupan Works\n2. Retired from Bupan Works", True),
    ("1. Step 1 of Ann's career path: Joined Bupan Works\n2. Regarding Ann's career path, step number 2: Joined "
     "Kole Bank", False),
    ("1. Joined Bupan Works\n2. Joined Kole Bank", False),
    ("1. Regarding Ann's career path, step number 2: Retired from Bupan Works\n2. Step 1 of Ann's career path: "
     "Joined Bupan Works", False),
])
def test_a_step_numbered_needle_is_accepted_and_its_frame_carries_no_wrong_step(response, correct):
    answers = ("Joined Bupan Works", "Retired from Bupan Works")
    needles = ("Step 1 of Ann's career path: Joined Bupan Works",
               "Regarding Ann's career path, step number 2: Retired from Bupan Works")
    assert score_items(response, answers, ordered=True, needles=needles).correct is correct


def test_records_keep_each_items_needle_and_old_records_still_score():
    """A run's record holds the reference items, then NEEDLES_FOLLOW and each item's needle (rows list needles in
    text order with their answer_index), so re-scoring from the record alone matches needle wording; a record
    saved before (reference items only) is scored in the reference wording."""
    from eval.benchmarks import get_task
    from eval.benchmarks.sequential_niah.task import NEEDLES_FOLLOW, ORDERED, references_of, split_references
    from eval.task import TaskOptions

    row = {"answers": ["January 2, 2005: Read a book.", "January 9, 2005: Baked bread."],
           "needles": [{"text": "Ann's Diary\n9 January 2005\nBaked bread.", "answer_index": 1},
                       {"text": "Ann's Diary, Jan. 2, 2005: Read a book.", "answer_index": 0}]}
    references = get_task(ORDERED, TaskOptions()).references(row)
    assert references == [*row["answers"], NEEDLES_FOLLOW, "Ann's Diary, Jan. 2, 2005: Read a book.",
                          "Ann's Diary\n9 January 2005\nBaked bread."]
    assert split_references(references) == (row["answers"], references[3:])
    assert split_references(row["answers"]) == (row["answers"], None)
    assert references_of({**row, "needles": row["needles"][:1]}) == row["answers"]
    task = get_task(ORDERED, TaskOptions())
    copied = "1. Ann's Diary, Jan. 2, 2005: Read a book.\n2. Ann's Diary\n9 January 2005\nBaked bread."
    assert task.score(task.extract(copied), references) == 1.0
    assert task.secondary_scores(copied, references)["item_recall"] == 1.0
    assert task.details(copied, references).needle_worded == (0, 1)
    assert task.score("1. January 2, 2005: Read a book.\n2. January 9, 2005: Baked bread.", row["answers"]) == 1.0


def test_a_run_scores_an_answer_copied_from_the_needles_as_correct(tmp_path):
    """End to end through ``eval.runner.run``: the release row's needles reach the saved record and the scorer."""
    import pyarrow as pa

    from eval.runner import RunSpec, run
    from tests.support.releases import write_test_release
    from tests.support.scripted import ScriptedBackend

    needles = [{"text": "Step 1 of Ann's career path: Joined Bupan Works", "answer_index": 0},
               {"text": "Regarding Ann's career path, step number 2: Retired from Bupan Works", "answer_index": 1}]
    rows = [{"id": f"r{k}", "input": f"Document {k}: ...\n\nQuestion: \nWhat were Ann's steps, in order?",
             "question": "What were Ann's steps, in order?", "answers": ["Joined Bupan Works", "Retired from Bupan Works"],
             "reference": "- Joined Bupan Works\n- Retired from Bupan Works", "ordered": True, "needles": needles,
             "lang": "en", "pipeline": "real-logical", "length_bucket": "8k-16k", "n_tokens": 9000, "qid": f"q{k}",
             "source": "test", "variant": "original", "original_id": f"r{k}"} for k in (0, 1)]
    schema = pa.schema([("id", pa.string()), ("input", pa.string()), ("question", pa.string()),
                        ("answers", pa.list_(pa.string())), ("reference", pa.string()), ("ordered", pa.bool_()),
                        ("needles", pa.list_(pa.struct([("text", pa.string()), ("answer_index", pa.int32())]))),
                        ("lang", pa.string()), ("pipeline", pa.string()), ("length_bucket", pa.string()),
                        ("n_tokens", pa.int32()), ("qid", pa.string()), ("source", pa.string()),
                        ("variant", pa.string()), ("original_id", pa.string())])
    release = write_test_release(tmp_path / "release", {"benchmark": "sequential-niah"}, schema, {"test": rows})
    answers = {rows[0]["input"]: "\n".join(f"{n}. {x['text']}" for n, x in enumerate(needles, 1)),
               rows[1]["input"]: f"1. {needles[1]['text']}\n2. {needles[0]['text']}"}
    spec = RunSpec(dataset=str(release), configs=("test",), model="scripted", backend="vllm", output_dir=tmp_path / "run")
    outcome = run(spec, backend=ScriptedBackend(lambda content: answers[content]), progress=False)
    assert outcome.results["scores"]["overall"]["score"] == 0.5  # copied in order: 1; copied in reverse order: 0
