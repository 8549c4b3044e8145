r"""The NeedleBench tasks: single- and multi-needle retrieval, multi-needle reasoning, ATC and its multiple-choice form.

Every task renders the row's prompt as one user turn (the multiple-choice ATC: its few-shot turns, then the
question) and reads the answer from the whole response, reasoning included, as OpenCompass's NeedleBench
configs do (``--reasoning remove``: after OpenCompass's model-level reasoning remover; lenient scoring: after
the ``--thinking-end`` marker); the tasks differ only in where the answer is read and how it is scored, one
row of :data:`RULES` per task.

=====  ===============================  ======================================  ==========================
task   references (the row's answers)   answer read from the response           score
=====  ===============================  ======================================  ==========================
s-rt   the needle's keyword             the whole response                      keyword in response (eq. 1)
m-rt   one keyword per asked needle     the whole response                      share of keywords in it
m-rs   the eldest ancestor's name       the official boxed answer               official exact match
atc    the name, or generations apart   the official boxed answer               official exact match
atc-c  the right option's letter        OpenCompass's first option letter       letter match
=====  ===============================  ======================================  ==========================

``atc-c`` stands for ``atc-choice`` and ``atc-choice-reasoning`` (OpenCompass v1's multiple-choice ATC,
``opencompass/configs/datasets/needlebench/atc/atc_choice.py``): the letter is read as
``first_option_postprocess(options='ABCD')`` reads it (:func:`eval.benchmarks.needlebench.choice.first_option`)
and each rotation scores 1 when it is the rotation's letter; the circular score (``CircularEvaluator``'s
``perf_4``: every rotation of a question right) is aggregated in :mod:`eval.benchmarks.needlebench.summary`.
Both scorings read it the same way.

M-RT rows of the ``per-depth`` layout (one needle per depth) carry their needles' depths in the metadata
(``needle_depths``) and each needle's hit as a secondary score (:meth:`NeedleBenchTask.secondary_scores`), so
the summary can score each depth as OpenCompass v2's ``NeedleBenchParallelEvaluator`` does.

S-RT and M-RT score as OpenCompass's ``NeedleBenchOriginEvaluator`` and ``NeedleBenchParallelEvaluator`` do:
``keyword in response`` on the response as written (:func:`eval.scoring.official_keyword_hits`). Under
``--scoring lenient`` they compare after :func:`eval.scoring.normalize_match_text` (NFKC, case folded,
whitespace collapsed) and an asked keyword inside a longer asked one counts only outside it.

M-RS and ATC score as NeedleBench v2's official code does: OpenCompass's v2 M-RS configs
(``configs/datasets/needlebench_v2/needlebench_v2_*k/needlebench_v2_multi_reasoning_*k.py``) take
the ATC evaluation config, so both read the last ``\boxed{}`` the way
``needlebench_atc_postprocess_v2`` does and compare it exactly (case and punctuation count). With
``TaskOptions(scoring="lenient")`` (``--scoring lenient``) M-RS instead looks for the name anywhere
in the last ``\boxed{}``, or in the whole response without one (equation 1), and ATC compares
after :func:`eval.scoring.normalize_boxed_answer` (case, quotes and final punctuation ignored;
generations apart as integers): needlework's readings before official scoring was the default.

The formulas are in :mod:`eval.scoring` (:func:`keyword_match`, :func:`keyword_recall`,
:func:`official_exact_match`, :func:`exact_answer_match`); task and overall scores (equations 2
and 3), the ATC weighted average and ENL-50 (equation 4) are aggregated in
:mod:`eval.benchmarks.needlebench.summary`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from eval.benchmarks.needlebench.choice import first_option, letter_match
from eval.scoring import (
    exact_answer_match,
    keyword_hits,
    keyword_match,
    keyword_recall,
    official_boxed_answer,
    official_exact_match,
    official_keyword_hits,
    official_keyword_match,
    official_keyword_recall,
)
from eval.task import TaskOptions, last_boxed
from generators.needlebench.spec import BENCHMARK, CHOICE_TASKS
from needlework.backends.base import Message
from needlework.errors import SpecError

TASK_TITLES: dict[str, str] = {
    "s-rt": "Single-Needle Retrieval",
    "m-rt": "Multi-Needle Retrieval",
    "m-rs": "Multi-Needle Reasoning",
    "atc": "Ancestral Trace Challenge",
    "atc-choice": "Ancestral Trace Challenge, multiple choice",
    "atc-choice-reasoning": "Ancestral Trace Challenge, multiple choice (reasoning examples)",
}
"""Task (the rows' ``task`` column) -> its name in the paper."""
PAPER_LANGS: tuple[str, ...] = ("zh", "en")
"""The generators' :data:`generators.needlebench.spec.LANGS` in the order of the paper's tables (Chinese, then English)."""
NEEDLEBENCH_METRIC = (
    "NeedleBench (paper §3.1-3.2), as OpenCompass v2 scores it: S-RT scores 1 when the keyword occurs in the whole "
    "response as written (eq. 1; case and whitespace count), M-RT the share of its needles' keywords found, each on "
    "its own, M-RS and ATC official exact match "
    "of the last \\boxed{} as OpenCompass needlebench_v2 reads it; task score = mean over samples (eq. 2), "
    "overall = mean of the sparse tasks (eq. 3), ATC weighted by needle count and ENL-50 (eq. 4)"
)
NEEDLEBENCH_LENIENT_METRIC = (
    "NeedleBench, lenient scoring (needlework's, not the paper's): S-RT and M-RS score 1 when a keyword occurs in "
    "the answer (eq. 1; case-insensitive, whitespace collapsed; M-RS reads the last \\boxed{} when there is one), "
    "M-RT the share of its needles' keywords found, ATC exact match of the last \\boxed{} "
    "(normalized; generations apart compared as integers); aggregation as the paper's (eqs. 2-4)"
)


def whole_response(response: str) -> str:
    """The response as it is: retrieval keywords are looked for anywhere in it."""
    return response


def boxed_or_response(response: str) -> str:
    r"""The content of the last ``\boxed{}`` (M-RS), or the whole response when there is no box.

    The box is the answer the prompt asks for; without one the reasoning task still scores by
    keyword containment on the response, as the paper's sparse-task metric (equation 1) does.
    """
    boxed = last_boxed(response)
    return response if boxed is None else boxed


def boxed_only(response: str) -> str:
    r"""The content of the last ``\boxed{}`` (ATC), or "" without one (which scores 0)."""
    return last_boxed(response) or ""


@dataclass(frozen=True)
class NeedleRule:
    """How one NeedleBench task reads and scores an answer.

    Attributes:
        extract: The answer inside a response (reasoning already removed).
        score: ``(references, prediction) -> [0, 1]``, a scorer of :mod:`eval.scoring`.
    """

    extract: Callable[[str], str]
    score: Callable[[Sequence[str], str], float]


RULES: dict[str, NeedleRule] = {
    "s-rt": NeedleRule(whole_response, official_keyword_match),
    "m-rt": NeedleRule(whole_response, official_keyword_recall),
    "m-rs": NeedleRule(official_boxed_answer, official_exact_match),
    "atc": NeedleRule(official_boxed_answer, official_exact_match),
    **{task: NeedleRule(first_option, letter_match) for task in CHOICE_TASKS},
}
"""Task (the rows' ``task`` column, :data:`generators.needlebench.spec.TASKS`) -> its official rule."""
LENIENT_RULES: dict[str, NeedleRule] = RULES | {
    "s-rt": NeedleRule(whole_response, keyword_match),
    "m-rt": NeedleRule(whole_response, keyword_recall),
    "m-rs": NeedleRule(boxed_or_response, keyword_match),
    "atc": NeedleRule(boxed_only, exact_answer_match),
}
"""The rules under ``scoring="lenient"``: needlework's readings of M-RS and ATC (see the module docstring)."""


def task_of(name: str) -> str | None:
    """``"m-rs"`` for ``needlebench/m-rs``; None for a name that is not a NeedleBench task."""
    if not name.startswith(f"{BENCHMARK}/"):
        return None
    task = name.removeprefix(f"{BENCHMARK}/")
    return task if task in RULES else None


def plain_number(value: float | None) -> float | int | None:
    """A whole float as an int (``100.0`` -> ``100``), so depths read as the paper's 0..100 labels."""
    if value is None:
        return None
    number = float(value)
    return int(number) if number.is_integer() else number


@dataclass(frozen=True)
class NeedleBenchTask:
    """One NeedleBench task: the row's prompt as one user turn, read and scored by its :class:`NeedleRule`.

    Attributes:
        name: ``needlebench/{task}``, a key of :data:`RULES` after the prefix.
        options: Reasoning marker (NeedleBench rows have no answer prefix).
    """

    name: str
    options: TaskOptions
    metric: str = field(init=False, default=NEEDLEBENCH_METRIC)
    metadata_columns: tuple[str, ...] = ("length", "depth", "lang", "needle_count", "question_type", "n_tokens",
                                         "qid", "circular_pattern", "needle_depths")
    rule: NeedleRule = field(init=False)

    def __post_init__(self) -> None:
        task = task_of(self.name)
        if task is None:
            raise SpecError(f"no NeedleBench task {self.name!r}; tasks: {', '.join(f'{BENCHMARK}/{t}' for t in RULES)}")
        rules, metric = self.options.by_scoring((RULES, NEEDLEBENCH_METRIC), (LENIENT_RULES, NEEDLEBENCH_LENIENT_METRIC))
        object.__setattr__(self, "rule", rules[task])
        object.__setattr__(self, "metric", metric)

    def render(self, row: Mapping[str, Any]) -> tuple[Message, ...]:
        """The prompt as built, as one user turn; a multiple-choice ATC row's few-shot turns come first.

        OpenCompass sends ``atc_choice.py``'s ``HUMAN`` and ``BOT`` rounds to a chat model as user and
        assistant messages, the question as the last user message.
        """
        shots: tuple[Message, ...] = tuple({"role": t["role"], "content": t["content"]} for t in row.get("few_shot") or ())
        return (*shots, {"role": "user", "content": row["input"]})

    def references(self, row: Mapping[str, Any]) -> list[str]:
        """The row's answers, as released (see the module docstring)."""
        return list(row["answers"])

    def metadata(self, row: Mapping[str, Any]) -> dict[str, Any]:
        """Target length (tokens; None for ATC), requested depth of the first needle (percent, as is:
        0..100, not binned; None for ATC), language, needle count, question type, and the prompt's
        measured length ``n_tokens`` (the build tokenizer's count; ATC's "<=2K" split needs it).

        A multiple-choice ATC row adds ``qid`` (the question its four rotations share) and
        ``circular_pattern``; a per-depth M-RT row (no row depth, one needle per requested depth) adds
        ``needle_depths``, each needle's requested depth in the order of its keyword among the answers.
        """
        target = row.get("target_tokens")
        metadata = {
            "length": None if target is None else int(target),
            "depth": plain_number(row.get("depth")),
            "lang": row["lang"],
            "needle_count": int(row["needle_count"]),
            "question_type": row["question_type"],
            "n_tokens": int(row["n_tokens"]),
        }
        if row.get("question_id") is not None:
            metadata |= {"qid": row["question_id"], "circular_pattern": row["circular_pattern"]}
        needles = row.get("needles") or []
        if row.get("task") == "m-rt" and row.get("depth") is None and needles:
            metadata["needle_depths"] = [plain_number(n["requested_depth"]) for n in needles]
        return metadata

    def extract(self, response: str) -> str:
        """This task's answer (:attr:`NeedleRule.extract`) in the response: officially the whole response, as
        OpenCompass's NeedleBench configs score it (``--reasoning remove`` applies its model-level reasoning
        remover first); under lenient scoring, the text after the reasoning marker."""
        official = self.options.whole_or_reasoning_removed
        return self.rule.extract(self.options.by_scoring(official, self.options.strip_reasoning)(response))

    def score(self, prediction: str, references: Sequence[str]) -> float:
        """The task's scorer (:attr:`NeedleRule.score`) on the extracted prediction."""
        return self.rule.score(references, prediction)

    def secondary_scores(self, prediction: str, references: Sequence[str]) -> dict[str, float]:
        """M-RT: ``needle_<i>`` 1.0 or 0.0 per asked keyword (``i`` its index among the references), whose mean
        is the sample's score; nothing for the other tasks. The summary joins them with ``needle_depths``."""
        if task_of(self.name) != "m-rt":
            return {}
        hits = self.options.by_scoring(official_keyword_hits, keyword_hits)(references, prediction)
        return {f"needle_{i}": float(hit) for i, hit in enumerate(hits)}
