"""The ``dynamic`` config of a HaystackCraft release (``needlework build haystackcraft --dynamic``): the question
subset of dynamic NIAH and everything its live retrieval needs, inside the same release (paper §3.3, §4.2).

Dynamic NIAH rebuilds each round's haystack from the model's refined question, so nothing past round 1 can be
precomputed: ``python -m eval`` ranks the whole corpus again each round with the build's own retrieval code. The
release therefore holds, besides the ``corpus`` and ``links`` configs it already has:

- ``dynamic``: one row per question of the subset (100 by default, drawn with the build seed and recorded, or the
  ids of a file such as the official ``data/100_for_multi.jsonl``), with its needles (the original question's
  support documents, fixed for every round);
- ``retrieval/...``: the BM25 index (bm25s's files) and, for the dense strategy, the document embeddings, laid out
  as the retrieval cache lays them out (:class:`builders.retrieval.cache.RetrievalCache` rooted at the release), so
  eval opens them with no rebuild; every file's sha256 is in the manifest's ``dynamic`` block, with the corpus
  fingerprint, the retrievers' settings and fingerprints, the PPR settings, the strategies and the sizes.

Strategies: the paper's two (§4.2), ``bm25+ppr`` (10 seeds, damping 0.5) and ``dense`` (no PPR), those of them
the build ranks. Ordering: descending only (the paper's dynamic tables use the retriever-ranked order).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from builders.features import Features, List, Value
from builders.hashing import file_sha256
from builders.release import ReleaseWriter
from builders.retrieval.base import DocumentRenderer
from builders.retrieval.bm25 import BM25Retriever
from builders.retrieval.cache import RetrievalCache, corpus_fingerprint
from builders.retrieval.ppr import PPR_DEFAULTS
from builders.retrieval.query_prompts import AUTO, query_prompt_for
from generators.haystackcraft.spec import BENCHMARK
from generators.seeding import rng_for
from generators.strategies import strategy_parts
from needlework.errors import InputError, SpecError

CONFIG = "dynamic"
DYNAMIC_STRATEGIES: tuple[str, ...] = ("bm25+ppr", "dense")
"""The paper's dynamic NIAH strategies (§4.2): BM25 + PPR and Qwen3-Embedding-0.6B."""
DEFAULT_QUESTIONS = 100
"""The official subset's size (``utils/data.py`` ``load_data_100``: ``data/100_for_multi.jsonl``)."""
RETRIEVAL_FOLDER = "retrieval"
"""Where the retrieval artifacts sit in the release (the cache layout's own top folder)."""

_str, _i8, _i64 = Value("string"), Value("int8"), Value("int64")
FEATURES = Features({"id": _str, "qid": _str, "question": _str, "answers": List(_str),
                              "support": List(_i64), "hops": _i8, "source": _str, "lang": _str})
"""Columns of the ``dynamic`` config: a question of the subset, its answers and needles."""


def dynamic_strategies(strategies: Sequence[str]) -> tuple[str, ...]:
    """The dynamic strategies the build ranks (:data:`DYNAMIC_STRATEGIES` among ``strategies``).

    Raises:
        SpecError: The build ranks neither.
    """
    chosen = tuple(s for s in DYNAMIC_STRATEGIES if s in strategies)
    if not chosen:
        raise SpecError(f"--dynamic needs the bm25+ppr or the dense strategy in --retrievers (got {', '.join(strategies)})")
    return chosen


def read_ids(path: Path) -> list[str]:
    """Question ids from a file: JSON lines with an ``id`` field (the official ``100_for_multi.jsonl``; a ``qid``
    field also counts), or one id per line.

    Raises:
        InputError: The file is missing or a JSON line has no id.
    """
    if not path.is_file():
        raise InputError(str(path), None, None, "no such file")
    ids = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        text = line.strip()
        if not text:
            continue
        if text.startswith("{"):
            try:
                record = json.loads(text)
            except json.JSONDecodeError as err:
                raise InputError(str(path), number, None, f"not valid JSON ({err.msg})") from None
            value = record.get("id", record.get("qid"))
            if value is None or str(value) == "":
                raise InputError(str(path), number, "id", "missing; a question id is needed")
            ids.append(str(value))
        else:
            ids.append(text)
    return ids


