"""Build a NeedleBench release: read filler and names, run the generators, write one config per task and language."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterator

import datasets
from tqdm.auto import tqdm

from builders.base import Builder, wrote_line
from builders.card import CardFacts
from builders.options import option
from builders.release import ReleaseWriter, base_manifest
from builders.sources.filler import WORLD, read_filler, text_attribution
from builders.sources.person_names import faker_person_names
from needlework.errors import BudgetError, SpecError
from generators.needlebench.atc import generate_atc
from generators.needlebench.filler import Filler
from generators.needlebench.spec import (
    BENCHMARK, DEFAULT_ATC_NEEDLES, DEFAULT_BUFFER, DEFAULT_DEPTHS, DEFAULT_LENGTHS, DEFAULT_MRS_NEEDLES, DEFAULT_MRT_NEEDLES,
    DEFAULT_REPEATS, LANGS, QUESTION_TYPES, SPARSE_TASKS, TASKS, AtcSpec, SparseSpec, parse_lengths,
)
from generators.needlebench.sparse import generate_sparse
from needlework.tokens import TokenCounter
from needlework.tokenizers import load_tokenizer

DEFAULT_TOKENIZER = "cl100k_base"
"""The paper measures lengths with the GPT-4 tokenizer (§3.1)."""
TEST = "test"

NEEDLE = datasets.Features(
    {
        "text": datasets.Value("string"),
        "char_offset": datasets.Value("int64"),
        "token_offset": datasets.Value("int64"),
        "depth_percent": datasets.Value("float64"),
        "requested_depth": datasets.Value("float64"),
        "keyword": datasets.Value("string"),
    }
)

FEATURES = datasets.Features(
    {
        "id": datasets.Value("string"),
        "input": datasets.Value("string"),
        "answers": datasets.List(datasets.Value("string")),
        "query": datasets.Value("string"),
        "task": datasets.Value("string"),
        "lang": datasets.Value("string"),
        "target_tokens": datasets.Value("int64"),
        "depth": datasets.Value("float64"),
        "needle_count": datasets.Value("int64"),
        "question_type": datasets.Value("string"),
        "repeat": datasets.Value("int64"),
        "n_tokens": datasets.Value("int64"),
        "length_buffer": datasets.Value("int64"),
        "tokenizer": datasets.Value("string"),
        "filler": datasets.Value("string"),
        "needles": datasets.List(dict(NEEDLE)),
    }
)
"""One schema for every config; ATC rows have no target, depth, buffer or filler (null/empty)."""

FACTS = CardFacts(
    benchmark=BENCHMARK,
    pretty_name="NeedleBench (needlework build)",
    license="apache-2.0",
    language=("en", "zh"),
    task_categories=("question-answering", "text-generation"),
    tags=("long-context", "needle-in-a-haystack", "needlebench", "ancestral-trace-challenge", "reasoning"),
    attribution="",
)

def config_name(task: str, lang: str) -> str:
    """The release config of a task in a language: ``s-rt-en``, ``atc-zh``, ..."""
    return f"{task}-{lang}"


def parse_buffer(text: str) -> dict[str, int]:
    """``en=200,zh=300`` -> ``{"en": 200, "zh": 300}``; a bare number applies to both languages."""
    try:
        if "=" not in text:
            return {"en": int(text), "zh": int(text)}
        pairs = (item.split("=", 1) for item in text.split(",") if item.strip())
        return {lang.strip(): int(value) for lang, value in pairs}
    except ValueError:
        raise SpecError(f"expected LANG=TOKENS pairs such as en=200,zh=200, got {text!r}") from None


def show_buffer(buffer: dict[str, int]) -> str:
    """The inverse of :func:`parse_buffer`: ``en=200,zh=200``."""
    return ",".join(f"{lang}={tokens}" for lang, tokens in sorted(buffer.items()))


@dataclass(frozen=True)
class NeedleBenchBuild:
    """NeedleBench: S-RT, M-RT, M-RS at depths x lengths and the Ancestral Trace Challenge, in English and Chinese.

    Attributes:
        tasks: Among ``s-rt``, ``m-rt``, ``m-rs``, ``atc``.
        langs: Among ``en``, ``zh``.
        lengths: Target lengths in tokens of the information-sparse tasks.
        depths: Needle depths in percent.
        repeats: R, repetitions per configuration.
        mrt_needles: Needles per M-RT sample.
        mrs_needles: Kinship needle counts of M-RS.
        atc_needles: Needle counts of ATC.
        question_types: ATC question types.
        buffer: Tokens kept below each target, per language.
        filler_en: English filler source (``world``, a folder, a file, ``hub:REPO``).
        filler_zh: Chinese filler source.
        seed: Build seed.
        tokenizer: Tokenizer spec that counts every length (default: GPT-4's cl100k_base).
    """

    tasks: tuple[str, ...] = option(TASKS, "Comma-separated tasks.")
    langs: tuple[str, ...] = option(LANGS, "Comma-separated languages.")
    lengths: tuple[int, ...] = option(
        DEFAULT_LENGTHS, "Target lengths in tokens: a preset (4k, 8k, 32k, 128k, 200k, 1m: eight steps up to it) or a comma list.",
        parse=parse_lengths, default_text="32k")
    depths: tuple[float, ...] = option(DEFAULT_DEPTHS, "Comma-separated needle depths in percent (default 0,10,...,100).",
                                       default_text="")
    repeats: int = option(DEFAULT_REPEATS, "R, repetitions per configuration.")
    mrt_needles: int = option(DEFAULT_MRT_NEEDLES, "Needles per multi-needle retrieval sample.")
    mrs_needles: tuple[int, ...] = option(DEFAULT_MRS_NEEDLES, "Kinship needle counts of M-RS.")
    atc_needles: tuple[int, ...] = option(DEFAULT_ATC_NEEDLES, "ATC needle counts.", flag="needles")
    question_types: tuple[str, ...] = option(QUESTION_TYPES, "ATC question types.")
    buffer: dict[str, int] = option(DEFAULT_BUFFER, "Tokens kept below each target, per language.", parse=parse_buffer,
                                    show=show_buffer)
    filler_en: str = option(WORLD, "English filler: world, a folder or file of text (e.g. the Paul Graham essays), "
                                   "a record table, or hub:REPO.")
    filler_zh: str = option(WORLD, "Chinese filler: world, a folder or file of text (e.g. Chinese prose), a record "
                                   "table, or hub:REPO.")
    seed: int = option(0, "Build seed.")
    tokenizer: str = option(DEFAULT_TOKENIZER, "Tokenizer spec (default: the paper's GPT-4 tokenizer).")

    def __post_init__(self) -> None:
        unknown = [t for t in self.tasks if t not in TASKS]
        if unknown or not self.tasks or len(set(self.tasks)) != len(self.tasks):
            raise SpecError(f"tasks must be distinct values from {', '.join(TASKS)}; got {', '.join(self.tasks) or '(none)'}")
        if not self.langs or not set(self.langs) <= set(LANGS) or len(set(self.langs)) != len(self.langs):
            raise SpecError(f"langs must be distinct values from {', '.join(LANGS)}; got {', '.join(self.langs) or '(none)'}")
        missing = [lang for lang in self.langs if lang not in self.buffer]
        if missing:
            raise SpecError(f"no length buffer for {', '.join(missing)}")
        list(self.specs())  # building the specs validates every option

    def specs(self) -> Iterator[SparseSpec | AtcSpec]:
        """The generator spec of every (task, language) config, in config order."""
        for task in self.tasks:
            for lang in self.langs:
                if task == "atc":
                    yield AtcSpec(lang, self.atc_needles, self.question_types, self.repeats)  # type: ignore[arg-type]
                    continue
                counts = {"s-rt": (1,), "m-rt": (self.mrt_needles,), "m-rs": self.mrs_needles}[task]
                yield SparseSpec(task, lang, self.lengths, self.depths, self.repeats, counts, self.buffer[lang])  # type: ignore[arg-type]

    def filler_source(self, lang: str) -> str:
        """The filler source of a language."""
        return self.filler_en if lang == "en" else self.filler_zh


@dataclass(frozen=True)
class BuildReport:
    """What a build wrote: rows per config."""

    out: Path
    rows: dict[str, int] = field(default_factory=dict)

    def lines(self) -> list[str]:
        """The rows written."""
        return [wrote_line(self.out, self.rows)]


def expected_rows(spec: SparseSpec | AtcSpec) -> int:
    """How many rows a config's generator yields."""
    if isinstance(spec, AtcSpec):
        return len(spec.needle_counts) * len(spec.question_types) * spec.repeats
    return len(spec.needle_counts) * spec.repeats * len(spec.lengths) * len(spec.depths)


def build(spec: NeedleBenchBuild, out: Path, *, tokens: TokenCounter | None = None, progress: bool = True) -> BuildReport:
    """Build a NeedleBench release at ``out`` (replacing a previous release there atomically).

    Each (task, language) is a config with a ``test`` split. Filler is read and counted only
    for the languages an information-sparse task needs.

    Args:
        spec: Tasks, languages, grid and sources.
        out: Target folder of the release.
        tokens: A tokenizer to use instead of loading ``spec.tokenizer`` (tests inject one).
        progress: Show a progress bar per config.
    """
    tokens = tokens or load_tokenizer(spec.tokenizer)
    names, inputs = faker_person_names()
    fillers: dict[str, Filler] = {}
    if any(t in SPARSE_TASKS for t in spec.tasks):
        for lang in spec.langs:
            read = read_filler(spec.filler_source(lang), lang, seed=spec.seed)
            inputs.update(read.fingerprints)
            fillers[lang] = Filler.from_documents(read.documents, source=read.label, lang=lang, tokens=tokens)
    manifest = base_manifest(BENCHMARK, spec, tokens, inputs)
    manifest["filler_tokens"] = {lang: f.total_tokens for lang, f in fillers.items()}
    labels = sorted({f.source for f in fillers.values()})
    attribution = "\n".join(f"- filler: {text_attribution(label)}" for label in labels)
    sources = "## Sources\n\n- kinship names: Faker's en_US and zh_CN name lists (MIT)\n" + attribution
    facts = replace(FACTS, attribution=sources)
    rows: dict[str, int] = {}
    with ReleaseWriter(out, facts, manifest) as release:
        for config_spec in spec.specs():
            task = "atc" if isinstance(config_spec, AtcSpec) else config_spec.task
            config = config_name(task, config_spec.lang)
            release.declare(config, FEATURES)
            generated: Iterator[dict[str, Any]]
            if isinstance(config_spec, AtcSpec):
                generated = generate_atc(config_spec, seed=spec.seed, tokens=tokens, names=names)
            else:
                generated = generate_sparse(config_spec, seed=spec.seed, tokens=tokens, filler=fillers[config_spec.lang], names=names)
            total = expected_rows(config_spec)
            try:
                for row in tqdm(generated, total=total, desc=config, disable=not progress, unit="row"):
                    release.write(config, TEST, row)
            except BudgetError as err:
                raise BudgetError(f"{config}: {err}") from err
            rows[config] = total
    return BuildReport(Path(out), rows)


DEMO_LENGTHS = (2000, 4000, 8000)
DEMO_DEPTHS = (0.0, 25.0, 50.0, 75.0, 100.0)
DEMO_ATC_NEEDLES = (2, 4, 8, 16, 32, 64)
DEMO_REPEATS = 2


def demo_spec(seed: int, tokenizer: str) -> NeedleBenchBuild:
    """Every task in both languages at 2K-8K and five depths, ATC up to 64 needles, on the world's filler."""
    return NeedleBenchBuild(lengths=DEMO_LENGTHS, depths=DEMO_DEPTHS, repeats=DEMO_REPEATS, atc_needles=DEMO_ATC_NEEDLES,
                            seed=seed, tokenizer=tokenizer)


BUILDER = Builder(id=BENCHMARK, spec=NeedleBenchBuild, features=lambda config: FEATURES, facts=FACTS, build=build,
                  demo=demo_spec)
