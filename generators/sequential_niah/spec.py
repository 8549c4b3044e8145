"""Sequential-NIAH constants from the paper: pipelines, length buckets, prompt frames, split sizes."""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Sequence
from typing import Literal, get_args

from needlework.checks import one_of_message, require_one_of
from needlework.errors import SpecError

BENCHMARK = "sequential-niah"

Pipeline = Literal["synthetic-temporal", "real-temporal", "real-logical"]
PIPELINES: tuple[str, ...] = get_args(Pipeline)
"""The three needle pipelines of §3.1: fake subjects with dated events, temporal-KG relations
between two entities over time, and questions whose answers are ordered steps."""

Lang = Literal["en", "zh"]
LANGS: tuple[str, ...] = get_args(Lang)


@dataclass(frozen=True)
class LengthBucket:
    """A range of prompt lengths in tokens, ``low <= n_tokens < high`` (Table 1, right)."""

    name: str
    low: int
    high: int


PAPER_BUCKETS: tuple[LengthBucket, ...] = (
    LengthBucket("8k-16k", 8_192, 16_384),
    LengthBucket("16k-32k", 16_384, 32_768),
    LengthBucket("32k-64k", 32_768, 65_536),
    LengthBucket("64k-128k", 65_536, 131_072),
)
"""The paper's four long-text buckets (Table 1), a build's default. The paper buckets
LongData-Corpus texts by length; here a bucket bounds the whole prompt as counted by the build's
tokenizer."""

SHORT_BUCKET = LengthBucket("4k-7k", 4_096, 7_168)
"""Not in the paper: prompts a model with an 8K window can take with 1,024 tokens left for the
answer. The demo builds it so that a small model has rows it can read; a build names it to get it."""

LENGTH_BUCKETS: tuple[LengthBucket, ...] = (SHORT_BUCKET, *PAPER_BUCKETS)
"""Every bucket a build may name, ascending."""

NEEDLE_COUNT_RANGE: dict[str, tuple[int, int]] = {
    "synthetic-temporal": (3, 15),
    "real-temporal": (3, 10),
    "real-logical": (3, 15),
}
"""Needles per question, inclusive (§3.1.1: 3 to 15; §3.1.2: 3 to 10; real-logical follows the
number of ordered items of its source question, kept within 3 to 15)."""

PROMPT_FRAMES: dict[str, tuple[str, str]] = {
    "en": ("Document: ", "\n\nQuestion: \n"),
    "zh": ("文档:\n", "\n\n回答以下问题：\n"),
}
"""``(before the text, between the text and the question)``: the prompt is
``before + text_with_needles + between + question`` (Figure 1 / Figure 8, as in the authors'
released examples ``NIAH_en.jsonl`` and ``NIAH_zh.jsonl``)."""

OFFICIAL_PREFIXES: dict[str, tuple[str, ...]] = {
    "en": ("Document: ", "Document: \n", "Document:", "Document:\n", ""),
    "zh": ("文档：", "文档：\n", "文档:", "文档:\n", ""),
}
"""The official code's five openings before the text, word for word (miraclefish/Sequential-NIAH-Benchmark,
``Sequential_NIAH_building_PPL.py``, ``build_data``: the document-first branch, the only one it takes,
since ``random.choices([0, 1], weights=[0, 100])`` always picks it)."""

OFFICIAL_SUFFIXES: dict[str, tuple[str, ...]] = {
    "en": ("Question: ", "Question: \n", "Question:", "Question:\n", "Please answer the question:\n"),
    "zh": ("问题：", "问题：\n", "问题:", "问题:\n", "回答以下问题：\n"),
}
"""The official code's five headings of the question, word for word (same file and branch); the
prompt is ``prefix + text_with_needles + "\n\n" + suffix + question``."""

OFFICIAL_SEPARATOR = "\n\n"
"""Between the text with needles and the question heading in the official prompt."""

FULL_SPLIT_SIZES: dict[str, int] = {"train": 10_000, "dev": 2_000, "test": 2_000}
"""Table 2: 14,000 samples split 10,000 / 2,000 / 2,000."""

QA_SHARES: dict[tuple[str, str], int] = {
    ("synthetic-temporal", "en"): 3_000, ("synthetic-temporal", "zh"): 3_000,
    ("real-temporal", "en"): 3_003, ("real-temporal", "zh"): 2_011,
    ("real-logical", "en"): 1_497, ("real-logical", "zh"): 1_489,
}
"""Table 1 (left): QA pairs per pipeline and language at full size."""