def select_questions(questions: Sequence[Mapping[str, Any]], n: int, seed: int, ids_file: str = ""
                     ) -> tuple[list[Mapping[str, Any]], dict[str, Any]]:
    """The dynamic subset, in the QA order, and how it was chosen (for the manifest).

    Without ``ids_file``: ``n`` questions drawn without replacement with the build seed (all when there are fewer).
    With it: exactly the questions it names.

    Raises:
        InputError: The file names a question the release does not hold, or names one twice.
        SpecError: ``n`` is not positive.
    """
    if ids_file:
        wanted = read_ids(Path(ids_file))
        by_qid = {str(q["qid"]): i for i, q in enumerate(questions)}
        seen: set[str] = set()
        for number, qid in enumerate(wanted, start=1):
            if qid not in by_qid:
                raise InputError(ids_file, number, "id", f"question {qid!r} is not among the release's questions")
            if qid in seen:
                raise InputError(ids_file, number, "id", f"question {qid!r} is named twice")
            seen.add(qid)
        chosen = sorted(by_qid[q] for q in wanted)
        record = {"from": "file", "file": Path(ids_file).name, "sha256": file_sha256(Path(ids_file)), "n": len(chosen)}
    else:
        if n < 1:
            raise SpecError(f"--dynamic-questions must be positive, got {n}")
        rng = rng_for(seed, BENCHMARK, CONFIG, "questions")
        chosen = sorted(rng.permutation(len(questions))[:n].tolist())
        record = {"from": "seeded", "seed": seed, "asked": n, "n": len(chosen)}
    return [questions[i] for i in chosen], record


