"""Question pools without repeated questions (issue 27 item 6).

MMLU repeats itself (the issue: ``public_relations`` test holds "In what year did the BBC start
broadcasting radio?" twice; the shared slice's ``college_physics`` test holds rows 4 and 16 with the
same stem and options), and a RULERv2 multi-key context (the ``Question {index}: ...`` items of
Table 2, NVIDIA-NeMo/Skills ``nemo_skills/dataset/ruler2/prepare_mmlu.py``) drawn from such a pool
showed one question under two indices.
"""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from builders.rulerv2 import RulerV2Build, build
from builders.sources.hotpotqa import read_hotpotqa_json
from builders.sources.mmlu import read_mmlu_folder
from builders.sources.pool_dedupe import (
    normalized_text,
    unique_docqa_pool,
    unique_mcq_pool,
)
from builders.sources.rulerv2 import resolve_docqa, resolve_mcq
from generators.rulerv2.pools import DocQaPool, DocQuestion, Document, Mcq, McqPool

BBC = "In what year did the BBC start broadcasting radio?"
BBC_CHOICES = ["1922", "1925", "1932", "1936"]


def mmlu_folder(root: Path, n_distinct: int = 14) -> Path:
    """An MMLU folder (headerless six-column CSVs, as the original release) whose public_relations
    test split holds the BBC question twice, once with other spacing and case, and a generic stem
    twice over different options (two questions, not one)."""
    rows = [[f"Which year saw public-relations milestone number {i}?", str(1900 + i), str(1950 + i), str(1970 + i),
             str(1990 + i), "B"] for i in range(n_distinct)]
    rows.insert(3, [BBC, *BBC_CHOICES, "A"])
    rows.insert(9, ["In what year did the BBC  start broadcasting RADIO?", *BBC_CHOICES[::-1], "D"])
    rows.insert(5, ["Which of the following statements is true?", "PR is free", "PR is paid", "PR is old", "PR is new", "C"])
    rows.insert(11, ["Which of the following statements is true?", "Ads are free", "Ads cost", "Ads are old", "Ads are new", "B"])
    for split, data in (("test", rows), ("dev", rows[:5])):
        (root / split).mkdir(parents=True)
        with (root / split / f"public_relations_{split}.csv").open("w", encoding="utf-8", newline="") as handle:
            csv.writer(handle).writerows(data)
    return root


def test_normalized_text_ignores_case_width_and_spacing():
    assert normalized_text("  In what year did the BBC\u3000start  broadcasting RADIO? ") == normalized_text(BBC)
    assert normalized_text("What is 2+2?") != normalized_text("What is 2-2?")


def test_a_repeated_question_is_dropped_and_a_repeated_stem_over_other_options_kept(tmp_path):
    pool = read_mmlu_folder(mmlu_folder(tmp_path / "mmlu"))
    unique, dropped = unique_mcq_pool(pool)
    assert dropped == ("mmlu/test/public_relations/0010",)  # the second BBC row (options reordered)
    assert len(unique.questions) == len(pool.questions) - 1
    assert [q.question for q in unique.questions].count("Which of the following statements is true?") == 2
    assert unique.shots == pool.shots
    again, none = unique_mcq_pool(unique)
    assert again is unique and none == ()


def test_distractors_repeating_each_other_or_a_question_are_dropped():
    def mcq(qid: str, question: str) -> Mcq:
        return Mcq(qid, question, ("a", "b", "c", "d"), "A")
    pool = McqPool("mmlu", (mcq("t/0", BBC), mcq("t/1", "Other?")),
                   distractors=(mcq("aux/0", "Aux one?"), mcq("aux/1", BBC.upper()), mcq("aux/2", "aux  ONE?")))
    unique, dropped = unique_mcq_pool(pool)
    assert dropped == ("aux/1", "aux/2") and [d.qid for d in unique.distractors] == ["aux/0"]


def test_a_docqa_question_repeats_only_over_the_same_gold_documents():
    docs = (Document("A", "a"), Document("B", "b"), Document("C", "c"))
    pool = DocQaPool("hotpotqa", docs, (
        DocQuestion("q1", "Who founded it?", ("x",), (0,)), DocQuestion("q2", "who  founded it?", ("x",), (0,)),
        DocQuestion("q3", "Who founded it?", ("y",), (1,))))
    unique, dropped = unique_docqa_pool(pool)
    assert dropped == ("q2",) and [q.qid for q in unique.questions] == ["q1", "q3"]


def test_the_shared_slices_pools(shared_file):
    """The MMLU slice holds one repeat (college_physics rows 4 and 16); the HotpotQA slice none."""
    mmlu = resolve_mcq(str(shared_file("mmlu/test/college_physics_test.csv").parents[1]), seed=0)
    assert mmlu.duplicates == ("mmlu/test/college_physics/0016",)
    hotpot = shared_file("multihop_hipporag/hotpotqa_train.json")
    assert resolve_docqa(str(hotpot), seed=0).duplicates == ()
    assert len(resolve_docqa(str(hotpot), seed=0).pool.questions) == len(read_hotpotqa_json(hotpot).pool.questions)
    assert resolve_mcq("world", seed=0).duplicates == ()


@pytest.fixture(scope="module")
def release(tmp_path_factory, cl100k):
    root = tmp_path_factory.mktemp("dedupe")
    spec = RulerV2Build(tasks=("mk_niah_easy",), lengths=(760,), generation_reserve=64, samples=4,
                        mcq=str(mmlu_folder(root / "mmlu")))
    report = build(spec, root / "release", tokens=cl100k, progress=False)
    return report


def test_a_pool_with_a_repeated_question_yields_contexts_without_it(release):
    rows = [r for f in sorted(release.out.rglob("*.parquet")) for r in pq.read_table(f).to_pylist()]
    assert rows
    shown = 0
    for row in rows:
        prompt = row["input"] if "input" in row else json.dumps(row)
        items = re.findall(r"Question \d+: (.*)", prompt)
        stems = [normalized_text(s) for s in items]
        assert stems.count(normalized_text(BBC)) <= 1, row.get("id")
        shown += stems.count(normalized_text(BBC))
    assert shown >= 1  # the question itself is still there, once


def test_the_build_reports_and_records_the_repeats_it_dropped(release):
    manifest = json.loads((release.out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["duplicates_dropped"] == {"mmlu": {"count": 1, "qids": ["mmlu/test/public_relations/0010"]}}
    assert any("dropped 1 repeated questions from the mmlu pool" in line for line in release.lines())
