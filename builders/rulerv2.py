"""Build a RULERv2 release: read the key vocabulary, run the generators, write the release."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from importlib import metadata, resources
from pathlib import Path

from tqdm.autonotebook import tqdm

from builders.base import Builder, wrote_line
from builders.card import CardFacts
from builders.features import Features, List, Value
from builders.release import ReleaseWriter, base_manifest
from builders.specs.rulerv2 import EVAL_GENERATION, RulerV2Build
from builders.sources.math_problems import CODE_BASES
from builders.sources.rulerv2 import (
    attribution,
    resolve_docqa,
    resolve_math,
    resolve_mcq,
    with_docqa_filler,
    with_mcq_distractors,
)
from generators.rulerv2.items import generate as generate_items
from generators.rulerv2.items import prepare_materials
from generators.rulerv2.niah_basic import KeyWords
from generators.rulerv2.niah_basic import generate as generate_basic
from generators.rulerv2.pools import ProblemPool
from generators.rulerv2.spec import (
    BENCHMARK,
    NiahBasicSpec,
)
from needlework.errors import BudgetError, InputError
from needlework.tokenizers import load_tokenizer
from needlework.tokens import TokenCounter

NEEDLE = Features(
    {
        "text": Value("string"),
        "char_offset": Value("int64"),
        "token_offset": Value("int64"),
        "depth_percent": Value("float64"),
        "source_id": Value("string"),
    }
)

FEATURES = Features(
    {
        "id": Value("string"),
        "input": Value("string"),
        "answers": List(Value("string")),
        "query": Value("string"),
        "answer_prefix": Value("string"),
        "task": Value("string"),
        "level": Value("string"),
        "order": Value("int64"),
        "shots": Value("int64"),
        "source": Value("string"),
        "qid": Value("string"),
        "target_tokens": Value("int64"),
        "n_tokens": Value("int64"),
        "generation_reserve": Value("int64"),
        "tokenizer": Value("string"),
        "n_items": Value("int64"),
        "golden": Value("bool"),
        "needles": List(dict(NEEDLE)),
    }
)
"""One schema for all 12 configs, so a harness reads every task the same way."""
MATH_FEATURES = Features({**FEATURES, "base": Value("string")})
"""The multi-key item configs' schema when they hide math problems (``mk_base`` gsm8k or math500): one
more column, ``base``, naming the base task, by which eval scores the answer as a math answer."""
CODE_FEATURES = Features({**MATH_FEATURES, "test_setup_code": Value("string"),
                                   "test_list": List(Value("string"))})
"""The multi-key item configs' schema when they hide MBPP problems (``mk_base`` mbpp): ``base``, and what
eval runs to score a solution: the hidden problem's ``test_setup_code`` (MBPP full; the sanitized
``test_imports`` joined by line breaks) and its ``test_list`` asserts. Demonstration and distractor
problems' tests are not carried."""
TEST, GOLDEN = "test", "golden"

FACTS = CardFacts(
    benchmark=BENCHMARK,
    pretty_name="RULERv2 (needlework build)",
    license="apache-2.0",
    language=("en",),
    task_categories=("question-answering", "text-generation"),
    tags=("long-context", "needle-in-a-haystack", "rulerv2", "multi-document-qa"),
    attribution="",
)


