"""HaystackCraft release rows: compact haystacks (doc-id lists) and prompts materialized from them.

A ``haystacks`` row stores one ordered haystack as doc ids plus the cut distractor's kept tokens,
so a 128K-token haystack costs a few hundred integers; :func:`materialize` turns it into the
Appendix B prompt with one verifying encode. Random orderings draw from the key
``{qid}/{strategy}/size={size}/{ordering}``, so a haystack never depends on build order.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator, Mapping, Sequence

import numpy as np

from generators.budget import MAX_ROUNDS, cut_at_tokens, token_indices
from needlework.errors import BudgetError
from generators.haystackcraft.assemble import RankedQuestion, assemble_haystack, order_haystack
from generators.haystackcraft.prompt import DOCUMENT_JOINER, prompt_parts
from generators.haystackcraft.spec import BENCHMARK, RANDOM_PREFIX, HaystackSpec
from generators.strategies import strategy_parts
from generators.seeding import rng_for
from needlework.tokens import TokenCounter

DocumentLookup = Callable[[np.ndarray], Sequence[str]]
"""Rendered documents (``render_document``) for an array of doc ids, in the same order."""


def haystack_rows(qid: str, rankings: Mapping[str, RankedQuestion], doc_tokens: np.ndarray, join_tokens: int,
                  spec: HaystackSpec, *, seed: int) -> Iterator[dict[str, Any]]:
    """``haystacks`` rows of one question: every strategy x size x ordering whose needles fit.

    Args:
        qid: The question id.
        rankings: The question's ranking under each strategy of ``spec``.
        doc_tokens: Tokens of every rendered corpus document, indexed by doc id.
        join_tokens: Tokens of the blank line between documents.
        spec: The grid.
        seed: The build seed (random orderings).
    """
    for strategy in spec.strategies:
        ranking = rankings[strategy]
        for size in spec.sizes:
            haystack = assemble_haystack(ranking, doc_tokens, size, join_tokens)
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


def materialize(haystack: Mapping[str, Any], question: Mapping[str, Any], documents: DocumentLookup,
                tokens: TokenCounter) -> dict[str, Any]:
    """The Appendix B prompt row of one ``haystacks`` row, verified with one encode.

    The cut distractor becomes the longest prefix of its rendered text with its kept tokens. If
    the encoded haystack exceeds the size (a tokenizer whose counts do not add up across the
    blank lines), the cut distractor shrinks by the overshoot, or the worst-ranked distractor is
    dropped, and the prompt is encoded again.

    Args:
        haystack: A row from :func:`haystack_rows`.
        question: The ``qa`` row (question, answers, hops, source).
        documents: Rendered documents by doc id.
        tokens: The build's tokenizer.

    Returns:
        The ``static-<ordering>`` row (see ``builders.haystackcraft.PROMPT_FEATURES``).
    """
    doc_ids = list(haystack["doc_ids"])
    cut_doc, kept = int(haystack["truncated_doc"]), int(haystack["truncated_tokens"])
    ranks = list(haystack["ranks"])
    size = int(haystack["size"])
    needles = set(question["support"])
    texts = [tokens.normalize(t) for t in documents(np.asarray(doc_ids, dtype=np.int64))]
    before, after = prompt_parts(tokens.normalize(question["question"]))
    for _ in range(MAX_ROUNDS):
        shown = [cut_at_tokens(t, kept, tokens) if d == cut_doc else t for d, t in zip(doc_ids, texts)]
        context = DOCUMENT_JOINER.join(shown)
        prompt = before + context + after
        _, starts = tokens.encode_with_offsets(prompt)
        span = token_indices(starts, [len(before), len(before) + len(context)])
        measured = int(span[1] - span[0])
        if not size or measured <= size:
            break
        over = measured - size
        if cut_doc >= 0 and kept > over:
            kept -= over
            continue
        distractors = [(r, i) for i, (d, r) in enumerate(zip(doc_ids, ranks)) if d not in needles]
        if not distractors:
            raise BudgetError(f"{haystack['id']}: the needles alone take {measured} tokens, more than the size {size}")
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
