"""Frozen, validated specs of the NeedleBench tasks (paper §3.1 information-sparse, §3.2 ATC)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, get_args

from needlework.checks import require_one_of
from needlework.errors import SpecError
from needlework.lengths import FORMS, parse_tokens

BENCHMARK = "needlebench"
"""The benchmark's one id: release and manifest name, eval task prefix, and part of every RNG key."""

Task = Literal["s-rt", "m-rt", "m-rs", "atc", "atc-choice", "atc-choice-reasoning"]
Lang = Literal["en", "zh"]
QuestionType = Literal["eldest_ancestor", "nth_ancestor", "nth_descendant", "relationship_distance"]
AtcStyle = Literal["needlework", "official", "official-elder-only"]

TASKS: tuple[str, ...] = get_args(Task)
DEFAULT_TASKS: tuple[str, ...] = ("s-rt", "m-rt", "m-rs", "atc")
"""The tasks a build makes unless told: the paper's four; the multiple-choice ATC is opt-in."""
CHOICE_TASKS: tuple[str, ...] = ("atc-choice", "atc-choice-reasoning")
"""OpenCompass v1's multiple-choice ATC (``opencompass/datasets/needlebench/atc_choice.py``) with its plain and its
reasoning few-shot conversations (:mod:`generators.needlebench.official_choice`)."""
SPARSE_TASKS: tuple[str, ...] = ("s-rt", "m-rt", "m-rs")
"""The information-sparse tasks: needles in filler text at depths and lengths."""
LANGS: tuple[str, ...] = get_args(Lang)
QUESTION_TYPES: tuple[str, ...] = get_args(QuestionType)
"""ATC's four question types (paper §3.2, "Task Diversity")."""
ATC_STYLES: tuple[str, ...] = get_args(AtcStyle)
"""How ATC is written. ``needlework``: the extended vocabulary (great-grandparents, descendant roles, more
sentence forms), questions about people anywhere in the chain and the paper's Figure 12 frame: a harder
variant. ``official``: OpenCompass v2's atc.py (:mod:`generators.needlebench.official`), which the v2 configs run:
the ten terms in atc.py's seven sentence forms (a guardian form among them), every question about the whole chain
(eldest ancestor of the youngest; the ancestor the total number of generations above the youngest; the descendant
that many below the eldest; the distance between the two ends), and atc.py's prompts word for word.
``official-elder-only``: the same with atc_elder_only.py's sentence forms ("{B} is the child of {A}." in place of
the guardian form), as the paper's Appendix C examples show."""
RETRIEVAL = "retrieval"
"""The question type of S-RT and M-RT rows."""

OFFICIAL_V2_LENGTHS: dict[str, tuple[int, ...]] = {
    "4k": (1_000, 2_000, 3_000, 4_000),
    "8k": tuple(range(1_000, 8_001, 1_000)),
    "32k": (1_000, 4_000, 8_000, 12_000, 16_000, 20_000, 24_000, 28_000, 32_000),
    "128k": (1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 64_000, 128_000),
}
"""OpenCompass NeedleBench v2's ``context_lengths`` per scale, from
``opencompass/configs/datasets/needlebench_v2/needlebench_v2_{4k,8k,32k,128k}/needlebench_v2_single_*.py``
(the multi-needle retrieval and reasoning configs import the same list)."""

