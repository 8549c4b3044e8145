"""QA ingestion: needles mapped to corpus documents, drops reported, checked against the raw files."""

from __future__ import annotations

import collections
import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from builders.sources.corpus_read import normalize_title
from builders.sources.multihop_qa import QA_SCHEMA, read_hotpotqa, read_musique, read_nq, read_qa
from builders.sources.passages import read_passages
from needlework.errors import InputError

MUSIQUE = "multihop_hipporag/musique_train.json"
MUSIQUE_CORPUS = "multihop_hipporag/musique_train_corpus.json"
HOTPOT = "multihop_hipporag/hotpotqa_train.json"
HOTPOT_CORPUS = "multihop_hipporag/hotpotqa_train_corpus.json"
NQ = "nq_open/NQ-open.dev.jsonl"


@pytest.fixture(scope="module")
def musique_records(shared_file: Callable[[str], Path]) -> list[dict]:
    return json.loads(shared_file(MUSIQUE).read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def musique_corpus(shared_file: Callable[[str], Path]):
    return read_passages(shared_file(MUSIQUE_CORPUS))


@pytest.fixture(scope="module")
def wiki(wikipedia_slice):
    return wikipedia_slice


def supporting_paragraphs(record: dict) -> list[dict]:
    by_idx = {paragraph["idx"]: paragraph for paragraph in record["paragraphs"]}
    return [by_idx[step["paragraph_support_idx"]] for step in record["question_decomposition"]]


def test_musique_slice_maps_every_needle(shared_file, musique_records, musique_corpus):
    read = read_musique(shared_file(MUSIQUE), musique_corpus)
    assert read.qa.schema == QA_SCHEMA and read.dropped == ()
    assert read.qa.num_rows == len(musique_records) == 50
    assert read.qa.column("qid").to_pylist() == [record["id"] for record in musique_records]
    prefix_hops = collections.Counter(int(re.match(r"(\d)hop", record["id"]).group(1)) for record in musique_records)
    assert collections.Counter(read.qa.column("hops").to_pylist()) == prefix_hops == {2: 35, 3: 12, 4: 3}
    texts = musique_corpus.corpus.column("text").to_pylist()
    titles = musique_corpus.corpus.column("title").to_pylist()
    shared_title_needles = 0
    for row, record in zip(read.qa.to_pylist(), musique_records):
        paragraphs = supporting_paragraphs(record)
        assert [texts[doc_id] for doc_id in row["support"]] == [p["paragraph_text"] for p in paragraphs]
        assert [titles[doc_id] for doc_id in row["support"]] == [p["title"] for p in paragraphs]
        assert row["hops"] == len(row["support"]) == len(set(row["support"]))
        assert row["answers"] == list(dict.fromkeys([record["answer"], *record["answer_aliases"]]))
        assert row["source"] == "musique" and row["lang"] == "en"
        shared_title_needles += sum(len(musique_corpus.titles[normalize_title(p["title"])]) > 1 for p in paragraphs)
    assert shared_title_needles > 0  # the exact-text match is exercised, not only the title fallback


def test_question_whose_needle_is_missing_is_dropped(shared_file, musique_records, tmp_path):
    corpus_records = json.loads(shared_file(MUSIQUE_CORPUS).read_text(encoding="utf-8"))
    removed = supporting_paragraphs(musique_records[0])[0]["title"]
    path = tmp_path / "corpus.json"
    path.write_text(json.dumps([r for r in corpus_records if r["title"] != removed]), encoding="utf-8")
    read = read_musique(shared_file(MUSIQUE), read_passages(path))
    expected = [record["id"] for record in musique_records
                if any(p["title"] == removed for p in supporting_paragraphs(record))]
    assert [qid for qid, _ in read.dropped] == expected and expected[0] == musique_records[0]["id"]
    assert all(f"{removed!r} not in corpus" in reason for _, reason in read.dropped)
    assert read.qa.num_rows == 50 - len(expected)
    assert not set(expected) & set(read.qa.column("qid").to_pylist())


def test_unanswerable_and_malformed_musique(musique_records, musique_corpus, tmp_path):
    records = [dict(record) for record in musique_records[:3]]
    records[1]["answerable"] = False
    path = tmp_path / "musique.jsonl"
    path.write_text("\n".join(json.dumps(record) for record in records), encoding="utf-8")
    read = read_musique(path, musique_corpus)
    assert read.dropped == ((records[1]["id"], "unanswerable"),)
    assert read.qa.column("qid").to_pylist() == [records[0]["id"], records[2]["id"]]
    del records[2]["question"]
    path.write_text("\n".join(json.dumps(record) for record in records), encoding="utf-8")
    with pytest.raises(InputError, match=re.escape(f"{path}, record 3, field 'question'")):
        read_musique(path, musique_corpus)
    path.write_text("\n".join(json.dumps(record) for record in [records[0], records[0]]), encoding="utf-8")
    with pytest.raises(InputError, match=re.escape(f"{path}, record 2, field 'id': duplicate question id")):
        read_musique(path, musique_corpus)
    records = [dict(musique_records[0], question_decomposition=[{"question": "?", "paragraph_support_idx": 99}])]
    path.write_text(json.dumps(records[0]), encoding="utf-8")
    with pytest.raises(InputError, match=r"record 1, field 'question_decomposition\[0\]\.paragraph_support_idx'"):
        read_musique(path, musique_corpus)


def test_hotpotqa_slice_against_its_corpus(shared_file):
    records = json.loads(shared_file(HOTPOT).read_text(encoding="utf-8"))
    corpus = read_passages(shared_file(HOTPOT_CORPUS))
    read = read_hotpotqa(shared_file(HOTPOT), corpus)
    assert read.qa.num_rows == 50 and read.dropped == ()
    titles = corpus.corpus.column("title").to_pylist()
    for row, record in zip(read.qa.to_pylist(), records):
        assert row["qid"] == record["_id"] and row["answers"] == [record["answer"]]
        expected = list(dict.fromkeys(title for title, _ in record["supporting_facts"]))
        assert [titles[doc_id] for doc_id in row["support"]] == expected
        assert row["hops"] == len(expected) and row["source"] == "hotpotqa"


def test_nq_open_without_titles_is_all_dropped(shared_file, musique_corpus):
    path = shared_file(NQ)
    lines = [line for line in path.read_text(encoding="utf-8").split("\n") if line.strip()]
    read = read_nq(path, musique_corpus)
    assert read.qa.num_rows == 0 and read.qa.schema == QA_SCHEMA
    assert read.dropped == tuple((f"nq-{n}", "no gold page title") for n in range(1, len(lines) + 1))


def test_nq_with_titles_against_wikipedia(wiki, tmp_path):
    ids = {title: doc_id for doc_id, title in enumerate(wiki.corpus.column("title").to_pylist())}
    redirect = next(title for title in ("AynRand", "AbacuS") if title in wiki.titles)
    records = [
        {"question": "what is anarchism", "answer": ["a political philosophy"], "title": "Anarchism"},
        {"question": "who wrote atlas shrugged", "answer": "Ayn Rand", "titles": [redirect, "albedo"]},
        {"question": "what is accessibility", "answer": ["access"], "page_title": "Computer accessibility"},
        {"question": "what is an acid", "answer": ["a molecule", "a molecule"], "document_title": "Acid#History",
         "id": "custom-7"},
        {"question": "no title here", "answer": ["x"]},
    ]
    path = tmp_path / "nq.jsonl"
    path.write_text("\n\n".join(json.dumps(record) for record in records) + "\n", encoding="utf-8")
    read = read_qa(path, wiki)
    assert read.label == "nq:nq.jsonl"
    rows = read.qa.to_pylist()
    assert [row["qid"] for row in rows] == ["nq-1", "nq-3", "custom-7"]
    assert [row["support"] for row in rows] == [
        [ids["Anarchism"]], [wiki.titles[redirect][0], ids["Albedo"]], [ids["Acid"]]]
    assert [row["hops"] for row in rows] == [1, 2, 1] and rows[2]["answers"] == ["a molecule"]
    assert "Computer accessibility" not in ids
    assert read.dropped == (
        ("nq-5", "gold page 'Computer accessibility' not in corpus"), ("nq-9", "no gold page title"))


def test_read_qa_sniffs_the_format(shared_file, musique_corpus, tmp_path):
    musique = shared_file(MUSIQUE)
    assert read_qa(musique, musique_corpus).qa.equals(read_musique(musique, musique_corpus).qa)
    hotpot_corpus = read_passages(shared_file(HOTPOT_CORPUS))
    assert read_qa(shared_file(HOTPOT), hotpot_corpus).label.startswith("hotpotqa:")
    path = tmp_path / "other.jsonl"
    path.write_text(json.dumps({"query": "q", "gold": "a"}) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"unknown question format.*musique.*hotpotqa.*nq"):
        read_qa(path, musique_corpus)
    path.write_text("\n", encoding="utf-8")
    with pytest.raises(InputError, match="no records"):
        read_qa(path, musique_corpus)
    path.write_text(json.dumps({"question": "q", "answer": "a"}) + "\n{broken\n", encoding="utf-8")
    with pytest.raises(InputError, match=re.escape(f"{path}, record 2: line 2 is not valid JSON")):
        read_qa(path, musique_corpus)
