"""HaystackCraft release rows: compact haystacks (doc-id lists) and prompts materialized from them.

A ``haystacks`` row stores one ordered haystack as doc ids plus the cut distractor's kept tokens,
so a 128K-token haystack costs a few hundred integers; :func:`materialize` turns it into the
Appendix B prompt with one verifying encode. Random orderings draw from the key
``{qid}/{strategy}/size={size}/{ordering}``, so a haystack never depends on build order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from generators.budget import MAX_ROUNDS, cut_at_tokens, token_indices
from generators.haystackcraft.assemble import (
    RankedQuestion,
    assemble_haystack,
    order_haystack,
)
from generators.haystackcraft.prompt import (
    article_prefix,
    join_haystack,
    no_context_prompt,
    prompt_parts,
)
from generators.haystackcraft.spec import (
    BENCHMARK,
    NO_CONTEXT,
    RANDOM_PREFIX,
    HaystackSpec,
)
from generators.seeding import rng_for
from generators.strategies import strategy_parts
from needlework.errors import BudgetError
from needlework.tokens import TokenCounter

DocumentLookup = Callable[[np.ndarray], Sequence[str]]
"""Rendered documents (``render_document``) for an array of doc ids, in the same order."""


def haystack_rows(qid: str, rankings: Mapping[str, RankedQuestion], doc_tokens: np.ndarray, join_tokens: int,
                  spec: HaystackSpec, *, seed: int, overhead: int = 0,
                  prefix_tokens: np.ndarray | None = None) -> Iterator[dict[str, Any]]:
    """``haystacks`` rows of one question: every strategy x size x ordering whose needles fit.

    Args:
        qid: The question id.
        rankings: The question's ranking under each strategy of ``spec``.
        doc_tokens: Tokens of every rendered corpus document, indexed by doc id.
        join_tokens: Tokens of the blank line between documents.
        spec: The grid.
        seed: The build seed (random orderings).
        overhead: Tokens of the prompt around the haystack the sizes also count (whole-prompt
            budget; 0: sizes count the haystack alone). See :func:`prompt_overhead`.
        prefix_tokens: Tokens of each position's ``Article {i}`` prefix (official layout), or ``None``.
    """
    for strategy in spec.strategies:
        ranking = rankings[strategy]
        for size in spec.sizes:
            haystack = assemble_haystack(ranking, doc_tokens, size, join_tokens, overhead=overhead,
                                         prefix_tokens=prefix_tokens)
            if haystack is None:
                continue
            for ordering in spec.orderings:
                key = f"{qid}/{strategy}/size={size}/{ordering}"
                rng = rng_for(seed, BENCHMARK, "static", key) if ordering.startswith(RANDOM_PREFIX) else None
                order = order_haystack(haystack, ordering, rng)
                yield {
                    "id": f"{BENCHMARK}/{key}", "qid": qid, "strategy": strategy, "size": size, "ordering": ordering,
                    "doc_ids": haystack.doc_ids[order].tolist(),
                    "needle_positions": np.flatnonzero(haystack.is_needle[order]).tolist(),
                    "ranks": haystack.ranks[order].tolist(),
                    "truncated_doc": haystack.truncated_doc, "truncated_tokens": haystack.truncated_tokens,
                    "haystack_tokens": haystack.predicted_tokens,
                }


def prompt_overhead(question: str, tokens: TokenCounter, layout: str = "needlework") -> int:
    """Tokens of the prompt around the haystack for a question (instruction, wrapper, question): what a
    whole-prompt budget spends before the first document (Graph-COM/HaystackCraft ``infer_multi.py``
    counts the encoded template with the question and needles)."""
    before, after = prompt_parts(tokens.normalize(question), layout)
    return tokens.count(before) + tokens.count(after)


def prefix_token_counts(n: int, tokens: TokenCounter) -> np.ndarray:
    """Tokens the official ``Article {i}\n: `` prefix adds before a document, for i = 1..n (int64).

    Counted against the start every rendered document shares (``Article Title:``), so the count
    includes how the prefix's last space joins the document's first word.
    """
    start = "Article Title:"
    counts = tokens.count_batch([article_prefix(i) + start for i in range(1, n + 1)]) if n else []
    return np.asarray(counts, dtype=np.int64) - tokens.count(start)


def materialize(haystack: Mapping[str, Any], question: Mapping[str, Any], documents: DocumentLookup,
                tokens: TokenCounter, *, layout: str = "needlework", whole_prompt: bool = False) -> dict[str, Any]:
    """The Appendix B prompt row of one ``haystacks`` row, verified with one encode.

    The cut distractor becomes the longest prefix of its rendered text with its kept tokens. If
    the encoded haystack (the whole prompt when ``whole_prompt``) exceeds the size (a tokenizer
    whose counts do not add up across the joins), the cut distractor shrinks by the overshoot, or
    the worst-ranked distractor is dropped, and the prompt is encoded again. Under ``whole_prompt``
    a prompt that falls short of the size (the stored counts overestimate joins that merge with a
    document's last punctuation) grows its cut distractor once by the shortfall, as the authors'
    code fills the budget by encoding (Graph-COM/HaystackCraft ``infer_multi.py``), and shrinks
    again if that overshoots.

    Args:
        haystack: A row from :func:`haystack_rows`.
        question: The ``qa`` row (question, answers, hops, source).
        documents: Rendered documents by doc id.
        tokens: The build's tokenizer.
        layout: ``needlework`` (Appendix B as printed) or ``official`` (``prompts/context.txt``:
            ``<text>`` wrapper, ``Article {i}`` prefixes); see :mod:`generators.haystackcraft.prompt`.
        whole_prompt: The size bounds the whole prompt (official), not the haystack alone.

    Returns:
        The ``static-<ordering>`` row (see ``builders.haystackcraft.PROMPT_FEATURES``).
    """
    doc_ids = list(haystack["doc_ids"])
    cut_doc, kept = int(haystack["truncated_doc"]), int(haystack["truncated_tokens"])
    ranks = list(haystack["ranks"])
    size = int(haystack["size"])
    needles = set(question["support"])
    texts = [tokens.normalize(t) for t in documents(np.asarray(doc_ids, dtype=np.int64))]
    before, after = prompt_parts(tokens.normalize(question["question"]), layout)
    grown = False
    for _ in range(MAX_ROUNDS):
        shown = [cut_at_tokens(t, kept, tokens) if d == cut_doc else t for d, t in zip(doc_ids, texts)]
        context = join_haystack(shown, layout)
        prompt = before + context + after
        _, starts = tokens.encode_with_offsets(prompt)
        span = token_indices(starts, [len(before), len(before) + len(context)])
        measured = int(span[1] - span[0])
        bounded = len(starts) if whole_prompt else measured
        if not size or bounded <= size:
            if whole_prompt and not grown and cut_doc >= 0 and bounded < size:
                grown = True  # the stored counts overestimate joins (".\n\n" is one pre-token): fill the prompt
                full = tokens.count(texts[doc_ids.index(cut_doc)])
                if kept < full:
                    kept = min(full, kept + size - bounded)
                    continue
            break
        over = bounded - size
        if cut_doc >= 0 and kept > over:
            kept -= over
            continue
        distractors = [(r, i) for i, (d, r) in enumerate(zip(doc_ids, ranks)) if d not in needles]
        if not distractors:
            raise BudgetError(f"{haystack['id']}: the needles alone take {bounded} tokens, more than the size {size}")
        worst = max(distractors)[1]
        cut_doc = -1 if doc_ids[worst] == cut_doc else cut_doc
        del doc_ids[worst], ranks[worst], texts[worst]
    else:
        raise BudgetError(f"{haystack['id']}: could not fit the haystack under {size} tokens in {MAX_ROUNDS} rounds")
    base, ppr = strategy_parts(haystack["strategy"])
    return {
        "id": haystack["id"], "input": prompt, "answers": list(question["answers"]), "question": question["question"],
        "qid": haystack["qid"], "strategy": haystack["strategy"], "retriever": base, "ppr": ppr,
        "ordering": haystack["ordering"], "size": size, "hops": int(question["hops"]), "source": question["source"],
        "n_tokens": len(starts), "haystack_tokens": measured, "doc_ids": doc_ids,
        "needle_positions": [i for i, d in enumerate(doc_ids) if d in needles],
        "truncated_tokens": kept if cut_doc >= 0 else -1, "tokenizer": tokens.name,
    }


def no_context_row(question: Mapping[str, Any], tokens: TokenCounter) -> dict[str, Any]:
    """The ``static-no-context`` row of a question: the Appendix G no-context prompt, no documents.

    Paper Appendix G evaluates each question "without context, to test reliance on parametric
    knowledge"; the row is scored as every static row is. Its strategy, retriever and ordering
    are :data:`generators.haystackcraft.spec.NO_CONTEXT`, its size 0, and it has no documents.
    """
    prompt = no_context_prompt(tokens.normalize(question["question"]))
    return {
        "id": f"{BENCHMARK}/{question['qid']}/{NO_CONTEXT}", "input": prompt, "answers": list(question["answers"]),
        "question": question["question"], "qid": question["qid"], "strategy": NO_CONTEXT, "retriever": NO_CONTEXT,
        "ppr": False, "ordering": NO_CONTEXT, "size": 0, "hops": int(question["hops"]), "source": question["source"],
        "n_tokens": tokens.count(prompt), "haystack_tokens": 0, "doc_ids": [], "needle_positions": [],
        "truncated_tokens": -1, "tokenizer": tokens.name,
    }
