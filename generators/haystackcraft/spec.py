"""What a HaystackCraft static build contains: strategies, sizes and orderings (paper §3.1-3.2, §4.1, App. J)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

from generators.strategies import RETRIEVERS, STRATEGIES, strategy_parts
from needlework.errors import SpecError

BENCHMARK = "haystackcraft"
"""The benchmark's one id: release and manifest name, eval task prefix, and part of every RNG key."""
ORDERINGS: tuple[str, ...] = ("descending", "ascending", "random-0", "random-1", "random-2", "middle")
"""Retriever-ranked descending and ascending, three seeded random permutations, needles in the middle."""
RANDOM_PREFIX = "random-"
DEFAULT_SIZES: tuple[int, ...] = (0, 8_000, 16_000, 32_000, 64_000, 128_000)
"""Haystack sizes in tokens; 0 is the needles alone (the paper's "no distractors")."""
BudgetRule = Literal["haystack", "prompt"]
BUDGET_RULES: tuple[str, ...] = get_args(BudgetRule)
"""What a size counts: ``haystack`` (the documents and the blank lines between them; needlework's
default) or ``prompt`` (the whole prompt: instruction, wrapper, question and documents, as the
authors' code counts it: Graph-COM/HaystackCraft ``infer_multi.py`` ``get_haystack_prompt``)."""
NO_CONTEXT = "no-context"
"""The strategy, retriever and ordering of the Appendix G no-context rows (config ``static-no-context``)."""


@dataclass(frozen=True)
class HaystackSpec:
    """The grid of static haystacks built for every question.

    Attributes:
        strategies: Retrieval strategies (see :data:`STRATEGIES`).
        sizes: Haystack budgets in tokens (0 = needles only), ascending.
        orderings: Orderings (see :data:`ORDERINGS`).
    """

    strategies: tuple[str, ...] = STRATEGIES
    sizes: tuple[int, ...] = DEFAULT_SIZES
    orderings: tuple[str, ...] = ORDERINGS

    def __post_init__(self) -> None:
        for strategy in self.strategies:
            strategy_parts(strategy)
        if not self.strategies:
            raise SpecError("at least one retrieval strategy is needed")
        unknown = [o for o in self.orderings if o not in ORDERINGS]
        if unknown or not self.orderings:
            raise SpecError(f"unknown haystack ordering(s) {unknown}; known: {', '.join(ORDERINGS)}")
        if not self.sizes or any(s < 0 for s in self.sizes) or list(self.sizes) != sorted(set(self.sizes)):
            raise SpecError(f"sizes must be distinct non-negative token counts in ascending order, got {list(self.sizes)}")
        for name in ("strategies", "orderings"):
            values = getattr(self, name)
            if len(set(values)) != len(values):
                raise SpecError(f"{name} repeat a value: {list(values)}")

    @property
    def base_retrievers(self) -> tuple[str, ...]:
        """The base retrievers the strategies need, in :data:`RETRIEVERS` order."""
        needed = {strategy_parts(s)[0] for s in self.strategies}
        return tuple(r for r in RETRIEVERS if r in needed)

