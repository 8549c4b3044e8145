"""The reference-corpus ladder (§3.4): nested corpora from 64K domain corpora to the whole MemoryBank.

Every corpus is built from predicted document counts (each document's serialized tokens, blank
line included, add up exactly to the corpus's count; see :mod:`generators.embs.prompts`), whole
documents only, as the longest prefix of one fill order that fits ``budget - reserve``:

- ``C_d^64K``: the gold documents of domain ``d``'s queries, then their hard negatives (OURS: the
  paper keeps them as distractors), then the domain's documents in one seeded order. Gold that does
  not fit is an error naming the domain, the tokens needed and available.
- ``C_d^128K``, ``C_d^256K``: ``C_d^64K`` then the other domains' 64K documents in one seeded order.
- ``C^512K``: the union of the ``C_d^64K`` (its size is at most 8 x 64K by construction, not a budget).
- ``C^S`` for S = 1M, 2M, ...: ``C^512K`` then the rest of the bank in one seeded order; ``max`` is
  the whole bank.

64K is the paper's base B; :attr:`LadderSpec.base_scale` may lower it (OURS, for short-window models),
and the domain tiers become B, 2B, 4B and the shared tier 8B (e.g. 4K, 8K, 16K and 32K). The global
tiers do not change.

Because each tier's corpora are prefixes of one order, the chain is nested by construction
(stronger than the paper's independent samples, same distribution; spec §4). The documents of a
corpus are serialized in one seeded shuffle of its members, shared by all its queries.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from generators.budget import units_that_fit
from generators.embs.spec import (
    BENCHMARK,
    MAX_SCALE,
    LadderSpec,
    global_scales,
    scale_sort_key,
    scale_tokens,
)
from generators.seeding import rng_for
from needlework.errors import BudgetError


@dataclass(frozen=True)
class Corpus:
    """One corpus of the ladder (a ``ladder`` row).

    Attributes:
        scale: ``64K`` ... ``max``.
        tier: ``domain`` (64K, the base), ``mixed`` (128K/256K), ``shared`` (512K) or ``global`` (1M and up).
        domain: The domain of a domain-conditioned corpus, ``all`` from the shared tier.
        budget_tokens: The scale's token budget (the bank's size for ``max``).
        reserve_tokens: Tokens kept for the instruction, query and answer.
        corpus_tokens: The serialized corpus's tokens (sum of its documents' counts).
        next_tokens: Tokens of the next document of the corpus's fill order, the one that did not
            fit (0 when the order was exhausted): the record that the corpus is maximal.
        doc_ids: Members in serialization order.
    """

    scale: str
    tier: str
    domain: str
    budget_tokens: int
    reserve_tokens: int
    corpus_tokens: int
    next_tokens: int
    doc_ids: np.ndarray


def _prefix(order: np.ndarray, doc_tokens: np.ndarray, available: int) -> int:
    return units_that_fit(doc_tokens[order], available)


def _unique(ids: Sequence[int] | np.ndarray, exclude: set[int] | None = None) -> np.ndarray:
    seen = set(exclude or ())
    out = []
    for i in np.asarray(ids, dtype=np.int64).tolist():
        if i not in seen:
            seen.add(i)
            out.append(i)
    return np.asarray(out, dtype=np.int64)


def _seeded(ids: np.ndarray, seed: int, key: str) -> np.ndarray:
    """``ids`` (sorted first, so the result depends only on the set) in one seeded order."""
    ids = np.sort(ids)
    return ids[rng_for(seed, BENCHMARK, "ladder", key).permutation(len(ids))]


def _corpus(scale: str, tier: str, domain: str, budget: int, reserve: int, fill: np.ndarray, n: int,
            doc_tokens: np.ndarray, seed: int) -> Corpus:
    """The corpus of the first ``n`` documents of the fill order ``fill``, in its seeded serialization order."""
    members = fill[:n]
    order = members[rng_for(seed, BENCHMARK, "ladder-order", f"{scale}/{domain}").permutation(len(members))]
    following = int(doc_tokens[fill[n]]) if n < len(fill) else 0
    return Corpus(scale, tier, domain, budget, reserve, int(doc_tokens[members].sum()), following, order)


def build_ladder(
    doc_tokens: np.ndarray,
    doc_domains: np.ndarray,
    domains: Sequence[str],
    gold: Mapping[str, Sequence[int]],
    hard_negatives: Mapping[str, Sequence[int]],
    reserves: Mapping[str, int],
    spec: LadderSpec,
    seed: int,
    all_domains: Sequence[str],
) -> list[Corpus]:
    """Every corpus of the ladder, smallest scale first.

    Args:
        doc_tokens: Serialized tokens of every bank document, by doc id.
        doc_domains: Index into ``all_domains`` of every document's domain, by doc id.
        domains: The domains that have queries (and so base corpora), in order.
        gold: Domain -> doc ids of its queries' RefLists.
        hard_negatives: Domain -> its queries' hard negatives, in the order to add them.
        reserves: Domain -> tokens its prompts need besides the corpus (instruction, longest query,
            generation reserve); ``"all"`` for the shared and global corpora.
        spec: Unit, base and largest scale.
        seed: Build seed.
        all_domains: The domain names ``doc_domains`` indexes.

    Raises:
        BudgetError: A domain's gold documents do not fit its base (64K) corpus.
    """
    unit = spec.unit
    corpora: list[Corpus] = []
    base: dict[str, np.ndarray] = {}
    base_scale, *mixed_scales = spec.domain_scales
    base_budget = scale_tokens(base_scale, unit)
    for domain in domains:
        available = base_budget - reserves[domain]
        gold_ids = _unique(sorted(set(gold[domain])))
        needed = int(doc_tokens[gold_ids].sum())
        if needed > available:
            raise BudgetError(
                f"domain {domain}: its {len(gold_ids)} gold documents need {needed:,} tokens, but its {base_scale} corpus has "
                f"{available:,} available ({base_budget:,} - {reserves[domain]:,} reserved); use fewer queries per domain"
            )
        negatives = _unique(hard_negatives.get(domain, ()), set(gold_ids.tolist()))
        in_domain = np.flatnonzero(doc_domains == all_domains.index(domain)).astype(np.int64)
        taken = set(gold_ids.tolist()) | set(negatives.tolist())
        rest = _seeded(np.asarray([i for i in in_domain.tolist() if i not in taken], dtype=np.int64), seed,
                       f"{domain}/{base_scale}")
        order = np.concatenate([gold_ids, negatives, rest])
        n = _prefix(order, doc_tokens, available)
        base[domain] = order[:n]
        corpora.append(_corpus(base_scale, "domain", domain, base_budget, reserves[domain], order, n, doc_tokens, seed))
    wanted = [s for s in mixed_scales if _within(s, spec)]
    for domain in domains:
        own = set(base[domain].tolist())
        pool = _unique(np.concatenate([base[d] for d in domains if d != domain] or [np.empty(0, np.int64)]), own)
        order = np.concatenate([base[domain], _seeded(pool, seed, f"{domain}/mix")])
        for scale in wanted:
            budget = scale_tokens(scale, unit)
            n = max(_prefix(order, doc_tokens, budget - reserves[domain]), len(base[domain]))
            corpora.append(_corpus(scale, "mixed", domain, budget, reserves[domain], order, n, doc_tokens, seed))
    shared = _unique(np.concatenate([base[d] for d in domains]))
    if _within(spec.shared_scale, spec):
        corpora.append(_corpus(spec.shared_scale, "shared", "all", scale_tokens(spec.shared_scale, unit), reserves["all"],
                               shared, len(shared), doc_tokens, seed))
    rest = _seeded(np.setdiff1d(np.arange(len(doc_tokens), dtype=np.int64), shared), seed, "global")
    order = np.concatenate([shared, rest])
    bank_tokens = int(doc_tokens.sum())
    for scale in global_scales(bank_tokens, unit):
        if not _within(scale, spec):
            continue
        if scale == MAX_SCALE:
            corpora.append(_corpus(scale, "global", "all", bank_tokens, reserves["all"], order, len(order), doc_tokens, seed))
            continue
        budget = scale_tokens(scale, unit)
        n = max(_prefix(order, doc_tokens, budget - reserves["all"]), len(shared))
        corpora.append(_corpus(scale, "global", "all", budget, reserves["all"], order, n, doc_tokens, seed))
    return sorted(corpora, key=lambda c: (scale_sort_key(c.scale), list(all_domains).index(c.domain) if c.domain in all_domains else -1))


def _within(scale: str, spec: LadderSpec) -> bool:
    return spec.max_scale == MAX_SCALE or scale_sort_key(scale) <= scale_sort_key(spec.max_scale)
