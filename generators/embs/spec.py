"""EMB-S's id, its scale labels and the frozen spec of the query set and ladder.

Scales are token budgets of the evidence pool (paper §3.4), written ``64K`` ... ``1M`` ... and
``max`` for the whole MemoryBank. The paper never says whether K is 1,000 or 1,024 nor which
tokenizer measures S (spec §1, "Inconsistencies"): needlework counts with the build's tokenizer and
K = 1,024 by default (OURS), ``decimal=True`` gives K = 1,000. So a scale is a label, not a token count
in :mod:`needlework.lengths`'s sense (where ``64k`` is 64,000 tokens); a command line may write it in
any case (``64k`` is ``64K``, :func:`scale_label`), and the manifest records the unit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from generators.world.schema import DOMAINS
from needlework.errors import SpecError
from needlework.lengths import number_and_suffix

BENCHMARK = "embs"
"""EMB-S's one id: release name, card template, part of every RNG key."""

BASE_SCALE = "64K"
"""The paper's domain-isolated corpus C_d^64K (§3.4); :attr:`LadderSpec.base_scale` may lower it (OURS)."""
DOMAIN_SCALES: tuple[str, ...] = ("64K", "128K", "256K")
"""Domain-conditioned tiers at the paper's base: the 64K domain-isolated corpus, then inter-domain mixing (§3.4)."""
SHARED_SCALE = "512K"
"""The union of the eight 64K domain corpora (§3.4); its size is not a budget."""
MAX_SCALE = "max"
"""The whole MemoryBank (326M tokens in the paper)."""
PAPER_EXTRA_SCALES: tuple[str, ...] = ("10M", "30M", "100M", "200M", "326M")
"""Scales the paper's tables and release name besides the powers of two (Table 3: 30M, 326M)."""
DEFAULT_MATERIALIZE = "1M"
"""Largest scale whose serialized corpus is written as a ``contexts-<scale>`` config by default."""
TRACKS: tuple[str, ...] = ("none", "rewrite", "atomize")
"""How a query's RefList was formed: single-source, Track 1 (rewriting), Track 2 (atomization)."""
RETRIEVERS: tuple[str, ...] = ("bm25", "dense")
"""The retrievers of the paper's retrieval regime (Table 3: BM25 and a dense embedder), also the build retriever's choices."""
LABELS: tuple[str, ...] = ("conflict", "hard_negative", "false_negative")
"""Stage III outcomes (§3.3, A.1.3)."""

_SCALE = re.compile(r"^(\d+)([KM])$")


def scale_tokens(label: str, unit: int = 1024) -> int:
    """The token budget a scale label stands for: ``64K`` -> 64 * unit, ``1M`` -> unit * unit.

    Raises:
        SpecError: ``label`` is not ``<n>K`` or ``<n>M`` (``max`` has no fixed budget).
    """
    match = _SCALE.match(label)
    if not match:
        raise SpecError(f"scale {label!r} is not of the form <n>K or <n>M (e.g. 64K, 1M, 326M)")
    n, suffix = int(match.group(1)), match.group(2)
    return n * unit if suffix == "K" else n * unit * unit


SCALE_HELP = ("A scale is a ladder label, not a token count: <n>K or <n>M in any case (64k = 64K), or max; "
              "its budget is n x 1,024 tokens per K and 1,024 x 1,024 per M (1,000 and 1,000,000 with --decimal).")
"""The rule for ``--help`` of every option that takes a scale label."""


def scale_label(text: str) -> str:
    """A scale label as a command line may write it, in its one spelling: ``64k`` -> ``64K``, ``MAX`` -> ``max``.

    Labels share :mod:`needlework.lengths`'s syntax and, like token counts, ignore case; but they are
    names of ladder rungs, not token counts (``64K`` is 65,536 tokens, or 64,000 with ``--decimal``), so
    only a whole ``<n>K`` or ``<n>M`` is one.

    Raises:
        SpecError: ``text`` is not ``<n>K``, ``<n>M`` or ``max`` in any case.
    """
    if text.strip().lower() == MAX_SCALE:
        return MAX_SCALE
    try:
        number, suffix = number_and_suffix(text)
    except SpecError:
        number, suffix = Fraction(0), ""
    if suffix not in ("k", "m") or number.denominator != 1 or number < 1:
        raise SpecError(f"scale {text.strip()!r} is not a ladder label: write <n>K or <n>M in any case "
                        f"(e.g. 64K = 64k, 1M, 326M) or max")
    return f"{number.numerator}{suffix.upper()}"


def scale_sort_key(label: str) -> tuple[int, int]:
    """Orders scale labels by size, ``max`` last."""
    return (1, 0) if label == MAX_SCALE else (0, scale_tokens(label))


