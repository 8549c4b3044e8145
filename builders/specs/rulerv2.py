"""``needlework build rulerv2``: RULERv2's build spec (light; see :mod:`builders.specs`)."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING

from builders.options import option
from builders.sources.names import HUB, PAPER_DOCQA, PAPER_MCQ, SOLVE_BASES, WORLD
from generators.rulerv2.spec import (
    DEFAULT_LENGTHS,
    PAPER_LENGTHS,
    PAPER_REPEATS,
    PAPER_RESERVE,
    PAPER_SAMPLES,
    PAPER_SHOTS,
    PRESETS,
    TASKS,
    ItemTaskSpec,
    KeyKind,
    NiahBasicSpec,
    RulerOptions,
)
from needlework.checks import require_one_of
from needlework.errors import SpecError
from needlework.lengths import TOKENS_HELP, parse_token_list, parse_tokens
from needlework.tokenizers import DEFAULT_TOKENIZER

if TYPE_CHECKING:
    from needlework.tokens import TokenCounter

MK_BASES = ("mmlu", *SOLVE_BASES)
"""The base tasks of multi-key NIAH easy..hard (RULERv2 Appendix D.2): ``mmlu`` (the ``mcq`` source),
``gsm8k``, ``math500`` or ``mbpp``."""


EVAL_GENERATION = {"max_tokens": 16384, "temperature": 0.0}
"""The paper's decoding settings, recorded by the paper preset as the manifest's ``eval_generation``
(the evaluation's default ``max_tokens`` instead of a row's ``generation_reserve``). Only generation
parameters go here: the evaluation sends every key to the model. NeMo-Skills' ruler2 ``__init__``
files set no generation length, so the paper's text is the source (:data:`EVAL_GENERATION_SOURCE`)."""
EVAL_GENERATION_SOURCE = (
    "RULERv2 Section 2 (Models): greedy decoding for instruct models (recommended sampling parameters for "
    "reasoning models), with 16k token output limits for chain-of-thought reasoning"
)


