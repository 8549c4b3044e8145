"""Loaders for the authors' HaystackCraft files on tiny crafted files in their formats, and a build from them.

Formats (Graph-COM/HaystackCraft): ``docs.jsonl`` with ``id``/``title``/``text`` (``utils/data.py``
``load_docs``, which asserts unique ids; ``infer_multi.py`` renders ``Article Title: {title}\\n{text}``);
``edge_list.csv`` with the header ``source_node,target_node`` (``retrievers/ppr.py``
``load_network_edges_direct``, which asserts it); question files with ``id``, ``question``, ``answer``,
``answer_aliases`` and ``p2d_id`` (``utils/data.py`` ``load_data``, ``eval.py``, ``infer_multi.py``: the needles
are ``set(item['p2d_id'].values())``).
"""

from __future__ import annotations

import json
from pathlib import Path

import datasets
import pytest

from builders import haystackcraft
from builders.sources.haystackcraft_official import (
    read_official_corpus,
    read_official_inputs,
    read_official_qa,
    read_question_ids,
    select_questions,
)
from needlework.errors import InputError

DOCS = [
    {"id": "12", "title": "Anarchism", "text": "Anarchism is a political philosophy.", "url": "https://en.wikipedia.org/?curid=12"},
    {"id": "25", "title": "Autism", "text": "Autism is a neurodevelopmental condition."},
    {"id": "39", "title": "Albedo", "text": "Albedo is the fraction of sunlight reflected."},
    {"id": "290", "title": "A", "text": "A is the first letter of the Latin alphabet."},
    {"id": "303", "title": "Alabama", "text": "Alabama is a state in the United States. Its capital is Montgomery."},
    {"id": "305", "title": "Achilles", "text": "Achilles was a hero of the Trojan War."},
]
EDGES = "source_node,target_node\n12,25\n25,12\n12,25\n303,305\n39,39\n290,303\n"
QUESTIONS = [
    {"id": "2hop__100_200", "question": "What is the capital of the state that Achilles links to?", "answer": "Montgomery",
     "answer_aliases": ["Montgomery, Alabama"], "p2d_id": {"3": "305", "7": "303"}},
    {"id": "-4163353727462025419", "question": "what is albedo", "answer": "fraction of sunlight reflected",
     "answer_aliases": [], "p2d_id": {"0": "39"}},
    {"id": "3hop1__1_2_3", "question": "Which letter?", "answer": "A", "answer_aliases": [], "p2d_id": {"0": "290", "1": "999"}},
]


def write_jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.fixture
def official(tmp_path) -> Path:
    """A data folder as the authors' Hub dataset lays it out: docs.jsonl, edge_list.csv and a question file."""
    folder = tmp_path / "data"
    folder.mkdir()
    write_jsonl(folder / "docs.jsonl", DOCS)
    (folder / "edge_list.csv").write_text(EDGES, encoding="utf-8")
    write_jsonl(folder / "musique_400_250616.jsonl", QUESTIONS)
    return folder


def test_docs_and_edges_read_in_file_order(official) -> None:
    corpus, ids = read_official_corpus(official)
    assert ids.to_pylist() == [d["id"] for d in DOCS]
    assert corpus.corpus["doc_id"].to_pylist() == list(range(6))
    assert corpus.corpus["title"].to_pylist() == [d["title"] for d in DOCS]
    assert corpus.corpus["text"].to_pylist() == [d["text"] for d in DOCS]
    # directed, deduplicated, self-link dropped; PPR symmetrizes as ppr.py does
    assert list(zip(corpus.links["src"].to_pylist(), corpus.links["dst"].to_pylist())) == [(0, 1), (1, 0), (3, 4), (4, 5)]
    assert corpus.stats == {"documents": 6, "edge_rows": 6, "links": 4}
    same, _ = read_official_corpus(official / "docs.jsonl")  # the docs path, edges beside it
    assert same.links.equals(corpus.links)


def test_numeric_ids_are_read_as_the_strings_the_edges_use(tmp_path) -> None:
    write_jsonl(tmp_path / "docs.jsonl", [{"id": 7, "title": "T", "text": "x"}, {"id": 8, "title": "U", "text": "y"}])
    (tmp_path / "edge_list.csv").write_text("source_node,target_node\n7,8\n")
    corpus, ids = read_official_corpus(tmp_path)
    assert ids.to_pylist() == ["7", "8"] and corpus.links.num_rows == 1


def test_questions_map_p2d_id_to_doc_ids(official) -> None:
    _, ids = read_official_corpus(official)
    read = read_official_qa(official / "musique_400_250616.jsonl", ids)
    rows = read.qa.to_pylist()
    assert [r["qid"] for r in rows] == ["2hop__100_200", "-4163353727462025419"]
    assert rows[0]["support"] == [5, 4] and rows[0]["hops"] == 2 and rows[0]["source"] == "musique"
    assert rows[0]["answers"] == ["Montgomery", "Montgomery, Alabama"]
    assert rows[1]["support"] == [2] and rows[1]["hops"] == 1 and rows[1]["source"] == "nq"
    assert read.dropped == (("3hop1__1_2_3", "needle document '999' is not in the corpus"),)