@dataclass(frozen=True)
class BuildReport:
    """What a build wrote: rows per config and split, source questions dropped on reading, and the
    repeated questions dropped from each pool (pool name -> count)."""

    out: Path
    rows: dict[str, int] = field(default_factory=dict)
    dropped: tuple[str, ...] = ()
    notices: tuple[str, ...] = ()
    duplicates: dict[str, int] = field(default_factory=dict)

    def lines(self) -> list[str]:
        """The rows written, what the user should know about them, and the source questions dropped
        (their gold documents are missing)."""
        lines = [wrote_line(self.out, self.rows), *self.notices]
        if self.dropped:
            lines.append(f"dropped {len(self.dropped)} source questions whose gold documents are missing: "
                         f"{', '.join(self.dropped[:5])}" + (" ..." if len(self.dropped) > 5 else ""))
        for name, count in self.duplicates.items():
            if count:
                lines.append(f"dropped {count} repeated questions from the {name} pool (same normalized text); see manifest.json")
        return lines


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

    Each task is a config with a ``test`` split (``samples`` rows per length) and, with
    ``options.golden``, a ``golden`` split (the same questions without distractors).

    Args:
        spec: Tasks, lengths, options and sources.
        out: Target folder of the release.
        tokens: A tokenizer to use instead of loading ``spec.tokenizer`` (tests inject one).
        progress: Show a progress bar per task.
    """
    paper = spec.preset == "paper"
    preset_values = spec.paper_values() if paper else None  # fails early on a missing distractor source
    tokens = tokens or load_tokenizer(spec.counting_tokenizer)
    words, inputs = load_key_words()
    try:
        mcq = resolve_mcq(spec.mcq_source, spec.seed) if spec.needs("mcq") else None
        math = resolve_math(spec.mk_base, spec.mk_source) if spec.needs("math") else None
        docqa = resolve_docqa(spec.docqa_source, spec.seed) if spec.needs("docqa") else None
        if paper and mcq is not None:
            mcq = with_mcq_distractors(mcq, spec.mcq_distractor_source())
        if paper and docqa is not None:
            docqa = with_docqa_filler(docqa, spec.docqa_filler_source())
    except ConnectionError as err:
        if not paper:
            raise
        raise InputError("the Hub", None, None, f"{err}; offline, the paper preset reads local copies: --mcq <MMLU folder> "
                         "--mcq-distractors <auxiliary_train folder> --docqa <HotpotQA validation file> "
                         "--docqa-distractors <HotpotQA train file>") from err
    for resolved in (mcq, math, docqa):
        if resolved is not None:
            inputs.update(resolved.fingerprints)
    materials = prepare_materials(tokens, mcq and mcq.pool, docqa and docqa.pool, spec.preset)  # type: ignore[arg-type]
    math_materials = prepare_materials(tokens, math.pool, None, spec.preset) if math else None  # type: ignore[arg-type]
    manifest = base_manifest(BENCHMARK, spec, tokens, inputs)
    lengths_for_model = spec.lengths_for_model(tokens)
    if lengths_for_model is not None:
        manifest["lengths_for_model"] = lengths_for_model
    if preset_values is not None:
        manifest["preset"] = preset_values
        manifest["eval_generation"] = dict(EVAL_GENERATION)
    dropped = docqa.dropped if docqa else ()
    if dropped:
        manifest["dropped_questions"] = list(dropped)
    resolved_pools = [r for r in (mcq, math, docqa) if r is not None]
    manifest["duplicates_dropped"] = {r.pool.name: {"count": len(r.duplicates), "qids": list(r.duplicates)}
                                      for r in resolved_pools}
    names = {r.pool.name for r in (mcq, math, docqa) if r is not None}
    rows: dict[str, int] = {}
    with ReleaseWriter(out, replace(FACTS, attribution=attribution(names)), manifest) as release:
        for task in spec.tasks:
            task_spec = spec.task_spec(task)
            base = spec.mk_base if spec.hides_math(task) else None
            release.declare(task, (CODE_FEATURES if base in CODE_BASES else MATH_FEATURES) if base else FEATURES)
            if isinstance(task_spec, NiahBasicSpec):
                generated = generate_basic(task_spec, seed=spec.seed, tokens=tokens, words=words)
            else:
                generated = generate_items(task_spec, seed=spec.seed, tokens=tokens,
                                           materials=math_materials if base else materials)  # type: ignore[arg-type]
            if base:
                generated = with_base_columns(generated, base, math.pool)  # type: ignore[union-attr,arg-type]
            o = task_spec.options
            total = (len(o.lengths) + o.golden) * o.samples
            try:
                for row in tqdm(generated, total=total, desc=task, disable=not progress, unit="row"):
                    release.write(task, GOLDEN if row["golden"] else TEST, row)
            except BudgetError as err:
                message = str(err)
                raise BudgetError(message if message.startswith(f"{task}:") else f"{task}: {message}") from err
            rows[task] = total
    notices = ()
    if lengths_for_model is not None and lengths_for_model["model"] is None:
        notices = ((f"lengths were counted with {tokens.name}; the paper counts each evaluated model's own tokens: "
                    "build with --model MODEL for the model you evaluate"),)
    return BuildReport(Path(out), rows, dropped, notices, {r.pool.name: len(r.duplicates) for r in resolved_pools})


def with_base_columns(rows: Iterator[dict], base: str, pool: ProblemPool) -> Iterator[dict]:
    """Rows of a multi-key task over another base task, with the columns eval scores them by: ``base``,
    and for a code base task (MBPP) the hidden problem's ``test_setup_code`` and ``test_list``."""
    for row in rows:
        if base in CODE_BASES:
            problem = pool.problem(row["qid"])
            yield {**row, "base": base, "test_setup_code": problem.test_setup, "test_list": list(problem.tests)}
        else:
            yield {**row, "base": base}


DEMO_LENGTHS = (4096, 8192, 16384)
DEMO_SAMPLES = 10


def demo_spec(seed: int, tokenizer: str) -> RulerV2Build:
    """All 12 tasks at 4K, 8K and 16K, 10 samples each, with the golden baseline, on the world."""
    return RulerV2Build(lengths=DEMO_LENGTHS, samples=DEMO_SAMPLES, golden=True, seed=seed, tokenizer=tokenizer)


BUILDER = Builder(id=BENCHMARK, spec=RulerV2Build, features=lambda config: FEATURES, facts=FACTS, build=build,
                  demo=demo_spec)