@dataclass(frozen=True)
class RulerV2Build:
    """RULERv2: the 12 tasks (multi-key, multi-value NIAH and multi-doc QA, basic to hard) at the chosen lengths.

    Attributes:
        tasks: Config names among :data:`TASKS` (default: all 12).
        lengths, samples, key_kind, key_length, value_digits, index_digits, generation_reserve,
            n_values, shots, golden: The generator options, documented on
            :class:`generators.rulerv2.spec.RulerOptions` (:attr:`options` builds it).
        seed: Build seed.
        tokenizer: Tokenizer spec that counts every budget.
        model: The model the release is built for (a Hub id or a local folder with a
            ``tokenizer.json``): its tokenizer (``hf:<model>``) counts every length instead of
            ``tokenizer``, as NeMo-Skills prepares ruler2 for each evaluated model
            (``prepare_data.py --tokenizer_path``; RULER counts "with the tokenizer of the model
            evaluated"). The manifest records it (``lengths_for_model``) and ``python -m eval run``
            warns when another model is evaluated on the release.
        mcq: Multiple-choice source for the NIAH easy-to-hard tasks: ``world`` (embedded default),
            an MMLU folder, an MCQ table file, or ``hub:cais/mmlu``.
        docqa: Multi-doc QA source: ``world``, a HotpotQA JSON/JSONL file, or ``hub:hotpotqa/hotpot_qa``;
            or SQuAD or MuSiQue by kind (Appendix D.2; :mod:`builders.sources.squad_musique`): ``squad``
            (``rajpurkar/squad`` validation), ``squad:hub:REPO``, ``squad:PATH`` (the original nested JSON
            or flat records), ``musique:PATH``, ``musique:hub:REPO``.
        preset: ``""`` (needlework's setup, unchanged) or ``paper``: the official data setup of
            NVIDIA-NeMo/Skills ``nemo_skills/dataset/ruler2`` (``prepare_data.py`` and the scripts it
            runs): official templates, every multi-value key and index used 4 times (distractors
            included), MMLU test gold among ``auxiliary_train`` distractors, HotpotQA validation
            questions among train paragraphs, and prompts filling the whole length (no answer
            reserve unless ``generation_reserve`` is given). A ``world`` source is replaced by the
            paper's Hub dataset (:data:`PAPER_MCQ`, :data:`PAPER_DOCQA`); see :meth:`paper_values`.
        mcq_distractors: ``paper`` preset only: the MMLU ``auxiliary_train`` questions that fill the
            NIAH contexts: ``hub:REPO``, an ``auxiliary_train`` folder of CSVs, or an MCQ table
            (default: the ``mcq`` Hub dataset, or ``<mcq folder>/auxiliary_train``).
        docqa_distractors: ``paper`` preset only: the HotpotQA train paragraphs that fill multi-doc
            QA contexts: a train JSON/JSONL file or ``hub:REPO`` (default: the ``docqa`` Hub dataset).
        mk_base: The base task multi-key NIAH easy, medium and hard hide (Appendix D.2): ``mmlu``
            (the ``mcq`` source, unchanged), ``gsm8k`` or ``math500`` (math problems; medium and hard
            ask for the answer in ``\\boxed{}`` and rows carry the reference answer and a ``base``
            column), or ``mbpp`` (programming problems; medium and hard ask for a Python code block
            and rows also carry the problem's ``test_setup_code`` and ``test_list``, which eval runs
            when allowed to execute code). Multi-value NIAH keeps the ``mcq`` source. Not with the
            ``paper`` preset.
        mk_source: Where the problems come from: ``""`` (the base task's Hub dataset,
            ``openai/gsm8k`` config ``main``, ``HuggingFaceH4/MATH-500``, or
            ``google-research-datasets/mbpp`` config ``full``), ``hub:REPO`` (``hub:REPO/CONFIG`` for
            another config, e.g. MBPP's ``sanitized``), or a local JSONL/JSON/Parquet file in the
            original format (MBPP: ``mbpp.jsonl`` or ``sanitized-mbpp.json``, split by ``task_id``).
    """

    tasks: tuple[str, ...] = option(TASKS, "Comma-separated tasks, e.g. mk_niah_medium,mdqa_hard (default: all 12).",
                                    default_text="")
    lengths: tuple[int, ...] = option(DEFAULT_LENGTHS, "Comma-separated target lengths in tokens (the paper's 8k..110k "
                                      "are 8ki..110ki). " + TOKENS_HELP, parse=parse_token_list)
    samples: int = option(100, "Samples per length.")
    seed: int = option(0, "Build seed.")
    tokenizer: str = option(DEFAULT_TOKENIZER, "Tokenizer spec (e.g. cl100k_base, hf:PATH).")
    model: str = option("", "The model to be evaluated (Hub id or local folder): its tokenizer (hf:MODEL) counts every "
                            "length, as the paper prepares data per model (default under --preset paper).",
                        default_text="")
    key_kind: KeyKind = option("words", "Basic NIAH keys.")
    key_length: int = option(2, "Words (or digits) per basic NIAH key.")
    value_digits: int = option(10, "Digits per basic NIAH value.")
    index_digits: int = option(7, "Digits of question and document indices.")
    mcq: str = option(WORLD, "Multiple-choice source for NIAH easy..hard: world, an MMLU folder (dev/ and test/ CSVs), "
                             "an MCQ table file, or hub:cais/mmlu.")
    docqa: str = option(WORLD, "Multi-doc QA source: world, a HotpotQA distractor-setting JSON/JSONL file, "
                               "hub:hotpotqa/hotpot_qa, or SQuAD/MuSiQue (Appendix D.2): squad, squad:hub:REPO, "
                               "squad:PATH, musique:PATH, musique:hub:REPO.")
    generation_reserve: int | None = option(
        None, "Tokens kept free for the answer (default per task: 128 for short answers, 512-2048 where the model copies). "
        + TOKENS_HELP, parse=parse_tokens)
    n_values: int | None = option(None, "Needles sharing the queried key in multi-value NIAH (default 4).")
    shots: int | None = option(None, "Demonstrations in medium/hard NIAH, 0-16 (default: 5 multi-key, 0 multi-value).")
    golden: bool = option(False, "Also write each task's golden-context baseline (split 'golden').")
    preset: str = option("", "'' (needlework's setup) or paper (the official NeMo-Skills ruler2 data setup: templates, "
                             "4x repeated multi-value keys, MMLU auxiliary_train and HotpotQA train distractors, full-length prompts).",
                         default_text="''")
    mcq_distractors: str = option("", "paper preset: MMLU auxiliary_train questions filling the NIAH contexts (hub:REPO, "
                                      "an auxiliary_train CSV folder or an MCQ table; default from --mcq).", default_text="")
    docqa_distractors: str = option("", "paper preset: HotpotQA train paragraphs filling multi-doc QA contexts (a train "
                                        "JSON/JSONL file or hub:REPO; default from --docqa).", default_text="")

    mk_base: str = option("mmlu", "Base task of multi-key NIAH easy..hard: mmlu (the --mcq source), gsm8k, math500 or mbpp "
                                  "(RULERv2 Appendix D.2).")
    mk_source: str = option("", "Problems for --mk-base gsm8k|math500|mbpp: hub:REPO (hub:REPO/CONFIG for another config) or "
                                "a local JSONL/JSON/Parquet file in the original format (default: openai/gsm8k main, "
                                "HuggingFaceH4/MATH-500, google-research-datasets/mbpp full).",
                            default_text="")

    def __post_init__(self) -> None:
        if self.model and self.tokenizer not in (DEFAULT_TOKENIZER, self.model_tokenizer):
            raise SpecError(f"--model {self.model} counts lengths with its own tokenizer ({self.model_tokenizer}); "
                            f"--tokenizer {self.tokenizer} contradicts it: give one of the two")
        require_one_of("mk_base", self.mk_base, MK_BASES)
        if self.mk_source and self.mk_base == "mmlu":
            raise SpecError("mk_source applies to a math base task (--mk-base gsm8k, math500 or mbpp); MMLU comes from --mcq")
        if self.preset == "paper" and self.mk_base != "mmlu":
            raise SpecError("the paper preset hides MMLU questions only (NeMo-Skills ruler2 has no GSM8K/MATH500/MBPP setup); "
                            "build --mk-base without --preset paper")
        require_one_of("preset", self.preset, PRESETS)
        if self.preset != "paper" and (self.mcq_distractors or self.docqa_distractors):
            raise SpecError("mcq_distractors and docqa_distractors apply to the paper preset only (--preset paper)")
        unknown = [t for t in self.tasks if t not in TASKS]
        if unknown or not self.tasks:
            raise SpecError(f"unknown RULERv2 task(s) {', '.join(unknown) or '(none given)'}; valid: {', '.join(TASKS)}")
        if len(set(self.tasks)) != len(self.tasks):
            raise SpecError(f"tasks must not repeat, got {', '.join(self.tasks)}")
        for task in self.tasks:
            self.task_spec(task)

    @property
    def model_tokenizer(self) -> str:
        """The tokenizer spec of ``model`` (``hf:<model>``), or ``""`` without a model."""
        return f"hf:{self.model}" if self.model else ""

    @property
    def counting_tokenizer(self) -> str:
        """The tokenizer that counts every length: the model's when one is named, else ``tokenizer``."""
        return self.model_tokenizer or self.tokenizer

    def lengths_for_model(self, tokens: TokenCounter) -> dict | None:
        """What the manifest records about whose tokenizer counted the lengths (``lengths_for_model``),
        for a build for a named model or under the paper preset; ``None`` otherwise (needlework's own
        setup counts with one fixed tokenizer on purpose).

        The paper's lengths are the evaluated model's tokens: NeMo-Skills prepares ruler2 once per
        model (``nemo_skills/dataset/ruler2/prepare_data.py``, ``--tokenizer_path``). Eval compares
        ``model`` with the model it runs and warns on a mismatch.
        """
        if not (self.model or self.preset == "paper"):
            return None
        return {"model": self.model or None, "tokenizer": tokens.name,
                "rule": "lengths are counted with the evaluated model's tokenizer (NeMo-Skills ruler2 prepare_data.py "
                        "--tokenizer_path): build once per model with --model"}

    @property
    def options(self) -> RulerOptions:
        """The generator options of this build (validated there)."""
        return RulerOptions(**{f.name: getattr(self, f.name) for f in fields(RulerOptions)})

    def task_spec(self, task: str) -> NiahBasicSpec | ItemTaskSpec:
        """The generator spec of one task (``n_values`` applies to multi-value tasks only)."""
        options = self.options if task.startswith("mv_niah") else replace(self.options, n_values=None)
        if task in ("mk_niah_basic", "mv_niah_basic"):
            return NiahBasicSpec(task.removesuffix("_basic"), options)  # type: ignore[arg-type]
        return ItemTaskSpec(task, options)

    @property
    def mcq_source(self) -> str:
        """The multiple-choice source read: ``mcq``, or under the paper preset the paper's MMLU for ``world``."""
        return PAPER_MCQ if self.preset == "paper" and self.mcq == WORLD else self.mcq

    @property
    def docqa_source(self) -> str:
        """The multi-doc QA source read: ``docqa``, or under the paper preset the paper's HotpotQA for ``world``."""
        return PAPER_DOCQA if self.preset == "paper" and self.docqa == WORLD else self.docqa

    def mcq_distractor_source(self) -> str:
        """The paper preset's distractor questions: ``mcq_distractors``, else the Hub dataset's
        ``auxiliary_train`` or ``<mcq folder>/auxiliary_train``."""
        if self.mcq_distractors:
            return self.mcq_distractors
        source = self.mcq_source
        if source.startswith(HUB):
            return source
        if (Path(source) / "auxiliary_train").is_dir():
            return str(Path(source) / "auxiliary_train")
        raise SpecError(f"the paper preset hides MMLU test questions among MMLU auxiliary_train questions "
                        f"(prepare_mmlu.py); {source} has no auxiliary_train/ folder: pass --mcq-distractors")

    def docqa_filler_source(self) -> str:
        """The paper preset's filler paragraphs: ``docqa_distractors``, else the Hub dataset's ``train`` split."""
        if self.docqa_distractors:
            return self.docqa_distractors
        if self.docqa_source.startswith(HUB):
            return self.docqa_source
        raise SpecError(f"the paper preset fills multi-doc QA contexts with HotpotQA train paragraphs (prepare_qa.py); "
                        f"pass --docqa-distractors (a HotpotQA train file) for {self.docqa_source}")

    def paper_values(self) -> dict:
        """Every value the paper preset sets, as the manifest records it (``preset`` key), with its source."""
        o = self.options
        tasks = {t: self.task_spec(t) for t in self.tasks}
        values: dict = {
            "name": "paper",
            "source_of_truth": "NVIDIA-NeMo/Skills nemo_skills/dataset/ruler2/prepare_data.py (per-task arguments), "
                               "prepare_niah.py, prepare_mmlu.py (--prompt_type instruct), prepare_qa.py",
            "lengths": list(o.lengths), "paper_lengths": list(PAPER_LENGTHS),
            "samples": o.samples, "paper_samples": PAPER_SAMPLES,
            "generation_reserve": o.generation_reserve if o.generation_reserve is not None else PAPER_RESERVE,
            "budget_rule": "largest haystack whose prompt is at most the length in tokens (no answer reserve)",
            "key_kind": o.key_kind, "key_length": o.key_length, "value_digits": o.value_digits,
            "index_digits": o.index_digits,
            "values_per_key": {t: s.values_per_key for t, s in tasks.items() if t.startswith("mv_niah")},
            "distractor_repeats": {t: PAPER_REPEATS for t in tasks if t.startswith("mv_niah")},
            "shots": {t: s.shots for t, s in tasks.items() if isinstance(s, ItemTaskSpec) and s.domain != "mdqa"},
            "paper_shots": {"mk_niah": PAPER_SHOTS, "mv_niah": 0},
            "templates": "official (generators.rulerv2.templates.PAPER_ITEM_TASKS)",
            "question_whitespace": "collapsed to single spaces (prepare_mmlu.py)",
            "mdqa_questions": "first samples of the source in file order (prepare_qa.py)",
            "eval_generation": dict(EVAL_GENERATION), "eval_generation_source": EVAL_GENERATION_SOURCE,
        }
        if self.needs("mcq"):
            values.update(mcq=self.mcq_source, mcq_distractors=self.mcq_distractor_source())
        if self.needs("docqa"):
            values.update(docqa=self.docqa_source, docqa_distractors=self.docqa_filler_source())
        return values

    def needs(self, domain: str) -> bool:
        """Whether any chosen task reads the multiple-choice (``mcq``), math (``math``: multi-key
        items over ``mk_base`` gsm8k, math500 or mbpp) or document (``docqa``) source."""
        if domain == "docqa":
            return any(t.startswith("mdqa") for t in self.tasks)
        math = self.mk_base != "mmlu"
        if domain == "math":
            return math and any(self.hides_math(t) for t in self.tasks)
        domains = ("mv_niah",) if math else ("mk_niah", "mv_niah")
        return any(t.startswith(domains) and not t.endswith("_basic") for t in self.tasks)

    def hides_math(self, task: str) -> bool:
        """Whether ``task`` hides a base task's problems (a multi-key item task under ``mk_base`` other than mmlu)."""
        return self.mk_base != "mmlu" and task.startswith("mk_niah") and not task.endswith("_basic")