def global_scales(bank_tokens: int, unit: int = 1024, extras: tuple[str, ...] = PAPER_EXTRA_SCALES) -> tuple[str, ...]:
    """Scales from 1M up: powers of two below the bank's size, the paper's extras that fit, then ``max`` (§3.4)."""
    labels: set[str] = set()
    n = 1
    while scale_tokens(f"{n}M", unit) < bank_tokens:
        labels.add(f"{n}M")
        n *= 2
    labels.update(label for label in extras if scale_tokens(label, unit) < bank_tokens)
    return (*sorted(labels, key=scale_sort_key), MAX_SCALE)


RERANK_SUFFIX = "+rerank"
"""How a release names a retriever's cross-encoder-reranked rows (``dense+rerank``): the builder writes them, the
report shows the paper's reranked rows (Qwen3-Reranker-8B) only beside a release that has one."""


DESCRIBED_SHARE = 1.0
"""Default :attr:`QuerySpec.described_share` (OURS; calibrated, see the card's retrieval table)."""
REWORDED_SHARE = 1.0
"""Default :attr:`QuerySpec.reworded_share` (OURS; the paper's queries are written by people and rewritten by a model)."""
FOUND_SHARE, NEAR_SHARE = 0.55, 0.10
"""Default :attr:`QuerySpec.found_share` and :attr:`QuerySpec.near_share` (OURS; calibrated against Table 3's BM25
64K row, R@1 .655 and SR@10 .687: the paper's single-source misses are nearly all deep)."""
MULTI_FOUND_SHARE, MULTI_NEAR_SHARE = 0.35, 0.55
"""Default :attr:`QuerySpec.multi_found_share` and :attr:`QuerySpec.multi_near_share` (OURS; calibrated against
Table 3's BM25 64K row, FR@10 .358 with SR@10 .687: most multi-source queries have one gold document in the top 10)."""
SURPLUS = 4.0
"""Default :attr:`QuerySpec.surplus`."""


