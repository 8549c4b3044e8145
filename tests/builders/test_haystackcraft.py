"""HaystackCraft builds end to end: the issue's acceptance checks on the real MuSiQue slice and the world."""

from __future__ import annotations

import json
import time
from pathlib import Path

import datasets
import numpy as np
import pytest
from click.testing import CliRunner

from builders import haystackcraft
from builders.retrieval import bm25 as bm25_module
from needlework.errors import InputError, SpecError
from generators.haystackcraft.prompt import DOCUMENT_JOINER, render_document
from builders.cli import main
from needlework.lengths import FORMS
from tests.support.build_options import build_error, build_spec

SIZES = (0, 4_000, 8_000, 16_000)


def load(release: Path, config: str) -> list[dict]:
    return list(datasets.load_dataset(str(release), config, split="test"))


@pytest.fixture(scope="module")
def musique_release(tmp_path_factory, shared_file, qwen) -> tuple[Path, float, Path]:
    """One BM25/BM25+PPR build of the MuSiQue slice over its passages (mention links), timed."""
    out = tmp_path_factory.mktemp("hc") / "musique"
    cache = tmp_path_factory.mktemp("hc-cache")
    spec = haystackcraft.HaystackCraftBuild(
        corpus=(str(shared_file("multihop_hipporag/musique_train_corpus.json")),),
        qa=(str(shared_file("multihop_hipporag/musique_train.json")),),
        strategies=("bm25", "bm25+ppr"), sizes=SIZES, materialize=("descending", "middle", "random-0"),
        top_k=956, cache=str(cache),
    )
    begin = time.perf_counter()
    haystackcraft.build(spec, out, tokens=qwen, progress=False)
    return out, time.perf_counter() - begin, cache


def test_every_haystack_holds_its_needles_once_in_rank_order_within_budget(musique_release, qwen) -> None:
    out, _, _ = musique_release
    corpus = load(out, "corpus")
    qa = {q["qid"]: q for q in load(out, "qa")}
    rankings = {(r["qid"], r["strategy"]): r for r in load(out, "rankings")}
    rendered = [render_document(d["title"], d["text"]) for d in corpus]
    assert [d["n_tokens"] for d in corpus[:50]] == qwen.count_batch(rendered[:50]).tolist()
    haystacks = load(out, "haystacks")
    assert haystacks
    for h in haystacks:
        ids, support = h["doc_ids"], qa[h["qid"]]["support"]
        assert len(ids) == len(set(ids)), h["id"]
        assert sorted(ids[p] for p in h["needle_positions"]) == sorted(support)
        assert all(ids.count(n) == 1 for n in support)
        ranking = rankings[(h["qid"], h["strategy"])]
        position = {d: i for i, d in enumerate(ranking["doc_ids"])}
        distractors = [d for d in ids if d not in support]
        if h["ordering"] == "descending":
            # Distractors are the best-ranked non-needles, in rank order, with no gap.
            assert [position[d] for d in distractors] == sorted(position[d] for d in distractors)
            best = [d for d in ranking["doc_ids"] if d not in support][: len(distractors)]
            assert distractors == best
            assert h["ranks"] == sorted(h["ranks"])
        if h["size"]:
            assert h["haystack_tokens"] <= h["size"]
        else:
            assert sorted(ids) == sorted(support) and h["truncated_doc"] == -1


def test_materialized_prompts_are_verified_and_cut_documents_are_prefixes(musique_release, qwen) -> None:
    out, _, _ = musique_release
    corpus = load(out, "corpus")
    rendered = [render_document(d["title"], d["text"]) for d in corpus]
    for config in ("static-descending", "static-middle", "static-random-0"):
        rows = load(out, config)
        assert rows
        for row in rows[:60]:
            assert row["n_tokens"] == len(qwen.encode(row["input"]))
            parts = [rendered[d] for d in row["doc_ids"]]
            haystack = row["input"].split("below.\n\n", 1)[1].rsplit("\n\nWhat is the correct answer to this question:", 1)[0]
            shown = haystack.split(DOCUMENT_JOINER + "Article Title: ")
            shown = [shown[0]] + ["Article Title: " + s for s in shown[1:]]
            assert len(shown) == len(parts), row["id"]
            cut = [i for i, (s, p) in enumerate(zip(shown, parts)) if s != p]
            assert len(cut) <= 1
            if cut:
                assert parts[cut[0]].startswith(shown[cut[0]]) and row["truncated_tokens"] > 0
            if row["size"]:
                assert row["haystack_tokens"] <= row["size"]
                assert len(qwen.encode(haystack)) <= row["size"]
            if row["ordering"] == "middle" and len(row["doc_ids"]) > len(row["needle_positions"]):
                positions = row["needle_positions"]
                assert positions == list(range(positions[0], positions[0] + len(positions)))


def test_ppr_does_not_lower_recall_at_20(musique_release) -> None:
    """The paper's Table 4 trend on the MuSiQue slice with mention links: overall, 2-hop and 3-hop."""
    out, _, _ = musique_release
    table = {(r["retriever"], r["ppr"], r["hop"], r["n"]): r["recall"] for r in load(out, "retrieval")}
    for hop in ("overall", "2-hop", "3-hop"):
        assert table[("bm25", True, hop, 20)] >= table[("bm25", False, hop, 20)], hop
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["questions"]["kept"] == 50 and manifest["corpus"]["documents"] == 956


