"""Passage corpora: shapes, title index, mention links against a brute-force reference, errors."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from builders.sources.corpus_read import CORPUS_SCHEMA, LINKS_SCHEMA, normalize_title
from builders.sources.passages import MIN_LINK_TITLE_CHARS, read_passages
from needlework.errors import InputError

MUSIQUE_CORPUS = "multihop_hipporag/musique_train_corpus.json"
HOTPOT_CORPUS = "multihop_hipporag/hotpotqa_train_corpus.json"
TWOWIKI_CORPUS = "multihop_hipporag/2wikimultihopqa_corpus.json"


def brute_force_links(titles: list[str], texts: list[str]) -> set[tuple[int, int]]:
    """The mention rule, pair by pair with a regular expression (the reference for the automaton)."""
    pairs = set()
    for dst, title in enumerate(titles):
        whole = " ".join(title.split())
        bare = whole[: whole.rindex("(")].rstrip() if whole.endswith(")") and "(" in whole else whole
        for surface in {whole, bare}:
            if len(surface) < MIN_LINK_TITLE_CHARS or surface.isdigit():
                continue
            pattern = re.compile(r"(?<!\w)" + re.escape(surface) + r"(?!\w)")
            for src, text in enumerate(texts):
                if src != dst and surface in text and pattern.search(text):
                    pairs.add((src, dst))
    return pairs


@pytest.fixture(scope="module")
def musique_path(shared_file: Callable[[str], Path]) -> Path:
    return shared_file(MUSIQUE_CORPUS)


@pytest.fixture(scope="module")
def musique(musique_path: Path):
    return read_passages(musique_path)


def test_musique_corpus_documents_in_file_order(musique, musique_path):
    records = json.loads(musique_path.read_text(encoding="utf-8"))
    assert len(records) == musique.corpus.num_rows == 956
    assert musique.corpus.schema == CORPUS_SCHEMA
    assert musique.corpus.column("doc_id").to_pylist() == list(range(956))
    assert musique.corpus.column("title").to_pylist() == [record["title"] for record in records]
    assert musique.corpus.column("text").to_pylist() == [record["text"] for record in records]
    assert set(musique.corpus.column("source").to_pylist()) == {"musique_train_corpus"}
    assert musique.label == "musique_train_corpus"


def test_duplicate_titles_name_every_passage(musique, musique_path):
    records = json.loads(musique_path.read_text(encoding="utf-8"))
    expected: dict[str, list[int]] = {}
    for doc_id, record in enumerate(records):
        expected.setdefault(normalize_title(record["title"]), []).append(doc_id)
    assert musique.titles == {title: tuple(ids) for title, ids in expected.items()}
    shared = {title: ids for title, ids in expected.items() if len(ids) > 1}
    assert len(shared) == musique.stats["shared_titles"] > 0
    assert len(musique.titles["Atomic bombings of Hiroshima and Nagasaki"]) == 6


def test_mention_links_match_brute_force(musique):
    titles = musique.corpus.column("title").to_pylist()
    texts = musique.corpus.column("text").to_pylist()
    assert musique.links.schema == LINKS_SCHEMA
    pairs = list(zip(musique.links.column("src").to_pylist(), musique.links.column("dst").to_pylist()))
    assert pairs == sorted(set(pairs)) and len(pairs) > 100
    for src, dst in pairs:
        assert src != dst and titles[dst].split(" (")[0] in texts[src]
    qualified = [(src, dst) for src, dst in pairs if titles[dst].endswith(")") and titles[dst] not in texts[src]]
    assert qualified  # some links come from a qualifier-less mention ("Mercury" for "Mercury (planet)")
    assert set(pairs) == brute_force_links(titles, texts)


def test_hotpot_title_map_corpus(shared_file):
    path = shared_file(HOTPOT_CORPUS)
    data = json.loads(path.read_text(encoding="utf-8"))
    read = read_passages(path, source="hotpotqa")
    assert read.corpus.column("title").to_pylist() == list(data)
    assert read.corpus.column("text").to_pylist() == ["".join(sentences) for sentences in data.values()]
    assert set(read.corpus.column("source").to_pylist()) == {"hotpotqa"} and read.label == "hotpotqa"
    titles, texts = read.corpus.column("title").to_pylist(), read.corpus.column("text").to_pylist()
    assert set(zip(read.links.column("src").to_pylist(), read.links.column("dst").to_pylist())) == \
        brute_force_links(titles, texts)


def test_2wiki_corpus_reads(shared_file):
    read = read_passages(shared_file(TWOWIKI_CORPUS))
    assert read.corpus.num_rows == 1500 and read.links.num_rows > 0


def test_jsonl_and_parquet_read_like_json(musique, musique_path, tmp_path):
    records = json.loads(musique_path.read_text(encoding="utf-8"))
    jsonl = tmp_path / "musique_train_corpus.jsonl"
    jsonl.write_text("\n".join(json.dumps(record) for record in records) + "\n", encoding="utf-8")
    parquet = tmp_path / "musique_train_corpus.parquet"
    pq.write_table(pa.Table.from_pylist(records), parquet)
    for path in (jsonl, parquet):
        read = read_passages(path)
        assert read.corpus.equals(musique.corpus) and read.links.equals(musique.links)
        assert read.titles == musique.titles


def test_mention_rule_word_boundaries_case_and_short_titles(tmp_path):
    records = [
        {"title": "Paris", "text": "The capital city."},
        {"title": "Lyon", "text": "Lyon is south of Paris; Parisians and paris do not count."},
        {"title": "Ann", "text": "Ann met Lyon fans in 1984."},
        {"title": "1984", "text": "A year. Paris_ is not a word boundary, (Lyon) is."},
    ]
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps(records), encoding="utf-8")
    read = read_passages(path)
    assert read.links.to_pylist() == [{"src": 1, "dst": 0}, {"src": 2, "dst": 1}, {"src": 3, "dst": 1}]
    assert read.stats["unlinkable_titles"] == 2  # "Ann" is too short, "1984" is all digits


def test_mention_rule_drops_a_trailing_qualifier(tmp_path):
    records = [
        {"title": "Mercury (planet)", "text": "The smallest planet."},
        {"title": "Mercury (element)", "text": "A liquid metal."},
        {"title": "Orbits", "text": "Mercury circles the Sun; Mercury (planet) is fast. Mercury (element) is not Mercury (band)."},
        {"title": "Venus (mythology) (disambiguation)", "text": "Orbits of Venus (mythology)."},
        {"title": "Two (2)", "text": "Nothing."},
    ]
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps(records), encoding="utf-8")
    read = read_passages(path)
    # "Mercury" names both pages; only the last qualifier goes, so "Venus (mythology)" is the bare
    # surface of page 3; "Two" is too short to link.
    assert read.links.to_pylist() == [{"src": 2, "dst": 0}, {"src": 2, "dst": 1}, {"src": 3, "dst": 2}]
    assert set(zip(read.links.column("src").to_pylist(), read.links.column("dst").to_pylist())) == brute_force_links(
        [r["title"] for r in records], [r["text"] for r in records])


@pytest.mark.parametrize(("records", "record", "field"), [
    ([{"title": "A title", "text": "fine"}, {"text": "no title"}], 2, "title"),
    ([{"title": "A title", "text": "fine"}, {"title": "B title", "text": "   "}], 2, "text"),
    ([{"title": "", "text": "empty title"}], 1, "title"),
    ([{"title": "A title", "text": ["not", "a string"]}], 1, "text"),
])
def test_bad_records_name_file_record_and_field(tmp_path, records, record, field):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(records), encoding="utf-8")
    with pytest.raises(InputError, match=re.escape(f"{path}, record {record}, field {field!r}")):
        read_passages(path)


def test_bad_title_maps_and_files(tmp_path):
    path = tmp_path / "map.json"
    path.write_text(json.dumps({"Good title": ["One. ", "Two."], "Bad title": 3}), encoding="utf-8")
    with pytest.raises(InputError, match=re.escape(f"{path}, record 2, field 'text'")):
        read_passages(path)
    path.write_text(json.dumps({"Empty": [" ", ""]}), encoding="utf-8")
    with pytest.raises(InputError, match="empty text for 'Empty'"):
        read_passages(path)
    path.write_text("[{not json", encoding="utf-8")
    with pytest.raises(InputError, match="not valid JSON"):
        read_passages(path)
    with pytest.raises(InputError, match="file not found"):
        read_passages(tmp_path / "missing.json")
    (tmp_path / "corpus.txt").write_text("a passage", encoding="utf-8")
    with pytest.raises(InputError, match="unsupported file type"):
        read_passages(tmp_path / "corpus.txt")
