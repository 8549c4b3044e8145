"""A HaystackCraft release's corpus and live retrieval, opened once for a dynamic NIAH run.

Dynamic NIAH ranks the whole corpus again with every round's refined question (paper §3.3). This is the one
place eval calls ``builders.retrieval`` (the build's own BM25, dense, PPR and ranking code), so a round's ranking
is exactly what the build would compute for that query. The imports happen when a world is opened, so eval stays
importable without the retrieval libraries. The BM25 index and the dense embeddings are the release's own files
(``retrieval/...``, the retrieval cache's layout rooted at the release; ``builders/haystackcraft_dynamic.py``);
nothing is rebuilt: a missing or different artifact is an error.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.parquet as pq

from eval.release import Release
from generators.haystackcraft.assemble import RankedQuestion
from generators.haystackcraft.dynamic import RoundHaystack, round_haystack
from generators.haystackcraft.prompt import render_document
from generators.strategies import strategy_parts
from needlework.errors import ReleaseError
from needlework.tokens import TokenCounter

RANK_BATCH = 32
"""Queries ranked together (as the build ranks them)."""


def _column_table(release: Release, config: str, columns: Sequence[str]) -> dict[str, list[Any]]:
    files = release.split_info(config, "test")["files"]
    out: dict[str, list[Any]] = {c: [] for c in columns}
    for name in files:
        table = pq.read_table(release.fetch(name), columns=list(columns))
        for c in columns:
            out[c].extend(table[c].to_pylist())
    return out


def dynamic_block(release: Release) -> dict[str, Any]:
    """The manifest's ``dynamic`` block; a clear error for a release built without ``--dynamic``."""
    block = release.manifest.get("dynamic")
    if not isinstance(block, dict):
        raise ReleaseError(f"{release.dataset}: no dynamic NIAH in this release; rebuild it with "
                           "needlework build haystackcraft --dynamic")
    return block


def document_tokens(release: Release) -> np.ndarray:
    """Tokens of every rendered corpus document (the ``corpus`` config's ``n_tokens``), by doc id."""
    table = _column_table(release, "corpus", ("doc_id", "n_tokens"))
    counts = np.zeros(len(table["doc_id"]), dtype=np.int64)
    counts[np.asarray(table["doc_id"], dtype=np.int64)] = table["n_tokens"]
    return counts