def test_second_build_reuses_cached_index_and_rankings(musique_release, shared_file, qwen, tmp_path, monkeypatch) -> None:
    out, first_seconds, cache = musique_release

    def refuse(*args, **kwargs):
        raise AssertionError("the BM25 index was rebuilt instead of read from the cache")

    monkeypatch.setattr(bm25_module, "build_index", refuse)
    spec = haystackcraft.HaystackCraftBuild(
        corpus=(str(shared_file("multihop_hipporag/musique_train_corpus.json")),),
        qa=(str(shared_file("multihop_hipporag/musique_train.json")),),
        strategies=("bm25", "bm25+ppr"), sizes=SIZES, materialize=("descending", "middle", "random-0"),
        top_k=956, cache=str(cache),
    )
    haystackcraft.build(spec, tmp_path / "again", tokens=qwen, progress=False)
    manifest = lambda p: json.loads((p / "manifest.json").read_text())  # noqa: E731
    assert manifest(tmp_path / "again")["configs"] == manifest(out)["configs"]


def test_world_build_is_deterministic_and_orders_differ(tmp_path, qwen) -> None:
    spec = haystackcraft.HaystackCraftBuild(world_docs=300, world_questions=12, strategies=("bm25", "bm25+ppr"),
                                            sizes=(0, 4_000), materialize=(), top_k=300, cache=str(tmp_path / "cache"))
    haystackcraft.build(spec, tmp_path / "a", tokens=qwen, progress=False)
    haystackcraft.build(spec, tmp_path / "b", tokens=qwen, progress=False)
    hashes = [json.loads((tmp_path / x / "manifest.json").read_text())["configs"] for x in ("a", "b")]
    assert hashes[0] == hashes[1]
    rows = [h for h in load(tmp_path / "a", "haystacks") if h["size"] == 4_000 and h["strategy"] == "bm25"]
    by_order = {}
    for h in rows:
        by_order.setdefault(h["qid"], {})[h["ordering"]] = h["doc_ids"]
    for orders in by_order.values():
        assert orders["ascending"] == orders["descending"][::-1]
        assert sorted(orders["random-0"]) == sorted(orders["descending"])
        if len(orders["descending"]) > 3:
            assert len({tuple(orders[f"random-{i}"]) for i in range(3)}) == 3
    with pytest.raises(SpecError, match="not built"):
        haystackcraft.HaystackCraftBuild(orderings=("descending",), materialize=("middle",))


def test_sizes_are_token_counts_in_any_case() -> None:
    """Issue 41: ``--sizes 2k`` and ``2K`` are 2,000 (the authors' ``--context_size`` reads K as 1,000 in any case),
    ``2ki`` is 2,048, and a size that is not a whole number of tokens is refused, not cut to 1,000."""
    assert build_spec("haystackcraft", "--sizes", "0,2k").sizes == build_spec("haystackcraft", "--sizes", "0,2K").sizes == (0, 2_000)
    assert build_spec("haystackcraft", "--sizes", "0,2_000,2ki").sizes == (0, 2_000, 2_048)
    assert build_spec("haystackcraft", "--sizes", "0,8k,16k,32k,64k,128k") == build_spec("haystackcraft")  # the help's default
    assert build_error("haystackcraft", "--sizes", "0,1.0005k") == (
        f"error: --sizes: '1.0005k' is not a whole number of tokens (1,000.5): write {FORMS}")


def test_cli_builds_and_reports_bad_inputs(tmp_path, shared_file) -> None:
    runner = CliRunner()
    out = tmp_path / "cli"
    result = runner.invoke(main, ["build", "haystackcraft", "--out", str(out), "--world-docs", "200", "--world-questions", "6",
                                  "--retrievers", "bm25,bm25+ppr", "--sizes", "0,2k", "--quiet", "--cache", str(tmp_path / "c")])
    assert result.exit_code == 0, result.output
    assert "Table 4: Recall@N" in result.output and (out / "static-descending").is_dir()
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"title": "A", "text": ""}]))
    result = runner.invoke(main, ["build", "haystackcraft", "--out", str(tmp_path / "x"), "--corpus", str(bad),
                                  "--qa", str(shared_file("nq_open/NQ-open.dev.jsonl")), "--quiet"])
    assert result.exit_code == 2 and "bad.json" in result.output and "text" in result.output
    assert not (tmp_path / "x").exists()
    result = runner.invoke(main, ["build", "haystackcraft", "--out", str(tmp_path / "y"), "--retrievers", "tfidf"])
    assert result.exit_code == 2 and "retrieval strategy must be one of 'bm25', 'bm25+ppr'" in result.output


def test_needles_exceeding_a_size_skip_that_cell(tmp_path, qwen) -> None:
    spec = haystackcraft.HaystackCraftBuild(world_docs=300, world_questions=12, strategies=("bm25",), sizes=(0, 300),
                                            orderings=("descending",), materialize=(), top_k=300, cache=str(tmp_path / "c"))
    report = haystackcraft.build(spec, tmp_path / "r", tokens=qwen, progress=False)
    qa = {q["qid"]: q for q in load(tmp_path / "r", "qa")}
    tokens = np.array([d["n_tokens"] for d in load(tmp_path / "r", "corpus")])
    too_big = sum(1 for q in qa.values() if tokens[q["support"]].sum() + len(q["support"]) - 1 > 300)
    assert report.skipped_cells == too_big > 0
    assert json.loads((tmp_path / "r" / "manifest.json").read_text())["skipped_cells"] == too_big


def test_a_corpus_without_questions_is_refused(tmp_path, shared_file) -> None:
    with pytest.raises(InputError, match="needs questions"):
        haystackcraft.build(haystackcraft.HaystackCraftBuild(corpus=(str(shared_file("multihop_hipporag/musique_train_corpus.json")),)),
                            tmp_path / "r", progress=False)
