"""``needlework build sequential-niah``: Sequential-NIAH's build spec (light; see :mod:`builders.specs`)."""

from __future__ import annotations

from dataclasses import MISSING, dataclass, fields
from typing import Any

from builders.options import option
from builders.sources.names import WORLD
from builders.sources.tkg_time import parse_start, parse_unit
from generators.sequential_niah.spec import (BUCKETS_HELP, FRAMES, LANGS, PAPER_BUCKETS, SEMANTIC_RULES, SIGNIFICANT_RULES,
                                             TINY_RULES, JudgeSpec, NoiseRules, bucket_named, parse_bucket_names)
from needlework.checks import require_one_of
from needlework.errors import SpecError
from needlework.tokenizers import DEFAULT_TOKENIZER

PRESETS: tuple[str, ...] = ("", "paper")
"""``""``: needlework's choices. ``paper``: the official code's (:data:`PAPER_VALUES`)."""
PAPER_TOKENIZER = "cl100k_base"
"""The GPT-4 tokenizer the official code measures every prompt with (``tiktoken.encoding_for_model("gpt-4")``)."""
PAPER_VALUES: dict[str, str] = {"tokenizer": PAPER_TOKENIZER, "frames": "official", "tiny_rule": "official",
                                "significant_rule": "official", "semantic_rule": "generated"}
"""The option values the ``paper`` preset sets (each only where the option is left at its default)."""
OFFICIAL_FILES: tuple[str, ...] = (
    "Sequential_NIAH_building_PPL.py",
    "Sequential_NIAH_building_PPL_with_noise.py",
    "Sequential_NIAH_building_PPL_with_sem_noise.py",
)
"""The files of miraclefish/Sequential-NIAH-Benchmark the preset follows."""
PRESET_DEPARTURES: tuple[str, ...] = (
    ("a length bucket bounds the whole prompt, counted by cl100k_base; the official code records the prompt's "
     "cl100k length and buckets the long texts before the needles go in"),
    ("needles go at sentence ends (., 。, ! ? and their kin, or a paragraph break); the official code cuts after '.' "
     "or '。' only, and needs more than 80 of them"),
    ("tiny movement: an earlier split of two neighbouring boxes stands when the next needle splits the box again "
     "(check_moving_idx_box rebuilds it from prev - 3, which can let two needles cross)"),
    ("semantic noise is composed from the sample's needles and subject with templates (the official code asks "
     "DeepSeek-V3); real-temporal samples get a near-name/near-date sentence and a sentence about the subject "
     "instead of the official events of entity A / B with a third entity C; a QA without a subject gets none"),
    ("a semantic-noise sentence never sits at a needle's own sentence end, and a segment without a free sentence "
     "end is left out of the draw"),
)
"""Where the ``paper`` preset still differs from the official code (the manifest and the card record them)."""


