"""Build a NeedleBench release: read filler and names, run the generators, write one config per task and language."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from tqdm.autonotebook import tqdm

from builders.base import Builder, wrote_line
from builders.card import CardFacts
from builders.features import Features, List, Value
from builders.release import ReleaseWriter, base_manifest
from builders.specs.needlebench import NeedleBenchBuild, config_name
from builders.sources.filler import read_filler, text_attribution
from builders.sources.person_names import faker_person_names
from generators.needlebench.atc import generate_atc
from generators.needlebench.atc_choice import generate_atc_choice
from generators.needlebench.filler import Filler
from generators.needlebench.official_choice import CIRCULAR_PATTERNS
from generators.needlebench.sparse import generate_sparse
from generators.needlebench.spec import (
    BENCHMARK,
    CHOICE_TASKS,
    SPARSE_TASKS,
    AtcChoiceSpec,
    AtcSpec,
    SparseSpec,
)
from needlework.errors import BudgetError
from needlework.tokenizers import load_tokenizer
from needlework.tokens import TokenCounter

TEST = "test"

NEEDLE = Features(
    {
        "text": Value("string"),
        "char_offset": Value("int64"),
        "token_offset": Value("int64"),
        "depth_percent": Value("float64"),
        "requested_depth": Value("float64"),
        "keyword": Value("string"),
    }
)

FEATURES = Features(
    {
        "id": Value("string"),
        "input": Value("string"),
        "answers": List(Value("string")),
        "query": Value("string"),
        "task": Value("string"),
        "lang": Value("string"),
        "target_tokens": Value("int64"),
        "depth": Value("float64"),
        "needle_count": Value("int64"),
        "question_type": Value("string"),
        "repeat": Value("int64"),
        "n_tokens": Value("int64"),
        "length_buffer": Value("int64"),
        "tokenizer": Value("string"),
        "filler": Value("string"),
        "needles": List(dict(NEEDLE)),
    }
)
"""One schema for every config but the multiple-choice ATC's; ATC rows have no target, depth, buffer or filler
(null/empty)."""

CHOICE_FEATURES = Features(
    {
        **FEATURES,
        "options": List(Value("string")),
        "circular_pattern": Value("string"),
        "question_id": Value("string"),
        "few_shot": List({"role": Value("string"), "content": Value("string")}),
    }
)
"""The multiple-choice ATC configs (``atc-choice-*``, ``atc-choice-reasoning-*``): :data:`FEATURES` plus the
options in the order shown (``answers`` holds the right letter), the circular rotation (``ABCD`` ... ``DABC``), the
key the four rotations of a question share, and the few-shot turns that come before ``input``
(:mod:`generators.needlebench.atc_choice`)."""


def features_of(config: str) -> Features:
    """The schema of a config: :data:`CHOICE_FEATURES` for the multiple-choice ATC, :data:`FEATURES` otherwise."""
    return CHOICE_FEATURES if config.startswith(f"{CHOICE_TASKS[0]}-") else FEATURES

FACTS = CardFacts(
    benchmark=BENCHMARK,
    pretty_name="NeedleBench (needlework build)",
    license="apache-2.0",
    language=("en", "zh"),
    task_categories=("question-answering", "text-generation"),
    tags=("long-context", "needle-in-a-haystack", "needlebench", "ancestral-trace-challenge", "reasoning"),
    attribution="",
)

@dataclass(frozen=True)
class BuildReport:
    """What a build wrote: rows per config."""

    out: Path
    rows: dict[str, int] = field(default_factory=dict)

    def lines(self) -> list[str]:
        """The rows written."""
        return [wrote_line(self.out, self.rows)]


def expected_rows(spec: SparseSpec | AtcSpec | AtcChoiceSpec) -> int:
    """How many rows a config's generator yields (the multiple-choice ATC: four rotations per question)."""
    if isinstance(spec, AtcChoiceSpec):
        return len(spec.needle_counts) * spec.repeats * len(CIRCULAR_PATTERNS)
    if isinstance(spec, AtcSpec):
        return len(spec.needle_counts) * len(spec.question_types) * spec.repeats
    depths = 1 if spec.layout == "per-depth" else len(spec.depths)
    return len(spec.needle_counts) * spec.repeats * len(spec.lengths) * depths


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
    if spec.preset:
        manifest["preset"] = spec.preset_record()
    labels = sorted({f.source for f in fillers.values()})
    attribution = "\n".join(f"- filler: {text_attribution(label)}" for label in labels)
    sources = "## Sources\n\n- kinship names: Faker's en_US and zh_CN name lists (MIT)\n" + attribution
    facts = replace(FACTS, attribution=sources)
    rows: dict[str, int] = {}
    with ReleaseWriter(out, facts, manifest) as release:
        for config_spec in spec.specs():
            task = "atc" if isinstance(config_spec, AtcSpec) else config_spec.task
            config = config_name(task, config_spec.lang)
            release.declare(config, features_of(config))
            generated: Iterator[dict[str, Any]]
            if isinstance(config_spec, AtcChoiceSpec):
                generated = generate_atc_choice(config_spec, seed=spec.seed, tokens=tokens, names=names)
            elif isinstance(config_spec, AtcSpec):
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


BUILDER = Builder(id=BENCHMARK, spec=NeedleBenchBuild, features=features_of, facts=FACTS, build=build,
                  demo=demo_spec)
