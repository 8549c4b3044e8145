"""HaystackCraft release rows: compact haystacks (doc-id lists) and prompts materialized from them.

A ``haystacks`` row stores one ordered haystack as doc ids plus the cut distractor's kept tokens,
so a 128K-token haystack costs a few hundred integers; :func:`materialize` turns it into the
Appendix B prompt with one verifying encode. Random orderings draw from the key
``{qid}/{strategy}/size={size}/{ordering}``, so a haystack never depends on build order.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from generators.budget import MAX_ROUNDS, cut_at_tokens
from generators.haystackcraft.assemble import (
    MIN_CUT_TOKENS,
    Haystack,
    RankedQuestion,
    assemble_haystack,
    order_haystack,
)
from generators.haystackcraft.measure import DocumentLookup, JoinCounts
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


def haystack_rows(qid: str, rankings: Mapping[str, RankedQuestion], doc_tokens: np.ndarray, join_tokens: int,
                  spec: HaystackSpec, *, seed: int, overhead: int = 0, prefix_tokens: np.ndarray | None = None,
                  counts: JoinCounts | None = None, whole_prompt: bool = False) -> Iterator[dict[str, Any]]:
    """``haystacks`` rows of one question: every strategy x size x ordering whose needles fit.

    With ``counts`` (what builds pass) every row's ``haystack_tokens`` is the exact token count of
    its haystack as it stands in the materialized prompt, in its own ordering (see
    :mod:`generators.haystackcraft.measure`), and the size bounds that count (``whole_prompt``:
    the whole prompt's) for every ordering. Without it the rows carry the sum of the stored
    per-document counts, a prediction that runs above the encoded haystack by up to one token
    per document (kept for the assembly benchmark).

    Args:
        qid: The question id.
        rankings: The question's ranking under each strategy of ``spec``.
        doc_tokens: Tokens of every rendered corpus document, indexed by doc id (without ``counts``).
        join_tokens: Tokens of the blank line between documents (without ``counts``).
        spec: The grid.
        seed: The build seed (random orderings).
        overhead: Tokens of the prompt around the haystack the sizes also count (whole-prompt
            budget; 0: sizes count the haystack alone). See :func:`prompt_overhead`.
        prefix_tokens: Tokens of each position's ``Article {i}`` prefix (official layout), or ``None``.
        counts: Exact per-document counts in the build's layout.
        whole_prompt: The sizes bound the whole prompt (with ``counts``).
    """
    for strategy in spec.strategies:
        ranking = rankings[strategy]
        for size in spec.sizes:
            if counts is None:
                haystack = assemble_haystack(ranking, doc_tokens, size, join_tokens, overhead=overhead,
                                             prefix_tokens=prefix_tokens)
                exact = None
            else:
                measured = exact_haystack(ranking, counts, size, overhead=overhead, prefix_tokens=prefix_tokens,
                                          whole_prompt=whole_prompt)
                haystack, exact = measured if measured is not None else (None, None)
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
                    "haystack_tokens": haystack.predicted_tokens if exact is None else exact.span_tokens(int(order[-1])),
                }


@dataclass(frozen=True)
class ExactCounts:
    """Exact counts of one assembled haystack's documents (aligned with ``Haystack.doc_ids``).

    Attributes:
        inner: Each document's tokens followed by the blank line (the cut one: its kept prefix's).
        last_span: Each document's haystack tokens when it stands last.
        last_prompt: Each document's whole-prompt tokens when it stands last.
        prefixes: Tokens of all the haystack's ``Article {i}`` prefixes (0 without them).
    """

    inner: np.ndarray
    last_span: np.ndarray
    last_prompt: np.ndarray
    prefixes: int

    def span_tokens(self, last: int) -> int:
        """The haystack's tokens in the prompt when the document at position ``last`` stands last."""
        return self.prefixes + int(self.inner.sum()) - int(self.inner[last]) + int(self.last_span[last])

    def bound(self, overhead: int, whole_prompt: bool) -> int:
        """The largest count the size bounds over every ordering: the haystack's, or with ``whole_prompt``
        the whole prompt's (``overhead`` = tokens of the prompt around the haystack)."""
        last = self.last_prompt + overhead if whole_prompt else self.last_span
        return self.prefixes + int(self.inner.sum()) + int((last - self.inner).max())


