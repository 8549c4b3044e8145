"""``needlework build haystackcraft --dynamic``: the dynamic config (seeded or listed question subset with its needles)
and the retrieval artifacts eval's live retrieval opens, fingerprinted in the manifest.

Source of truth: the official subset is a file of question records with an ``id`` field
(Graph-COM/HaystackCraft ``utils/data.py`` ``load_data_100``: ``data/100_for_multi.jsonl``); the needles are the
question's support documents (``infer_multi.py`` ``get_haystack_prompt``: ``item['p2d_id']``), the same every round.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import datasets
import pytest

from builders import haystackcraft
from builders.haystackcraft_dynamic import read_ids, select_questions
from builders.retrieval.bm25 import BM25Retriever
from builders.retrieval.cache import RetrievalCache
from generators.haystackcraft.prompt import render_document
from needlework.errors import InputError, SpecError

WORLD = {"world_docs": 300, "world_questions": 40, "strategies": ("bm25", "bm25+ppr"), "sizes": (0, 2_000, 4_000),
         "top_k": 150, "materialize": ()}


def build(tmp: Path, tokens, **extra) -> Path:
    out = tmp / "release"
    spec = haystackcraft.HaystackCraftBuild(**{**WORLD, "dynamic": True, "cache": str(tmp / "cache"), **extra})
    haystackcraft.build(spec, out, tokens=tokens, progress=False)
    return out


@pytest.fixture(scope="module")
def world_release(tmp_path_factory, qwen) -> Path:
    return build(tmp_path_factory.mktemp("dyn"), qwen, dynamic_questions=12)


def test_dynamic_config_holds_a_seeded_recorded_subset_with_each_questions_needles(world_release) -> None:
    manifest = json.loads((world_release / "manifest.json").read_text())
    rows = list(datasets.load_dataset(str(world_release), "dynamic", split="test"))
    qa = {q["qid"]: q for q in datasets.load_dataset(str(world_release), "qa", split="test")}
    assert len(rows) == 12 and manifest["dynamic"]["questions"] == {"from": "seeded", "seed": 0, "asked": 12, "n": 12}
    for row in rows:
        assert row["support"] == qa[row["qid"]]["support"] and row["answers"] == qa[row["qid"]]["answers"]
    # drawn, not the first 12; the same seed draws the same subset
    assert [r["qid"] for r in rows] != list(qa)[:12]
    again, _ = select_questions(list(qa.values()), 12, 0)
    assert [q["qid"] for q in again] == [r["qid"] for r in rows]
    assert manifest["dynamic"]["strategies"] == ["bm25+ppr"] and manifest["dynamic"]["sizes"] == [0, 2_000, 4_000]
    assert manifest["dynamic"]["ppr"] == {"bm25": {"seeds": 10, "damping": 0.5}}


def test_release_ships_the_bm25_index_fingerprinted_and_eval_opens_it_without_rebuilding(world_release) -> None:
    block = json.loads((world_release / "manifest.json").read_text())["dynamic"]
    assert block["files"]
    for name, digest in block["files"].items():
        assert name.startswith("retrieval/")
        assert hashlib.sha256((world_release / name).read_bytes()).hexdigest() == digest
    corpus = datasets.load_dataset(str(world_release), "corpus", split="test")
    bm25 = BM25Retriever(corpus["title"], corpus["text"], render=render_document, cache=RetrievalCache(world_release),
                         corpus_fp=block["corpus_fingerprint"], **block["bm25"]["options"])
    assert bm25.loaded_from_cache and bm25.fingerprint == block["bm25"]["fingerprint"]


def test_ids_file_picks_exactly_its_questions_and_bad_ids_name_file_and_record(tmp_path, world_release) -> None:
    qa = list(datasets.load_dataset(str(world_release), "qa", split="test"))
    ids = tmp_path / "100_for_multi.jsonl"
    ids.write_text("\n".join(json.dumps({"id": q["qid"], "question": q["question"]}) for q in (qa[5], qa[2])) + "\n")
    chosen, record = select_questions(qa, 100, 0, str(ids))
    assert [q["qid"] for q in chosen] == [qa[2]["qid"], qa[5]["qid"]] and record["from"] == "file" and record["n"] == 2
    plain = tmp_path / "ids.txt"
    plain.write_text(f"{qa[1]['qid']}\n\n{qa[3]['qid']}\n")
    assert read_ids(plain) == [qa[1]["qid"], qa[3]["qid"]]
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"id": qa[0]["qid"]}) + "\n" + json.dumps({"id": "nope"}) + "\n")
    with pytest.raises(InputError, match=r"bad.jsonl, record 2, field 'id'"):
        select_questions(qa, 100, 0, str(bad))


def test_dynamic_question_options_without_dynamic_are_refused() -> None:
    """Choosing dynamic questions without building the dynamic config is a mistake worth one line, not silence."""
    with pytest.raises(SpecError, match="add --dynamic"):
        haystackcraft.HaystackCraftBuild(dynamic_ids="100_for_multi.jsonl")
    with pytest.raises(SpecError, match="add --dynamic"):
        haystackcraft.HaystackCraftBuild(dynamic_questions=20)
    assert haystackcraft.HaystackCraftBuild(dynamic=True, dynamic_questions=20).dynamic_questions == 20
