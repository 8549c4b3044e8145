"""``needlework build world``: the synthetic world's build spec (light; see :mod:`builders.specs`)."""

from __future__ import annotations

from dataclasses import dataclass

from builders.options import option
from generators.world.spec import BENCHMARK, LANGS, WorldSpec
from needlework.tokenizers import DEFAULT_TOKENIZER

__all__ = ["BENCHMARK", "WorldBuild"]


@dataclass(frozen=True)
class WorldBuild:
    """The synthetic world: corpus, links, qa, facts, events, twins, entities.

    Attributes:
        docs, langs, questions, twin_fraction: The world (:class:`generators.world.spec.WorldSpec`).
        seed: Build seed.
        tokenizer: Tokenizer that counts ``n_tokens``.
    """

    docs: int = option(2_000, "Documents per language (entities, twins included).")
    seed: int = option(0, "Build seed.")
    langs: tuple[str, ...] = option(LANGS, "Comma-separated languages (en, zh).")
    questions: int = option(500, "Multi-hop questions per language.")
    twin_fraction: float = option(0.05, "Share of entities given a near-miss twin.")
    tokenizer: str = option(DEFAULT_TOKENIZER, "Tokenizer that counts n_tokens.")

    def __post_init__(self) -> None:
        self.world_spec()

    def world_spec(self) -> WorldSpec:
        """The world this build generates (validated there)."""
        return WorldSpec(docs=self.docs, langs=self.langs, twin_fraction=self.twin_fraction, questions=self.questions)