@dataclass(frozen=True)
class SequentialNiahBuild:
    """Sequential-NIAH: ordered needles from three pipelines in long texts, noise variants and judge data.

    Attributes:
        size: Samples in train + dev + test (the paper: 14,000, split 10,000 / 2,000 / 2,000).
        langs: Among ``en``, ``zh``.
        buckets: Length buckets to build (names of :data:`LENGTH_BUCKETS`; default the paper's).
        tkg: Real-temporal source: ``world`` or an ICEWS-format folder.
        tkg_time_unit, tkg_start: What the folder's integer time stamps count and the date of t = 0
            (empty: recognized from the distribution, :mod:`builders.sources.tkg_time`).
        logical: Real-logical source: ``world`` or a jsonl/json/parquet of questions with ordered items.
        texts_en, texts_zh: Long-text sources (``world``, a LongData-Corpus jsonl, any table, a folder).
        noise_samples: Test samples that get noise variants (the paper: 200), three per noise type.
        judge_train, judge_test: Judge-data candidates (Table 3: 6,000 and 1,960).
        world_docs: Articles per language of the world when a source is ``world``.
        seed: Build seed.
        tokenizer: Tokenizer spec that counts every length (the ``paper`` preset: ``cl100k_base``).
        preset: ``""`` (needlework's choices) or ``paper``: every option of :data:`PAPER_VALUES`
            left at its default takes the official code's value; the manifest's ``preset`` records them.
        frames: ``fixed`` (one frame per language) or ``official`` (5 x 5 prefix/heading pairs, drawn per sample).
        tiny_rule: ``two-sentences`` or ``official`` (boxes of 3 periods either way).
        significant_rule: ``half-gap`` or ``official`` (all positions drawn again, order kept).
        semantic_rule: ``distractors`` (stored near misses) or ``generated`` (the official kinds).
    """

    size: int = option(14_000, "Samples in train + dev + test (split 10:2:2, the paper's 10,000 / 2,000 / 2,000).")
    langs: tuple[str, ...] = option(LANGS, "Comma-separated languages.")
    buckets: tuple[str, ...] = option(tuple(b.name for b in PAPER_BUCKETS),
                                     "Comma-separated length buckets of the whole prompt (also 4k-7k, not in the paper). "
                                     + BUCKETS_HELP, parse=parse_bucket_names)
    tkg: str = option(WORLD, "Real-temporal source: world, or an ICEWS-format folder (entity2id.txt, rel2id.txt or "
                             "relation2id.txt, train/valid/test.txt).")
    tkg_time_unit: str = option("", "What the --tkg time stamps count: day, hour, minute or 15min (empty: recognized from "
                                    "the distribution: ICEWS14, ICEWS18, ICEWS05-15, GDELT).")
    tkg_start: str = option("", "The date of the --tkg time stamp 0, ISO (e.g. 2018-01-01; empty: recognized).")
    logical: str = option(WORLD, "Real-logical source: world, or a .jsonl/.json/.parquet of questions with ordered items.")
    texts_en: str = option(WORLD, "English long texts: world, a LongData-Corpus jsonl, any table with a text column, "
                                  "a folder, or hub:REPO.")
    texts_zh: str = option(WORLD, "Chinese long texts (as --texts-en).")
    noise_samples: int = option(200, "Test samples given noise variants (three per noise type).")
    judge_train: int = option(6_000, "Judge-train candidate answers.")
    judge_test: int = option(1_960, "Judge-test candidate answers.")
    world_docs: int = option(600, "Synthetic-world articles per language.")
    seed: int = option(0, "Build seed.")
    tokenizer: str = option(DEFAULT_TOKENIZER, "Tokenizer spec that counts every length (paper preset: cl100k_base, "
                                               "the official code's GPT-4 tokenizer).")
    preset: str = option("", "'' (needlework's choices) or paper: the official code's tokenizer (cl100k_base), prompt "
                             "frames and noise rules, for options left at their defaults.")
    frames: str = option("fixed", "Prompt frames: fixed (one per language) or official (the official code's 5 x 5 "
                                  "prefix/question-heading variants, drawn per sample; paper preset).")
    tiny_rule: str = option("two-sentences", "Tiny movement: two-sentences (each needle 1-2 sentences either way) or "
                                             "official (a box of 3 periods either way; paper preset).")
    significant_rule: str = option("half-gap", "Significant movement: half-gap (each needle at least half the mean gap) "
                                               "or official (all positions drawn again uniformly, order kept; paper preset).")
    semantic_rule: str = option("distractors", "Semantic noise: distractors (the QA's stored near misses) or generated "
                                               "(near-name/near-date and irrelevant sentences, the official kinds; paper preset).")

    def __post_init__(self) -> None:
        require_one_of("preset", self.preset, PRESETS)
        if self.preset:
            defaults = {f.name: f.default if f.default is not MISSING else f.default_factory()  # type: ignore[misc]
                        for f in fields(self)}
            for name, value in PAPER_VALUES.items():
                if getattr(self, name) == defaults[name]:
                    object.__setattr__(self, name, value)
        for name, allowed in (("frames", FRAMES), ("tiny_rule", TINY_RULES), ("significant_rule", SIGNIFICANT_RULES),
                              ("semantic_rule", SEMANTIC_RULES)):
            require_one_of(name, getattr(self, name), allowed)
        if not self.langs or not set(self.langs) <= set(LANGS) or len(set(self.langs)) != len(self.langs):
            raise SpecError(f"langs must be distinct values from {', '.join(LANGS)}; got {', '.join(self.langs) or '(none)'}")
        object.__setattr__(self, "buckets", tuple(bucket_named(name).name for name in self.buckets))  # one spelling
        if not self.buckets or self.size < 1 or self.noise_samples < 0 or self.world_docs < 1:
            raise SpecError("buckets must not be empty, size and world_docs must be >= 1 and noise_samples >= 0")
        JudgeSpec(self.judge_train, self.judge_test)
        if self.tkg_time_unit:
            parse_unit(self.tkg_time_unit)
        if self.tkg_start:
            parse_start(self.tkg_start)

    def noise_rules(self) -> NoiseRules:
        """The noise rules of the build (and the frames its variants keep)."""
        return NoiseRules(self.tiny_rule, self.significant_rule, self.semantic_rule, self.frames)

    def preset_record(self) -> dict[str, Any]:
        """What the manifest records of the preset: its name, every value it governs, the official
        files and the departures (empty without a preset)."""
        if not self.preset:
            return {}
        values = {name: getattr(self, name) for name in PAPER_VALUES}
        return {"name": self.preset, "values": values, "source_of_truth": "miraclefish/Sequential-NIAH-Benchmark",
                "official_files": list(OFFICIAL_FILES), "departures": list(PRESET_DEPARTURES)}

    def texts_source(self, lang: str) -> str:
        """The long-text source of a language."""
        return self.texts_en if lang == "en" else self.texts_zh
