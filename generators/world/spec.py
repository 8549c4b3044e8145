"""The frozen, validated description of a synthetic world: size, languages, twins, questions."""

from __future__ import annotations

from dataclasses import dataclass

from needlework.errors import SpecError

BENCHMARK = "world"
"""The world's one id: its release name and part of every RNG key of the world."""
LANGS: tuple[str, ...] = ("en", "zh")
LAST_YEAR = 2024
"""The world's present: no date in it is later."""
DEFAULT_HOP_MIX: tuple[float, float, float, float] = (0.20, 0.58, 0.156, 0.064)
"""Share of 1-, 2-, 3- and 4-hop questions, HaystackCraft's Table 1."""


@dataclass(frozen=True)
class WorldSpec:
    """What world to generate.

    Attributes:
        docs: Documents per language (entities, twins included). Entity ``i`` of a smaller world
            is entity ``i`` of a larger one with the same seed, so doc ids stay stable.
        langs: Languages to write articles and questions in (``en``, ``zh``).
        twin_fraction: Probability that an entity gets a near-miss twin document.
        questions: Multi-hop questions per language.
        hop_mix: Shares of 1- to 4-hop questions (must sum to 1).
        events_per_actor: Mean number of dated interactions an actor (country, party, company,
            politician) starts with earlier actors.
        median_tokens: Median article length in tokens (lengths are log-normal).
        min_tokens: Shortest article length aimed at, in tokens.
        max_tokens: Longest article length aimed at, in tokens.
    """

    docs: int = 2_000
    langs: tuple[str, ...] = LANGS
    twin_fraction: float = 0.05
    questions: int = 500
    hop_mix: tuple[float, ...] = DEFAULT_HOP_MIX
    events_per_actor: float = 3.0
    median_tokens: int = 450
    min_tokens: int = 200
    max_tokens: int = 5_000

    def __post_init__(self) -> None:
        if not isinstance(self.docs, int) or self.docs < 60:
            raise SpecError(f"docs must be an integer >= 60 (room for the continents, countries and some cities), got {self.docs!r}")
        if not self.langs or len(set(self.langs)) != len(self.langs) or not set(self.langs) <= set(LANGS):
            raise SpecError(f"langs must be distinct values from {', '.join(LANGS)}, got {', '.join(self.langs) or '(none)'}")
        if not 0.0 <= self.twin_fraction <= 0.5:
            raise SpecError(f"twin_fraction must be in [0, 0.5], got {self.twin_fraction}")
        if self.questions < 0:
            raise SpecError(f"questions must be >= 0, got {self.questions}")
        if len(self.hop_mix) != 4 or any(p < 0 for p in self.hop_mix) or abs(sum(self.hop_mix) - 1.0) > 1e-6:
            raise SpecError(f"hop_mix must be four non-negative shares of 1- to 4-hop questions summing to 1, got {self.hop_mix}")
        if self.events_per_actor < 0:
            raise SpecError(f"events_per_actor must be >= 0, got {self.events_per_actor}")
        if not 0 < self.min_tokens <= self.median_tokens <= self.max_tokens:
            raise SpecError(
                f"need 0 < min_tokens <= median_tokens <= max_tokens, got {self.min_tokens}, {self.median_tokens}, {self.max_tokens}"
            )

    def lang_order(self) -> tuple[str, ...]:
        """The languages in canonical order (``en`` before ``zh``), whatever order they were given in."""
        return tuple(lang for lang in LANGS if lang in self.langs)


def doc_id(entity: int, lang: str) -> int:
    """The corpus doc id of an entity's article in a language: ``2 * entity + (0 for en, 1 for zh)``.

    Ids depend only on the entity and the language, so they are the same whatever ``docs`` and
    ``langs`` a world was built with.
    """
    return 2 * entity + LANGS.index(lang)


def entity_of(doc: int) -> tuple[int, str]:
    """The entity and language of a corpus doc id (inverse of :func:`doc_id`)."""
    return doc // 2, LANGS[doc % 2]
