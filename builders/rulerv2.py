"""Build a RULERv2 release: read the key vocabulary, run the generators, write the release."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from importlib import metadata, resources
from pathlib import Path
from typing import Literal, get_args

import datasets
from tqdm.auto import tqdm

from builders.card import CardFacts
from builders.release import ReleaseWriter, base_manifest
from generators.errors import SpecError
from generators.rulerv2.niah_basic import KeyWords, generate
from generators.rulerv2.spec import NiahBasicSpec, NiahOptions
from generators.tokens import TokenCounter
from needlework.tokenizers import DEFAULT_TOKENIZER, load_tokenizer

RulerTask = Literal["mk_niah_basic", "mv_niah_basic"]
TASKS: tuple[str, ...] = get_args(RulerTask)

NEEDLE = datasets.Features(
    {
        "text": datasets.Value("string"),
        "char_offset": datasets.Value("int64"),
        "token_offset": datasets.Value("int64"),
        "depth_percent": datasets.Value("float64"),
    }
)

NIAH_BASIC_FEATURES = datasets.Features(
    {
        "id": datasets.Value("string"),
        "input": datasets.Value("string"),
        "answers": datasets.List(datasets.Value("string")),
        "query": datasets.Value("string"),
        "answer_prefix": datasets.Value("string"),
        "task": datasets.Value("string"),
        "level": datasets.Value("string"),
        "target_tokens": datasets.Value("int64"),
        "n_tokens": datasets.Value("int64"),
        "generation_reserve": datasets.Value("int64"),
        "tokenizer": datasets.Value("string"),
        "n_lines": datasets.Value("int64"),
        "needles": datasets.List(dict(NEEDLE)),
    }
)

FACTS = CardFacts(
    benchmark="rulerv2",
    pretty_name="RULERv2 (needlework build)",
    license="apache-2.0",
    language=("en",),
    task_categories=("question-answering", "text-generation"),
    tags=("long-context", "needle-in-a-haystack", "rulerv2", "synthetic"),
    attribution=(
        "## Sources and licenses\n\n"
        "Needle keys are drawn from the word lists of the `wonderwords` package (MIT), as RULER does; "
        "values are random numbers. The prompt templates follow the RULERv2 paper (Tables 2 and 3). "
        "The generated data is released under Apache-2.0."
    ),
)


@dataclass(frozen=True)
class RulerV2Build:
    """What to build: tasks, seed, tokenizer, and the NIAH options (lengths, samples, needle shapes)."""

    tasks: tuple[str, ...] = TASKS
    seed: int = 0
    tokenizer: str = DEFAULT_TOKENIZER
    options: NiahOptions = NiahOptions()

    def __post_init__(self) -> None:
        unknown = [t for t in self.tasks if t not in TASKS]
        if unknown or not self.tasks:
            raise SpecError(f"unknown RULERv2 task(s) {', '.join(unknown) or '(none given)'}; valid: {', '.join(TASKS)}")
        if len(set(self.tasks)) != len(self.tasks):
            raise SpecError(f"tasks must not repeat, got {', '.join(self.tasks)}")
        for task in self.tasks:
            self.niah_spec(task)

    def niah_spec(self, task: str) -> NiahBasicSpec:
        """The generator spec of one basic NIAH task (``n_values`` applies to mv_niah only)."""
        options = self.options if task == "mv_niah_basic" else replace(self.options, n_values=None)
        return NiahBasicSpec(task.removesuffix("_basic"), options)  # type: ignore[arg-type]

    def command(self) -> str:
        """The CLI command that reproduces this build."""
        o = self.options
        parts = [
            "needlework build rulerv2",
            f"--tasks {','.join(self.tasks)}",
            f"--lengths {','.join(map(str, o.lengths))}",
            f"--samples {o.samples}",
            f"--seed {self.seed}",
            f"--tokenizer {self.tokenizer}",
            f"--generation-reserve {o.generation_reserve}",
            f"--key-kind {o.key_kind}",
            f"--key-length {o.key_length}",
            f"--value-digits {o.value_digits}",
        ]
        if o.n_values is not None:
            parts.append(f"--n-values {o.n_values}")
        return " ".join(parts)


@dataclass(frozen=True)
class BuildReport:
    """What a build wrote."""

    out: Path
    rows: dict[str, int] = field(default_factory=dict)


def load_key_words() -> tuple[KeyWords, dict[str, str]]:
    """RULER's key vocabulary from the wonderwords package, and the sha256 of each list read."""
    assets = resources.files("wonderwords").joinpath("assets")
    texts = {name: assets.joinpath(name).read_text(encoding="utf-8") for name in ("adjectivelist.txt", "nounlist.txt")}
    fingerprints = {
        f"wonderwords=={metadata.version('wonderwords')}/{name}": hashlib.sha256(text.encode("utf-8")).hexdigest()
        for name, text in texts.items()
    }
    words = KeyWords.from_lists(texts["adjectivelist.txt"].splitlines(), texts["nounlist.txt"].splitlines())
    return words, fingerprints


def build(spec: RulerV2Build, out: Path, *, tokens: TokenCounter | None = None, progress: bool = True) -> BuildReport:
    """Build a RULERv2 release at ``out`` (replacing a previous release there atomically).

    Args:
        spec: Tasks, lengths and options.
        out: Target folder of the release.
        tokens: A tokenizer to use instead of loading ``spec.tokenizer`` (tests inject one).
        progress: Show a progress bar per task.
    """
    tokens = tokens or load_tokenizer(spec.tokenizer)
    words, inputs = load_key_words()
    manifest = base_manifest("rulerv2", spec, spec.seed, tokens, inputs)
    rows: dict[str, int] = {}
    with ReleaseWriter(out, FACTS, manifest) as release:
        for task in spec.tasks:
            niah = spec.niah_spec(task)
            release.declare(task, NIAH_BASIC_FEATURES)
            total = len(niah.options.lengths) * niah.options.samples
            for row in tqdm(generate(niah, seed=spec.seed, tokens=tokens, words=words), total=total, desc=task, disable=not progress, unit="row"):
                release.write(task, "test", row)
            rows[task] = total
    return BuildReport(Path(out), rows)
