"""HaystackCraft's retrieval layer: BM25, dense, hybrid (RRF) and PPR-reranked strategies over a
corpus whose doc ids are its row positions, exact needle ranks, retrieval metrics, and an on-disk
cache of indexes, embeddings and rankings.

The dense retriever's heavy libraries (sentence-transformers, torch, faiss) load only when it is
used. Import what you need from its modules (:mod:`builders.retrieval.bm25`, :mod:`builders.retrieval.dense`,
:mod:`builders.retrieval.ppr` ...): the package itself imports nothing, so that reading an option name such as
:data:`builders.retrieval.analysis.ANALYZERS` does not load bm25s and scikit-network.
"""
