"""``needlework build rulerv2 --docqa squad:...|musique:...``: SQuAD and MuSiQue as multi-doc QA bases.

RULERv2 builds multi-doc QA from HotpotQA; its references name SQuAD (Rajpurkar et al. 2016, [32])
and the tasks take any question answered by documents. The sources are read in their original
formats: SQuAD v1.1's nested JSON (``{"data": [{"title", "paragraphs": [{"context", "qas": [{"id",
"question", "answers": [{"text", "answer_start"}]}]}]}]}``, as ``dev-v1.1.json``; the Hub's
``rajpurkar/squad`` holds the same records flat) written here as a tiny file, and MuSiQue records
as HippoRAG ships them (``/work/shared/data/multihop_hipporag/musique_train.json``, see
``SOURCES.md``: ``paragraphs`` with ``is_supporting``, ``answer`` and ``answer_aliases``).
The rows are scored by the existing multi-doc QA rule (NeMo-Skills ``eval_ruler2`` "part").
"""

from __future__ import annotations

import json
from pathlib import Path

import datasets
import pytest

from builders.rulerv2 import RulerV2Build, build
from builders.sources.rulerv2 import resolve_docqa
from builders.sources.squad_musique import (
    musique_pool_from_records,
    read_musique_file,
    read_squad_file,
)
from eval.benchmarks import get_task, task_name_for_row
from eval.task import TaskOptions
from needlework.errors import InputError

MDQA = ("mdqa_basic", "mdqa_easy", "mdqa_medium", "mdqa_hard")
ANIMALS = ("otter", "heron", "badger", "lynx", "marten")


def squad_original() -> dict:
    """Four articles of five paragraphs, two questions per paragraph (the second with two answer texts)."""
    data = []
    for a in range(4):
        paragraphs = []
        for p in range(5):
            animal = ANIMALS[p]
            context = (f"The {animal} colony of Valley {a} was counted in spring {1900 + 10 * a + p}. Wardens recorded "
                       f"{a * 7 + p + 3} dens along the river, most of them under willow roots, and noted that the "
                       f"{animal}s fed mostly at dawn near the old mill of Valley {a}.")
            paragraphs.append({"context": context, "qas": [
                {"id": f"q{a}{p}a", "question": f"In which year was the {animal} colony of Valley {a} counted?",
                 "answers": [{"text": str(1900 + 10 * a + p), "answer_start": 0}] * 3},
                {"id": f"q{a}{p}b", "question": f"How many dens of {animal}s did the wardens of Valley {a} record?",
                 "answers": [{"text": str(a * 7 + p + 3), "answer_start": 0}, {"text": f"{a * 7 + p + 3} dens", "answer_start": 0}]},
            ]})
        data.append({"title": f"Valley_{a}_wildlife", "paragraphs": paragraphs})
    return {"version": "1.1", "data": data}