@pytest.mark.parametrize(("docs", "edges", "match"), [
    ([{"id": "1", "title": "T", "text": "x"}, {"id": "1", "title": "U", "text": "y"}], "source_node,target_node\n",
     r"docs\.jsonl, record 2, field 'id': duplicate document id '1'"),
    ([{"id": "1", "title": "T"}], "source_node,target_node\n", r"docs\.jsonl, record 1, field 'text': missing"),
    ([{"id": "1", "title": "T", "text": 5}], "source_node,target_node\n", r"record 1, field 'text': expected a string"),
    ([{"id": "1", "title": "T", "text": "x"}], "src,dst\n1,1\n", r"edge_list\.csv.*expected the header source_node,target_node"),
    ([{"id": "1", "title": "T", "text": "x"}], "source_node,target_node\n1,1\n1,2\n",
     r"edge_list\.csv, record 2, field 'target_node': document id '2' is not in docs\.jsonl \(line 3\)"),
])
def test_bad_corpus_files_name_file_record_and_field(tmp_path, docs, edges, match) -> None:
    write_jsonl(tmp_path / "docs.jsonl", docs)
    (tmp_path / "edge_list.csv").write_text(edges)
    with pytest.raises(InputError, match=match):
        read_official_corpus(tmp_path)


def test_a_missing_edge_file_is_named(tmp_path) -> None:
    write_jsonl(tmp_path / "docs.jsonl", DOCS)
    with pytest.raises(InputError, match="edge_list.csv.*file not found"):
        read_official_corpus(tmp_path)


def test_bad_question_records_name_file_line_and_field(official) -> None:
    _, ids = read_official_corpus(official)
    bad = write_jsonl(official / "bad.jsonl", [QUESTIONS[0], {**QUESTIONS[1], "p2d_id": []}])
    with pytest.raises(InputError, match=r"bad\.jsonl, record 2, field 'p2d_id'"):
        read_official_qa(bad, ids)
    bad = write_jsonl(official / "bad2.jsonl", [{k: v for k, v in QUESTIONS[0].items() if k != "answer_aliases"}])
    with pytest.raises(InputError, match=r"bad2\.jsonl, record 1, field 'answer_aliases': missing"):
        read_official_qa(bad, ids)


def test_question_ids_select_a_subset_in_file_order(official) -> None:
    inputs = read_official_inputs(official, [str(official / "musique_400_250616.jsonl")])
    ids = official / "ids.txt"
    ids.write_text("-4163353727462025419\n\n2hop__100_200\n")
    assert read_question_ids(ids) == ["-4163353727462025419", "2hop__100_200"]
    chosen = select_questions(inputs, ids)
    assert chosen.qa["qid"].to_pylist() == ["2hop__100_200", "-4163353727462025419"]
    assert str(ids) in chosen.fingerprints
    ids.write_text("2hop__100_200\n3hop1__1_2_3\n")
    with pytest.raises(InputError, match=r"ids\.txt, record 2, field 'id': .*3hop1__1_2_3.*dropped: needle document '999'"):
        select_questions(inputs, ids)
    ids.write_text("2hop__100_200\n2hop__100_200\n")
    with pytest.raises(InputError, match=r"ids\.txt, record 2, field 'id': '2hop__100_200' repeats line 1"):
        read_question_ids(ids)


def test_a_build_from_the_official_files(official, tmp_path, qwen) -> None:
    """--official-corpus with --qa and --qa-ids: the needles are the p2d_id documents, links from edge_list.csv."""
    ids = official / "ids.txt"
    ids.write_text("2hop__100_200\n-4163353727462025419\n")
    spec = haystackcraft.HaystackCraftBuild(official_corpus=str(official), qa=(str(official / "musique_400_250616.jsonl"),),
                                            qa_ids=str(ids), strategies=("bm25", "bm25+ppr"), sizes=(0, 200),
                                            top_k=6, cache=str(tmp_path / "cache"), no_context=True)
    haystackcraft.build(spec, tmp_path / "r", tokens=qwen, progress=False)
    qa = list(datasets.load_dataset(str(tmp_path / "r"), "qa", split="test"))
    assert [(q["qid"], q["support"]) for q in qa] == [("2hop__100_200", [5, 4]), ("-4163353727462025419", [2])]
    links = list(datasets.load_dataset(str(tmp_path / "r"), "links", split="test"))
    assert [(r["src"], r["dst"]) for r in links] == [(0, 1), (1, 0), (3, 4), (4, 5)]
    manifest = json.loads((tmp_path / "r" / "manifest.json").read_text())
    assert manifest["questions"] == {"kept": 2, "dropped": 0, "dropped_questions": []}  # the dropped question is not among the ids
    assert {str(official / "docs.jsonl"), str(official / "edge_list.csv"), str(ids)} <= set(manifest["inputs"])
    with pytest.raises(Exception, match="two corpora"):
        haystackcraft.HaystackCraftBuild(official_corpus=str(official), corpus=("x.json",))
