"""``needlework build needlebench``: NeedleBench's build spec (light; see :mod:`builders.specs`)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import MISSING, dataclass, fields
from pathlib import Path
from typing import Any, Literal, get_args

from builders.options import option
from builders.sources.names import WORLD
from generators.needlebench.spec import (
    CHOICE_TASKS,
    DEFAULT_ATC_NEEDLES,
    DEFAULT_BUFFER,
    DEFAULT_CHOICE_NEEDLES,
    DEFAULT_DEPTHS,
    DEFAULT_LENGTHS,
    DEFAULT_MRS_NEEDLES,
    DEFAULT_MRT_NEEDLES,
    DEFAULT_REPEATS,
    DEFAULT_TASKS,
    LANGS,
    OFFICIAL_V2_BUFFER,
    OFFICIAL_V2_LENGTHS,
    OFFICIAL_V2_REPEATS,
    QUESTION_TYPES,
    SPARSE_TASKS,
    TASKS,
    AtcChoiceSpec,
    AtcSpec,
    AtcStyle,
    BudgetRule,
    PromptStyle,
    QuestionPosition,
    SparseSpec,
    parse_choice_needles,
    parse_lengths,
    show_choice_needles,
)
from needlework.checks import require_one_of
from needlework.errors import SpecError
from needlework.lengths import FORMS, TOKENS_HELP, parse_tokens

DEFAULT_TOKENIZER = "cl100k_base"
"""The paper measures lengths with the GPT-4 tokenizer (§3.1)."""
Preset = Literal["", "paper", "paper-4k", "paper-8k", "paper-32k", "paper-128k"]
MrtOnlyLayout = Literal["spread", "per-depth"]
"""The layouts M-RT takes (:data:`generators.needlebench.spec.MRT_LAYOUTS` less ``diff``, which is multi.py's)."""
MrsLayout = Literal["spread", "diff"]
"""The layouts M-RS takes (less ``per-depth``, which is parallel.py's)."""
PRESETS: tuple[str, ...] = get_args(Preset)
"""``""``: needlework's own defaults. ``paper``: OpenCompass NeedleBench v2 at 32K (the scale the
paper's Table 1 reports); ``paper-4k`` ... ``paper-128k``: v2 at that scale."""
SHARED_DATA_ENV = "NEEDLEWORK_SHARED_DATA"
PAPER_FILLER: dict[str, str] = {"en": "paul_graham_essays", "zh": "zh_prose"}
"""The paper preset's filler folders under ``$NEEDLEWORK_SHARED_DATA``. English: the Paul Graham
essays (OpenCompass reads ``PaulGrahamEssays.jsonl``, the same essays as records). Chinese: the paper
uses ChineseDomainModelingEval (OpenCompass's ``zh_finance.jsonl``), which is not available offline,
so the preset reads the local Chinese prose (THUCNews, 红楼梦), a documented departure; pass
``--filler-zh`` a local ``zh_finance.jsonl`` or ``hub:REPO`` to use the official text."""
OFFICIAL_FILES: tuple[str, ...] = (
    "opencompass/configs/datasets/needlebench_v2/needlebench_v2_{scale}/needlebench_v2_single_{scale}.py",
    "opencompass/configs/datasets/needlebench_v2/needlebench_v2_{scale}/needlebench_v2_multi_retrieval_{scale}.py",
    "opencompass/configs/datasets/needlebench_v2/needlebench_v2_{scale}/needlebench_v2_multi_reasoning_{scale}.py",
    "opencompass/datasets/needlebench_v2/origin.py",
    "opencompass/datasets/needlebench_v2/parallel.py",
    "opencompass/datasets/needlebench_v2/multi.py",
    "opencompass/configs/datasets/needlebench_v2/atc/atc_0shot_nocot_2_power_en.py",
    "opencompass/datasets/needlebench_v2/atc.py",
    "opencompass/datasets/needlebench_v2/atc_elder_only.py",
)
"""The OpenCompass files (open-compass/opencompass) the paper preset reproduces."""
PRESET_DEPARTURES: tuple[str, ...] = (
    ("retrieval needles are needlework's fictional statements (OpenCompass draws from its needles.jsonl); the S-RT "
     "question wording follows the paper's Figures 7-9 and the quoting parallel.py's parsing implies"),
    "Chinese filler is the local zh_prose unless --filler-zh names ChineseDomainModelingEval",
    "kinship names are Faker's en_US / zh_CN lists (OpenCompass draws from its names.json)",
    "ATC links include atc_elder_only.py's child form, which counts one generation as written",
)
"""Where the paper preset still differs from OpenCompass v2 (recorded in the manifest and the card)."""


def preset_scale(preset: str) -> str:
    """The v2 scale of a paper preset: ``paper`` -> ``32k``, ``paper-128k`` -> ``128k``."""
    return "32k" if preset == "paper" else preset.removeprefix("paper-")


def config_name(task: str, lang: str) -> str:
    """The release config of a task in a language: ``s-rt-en``, ``atc-zh``, ..."""
    return f"{task}-{lang}"


def parse_buffer(text: str) -> dict[str, int]:
    """``en=200,zh=0.5k`` -> ``{"en": 200, "zh": 500}``; a bare count applies to both languages.

    Counts are written as :mod:`needlework.lengths` reads them (``1k`` = ``1K`` = 1,000).
    """
    try:
        if "=" not in text:
            return {"en": parse_tokens(text), "zh": parse_tokens(text)}
        pairs = (item.split("=", 1) for item in text.split(",") if item.strip())
        return {lang.strip(): parse_tokens(value) for lang, value in pairs}
    except ValueError:
        raise SpecError(f"expected LANG=TOKENS pairs such as en=200,zh=200 (TOKENS: {FORMS}), got {text!r}") from None


def show_buffer(buffer: dict[str, int]) -> str:
    """The inverse of :func:`parse_buffer`: ``en=200,zh=200``."""
    return ",".join(f"{lang}={tokens}" for lang, tokens in sorted(buffer.items()))


@dataclass(frozen=True)
class NeedleBenchBuild:
    """NeedleBench: S-RT, M-RT, M-RS at depths x lengths and the Ancestral Trace Challenge, in English and Chinese.

    Attributes:
        preset: ``""`` (needlework's defaults) or a paper preset (:data:`PRESETS`): every option
            left at its default takes OpenCompass v2's value (:meth:`preset_values`); options given
            explicitly win.
        tasks: Among ``s-rt``, ``m-rt``, ``m-rs``, ``atc`` (the default four) and the opt-in multiple-choice ATC
            ``atc-choice`` and ``atc-choice-reasoning`` (OpenCompass v1's, :data:`CHOICE_TASKS`).
        langs: Among ``en``, ``zh``.
        lengths: Target lengths in tokens of the information-sparse tasks.
        depths: Needle depths in percent.
        repeats: R, repetitions per configuration.
        mrt_needles: Needles per M-RT sample.
        mrt_layout: ``spread`` (a row per depth) or ``per-depth`` (one needle per depth, a row per length).
        mrt_repeats: R of M-RT (0: ``repeats``).
        mrs_needles: Kinship needle counts of M-RS.
        mrs_layout: ``spread`` or ``diff`` (multi.py's 10 % steps).
        sparse_style: ``needlework`` or ``official`` information-sparse prompts.
        question_position: ``end`` or ``start`` (official prompts only).
        atc_needles: Needle counts of ATC.
        question_types: ATC question types.
        atc_style: ``needlework`` (the extended, harder variant), ``official`` (OpenCompass v2's ATC, atc.py) or
            ``official-elder-only`` (the same with atc_elder_only.py's "child of" sentence form).
        choice_needles: People per question of the multiple-choice ATC (OpenCompass v1's ``num_needles``).
        buffer: Tokens kept below each target, per language.
        budget_rule: ``prompt`` (the whole prompt within ``length - buffer``) or ``context``
            (filler and needles within it, OpenCompass v2's rule).
        filler_en: English filler source (``world``, a folder, a file, ``hub:REPO``).
        filler_zh: Chinese filler source.
        seed: Build seed.
        tokenizer: Tokenizer spec that counts every length (default: GPT-4's cl100k_base).
    """

    preset: Preset = option("", "Reproduce a published setup: paper (OpenCompass NeedleBench v2 at 32K) or "  # noqa: RUF009
                                "paper-4k/8k/32k/128k; options given explicitly override it.", default_text="")
    tasks: tuple[str, ...] = option(DEFAULT_TASKS, "Comma-separated tasks (also atc-choice, atc-choice-reasoning: "
                                                   "OpenCompass v1's multiple-choice ATC, opt-in).")
    langs: tuple[str, ...] = option(LANGS, "Comma-separated languages.")
    lengths: tuple[int, ...] = option(
        DEFAULT_LENGTHS, "Comma-separated target lengths in tokens and presets. A preset name stands for a grid (4k: 1,000 to "
        "4,000 by 1,000; 8k, 32k, 128k, 200k, 1m: eight even steps up to 8,000 ... 1,000,000; v2-4k, v2-8k, v2-32k, v2-128k: "
        "OpenCompass v2's grids); any other item is one length. " + TOKENS_HELP,
        parse=parse_lengths, default_text="32k")
    depths: tuple[float, ...] = option(DEFAULT_DEPTHS, "Comma-separated needle depths in percent (default 0,10,...,100).",
                                       default_text="")
    repeats: int = option(DEFAULT_REPEATS, "R, repetitions per configuration.")
    mrt_needles: int = option(DEFAULT_MRT_NEEDLES, "Needles per multi-needle retrieval sample.")
    mrt_layout: MrtOnlyLayout = option("spread", "M-RT layout: spread (a row per depth, needles from it to the end) or "  # noqa: RUF009
                                             "per-depth (one needle at every depth, a row per length).")
    mrt_repeats: int = option(0, "R of M-RT (0: --repeats).", default_text="")
    mrs_needles: tuple[int, ...] = option(DEFAULT_MRS_NEEDLES, "Kinship needle counts of M-RS.")
    mrs_layout: MrsLayout = option("spread", "M-RS layout: spread (from the row's depth to the end) or diff (each "  # noqa: RUF009
                                             "needle 10% after the previous, OpenCompass v2).")
    sparse_style: PromptStyle = option("needlework", "S-RT/M-RT/M-RS prompts: needlework (the paper's figures) or "  # noqa: RUF009
                                                     "official (OpenCompass v2's prompts word for word, needles "
                                                     "spliced in at its token positions).")
    question_position: QuestionPosition = option("end", "Official prompts only: ask after (end) or before (start) "  # noqa: RUF009
                                                        "the document.")
    atc_needles: tuple[int, ...] = option(DEFAULT_ATC_NEEDLES, "ATC needle counts.", flag="needles")
    question_types: tuple[str, ...] = option(QUESTION_TYPES, "ATC question types.")
    atc_style: AtcStyle = option("needlework", "ATC wording: needlework (extended vocabulary, questions anywhere in the "  # noqa: RUF009
                                               "chain: harder), official (OpenCompass v2's atc.py: terms, sentence forms, "
                                               "whole-chain questions, prompts) or official-elder-only (atc_elder_only.py's "
                                               "sentence forms, the \"child of\" one in place of the guardian one).")
    choice_needles: tuple[int, ...] = option(
        DEFAULT_CHOICE_NEEDLES, "Multiple-choice ATC needle counts (people per question): a comma list or an "
        "OpenCompass config's grid (atc_choice: 2..19, atc_choice_50: 2..49, atc_choice_80: 2..79).",
        parse=parse_choice_needles, show=show_choice_needles, default_text="atc_choice")
    buffer: dict[str, int] = option(DEFAULT_BUFFER, "Tokens kept below each target, per language (en=200,zh=200, or one "  # noqa: RUF009
                                    "count for both). " + TOKENS_HELP, parse=parse_buffer,
                                    show=show_buffer)
    budget_rule: BudgetRule = option("prompt", "How a length is spent: prompt (whole prompt within length - buffer) "  # noqa: RUF009
                                               "or context (filler + needles within it, OpenCompass v2).")
    filler_en: str = option(WORLD, "English filler: world, a folder or file of text (e.g. the Paul Graham essays), "
                                   "a record table, or hub:REPO.")
    filler_zh: str = option(WORLD, "Chinese filler: world, a folder or file of text (e.g. Chinese prose), a record "
                                   "table, or hub:REPO.")
    seed: int = option(0, "Build seed.")
    tokenizer: str = option(DEFAULT_TOKENIZER, "Tokenizer spec (default: the paper's GPT-4 tokenizer).")

    def __post_init__(self) -> None:
        require_one_of("preset", self.preset, PRESETS)
        require_one_of("mrt_layout", self.mrt_layout, get_args(MrtOnlyLayout))
        require_one_of("mrs_layout", self.mrs_layout, get_args(MrsLayout))
        if self.preset:
            defaults = {f.name: f.default if f.default is not MISSING else f.default_factory()  # type: ignore[misc]
                        for f in fields(self)}
            for name, value in self.preset_values().items():
                if getattr(self, name) == defaults[name]:
                    object.__setattr__(self, name, value)
        unknown = [t for t in self.tasks if t not in TASKS]
        if unknown or not self.tasks or len(set(self.tasks)) != len(self.tasks):
            raise SpecError(f"tasks must be distinct values from {', '.join(TASKS)}; got {', '.join(self.tasks) or '(none)'}")
        if not self.langs or not set(self.langs) <= set(LANGS) or len(set(self.langs)) != len(self.langs):
            raise SpecError(f"langs must be distinct values from {', '.join(LANGS)}; got {', '.join(self.langs) or '(none)'}")
        missing = [lang for lang in self.langs if lang not in self.buffer]
        if missing:
            raise SpecError(f"no length buffer for {', '.join(missing)}")
        list(self.specs())  # building the specs validates every option

    def preset_values(self) -> dict[str, Any]:
        """The option values of the spec's paper preset (empty without one).

        Grids, buffers and repeats are OpenCompass v2's (:data:`OFFICIAL_FILES`): lengths
        :data:`OFFICIAL_V2_LENGTHS`, depths 0, 10, ..., 100, buffers :data:`OFFICIAL_V2_BUFFER`,
        R = 10 for S-RT and M-RS and 25 for M-RT, M-RT with one needle per depth, M-RS with 2 to 5
        needles, the ``context`` budget rule, the filler of :data:`PAPER_FILLER`, and ATC in the official
        style with 2, 4, ..., 512 needles, all four question types and R = 10 (atc_0shot_nocot_2_power_en.py).

        Raises:
            SpecError: The preset needs local filler (an information-sparse task with the filler left at
                ``world``) and ``$NEEDLEWORK_SHARED_DATA`` is not set.
        """
        if not self.preset:
            return {}
        scale = preset_scale(self.preset)
        depths = self.depths
        values: dict[str, Any] = {
            "lengths": OFFICIAL_V2_LENGTHS[scale], "depths": DEFAULT_DEPTHS, "repeats": OFFICIAL_V2_REPEATS["s-rt"],
            "mrt_needles": len(depths), "mrt_layout": "per-depth", "mrt_repeats": OFFICIAL_V2_REPEATS["m-rt"],
            "mrs_needles": DEFAULT_MRS_NEEDLES, "buffer": dict(OFFICIAL_V2_BUFFER[scale]), "budget_rule": "context",
            "tokenizer": DEFAULT_TOKENIZER, "atc_needles": DEFAULT_ATC_NEEDLES, "question_types": QUESTION_TYPES,
            "atc_style": "official", "mrs_layout": "diff", "sparse_style": "official",
        }
        for lang in LANGS:
            name = f"filler_{lang}"
            if getattr(self, name) != WORLD or not set(self.tasks) & set(SPARSE_TASKS):
                continue
            shared = os.environ.get(SHARED_DATA_ENV)
            if not shared:
                raise SpecError(f"preset {self.preset} reads {lang} filler from ${SHARED_DATA_ENV}/{PAPER_FILLER[lang]}; "
                                f"set {SHARED_DATA_ENV} or pass --filler-{lang}")
            values[name] = str(Path(shared) / PAPER_FILLER[lang])
        return values

    def preset_record(self) -> dict[str, Any]:
        """What the manifest records of the preset: its name, scale, every value, sources and departures."""
        if not self.preset:
            return {}
        scale = preset_scale(self.preset)
        values = {name: getattr(self, name) for name in (
            "lengths", "depths", "repeats", "mrt_needles", "mrt_layout", "mrt_repeats", "mrs_needles", "buffer",
            "budget_rule", "filler_en", "filler_zh", "tokenizer", "atc_needles", "question_types", "atc_style",
            "mrs_layout", "sparse_style", "question_position")}
        return {"name": self.preset, "scale": scale, "values": values,
                "official_files": [f.format(scale=scale) for f in OFFICIAL_FILES],
                "departures": list(PRESET_DEPARTURES)}

    def specs(self) -> Iterator[SparseSpec | AtcSpec | AtcChoiceSpec]:
        """The generator spec of every (task, language) config, in config order."""
        for task in self.tasks:
            for lang in self.langs:
                if task in CHOICE_TASKS:
                    yield AtcChoiceSpec(lang, self.choice_needles, self.repeats, task == CHOICE_TASKS[1])  # type: ignore[arg-type]
                    continue
                if task == "atc":
                    yield AtcSpec(lang, self.atc_needles, self.question_types, self.repeats, self.atc_style)  # type: ignore[arg-type]
                    continue
                counts = {"s-rt": (1,), "m-rt": (self.mrt_needles,), "m-rs": self.mrs_needles}[task]
                mrt = task == "m-rt"
                repeats = self.mrt_repeats if mrt and self.mrt_repeats else self.repeats
                layout = {"s-rt": "spread", "m-rt": self.mrt_layout, "m-rs": self.mrs_layout}[task]
                yield SparseSpec(task, lang, self.lengths, self.depths, repeats, counts, self.buffer[lang],  # type: ignore[arg-type]
                                 self.budget_rule, layout, self.sparse_style, self.question_position)  # type: ignore[arg-type]

    def filler_source(self, lang: str) -> str:
        """The filler source of a language."""
        return self.filler_en if lang == "en" else self.filler_zh