TEXT_SHARES: dict[tuple[str, str], int] = {
    ("8k-16k", "en"): 1_000, ("8k-16k", "zh"): 750,
    ("16k-32k", "en"): 2_000, ("16k-32k", "zh"): 1_750,
    ("32k-64k", "en"): 2_000, ("32k-64k", "zh"): 1_750,
    ("64k-128k", "en"): 2_500, ("64k-128k", "zh"): 2_250,
}
"""Table 1 (right): long texts per length bucket and language at full size."""


def check_question_counts(lang: str, count: object, min_needles: int, max_needles: int) -> None:
    """Validate what every pipeline spec shares: a known language, a non-negative question count
    and ``2 <= min_needles <= max_needles``.

    Raises:
        SpecError: Naming the first value out of range.
    """
    require_one_of("lang", lang, LANGS)
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise SpecError(f"count must be a non-negative integer, got {count!r}")
    if not 2 <= min_needles <= max_needles:
        raise SpecError(f"need 2 <= min_needles <= max_needles, got {min_needles} and {max_needles}")


def bucket_named(name: str, buckets: Sequence[LengthBucket] = LENGTH_BUCKETS) -> LengthBucket:
    """The bucket called ``name``, in any case (``8K-16K`` is ``8k-16k``).

    Raises:
        SpecError: No bucket has that name.
    """
    wanted = name.strip().lower()
    for bucket in buckets:
        if bucket.name == wanted:
            return bucket
    raise SpecError(one_of_message("length bucket", name, [b.name for b in buckets]))


def parse_bucket_names(text: str) -> tuple[str, ...]:
    """Bucket names from a comma list, each in its one spelling (``8K-16K`` -> ``8k-16k``); blanks are dropped.

    Raises:
        SpecError: A name is no bucket's (in any case).
    """
    return tuple(bucket_named(name).name for name in text.split(",") if name.strip())


BUCKETS_HELP = ("Bucket names are labels (the paper's Table 1), not token counts: "
                + ", ".join(f"{b.name} = {b.low:,}-{b.high - 1:,}" for b in LENGTH_BUCKETS)
                + " tokens; any case (8K-16K = 8k-16k).")
"""The rule for ``--help`` of every option that takes bucket names."""


FRAMES: tuple[str, ...] = ("fixed", "official")
"""Prompt frames: ``fixed`` (needlework's default: one frame per language, :data:`PROMPT_FRAMES`) or
``official`` (one of the official code's 5 x 5 prefix/suffix pairs drawn per sample, :func:`generators.sequential_niah.assemble.official_frame`)."""
TINY_RULES: tuple[str, ...] = ("two-sentences", "official")
SIGNIFICANT_RULES: tuple[str, ...] = ("half-gap", "official")
SEMANTIC_RULES: tuple[str, ...] = ("distractors", "generated")


@dataclass(frozen=True)
class NoiseRules:
    """How the noise variants are drawn: needlework's rules (the defaults) or the official ones.

    Attributes:
        tiny: :data:`TINY_RULES`: ``two-sentences`` (each needle 1-2 sentences either way) or
            ``official`` (the boxes of 3 periods either way, :func:`generators.sequential_niah.noise.official_tiny_movement`).
        significant: :data:`SIGNIFICANT_RULES`: ``half-gap`` (each needle at least
            :func:`generators.sequential_niah.noise.far_distance`) or ``official`` (every position drawn again, :func:`generators.sequential_niah.noise.official_significant_movement`).
        semantic: :data:`SEMANTIC_RULES`: ``distractors`` (the QA's stored near misses) or
            ``generated`` (the official kinds, :mod:`generators.sequential_niah.semantic`).
        frames: ``fixed`` or ``official``: the frame the original rows were built with, kept by their variants.
    """

    tiny: str = "two-sentences"
    significant: str = "half-gap"
    semantic: str = "distractors"
    frames: str = "fixed"

    def __post_init__(self) -> None:
        for name, allowed in (("tiny", TINY_RULES), ("significant", SIGNIFICANT_RULES), ("semantic", SEMANTIC_RULES),
                              ("frames", FRAMES)):
            require_one_of(f"{name} noise rule", getattr(self, name), allowed)


@dataclass(frozen=True)
class JudgeSpec:
    """Sizes of the judge sets (Table 3 at full size: 6,000 train and 1,960 test candidates)."""

    train_size: int = 6_000
    test_size: int = 1_960

    def __post_init__(self) -> None:
        if self.train_size < 0 or self.test_size < 0 or self.train_size + self.test_size == 0:
            raise SpecError(f"judge set sizes must be >= 0 and not both 0, got train={self.train_size}, "
                            f"test={self.test_size}")