class DynamicWorld:
    """The corpus, the build's tokenizer and the strategies of a release, ranking queries live.

    Args:
        release: A HaystackCraft release built with ``--dynamic``.
        tokens: The tokenizer the release was built with (loaded from the manifest when ``None``).
    """

    def __init__(self, release: Release, tokens: TokenCounter | None = None) -> None:
        from builders.retrieval.cache import RetrievalCache

        self.release = release
        self.block = dynamic_block(release)
        recorded = release.manifest.get("tokenizer") or {}
        if tokens is None:
            from needlework.tokenizers import load_tokenizer

            tokens = load_tokenizer(str(recorded.get("name")))
        if recorded.get("fingerprint") and tokens.fingerprint != recorded["fingerprint"]:
            raise ReleaseError(f"{release.dataset}: built with tokenizer {recorded.get('name')} "
                               f"({recorded['fingerprint'][:12]}), not {tokens.name} ({tokens.fingerprint[:12]})")
        self.tokens = tokens
        table = _column_table(release, "corpus", ("doc_id", "title", "text", "n_tokens"))
        if table["doc_id"] != list(range(len(table["doc_id"]))):
            raise ReleaseError(f"{release.dataset}: corpus doc ids are not 0..n-1 in order")
        self.titles, self.texts = table["title"], table["text"]
        self.doc_tokens = np.asarray(table["n_tokens"], dtype=np.int64)
        self.join_tokens = int(release.manifest.get("join_tokens", tokens.count("\n\n")))
        self.top_k = min(int(self.block["top_k"]), len(self.titles))
        self.cache = RetrievalCache(self._artifact_root())
        self._strategies: dict[str, Any] = {}
        self._memo: dict[tuple[str, str, tuple[int, ...]], RankedQuestion] = {}
        self.seconds: dict[str, float] = {"rank": 0.0, "assemble": 0.0}

    def _artifact_root(self) -> Path:
        """The folder the release's ``retrieval/...`` files sit under (fetched first from the Hub)."""
        files = self.block.get("files") or {}
        root: Path | None = None
        for name in sorted(files):
            path = self.release.fetch(name)
            root = Path(str(path)[: -len(name)])
        if root is None:
            raise ReleaseError(f"{self.release.dataset}: the dynamic block lists no retrieval files")
        return root

    def documents(self, ids: np.ndarray) -> list[str]:
        """Rendered documents by doc id."""
        return [render_document(self.titles[i], self.texts[i]) for i in np.asarray(ids).tolist()]

    def strategy(self, name: str) -> Any:
        """The strategy ``name`` over the release's artifacts (built once)."""
        if name not in self._strategies:
            self._strategies[name] = self._open(name)
        return self._strategies[name]

    def _open(self, name: str) -> Any:
        from builders.retrieval.ppr import PprGraph, PprParams
        from builders.retrieval.rank import make_strategies

        base, ppr = strategy_parts(name)
        corpus_fp = self.block["corpus_fingerprint"]
        bm25 = dense = graph = None
        if base == "bm25":
            from builders.retrieval.bm25 import INDEX_ARTIFACT, BM25Retriever

            info = self.block.get("bm25") or {}
            if self.cache.load_dir(corpus_fp, info.get("fingerprint", ""), INDEX_ARTIFACT) is None:
                raise ReleaseError(f"{self.release.dataset}: the release holds no BM25 index for fingerprint "
                                   f"{str(info.get('fingerprint'))[:12]}")
            bm25 = BM25Retriever(self.titles, self.texts, render=render_document, cache=self.cache, corpus_fp=corpus_fp,
                                 **(info.get("options") or {}))
            if bm25.fingerprint != info["fingerprint"]:
                raise ReleaseError(f"{self.release.dataset}: this needlework's BM25 ({bm25.fingerprint[:12]}) is not the "
                                   f"build's ({info['fingerprint'][:12]}); use the needlework version that built it")
        elif base == "dense":
            from builders.retrieval.dense import EMBEDDINGS_ARTIFACT, DenseRetriever

            info = self.block.get("dense") or {}
            if self.cache.load_array(corpus_fp, info.get("documents_fingerprint", ""), EMBEDDINGS_ARTIFACT, mmap=True) is None:
                raise ReleaseError(f"{self.release.dataset}: the release holds no dense embeddings")
            dense = DenseRetriever(self.titles, self.texts, render=render_document, model=info.get("model") or None,
                                   cache=self.cache, corpus_fp=corpus_fp, query_prompt=info.get("query_prompt"))
        else:
            raise ReleaseError(f"{self.release.dataset}: dynamic strategy {name!r} is not bm25+ppr or dense")
        params = None
        if ppr:
            # a corpus without links has no links config: PPR then walks a graph without edges (= the base order)
            links = (_column_table(self.release, "links", ("src", "dst")) if "links" in self.release.manifest["configs"]
                     else {"src": [], "dst": []})
            graph = PprGraph.from_links(np.asarray(links["src"], dtype=np.int64), np.asarray(links["dst"], dtype=np.int64),
                                        len(self.titles))
            recorded = (self.block.get("ppr") or {}).get(base)
            params = {base: PprParams(int(recorded["seeds"]), float(recorded["damping"]))} if recorded else None
        return make_strategies([name], bm25=bm25, dense=dense, graph=graph, ppr_params=params)[name]

    def rank(self, strategy: str, queries: Sequence[str], needles: Sequence[Sequence[int]]) -> list[RankedQuestion]:
        """Each query's top-K and its needles' exact ranks over the whole corpus (``rank_strategies``), memoized
        per (strategy, query, needles): round 1 of every mode and size shares one ranking."""
        from builders.retrieval.rank import rank_strategies

        keys = [(strategy, q, tuple(int(n) for n in ns)) for q, ns in zip(queries, needles)]
        todo = list(dict.fromkeys(k for k in keys if k not in self._memo))
        if todo:
            began = time.perf_counter()
            ranked = rank_strategies(len(self.titles), [k[1] for k in todo],
                                     [np.asarray(k[2], dtype=np.int64) for k in todo],
                                     {strategy: self.strategy(strategy)}, self.top_k, batch_size=RANK_BATCH)[strategy]
            for key, r in zip(todo, ranked):
                self._memo[key] = RankedQuestion(r.doc_ids, r.needle_ids, r.needle_ranks)
            self.seconds["rank"] += time.perf_counter() - began
        return [self._memo[k] for k in keys]

    def haystack(self, ranking: RankedQuestion, size: int) -> RoundHaystack | None:
        """The round's haystack of ``size`` tokens for a ranking (static assembly, descending)."""
        began = time.perf_counter()
        out = round_haystack(ranking, self.doc_tokens, size, self.join_tokens, self.documents, self.tokens)
        self.seconds["assemble"] += time.perf_counter() - began
        return out