@pytest.fixture(scope="module")
def squad_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("squad") / "dev-v1.1.json"
    path.write_text(json.dumps(squad_original()), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def squad_release(tmp_path_factory, squad_file, cl100k) -> Path:
    out = tmp_path_factory.mktemp("rulerv2-squad") / "release"
    spec = RulerV2Build(tasks=MDQA, lengths=(800,), generation_reserve=64, samples=3, golden=True,
                        docqa=f"squad:{squad_file}")
    build(spec, out, tokens=cl100k, progress=False)
    return out


@pytest.fixture(scope="module")
def musique_file(shared_file) -> Path:
    return shared_file("multihop_hipporag/musique_train.json")


def test_squad_original_json_gives_paragraph_documents_and_answers(squad_file, tmp_path):
    read = read_squad_file(squad_file)
    pool = read.pool
    assert pool.name == "squad" and read.dropped == ()
    assert len(pool.documents) == 20 and len(pool.questions) == 40
    assert pool.documents[0].title == "Valley 0 wildlife"  # underscores of the article title as spaces
    second = pool.questions[1]
    assert (second.qid, second.answers, second.gold, second.distractors) == ("q00b", ("3", "3 dens"), (0,), ())
    assert pool.questions[0].answers == ("1900",)  # three identical annotations, one answer
    flat = tmp_path / "squad.jsonl"
    flat.write_text("".join(json.dumps({"id": qa["id"], "title": article["title"], "context": paragraph["context"],
                                        "question": qa["question"],
                                        "answers": {"text": [x["text"] for x in qa["answers"]],
                                                    "answer_start": [x["answer_start"] for x in qa["answers"]]}}) + "\n"
                            for article in squad_original()["data"] for paragraph in article["paragraphs"]
                            for qa in paragraph["qas"]), encoding="utf-8")
    assert read_squad_file(flat).pool == pool  # the Hub's flat columns give the same pool


def test_musique_supporting_paragraphs_are_gold_and_aliases_are_answers(musique_file):
    records = json.loads(musique_file.read_text(encoding="utf-8"))
    read = read_musique_file(musique_file)
    pool = read.pool
    assert pool.name == "musique" and read.dropped == () and len(pool.questions) == 50
    first = pool.questions[0]
    assert first.qid == "2hop__150763_14904" and first.answers == ("G. Stanley Hall", "Stanley Hall")
    supporting = [p["paragraph_text"].strip() for p in records[0]["paragraphs"] if p["is_supporting"]]
    assert [pool.documents[g].text for g in first.gold] == supporting
    assert len(first.gold) + len(first.distractors) == len(first.context_order) == 20
    unanswerable = {**records[1], "answerable": False}
    assert musique_pool_from_records([records[0], unanswerable], "m").dropped == (records[1]["id"],)


def test_malformed_records_name_file_record_and_field(tmp_path):
    bad = tmp_path / "squad.jsonl"
    bad.write_text(json.dumps({"id": "1", "context": "Text.", "question": "Q?", "answers": {"text": []}}) + "\n",
                   encoding="utf-8")
    with pytest.raises(InputError, match=r"squad\.jsonl.*record 1.*answers"):
        read_squad_file(bad)
    with pytest.raises(InputError, match=r"no such file; a musique source"):
        resolve_docqa(f"musique:{tmp_path / 'missing.json'}", 0)


def test_squad_rows(squad_release):
    pool_answers = {q["id"]: [x["text"] for x in q["answers"]] for a in squad_original()["data"]
                    for p in a["paragraphs"] for q in p["qas"]}
    for config in MDQA:
        for split in ("test", "golden"):
            for row in datasets.load_dataset(str(squad_release), config, split=split):
                assert row["source"] == "squad" and row["qid"] in pool_answers
                (needle,) = row["needles"]
                assert needle["source_id"].startswith("Valley ") and needle["text"] in row["input"]
                if config in ("mdqa_basic", "mdqa_easy"):
                    assert row["answers"] == [needle["text"].split(":", 1)[0].removeprefix("Document ")]
                else:
                    assert row["answers"] == list(dict.fromkeys(pool_answers[row["qid"]]))
                    assert row["input"].rstrip().endswith(row["query"]) or row["input"].endswith("Answer:")
                if split == "test":
                    assert row["n_tokens"] <= 800 - 64 and row["n_items"] > 3


def test_musique_release_is_deterministic_and_scored_by_the_qa_rule(musique_file, cl100k, tmp_path):
    spec = RulerV2Build(tasks=("mdqa_hard",), lengths=(4096,), samples=3, docqa=f"musique:{musique_file}")
    build(spec, tmp_path / "a", tokens=cl100k, progress=False)
    build(spec, tmp_path / "b", tokens=cl100k, progress=False)
    manifests = [json.loads((tmp_path / x / "manifest.json").read_text(encoding="utf-8")) for x in ("a", "b")]
    assert manifests[0]["configs"] == manifests[1]["configs"]
    assert any(key.startswith("musique:") for key in manifests[0]["inputs"])
    assert "MuSiQue paragraphs and questions" in (tmp_path / "a" / "README.md").read_text(encoding="utf-8")
    for row in datasets.load_dataset(str(tmp_path / "a"), "mdqa_hard", split="test"):
        assert row["source"] == "musique" and len(row["needles"]) >= 2
        task = get_task(task_name_for_row("rulerv2", row), TaskOptions())
        assert task.name == "rulerv2/mdqa_hard"
        for answer in row["answers"]:  # the answer or any alias is correct
            assert task.score(task.extract(f"The answer is {answer}."), task.references(row)) == 1.0
        assert task.score(task.extract("I do not know."), task.references(row)) < 1.0