def dynamic_rows(questions: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The ``dynamic`` rows: one per question, id = qid."""
    return [{"id": str(q["qid"]), "qid": str(q["qid"]), "question": q["question"], "answers": list(q["answers"]),
             "support": [int(s) for s in q["support"]], "hops": int(q["hops"]), "source": q["source"],
             "lang": q.get("lang", "en")} for q in questions]


def _copy_entry(cache: RetrievalCache, source: Path, release_root: Path) -> dict[str, str]:
    """Copy a cache entry (a file or folder under ``cache.root``) into the release; {release path: sha256}."""
    relative = source.relative_to(cache.root)
    target = release_root / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    files = [source] if source.is_file() else sorted(p for p in source.rglob("*") if p.is_file())
    out: dict[str, str] = {}
    for path in files:
        dest = target if source.is_file() else target / path.relative_to(source)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, dest)
        out[dest.relative_to(release_root).as_posix()] = file_sha256(dest)
    return out


def retrieval_artifacts(strategies: Sequence[str], titles: Sequence[str], texts: Sequence[str],
                        render: DocumentRenderer, cache_dir: str | None, dense_model: str | None,
                        release_root: Path, bm25: Mapping[str, Any] | None = None,
                        dense_query_instruction: str = AUTO) -> dict[str, Any]:
    """Put the BM25 index and the dense embeddings the strategies need into the release; their manifest block.

    The dense query prompt is the static ranking's (:func:`query_prompt_for` of the build's
    ``dense_query_instruction``): the paper's instruction for Qwen3-Embedding, nothing for all-MiniLM-L6-v2, so
    round 1 of a dynamic run ranks as the static ranking of the same question.

    The retrievers are opened over the build's cache (where the static ranking left them, so nothing is rebuilt)
    and their cache entries copied into ``release_root`` under the same relative paths.
    """
    cache = RetrievalCache(cache_dir)
    corpus_fp = corpus_fingerprint(titles, texts, render)
    bases = {strategy_parts(s)[0] for s in strategies}
    block: dict[str, Any] = {"corpus_fingerprint": corpus_fp, "files": {}}
    if "bm25" in bases:
        options = dict(bm25 or {})
        sparse = BM25Retriever(titles, texts, render=render, cache=cache, corpus_fp=corpus_fp, **options)
        block["bm25"] = {"options": options, "config": sparse.config, "fingerprint": sparse.fingerprint}
        block["files"].update(_copy_entry(cache, sparse.postings.folder, release_root))
    if "dense" in bases:
        from builders.retrieval.dense import EMBEDDINGS_ARTIFACT, DenseRetriever

        query_prompt = query_prompt_for(dense_query_instruction, dense_model)
        dense = DenseRetriever(titles, texts, render=render, model=dense_model, cache=cache, corpus_fp=corpus_fp,
                               query_prompt=query_prompt)
        block["dense"] = {"model": dense_model or "", "config": dense.config, "fingerprint": dense.fingerprint,
                          "documents_fingerprint": dense.documents_fingerprint, "query_prompt": query_prompt}
        entry = cache.entry(corpus_fp, dense.documents_fingerprint, EMBEDDINGS_ARTIFACT).with_suffix(".npy")
        block["files"].update(_copy_entry(cache, entry, release_root))
    if any(strategy_parts(s)[1] for s in strategies):
        block["ppr"] = {base: {"seeds": p.seeds, "damping": p.damping} for base, p in PPR_DEFAULTS.items() if base in bases}
    return block


def write_dynamic(release: ReleaseWriter, release_root: Path, *, questions: Sequence[Mapping[str, Any]],
                  titles: Sequence[str], texts: Sequence[str], render: DocumentRenderer, strategies: Sequence[str],
                  sizes: Sequence[int], top_k: int, n_questions: int, ids_file: str, seed: int,
                  cache_dir: str | None, dense_model: str | None, bm25: Mapping[str, Any] | None = None,
                  dense_query_instruction: str = AUTO) -> dict[str, Any]:
    """Write the ``dynamic`` config and the retrieval artifacts into an open release; returns the manifest block.

    Args:
        release: The open release writer (the config is declared and written here).
        release_root: The release's folder being written (where ``retrieval/`` goes).
        questions: The release's ``qa`` rows.
        titles, texts, render: The corpus as the retrievers index it.
        strategies: The build's strategies (the dynamic ones among them are used).
        sizes: Haystack sizes in tokens.
        top_k: Documents kept per live ranking (enough to fill the largest size).
        n_questions, ids_file, seed: The subset (:func:`select_questions`).
        cache_dir, dense_model: The build's retrieval cache and dense model.
        bm25: BM25 settings besides the defaults (:func:`bm25_options`).
    """
    chosen = dynamic_strategies(strategies)
    subset, selection = select_questions(questions, n_questions, seed, ids_file)
    release.declare(CONFIG, FEATURES)
    rows = dynamic_rows(subset)
    for row in rows:
        release.write(CONFIG, "test", row)
    block = retrieval_artifacts(chosen, titles, texts, render, cache_dir, dense_model, release_root, bm25,
                                dense_query_instruction)
    block.update({"strategies": list(chosen), "sizes": [int(s) for s in sizes], "ordering": "descending",
                  "top_k": int(top_k), "questions": selection, "n_docs": len(titles),
                  "needles": int(np.sum([len(r["support"]) for r in rows]))})
    return block


def bm25_options(spec: Any) -> dict[str, Any]:
    """The BM25 settings of a build besides the defaults (the text analysis, where the build has that option), as
    keyword arguments of :class:`builders.retrieval.bm25.BM25Retriever`; recorded so eval opens the same index."""
    analysis = getattr(spec, "bm25_analyzer", None)
    return {"analysis": analysis} if analysis else {}


def write_for_build(release: ReleaseWriter, spec: Any, questions: Sequence[Mapping[str, Any]],
                    titles: Sequence[str], texts: Sequence[str], render: DocumentRenderer) -> dict[str, Any]:
    """:func:`write_dynamic` for a :class:`builders.haystackcraft.HaystackCraftBuild` with ``dynamic`` set: the
    one call the static builder makes; returns the manifest's ``dynamic`` block."""
    root = getattr(release, "_tmp", None)
    if root is None:
        raise SpecError("the dynamic config is written inside an open release (ReleaseWriter's with-block)")
    return write_dynamic(release, Path(root), questions=questions, titles=titles, texts=texts, render=render,
                         strategies=spec.strategies, sizes=spec.sizes, top_k=spec.top_k,
                         n_questions=spec.dynamic_questions, ids_file=spec.dynamic_ids, seed=spec.seed,
                         cache_dir=spec.cache or None, dense_model=spec.dense_model or None, bm25=bm25_options(spec),
                         dense_query_instruction=spec.dense_query_instruction)