def exact_haystack(ranking: RankedQuestion, counts: JoinCounts, size: int, *, overhead: int = 0,
                   prefix_tokens: np.ndarray | None = None,
                   whole_prompt: bool = False) -> tuple[Haystack, ExactCounts] | None:
    """The haystack of ``size`` tokens under exact counts, or ``None`` if its needles alone exceed it.

    The prefix-sum assembly (:func:`generators.haystackcraft.assemble.assemble_haystack`) runs on
    ``count(doc + "\n\n") - count("\n\n")`` per document with the size lowered by what the last
    document can add beyond its share, so every ordering fits; then the cut distractor is counted
    exactly (its kept prefix encoded with what follows it) and grown while short of the size until
    it first overshoots, then shrunk while any ordering would exceed it, as the authors' code fills
    a budget by encoding
    (Graph-COM/HaystackCraft ``infer_multi.py``). A cut distractor left with fewer than
    :data:`MIN_CUT_TOKENS` tokens is dropped.
    """
    needles = np.asarray(ranking.needle_ids, dtype=np.int64)
    candidates = np.concatenate((needles, np.asarray(ranking.doc_ids, dtype=np.int64)))
    counts.ensure(candidates)
    last = (counts.last_prompt + overhead) if whole_prompt else counts.last_span
    reach = int((last[candidates] - counts.inner[candidates]).max())
    budget = 0 if not size else max(size - counts.join_tokens - reach, 1)
    haystack = assemble_haystack(ranking, counts.inner_net, budget, counts.join_tokens,
                                 prefix_tokens=prefix_tokens)
    if haystack is None:
        return None
    ids = haystack.doc_ids
    prefixes = 0 if prefix_tokens is None else int(np.asarray(prefix_tokens, dtype=np.int64)[: len(ids)].sum())
    exact = ExactCounts(counts.inner[ids].copy(), counts.last_span[ids].copy(), counts.last_prompt[ids].copy(), prefixes)
    if haystack.truncated_doc < 0:
        return haystack, exact
    at = int(np.flatnonzero(ids == haystack.truncated_doc)[0])
    text = counts.tokens.normalize(counts.documents(ids[at: at + 1])[0])
    full = counts.tokens.count(text)
    kept, overshot, fitting = haystack.truncated_tokens, False, None
    for _ in range(MAX_ROUNDS):
        cut = counts.text_counts(cut_at_tokens(text, kept, counts.tokens))
        exact.inner[at], exact.last_span[at], exact.last_prompt[at] = cut
        bound = exact.bound(overhead, whole_prompt)
        if bound <= size:
            fitting = (kept, cut, bound)
            if bound == size or overshot or kept >= full:
                break
            kept = min(full, kept + size - bound)  # grow while short of the size, until it first overshoots
        else:
            overshot, kept = True, kept - (bound - size)
            if kept < MIN_CUT_TOKENS:
                break
    if fitting is not None and fitting[0] >= MIN_CUT_TOKENS:
        kept, cut, bound = fitting
        exact.inner[at], exact.last_span[at], exact.last_prompt[at] = cut
        tokens = haystack.tokens.copy()
        tokens[at] += kept - haystack.truncated_tokens
        return replace(haystack, tokens=tokens, truncated_tokens=kept, predicted_tokens=bound), exact
    keep = np.arange(len(ids)) != at  # too little room left for a cut: the haystack ends with whole documents
    prefixes -= 0 if prefix_tokens is None else int(prefix_tokens[len(ids) - 1])
    dropped = replace(haystack, doc_ids=ids[keep], ranks=haystack.ranks[keep], is_needle=haystack.is_needle[keep],
                      tokens=haystack.tokens[keep], truncated_doc=-1, truncated_tokens=-1)
    exact = ExactCounts(counts.inner[dropped.doc_ids].copy(), counts.last_span[dropped.doc_ids].copy(),
                        counts.last_prompt[dropped.doc_ids].copy(), prefixes)
    if exact.bound(overhead, whole_prompt) > size:
        raise BudgetError(f"{ranking.needle_ids.tolist()}: whole documents exceed the size {size} under exact counts")
    return replace(dropped, predicted_tokens=exact.bound(overhead, whole_prompt)), exact


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


def haystack_span_tokens(token_starts: np.ndarray, start: int, end: int) -> int:
    """Tokens of an encoded prompt that start inside the haystack's characters ``[start, end)``: the
    measured ``haystack_tokens``. A token that starts in the haystack and runs past its end (the last
    document's ``.`` merged with the blank line after it into ``.\n\n``) carries haystack text and
    counts; the haystack starts at a pre-token boundary, so no token runs into it."""
    first, stop = np.searchsorted(token_starts, [start, end], side="left")
    return int(stop - first)


def materialize(haystack: Mapping[str, Any], question: Mapping[str, Any], documents: DocumentLookup,
                tokens: TokenCounter, *, layout: str = "needlework", whole_prompt: bool = False) -> dict[str, Any]:
    """The Appendix B prompt row of one ``haystacks`` row, verified with one encode.

    The cut distractor becomes the longest prefix of its rendered text with its kept tokens. The
    row's ``haystack_tokens`` is measured on the encoded prompt (:func:`haystack_span_tokens`),
    which is the count :func:`haystack_rows` computes with
    :class:`~generators.haystackcraft.measure.JoinCounts` and the size already bounds. For a
    tokenizer whose counts do not add up across the joins (no regex pre-tokenization), an encoded
    haystack (the whole prompt when ``whole_prompt``) over the size is mended: the cut distractor
    shrinks by the overshoot, or the worst-ranked distractor is dropped, and the prompt is encoded
    again.

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
    for _ in range(MAX_ROUNDS):
        shown = [cut_at_tokens(t, kept, tokens) if d == cut_doc else t for d, t in zip(doc_ids, texts)]
        context = join_haystack(shown, layout)
        prompt = before + context + after
        _, starts = tokens.encode_with_offsets(prompt)
        measured = haystack_span_tokens(starts, len(before), len(before) + len(context))
        bounded = len(starts) if whole_prompt else measured
        if not size or bounded <= size:
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
