"""Frozen, validated specs of RULERv2 tasks."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal, get_args

from needlework.checks import require_one_of
from needlework.errors import SpecError

BENCHMARK = "rulerv2"
"""The benchmark's one id: release and manifest name, eval task prefix, and part of every RNG key."""

NiahTask = Literal["mk_niah", "mv_niah"]
Domain = Literal["mk_niah", "mv_niah", "mdqa"]
Level = Literal["basic", "easy", "medium", "hard"]
KeyKind = Literal["words", "digits"]

DOMAINS: tuple[str, ...] = get_args(Domain)
LEVELS: tuple[str, ...] = get_args(Level)
TASKS: tuple[str, ...] = tuple(f"{d}_{level}" for d in DOMAINS for level in LEVELS)
"""The 12 RULERv2 tasks, as release config names: ``mk_niah_basic`` ... ``mdqa_hard``."""
ITEM_TASKS: tuple[str, ...] = tuple(t for t in TASKS if t not in ("mk_niah_basic", "mv_niah_basic"))
"""The ten tasks whose context is indexed items (questions or documents) rather than key-value lines."""
DEFAULT_RESERVES: dict[str, int] = {
    "mk_niah_basic": 128, "mv_niah_basic": 128,
    "mk_niah_easy": 512, "mk_niah_medium": 512, "mk_niah_hard": 128,
    "mv_niah_easy": 2048, "mv_niah_medium": 2048, "mv_niah_hard": 512,
    "mdqa_basic": 128, "mdqa_easy": 128, "mdqa_medium": 1024, "mdqa_hard": 128,
}
"""Default tokens kept free for the answer, per task: 128 (RULER's NIAH setting) where the answer
is a number, a letter or a short phrase; room to copy one question (512, MMLU questions run to
~700 tokens), four and a repeat (2048) or the gold paragraphs (1024) where the task copies.
Reasoning models need far more (``generation_reserve`` overrides every task)."""
MAX_SHOTS = 16
PAPER_SHOTS = 5

DEFAULT_LENGTHS: tuple[int, ...] = (8192, 16384, 32768, 65536, 112640)
"""8K, 16K, 32K, 64K and 110K (110 x 1024, the paper's stand-in for 128K that leaves room for
reasoning and output)."""

PRESETS: tuple[str, ...] = ("", "paper")
"""``""``: needlework's own setup (unchanged defaults). ``paper``: the official data setup of
NVIDIA-NeMo/Skills ``nemo_skills/dataset/ruler2/prepare_{niah,mmlu,qa,data}.py`` (see :data:`PAPER`)."""
PAPER_LENGTHS: tuple[int, ...] = DEFAULT_LENGTHS
"""The paper's grid (Section 2, "Data"): 8k, 16k, 32k, 64k and 110k tokens, 100 samples each."""
PAPER_SAMPLES = 100
"""Section 2: "We generate 100 samples for each context length"; ``prepare_common.py``'s ``--dataset_size`` default."""
PAPER_REPEATS = 4
"""``prepare_data.py`` passes ``--num_needle_v 4`` (mv_niah_basic) and ``--num_order 4`` (mv_niah easy..hard):
every key (``prepare_niah.py``) or question index (``prepare_mmlu.py``), distractors included, is used 4 times."""
PAPER_RESERVE = 0
"""The budget rule of ``prepare_{niah,mmlu,qa}.py``: the largest haystack whose prompt is at most
``--max_seq_length`` tokens (binary search, then ``assert length <= max_seq_length``); no tokens are kept
back for the answer, the 110k length is the paper's room for output (Section 2)."""