LENGTH_PRESETS: dict[str, tuple[int, ...]] = {
    "4k": (1_000, 2_000, 3_000, 4_000),
    **{name: tuple(top * i // 8 for i in range(1, 9))
       for name, top in (("8k", 8_000), ("32k", 32_000), ("128k", 128_000), ("200k", 200_000), ("1m", 1_000_000))},
    **{f"v2-{scale}": lengths for scale, lengths in OFFICIAL_V2_LENGTHS.items()},
}
"""Length presets: 4k is 1,000 to 4,000 in steps of 1,000; 8k ... 1m are eight evenly spaced decimal
lengths up to their size (needlework's grids: 128k is 16,000, 32,000, ..., 128,000, which is *not*
OpenCompass's list); ``v2-4k`` ... ``v2-128k`` are OpenCompass v2's official grids
(:data:`OFFICIAL_V2_LENGTHS`). A build takes any list too."""
DEFAULT_LENGTHS: tuple[int, ...] = LENGTH_PRESETS["32k"]
DEFAULT_DEPTHS: tuple[float, ...] = tuple(float(d) for d in range(0, 101, 10))
"""Needle depths in percent of the filler: 0, 10, ..., 100."""
DEFAULT_REPEATS = 10
"""R, repetitions per configuration (paper §3.1 and §3.2: R = 10)."""
DEFAULT_MRT_NEEDLES = 5
"""Needles per multi-needle retrieval sample (the paper's Figure 10 example has five)."""
DEFAULT_MRS_NEEDLES: tuple[int, ...] = (2, 3, 4, 5)
"""Kinship needles per multi-needle reasoning sample: 2 to 5 (paper §3.1)."""
DEFAULT_ATC_NEEDLES: tuple[int, ...] = tuple(2**k for k in range(1, 10))
"""ATC needle counts 2, 4, ..., 512 (the set N of equation 4)."""
DEFAULT_BUFFER: dict[str, int] = {"en": 200, "zh": 200}
"""Tokens kept below each target length per language, so a model whose tokenizer counts more
than the build's does not see the instruction truncated (paper §3.1; the paper does not give the
figure, so this is needlework's default)."""
OFFICIAL_V2_BUFFER: dict[str, dict[str, int]] = {
    "4k": {"en": 500, "zh": 200},
    "8k": {"en": 500, "zh": 200},
    "32k": {"en": 3_000, "zh": 200},
    "128k": {"en": 3_000, "zh": 200},
}
"""OpenCompass v2's ``length_buffer`` per scale and language (``language_configs`` of
``needlebench_v2_{4k,8k,32k,128k}/needlebench_v2_single_*.py``; the multi-needle configs agree)."""
OFFICIAL_V2_REPEATS: dict[str, int] = {"s-rt": 10, "m-rt": 25, "m-rs": 10}
"""``num_repeats_per_file`` of the v2 configs: ``needlebench_v2_single_*.py`` 10,
``needlebench_v2_multi_retrieval_*.py`` 25, ``needlebench_v2_multi_reasoning_*.py`` 10."""
MAX_NEEDLES = 4_096
CHOICE_NEEDLE_PRESETS: dict[str, tuple[int, ...]] = {
    "atc_choice": tuple(range(2, 20)),
    "atc_choice_50": tuple(range(2, 50)),
    "atc_choice_80": tuple(range(2, 80)),
}
"""``needle_num_list`` of OpenCompass's multiple-choice ATC configs
(``opencompass/configs/datasets/needlebench/atc/atc_choice{,_50,_80}.py``; ``atc_choice_20.py`` is 2..19 too).
A count is OpenCompass v1's ``num_needles``: the number of *people*, so a question has one link sentence fewer."""
DEFAULT_CHOICE_NEEDLES: tuple[int, ...] = CHOICE_NEEDLE_PRESETS["atc_choice"]

BudgetRule = Literal["prompt", "context"]
BUDGET_RULES: tuple[str, ...] = get_args(BudgetRule)
"""How a target length is spent. ``prompt`` (needlework's default): the whole prompt, instructions
included, has at most ``length - buffer`` tokens. ``context`` (OpenCompass v2,
``opencompass/datasets/needlebench_v2/{origin,parallel,multi}.py``): filler plus needles take
``max(length - buffer, needles)`` tokens and the instructions come on top; a buffer at or above the
length leaves only the needles (OpenCompass's English 1K cells at buffer 3,000)."""
MrtLayout = Literal["spread", "per-depth", "diff"]
MRT_LAYOUTS: tuple[str, ...] = get_args(MrtLayout)
"""M-RT needle layouts. ``spread`` (needlework's default): one row per depth, its needles spread
from that depth to the end. ``per-depth`` (OpenCompass v2 ``NeedleBenchParallelDataset``,
``opencompass/datasets/needlebench_v2/parallel.py``): one row per length and repeat holding one
needle at every depth of the grid, each needle scored at its own depth. ``diff`` (OpenCompass v2
``NeedleBenchMultiDataset``, ``opencompass/datasets/needlebench_v2/multi.py``, ``diff = 10``): the first
needle at the row's depth, each next one 10 % of the filler further, at most at the end (M-RS)."""
PromptStyle = Literal["needlework", "official"]
PROMPT_STYLES: tuple[str, ...] = get_args(PromptStyle)
"""Information-sparse prompts. ``needlework``: the paper's Appendix B figures (Chinese translated by
needlework), needles between sentences. ``official``: OpenCompass v2's prompts word for word
(:mod:`generators.needlebench.official_sparse`), the document in ``<Document>`` tags, each needle on its
own line, spliced in at the filler token OpenCompass computes (:mod:`generators.needlebench.official_insertion`),
M-RS needles from atc.py's link sentences."""
QuestionPosition = Literal["end", "start"]
QUESTION_POSITIONS: tuple[str, ...] = get_args(QuestionPosition)
"""Where the official prompts ask: after the document (``End``) or before it (``Start``)."""


def _check_ints(name: str, values: tuple[int, ...], low: int, high: int | None = None) -> None:
    if not values:
        raise SpecError(f"{name} must not be empty")
    for v in values:
        if isinstance(v, bool) or not isinstance(v, int) or v < low or (high is not None and v > high):
            bound = f"in [{low}, {high}]" if high is not None else f">= {low}"
            raise SpecError(f"{name} must hold integers {bound}, got {v!r}")
    if len(set(values)) != len(values):
        raise SpecError(f"{name} must not repeat values, got {', '.join(map(str, values))}")


def _check_langs(langs: tuple[str, ...]) -> None:
    if not langs or len(set(langs)) != len(langs) or not set(langs) <= set(LANGS):
        raise SpecError(f"langs must be distinct values from {', '.join(LANGS)}, got {', '.join(langs) or '(none)'}")


@dataclass(frozen=True)
class SparseSpec:
    """One information-sparse task in one language: needles at depths in filler at lengths.

    Attributes:
        task: ``s-rt`` (one needle), ``m-rt`` (``needles`` needles, all asked) or ``m-rs`` (a kinship
            chain of each count in ``needle_counts``; the question asks for the eldest ancestor).
        lang: ``en`` or ``zh``.
        lengths: Target context lengths in tokens.
        depths: Needle depths in percent of the filler (the first needle's, for several needles).
        repeats: R, repetitions per (length, depth), each with other needles and filler.
        needle_counts: Needles per sample: one value for S-RT (1) and M-RT, any list for M-RS.
        buffer: Tokens kept below every target (see ``budget_rule``).
        budget_rule: ``prompt`` or ``context`` (:data:`BUDGET_RULES`).
        layout: ``spread``, ``per-depth`` or ``diff`` (:data:`MRT_LAYOUTS`; ``per-depth`` is M-RT only and
            takes one needle per depth).
        style: ``needlework`` or ``official`` prompts (:data:`PROMPT_STYLES`).
        question_position: ``end`` or ``start`` (official style only).
    """

    task: Task
    lang: Lang
    lengths: tuple[int, ...] = DEFAULT_LENGTHS
    depths: tuple[float, ...] = DEFAULT_DEPTHS
    repeats: int = DEFAULT_REPEATS
    needle_counts: tuple[int, ...] = ()
    buffer: int = 200
    budget_rule: BudgetRule = "prompt"
    layout: MrtLayout = "spread"
    style: PromptStyle = "needlework"
    question_position: QuestionPosition = "end"

    def __post_init__(self) -> None:
        require_one_of("task", self.task, SPARSE_TASKS)
        _check_langs((self.lang,))
        _check_ints("lengths", self.lengths, 1)
        if not self.depths or any(not 0.0 <= float(d) <= 100.0 for d in self.depths) or len(set(self.depths)) != len(self.depths):
            raise SpecError(f"depths must be distinct percentages in [0, 100], got {', '.join(map(str, self.depths)) or '(none)'}")
        _check_ints("repeats", (self.repeats,), 1)
        if not self.needle_counts:
            default = {"s-rt": (1,), "m-rt": (DEFAULT_MRT_NEEDLES,), "m-rs": DEFAULT_MRS_NEEDLES}[self.task]
            object.__setattr__(self, "needle_counts", default)
        if self.task == "s-rt" and self.needle_counts != (1,):
            raise SpecError(f"s-rt has exactly one needle, got needle counts {self.needle_counts}")
        low = {"s-rt": 1, "m-rt": 2, "m-rs": 2}[self.task]
        _check_ints(f"{self.task} needle counts", self.needle_counts, low, MAX_NEEDLES)
        if self.task == "m-rt" and len(self.needle_counts) != 1:
            raise SpecError(f"m-rt takes one needle count, got {', '.join(map(str, self.needle_counts))}")
        _check_ints("buffer", (self.buffer,), 0)
        require_one_of("budget rule", self.budget_rule, BUDGET_RULES)
        require_one_of("layout", self.layout, MRT_LAYOUTS)
        require_one_of("prompt style", self.style, PROMPT_STYLES)
        require_one_of("question position", self.question_position, QUESTION_POSITIONS)
        if self.question_position == "start" and self.style != "official":
            raise SpecError("the question-first position exists in the official prompts only (style official)")
        if self.layout == "per-depth":
            if self.task != "m-rt":
                raise SpecError(f"the per-depth layout is M-RT's; {self.task} takes spread")
            if self.needle_counts != (len(self.depths),):
                raise SpecError(f"the per-depth layout places one needle per depth: {len(self.depths)} needles, "
                                f"got {', '.join(map(str, self.needle_counts))}")
        if self.budget_rule == "prompt" and self.buffer >= min(self.lengths):
            raise SpecError(f"buffer ({self.buffer} tokens) must be below the shortest length ({min(self.lengths)})")


@dataclass(frozen=True)
class AtcSpec:
    """The Ancestral Trace Challenge in one language.

    Attributes:
        lang: ``en`` or ``zh``.
        needle_counts: Kinship needles per question (the chain has one more person than needles).
        question_types: Which of :data:`QUESTION_TYPES` to ask (each is its own row).
        repeats: R, questions per (needle count, question type), each with new names and relations.
        style: ``needlework`` or ``official`` (:data:`ATC_STYLES`).
    """

    lang: Lang
    needle_counts: tuple[int, ...] = DEFAULT_ATC_NEEDLES
    question_types: tuple[str, ...] = field(default=QUESTION_TYPES)
    repeats: int = DEFAULT_REPEATS
    style: AtcStyle = "needlework"

    def __post_init__(self) -> None:
        _check_langs((self.lang,))
        _check_ints("ATC needle counts", self.needle_counts, 1, MAX_NEEDLES)
        if not self.question_types or not set(self.question_types) <= set(QUESTION_TYPES) or len(set(self.question_types)) != len(self.question_types):
            raise SpecError(f"question types must be distinct values from {', '.join(QUESTION_TYPES)}, got {', '.join(self.question_types) or '(none)'}")
        _check_ints("repeats", (self.repeats,), 1)
        require_one_of("ATC style", self.style, ATC_STYLES)


@dataclass(frozen=True)
class AtcChoiceSpec:
    """OpenCompass v1's multiple-choice ATC in one language (``opencompass/datasets/needlebench/atc_choice.py``).

    Attributes:
        lang: ``en`` or ``zh``.
        needle_counts: People per question (OpenCompass v1's ``num_needles``; ``N - 1`` link sentences).
        repeats: Questions per needle count, each asked in the four circular rotations of its options.
        reasoning: The reasoning few-shot conversation (``single_choice_*_reasoning``) instead of the plain one.
    """

    lang: Lang
    needle_counts: tuple[int, ...] = DEFAULT_CHOICE_NEEDLES
    repeats: int = DEFAULT_REPEATS
    reasoning: bool = False

    def __post_init__(self) -> None:
        _check_langs((self.lang,))
        _check_ints("ATC choice needle counts", self.needle_counts, 2, MAX_NEEDLES)
        _check_ints("repeats", (self.repeats,), 1)

    @property
    def task(self) -> str:
        """``atc-choice`` or ``atc-choice-reasoning`` (the rows' ``task`` column and the config's prefix)."""
        return CHOICE_TASKS[1] if self.reasoning else CHOICE_TASKS[0]


def parse_choice_needles(text: str) -> tuple[int, ...]:
    """Needle counts of the multiple-choice ATC: a preset of :data:`CHOICE_NEEDLE_PRESETS` or a comma list.

    Items of a list may themselves be presets or integers (``atc_choice,64``).
    """
    counts: list[int] = []
    for item in (t.strip().lower() for t in text.split(",")):
        if not item:
            continue
        if item in CHOICE_NEEDLE_PRESETS:
            counts += [n for n in CHOICE_NEEDLE_PRESETS[item] if n not in counts]
            continue
        try:
            value = int(item)
        except ValueError:
            raise SpecError(f"ATC choice needle count {item!r} is neither an integer nor a preset "
                            f"({', '.join(CHOICE_NEEDLE_PRESETS)})") from None
        if value not in counts:
            counts.append(value)
    if not counts:
        raise SpecError("no ATC choice needle counts given")
    return tuple(counts)


def show_choice_needles(counts: tuple[int, ...]) -> str:
    """The inverse of :func:`parse_choice_needles`: a preset's name for its grid, else the comma list."""
    return next((name for name, grid in CHOICE_NEEDLE_PRESETS.items() if grid == tuple(counts)),
                ",".join(map(str, counts)))


def parse_lengths(text: str) -> tuple[int, ...]:
    """Lengths from a comma list of presets (:data:`LENGTH_PRESETS`) and token counts, repeats dropped.

    An item named like a preset (``4k``, ``8k``, ``32k``, ``128k``, ``200k``, ``1m``, ``v2-4k`` ...; any case)
    stands for the preset's grid (``4k,128k`` joins both); any other item is one token count in
    :mod:`needlework.lengths`'s syntax (``5000``, ``5k`` and ``5K`` are 5,000; ``6ki`` is 6,144).

    Raises:
        SpecError: An item is neither a preset nor a token count, or the list is empty.
    """
    lengths: list[int] = []
    for item in (t.strip() for t in text.split(",")):
        if not item:
            continue
        if item.lower() in LENGTH_PRESETS:
            lengths += [n for n in LENGTH_PRESETS[item.lower()] if n not in lengths]
            continue
        try:
            value = parse_tokens(item)
        except SpecError:
            raise SpecError(f"length {item!r} is neither a preset ({', '.join(LENGTH_PRESETS)}) nor a token count: "
                            f"{FORMS}") from None
        if value not in lengths:
            lengths.append(value)
    if not lengths:
        raise SpecError("no lengths given")
    return tuple(lengths)
