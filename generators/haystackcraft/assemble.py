"""Haystack assembly (paper §3.1) and orderings (§3.2, Appendix J), by prefix sums over stored token counts.

For a question, a strategy and a budget of ``size`` tokens: every needle document goes in, then the
best-ranked distractors (documents that are not needles) while they fit, and the next one is cut at
a token boundary to fill what is left, unless less than :data:`MIN_CUT_TOKENS` would be left of it
(a title line without its text). By default sizes count the haystack only (documents and the blank
lines between them), not the prompt around it; with ``overhead`` (the tokens of the prompt around
the haystack: instruction, wrapper, question) the size counts the whole prompt, as the authors'
code does (Graph-COM/HaystackCraft ``infer_multi.py`` ``get_haystack_prompt`` starts its count
from the encoded template with the question). ``prefix_tokens`` adds the official layout's
``Article {i}\n: `` prefixes: the k-th document taken costs ``prefix_tokens[k - 1]`` more, and as
the prefixes of a haystack of n documents are those of 1..n whatever the ordering, the sum is
exact. Size 0 is the needles alone. A haystack whose needles alone exceed its budget is not built
(the builder reports it).

The sum of the given per-document counts is a prediction: with a regex pre-tokenized BPE (Qwen2,
cl100k) a document's final punctuation and the blank line after it are one pre-token (``.\n\n``),
so documents' own counts plus the joins run up to one token per document above the encoded
haystack. Builds therefore assemble on counts taken with what follows each document
(:mod:`generators.haystackcraft.measure`, :func:`generators.haystackcraft.rows.exact_haystack`),
under which the sums are exact; :func:`generators.haystackcraft.rows.materialize` measures every
prompt with one encode.

Every document of a strategy has an exact rank in the strategy's total order over the corpus, so
each needle has a place among the distractors even when it lies beyond the stored top K: the
descending order sorts the haystack by rank. Ascending reverses it; ``random-i`` are seeded
permutations; ``middle`` keeps the distractors descending and puts the needles, as a block in rank
order, at the distractor boundary nearest half of the distractors' tokens.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from generators.budget import boundary_at_depth, units_that_fit
from generators.haystackcraft.spec import ORDERINGS, RANDOM_PREFIX
from needlework.checks import one_of_message
from needlework.errors import SpecError

MIN_CUT_TOKENS = 16
"""The fewest tokens a cut distractor keeps; with less room the haystack ends with whole documents."""


@dataclass(frozen=True)
class RankedQuestion:
    """One question's ranking under one strategy, as haystack assembly needs it.

    Attributes:
        doc_ids: The strategy's top-K documents, best first.
        needle_ids: The question's needle documents.
        needle_ranks: Each needle's exact 1-based rank in the strategy's order over the whole corpus.
    """

    doc_ids: np.ndarray
    needle_ids: np.ndarray
    needle_ranks: np.ndarray


@dataclass(frozen=True)
class Haystack:
    """The documents of one haystack in rank order (best first), before ordering.

    Attributes:
        doc_ids: Needles and distractors sorted by rank.
        ranks: Their ranks.
        is_needle: Which of them are needles.
        tokens: Tokens each contributes (the cut distractor's kept tokens) with its prefix, joins excluded.
        truncated_doc: The distractor cut to fit, or -1.
        truncated_tokens: Tokens kept of its text (prefix excluded), or -1.
        predicted_tokens: Tokens of the joined haystack (prefixes included, the prompt around it
            excluded), the sum of the given counts (exact with
            :class:`~generators.haystackcraft.measure.JoinCounts`, see the module docstring).
    """

    doc_ids: np.ndarray
    ranks: np.ndarray
    is_needle: np.ndarray
    tokens: np.ndarray
    truncated_doc: int
    truncated_tokens: int
    predicted_tokens: int


def assemble_haystack(ranking: RankedQuestion, doc_tokens: np.ndarray, size: int, join_tokens: int, *,
                      overhead: int = 0, prefix_tokens: np.ndarray | None = None) -> Haystack | None:
    """The haystack of ``size`` tokens for one ranked question, or ``None`` if its needles alone exceed ``size``.

    Args:
        ranking: The question's ranking under one strategy.
        doc_tokens: Tokens of every rendered corpus document, indexed by doc id.
        size: Budget in tokens; 0 means the needles alone.
        join_tokens: Tokens of the blank line between two documents.
        overhead: Tokens of the prompt around the haystack that the budget also counts (0: the
            budget is the haystack's alone).
        prefix_tokens: Tokens each document's prefix adds, by 1-based position minus one (``None``:
            no prefixes); at least as long as the needles plus ``ranking.doc_ids``.
    """
    needles = np.asarray(ranking.needle_ids, dtype=np.int64)
    top = np.asarray(ranking.doc_ids, dtype=np.int64)
    keep = ~np.isin(top, needles)
    candidates, candidate_ranks = top[keep], np.flatnonzero(keep) + 1
    n_needles = len(needles)
    prefixes = (np.zeros(n_needles + len(candidates), dtype=np.int64) if prefix_tokens is None
                else np.asarray(prefix_tokens, dtype=np.int64)[: n_needles + len(candidates)])
    if len(prefixes) < n_needles + len(candidates):
        raise SpecError(f"prefix_tokens covers {len(prefixes)} positions; this haystack may hold "
                        f"{n_needles + len(candidates)} documents")
    needle_tokens = doc_tokens[needles].astype(np.int64) + prefixes[:n_needles]
    needles_total = int(needle_tokens.sum()) + join_tokens * (n_needles - 1)
    if size and needles_total + overhead > size:
        return None
    distractor_prefixes = prefixes[n_needles:]
    n_full, cut_doc, cut_tokens = 0, -1, -1
    if size:
        costs = doc_tokens[candidates].astype(np.int64) + join_tokens + distractor_prefixes
        room = size - needles_total - overhead
        n_full = units_that_fit(costs, room)
        if n_full < len(candidates):
            left = room - int(costs[:n_full].sum()) - join_tokens - int(distractor_prefixes[n_full])
            if left >= MIN_CUT_TOKENS:
                cut_doc, cut_tokens = int(candidates[n_full]), left
    n_take = n_full + (cut_doc >= 0)
    distractor_tokens = doc_tokens[candidates[:n_take]].astype(np.int64) + distractor_prefixes[:n_take]
    if cut_doc >= 0:
        distractor_tokens[-1] = cut_tokens + distractor_prefixes[n_full]
    ids = np.concatenate((needles, candidates[:n_take]))
    ranks = np.concatenate((np.asarray(ranking.needle_ranks, dtype=np.int64), candidate_ranks[:n_take]))
    tokens = np.concatenate((needle_tokens, distractor_tokens))
    is_needle = np.arange(len(ids)) < len(needles)
    order = np.argsort(ranks, kind="stable")
    total = int(tokens.sum()) + join_tokens * (len(ids) - 1)
    return Haystack(ids[order], ranks[order], is_needle[order], tokens[order], cut_doc, cut_tokens, total)


def order_haystack(haystack: Haystack, ordering: str, rng: np.random.Generator | None = None) -> np.ndarray:
    """Positions into ``haystack.doc_ids`` giving the documents in ``ordering``'s prompt order.

    ``rng`` is required by (and only used for) the ``random-i`` orderings.
    """
    n = len(haystack.doc_ids)
    if ordering == "descending":
        return np.arange(n)
    if ordering == "ascending":
        return np.arange(n)[::-1].copy()
    if ordering.startswith(RANDOM_PREFIX) and ordering in ORDERINGS:
        if rng is None:
            raise SpecError(f"ordering {ordering!r} needs a random generator")
        return rng.permutation(n)
    if ordering == "middle":
        needles = np.flatnonzero(haystack.is_needle)
        distractors = np.flatnonzero(~haystack.is_needle)
        at = boundary_at_depth(haystack.tokens[distractors], 50.0) if len(distractors) else 0
        return np.concatenate((distractors[:at], needles, distractors[at:]))
    raise SpecError(one_of_message("haystack ordering", ordering, ORDERINGS))