def _at_least(name: str, value: int, low: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise SpecError(f"{name} must be an integer >= {low}, got {value!r}")


@dataclass(frozen=True)
class RulerOptions:
    """The options of a RULERv2 build (the paper's Appendix D.1 variants and D.3 shots among them).

    Attributes:
        lengths: Target context lengths in tokens.
        samples: Samples per length.
        generation_reserve: Tokens of each target kept free for the answer; ``None`` takes each
            task's default from :data:`DEFAULT_RESERVES` (copying tasks need room to copy).
        key_kind: ``words`` (hyphen-joined adjectives and a noun, as RULER's word keys) or
            ``digits`` (random numbers), the two key kinds of the paper's Appendix D.1.
        key_length: Words per key for ``words`` (default 2: adjective-noun), digits for ``digits``.
        value_digits: Digits of each value (the paper's default is 10).
        n_values: Values (or questions) sharing the queried key; ``mv_niah`` only (default 4, the paper's).
        index_digits: Digits of the random item indices of the easy-to-hard tasks and multi-doc QA
            (default 7, the paper's).
        shots: Few-shot demonstrations in the medium and hard NIAH prompts (0 to 16); ``None`` is the
            paper's setting: 5 for multi-key (MMLU's 5-shot), none for multi-value.
        golden: Also build each task's golden-context baseline (split ``golden``): the gold
            question(s) or document(s) alone, without distractors.
        preset: ``""`` (needlework's setup) or ``paper`` (the official NeMo-Skills data setup:
            templates word for word, distractor keys and indices repeated 4 times, no answer
            reserve unless ``generation_reserve`` is given; see :data:`PRESETS`).
    """

    lengths: tuple[int, ...] = DEFAULT_LENGTHS
    samples: int = 100
    generation_reserve: int | None = None
    key_kind: KeyKind = "words"
    key_length: int = 2
    value_digits: int = 10
    n_values: int | None = None
    index_digits: int = 7
    shots: int | None = None
    golden: bool = False
    preset: str = ""

    def __post_init__(self) -> None:
        require_one_of("preset", self.preset, PRESETS)
        require_one_of("key_kind", self.key_kind, get_args(KeyKind))
        if not self.lengths or any(x <= 0 for x in self.lengths):
            raise SpecError(f"lengths must be positive token counts, got {self.lengths}")
        if len(set(self.lengths)) != len(self.lengths):
            raise SpecError(f"lengths must not repeat, got {self.lengths}")
        _at_least("samples", self.samples, 1)
        if self.generation_reserve is not None:
            _at_least("generation_reserve", self.generation_reserve, 0)
            if any(x <= self.generation_reserve for x in self.lengths):
                raise SpecError(
                    f"every length must exceed generation_reserve={self.generation_reserve}, got {self.lengths}"
                )
        _at_least("key_length", self.key_length, 1)
        _at_least("value_digits", self.value_digits, 1)
        if self.n_values is not None:
            _at_least("n_values", self.n_values, 1)
        _at_least("index_digits", self.index_digits, 1)
        if self.shots is not None and (isinstance(self.shots, bool) or not isinstance(self.shots, int) or not 0 <= self.shots <= MAX_SHOTS):
            raise SpecError(f"shots must be an integer from 0 to {MAX_SHOTS}, got {self.shots!r}")


def _with_reserve(options: RulerOptions, task: str) -> RulerOptions:
    """``options`` with the task's default reserve filled in (a spec always holds a number)."""
    if options.generation_reserve is not None:
        return options
    if options.preset == "paper":
        return replace(options, generation_reserve=PAPER_RESERVE)
    return replace(options, generation_reserve=DEFAULT_RESERVES[task])


@dataclass(frozen=True)
class NiahBasicSpec:
    """Multi-key or multi-value NIAH at the basic (synthetic retrieval) level.

    Attributes:
        task: ``mk_niah`` (one value for the queried key) or ``mv_niah`` (several values).
        options: Lengths, sample counts and needle shapes.
    """

    task: NiahTask
    options: RulerOptions = RulerOptions()

    def __post_init__(self) -> None:
        require_one_of("task", self.task, get_args(NiahTask))
        object.__setattr__(self, "options", _with_reserve(self.options, self.config_name))
        n_values = self.options.n_values
        if self.task == "mk_niah" and n_values not in (None, 1):
            raise SpecError(f"n_values applies to mv_niah only; mk_niah has one value, got {n_values}")

    @property
    def values_per_key(self) -> int:
        """How many needles share the queried key: 1 for ``mk_niah``, ``n_values`` (4) for ``mv_niah``."""
        if self.task == "mk_niah":
            return 1
        return 4 if self.options.n_values is None else self.options.n_values

    @property
    def key_repeats(self) -> int:
        """How many lines share each distractor key: 1 (unique keys), or under the ``paper`` preset
        ``values_per_key`` (``prepare_niah.py`` repeats every haystack key ``num_needle_v`` times)."""
        return self.values_per_key if self.options.preset == "paper" else 1

    @property
    def config_name(self) -> str:
        """The release config this spec fills, e.g. ``mk_niah_basic``."""
        return f"{self.task}_basic"


@dataclass(frozen=True)
class ItemTaskSpec:
    """One of the ten tasks whose context is indexed items: NIAH easy to hard, and multi-doc QA.

    Attributes:
        name: The task's config name, e.g. ``mk_niah_medium`` or ``mdqa_basic``.
        options: Lengths, samples, index digits, shots, values per key.
    """

    name: str
    options: RulerOptions = RulerOptions()

    def __post_init__(self) -> None:
        require_one_of("task", self.name, ITEM_TASKS)
        object.__setattr__(self, "options", _with_reserve(self.options, self.name))
        if self.domain != "mv_niah" and self.options.n_values not in (None, 1):
            raise SpecError(f"n_values applies to mv_niah only, got {self.options.n_values} for {self.name}")

    @property
    def domain(self) -> str:
        """``mk_niah``, ``mv_niah`` or ``mdqa``."""
        return self.name.rsplit("_", 1)[0]

    @property
    def level(self) -> str:
        """``basic``, ``easy``, ``medium`` or ``hard``."""
        return self.name.rsplit("_", 1)[1]

    @property
    def values_per_key(self) -> int:
        """Questions sharing the queried index: ``n_values`` (default 4) for multi-value, else 1."""
        if self.domain != "mv_niah":
            return 1
        return 4 if self.options.n_values is None else self.options.n_values

    @property
    def paper(self) -> bool:
        """Whether the ``paper`` preset's official setup applies."""
        return self.options.preset == "paper"

    @property
    def index_repeats(self) -> int:
        """How many distractor questions share each index: 1, or under the ``paper`` preset
        ``values_per_key`` for multi-value NIAH (``prepare_mmlu.py`` with ``--num_order 4``)."""
        return self.values_per_key if self.paper and self.domain == "mv_niah" else 1

    @property
    def shots(self) -> int:
        """Demonstrations in the prompt: only medium and hard NIAH levels have them."""
        if self.domain == "mdqa" or self.level not in ("medium", "hard"):
            return 0
        if self.options.shots is not None:
            return self.options.shots
        return PAPER_SHOTS if self.domain == "mk_niah" else 0