@dataclass(frozen=True)
class QuerySpec:
    """How many queries of each kind, and the constants of Stages II and III that the paper leaves open.

    Attributes:
        domains: The domains to build queries for (the paper's eight by default).
        per_domain: Queries per domain (OURS: 24, so gold documents and hard negatives fill at most
            about 60% of a 64K domain corpus; the paper has ~60, the card ~153).
        single_share: Share of single-source queries; the rest split 1:1 between the tracks.
        neighbours: Track 1: the added hop's document must be among the RefDoc's top this-many
            neighbours under the build retriever (OURS: 200, about 7 % of the default 3,000-document bank;
            at 20 the nearest neighbours were nearly all spouses, whose articles answer a two-hop
            question alone, and too few other paths were near enough to fill the quota).
        collision_k: Stage III: nearest non-RefList documents verified per query (OURS; the paper's k is not given).
        dedup_threshold: Queries whose vectors have cosine >= this with a kept query are dropped (OURS).
        described_share: Share of queries (drawn per start entity) that refer to their entity by a unique
            description instead of its title (OURS, :mod:`generators.world.descriptions`): the world's lever
            for the paper's retrieval difficulty, calibrated against Table 3's 64K row.
        reworded_share: Share of queries (drawn per start entity) worded unlike the articles: the lexicon's
            :class:`~generators.world.lexicon.Rewording` for the asked relations, the description's clauses and the
            kind noun (OURS, :class:`generators.embs.world_queries.Wording`).
        found_share: Calibration (OURS; the paper keeps 882 of 3,457 candidates and gives no rule): at most this
            share of a domain's single-source queries are found outright by the build retriever over the whole
            bank as Table 3 counts it (R@1), unless the other candidates run out
            (:func:`generators.embs.calibration.found_outright`).
        near_share: Calibration: at most this share of a domain's single-source queries have their gold document in
            the build retriever's top 10 without being found outright; the rest have it below
            (:func:`generators.embs.calibration.outcome_caps`).
        multi_found_share, multi_near_share: The same for each multi-source track (Track 1 and Track 2), found
            outright meaning every gold document in the top 10 (FR@10) and near, at least one.
        surplus: Candidates drawn per quota slot, so calibration and the filters have a choice (OURS).
    """

    domains: tuple[str, ...] = DOMAINS
    per_domain: int = 24
    single_share: float = 0.5
    neighbours: int = 200
    collision_k: int = 10
    dedup_threshold: float = 0.95
    described_share: float = DESCRIBED_SHARE
    reworded_share: float = REWORDED_SHARE
    found_share: float = FOUND_SHARE
    near_share: float = NEAR_SHARE
    multi_found_share: float = MULTI_FOUND_SHARE
    multi_near_share: float = MULTI_NEAR_SHARE
    surplus: float = SURPLUS

    def __post_init__(self) -> None:
        unknown = [d for d in self.domains if d not in DOMAINS]
        if not self.domains or unknown or len(set(self.domains)) != len(self.domains):
            raise SpecError(f"domains must be distinct values from {', '.join(DOMAINS)}, got {', '.join(self.domains) or '(none)'}")
        if self.per_domain < 1:
            raise SpecError(f"queries per domain must be at least 1, got {self.per_domain}")
        if not 0.0 <= self.single_share <= 1.0:
            raise SpecError(f"single_share must be in [0, 1], got {self.single_share}")
        if self.neighbours < 1 or self.collision_k < 1:
            raise SpecError(f"neighbours and collision_k must be at least 1, got {self.neighbours}, {self.collision_k}")
        for name in ("described_share", "reworded_share", "found_share", "near_share", "multi_found_share",
                     "multi_near_share"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise SpecError(f"{name} must be in [0, 1], got {getattr(self, name)}")
        for found, near in (("found_share", "near_share"), ("multi_found_share", "multi_near_share")):
            if getattr(self, found) + getattr(self, near) > 1.0:
                raise SpecError(f"{found} + {near} must be at most 1, got {getattr(self, found)} + {getattr(self, near)}")
        if self.surplus < 1.0:
            raise SpecError(f"surplus must be at least 1, got {self.surplus}")
        if not 0.0 < self.dedup_threshold <= 1.0:
            raise SpecError(f"dedup_threshold must be in (0, 1], got {self.dedup_threshold}")

    def outcome_shares(self, track: str) -> tuple[float, float]:
        """``(found, near)`` shares of calibration for a track: single-source's for ``none``, else multi-source's."""
        return (self.found_share, self.near_share) if track == "none" else (self.multi_found_share, self.multi_near_share)

    def quotas(self) -> dict[str, int]:
        """Queries per track in each domain: single-source first, the rest split 1:1 (rewrite gets the odd one)."""
        single = round(self.per_domain * self.single_share)
        multi = self.per_domain - single
        return {"none": single, "rewrite": multi - multi // 2, "atomize": multi // 2}


@dataclass(frozen=True)
class LadderSpec:
    """The reference-corpus ladder (§3.4).

    Attributes:
        unit: Tokens per K (1,024, OURS; 1,000 with ``--decimal``).
        generation_reserve: Tokens kept free for the answer in every corpus's budget (OURS: 1,024).
        max_scale: The largest scale built (``max`` = the whole bank).
        base_scale: The domain-isolated corpus B, at most 64K (the paper's, the default). The domain
            tiers are B, 2B, 4B and the shared tier, the union of the B corpora, is labelled 8B; a
            smaller B (OURS) lets a model with a short window read the smallest corpora.
    """

    unit: int = 1024
    generation_reserve: int = 1024
    max_scale: str = MAX_SCALE
    base_scale: str = BASE_SCALE

    def __post_init__(self) -> None:
        if self.unit not in (1000, 1024):
            raise SpecError(f"unit must be 1000 or 1024 tokens per K, got {self.unit}")
        match = _SCALE.match(self.base_scale)
        k = int(match.group(1)) if match else 0
        if self.base_scale != f"{k}K" or not 0 < k <= scale_tokens(BASE_SCALE, unit=1):
            raise SpecError(f"base_scale must be a scale from 1K to {BASE_SCALE} written <n>K (e.g. 4K, 8K, 64K), "
                            f"got {self.base_scale!r}")
        half = scale_tokens(self.base_scale, self.unit) // 2
        if not 0 <= self.generation_reserve < half:
            raise SpecError(f"generation_reserve must be in [0, {half:,}) tokens (half the {self.base_scale} base corpus), "
                            f"got {self.generation_reserve}")
        if self.max_scale != MAX_SCALE:
            scale_tokens(self.max_scale)
            if scale_sort_key(self.max_scale) < scale_sort_key(self.base_scale):
                raise SpecError(f"max_scale {self.max_scale} is below the base scale {self.base_scale}, the smallest "
                                f"corpus built; lower --base-scale (e.g. {self.max_scale}) or raise --max-scale")

    @property
    def domain_scales(self) -> tuple[str, str, str]:
        """The domain-conditioned tiers B, 2B, 4B (``64K``, ``128K``, ``256K`` at the paper's base)."""
        k = scale_tokens(self.base_scale, unit=1)  # B in K
        return f"{k}K", f"{2 * k}K", f"{4 * k}K"

    @property
    def shared_scale(self) -> str:
        """The shared tier's label, 8B: the union of the B domain corpora (``512K`` at the paper's base)."""
        return f"{8 * scale_tokens(self.base_scale, unit=1)}K"
