r"""The 12 RULERv2 tasks: three domains (multi-key NIAH, multi-value NIAH, multi-doc QA) at four levels.

Every task renders the row's prompt as built; the tasks differ only in how the answer is read out
of the response and scored, one row of :data:`RULES` per task, not a class per task. Every rule
runs on the response after the reasoning as NeMo-Skills reads it (:func:`eval.task.after_reasoning`: the
text after ``</think>`` stripped, a response without it as written, or empty under ``--reasoning required``;
always trimmed under the lenient reading).

By default (``TaskOptions(scoring="official")``) the tasks score as RULERv2's official code does
(NeMo-Skills ``eval_ruler2``, :func:`eval.scoring.official_ruler_score`) on the whole response: the
NIAH tasks "all" (multi-value medium "2steps", its last paragraph), the QA tasks "part" (copied
``Document N:`` blocks removed first, so a gold index or answer anywhere else counts). Multi-key
medium and hard are multiple choice, read by NeMo-Skills' multiple-choice evaluator
(:func:`eval.scoring.official_choice_letter`) and scored by exact equality with the gold letter.
``scoring="lenient"`` (``--scoring lenient``) keeps needlework's readings:

========================  ===============================  ====================================  =====
task                      references (the row's answers)   answer read from the response         agg.
========================  ===============================  ====================================  =====
mk_niah_basic             the value                        the whole response                    all
mv_niah_basic             every value of the key           the whole response                    all
mk_niah_easy              the question text                the copy, "Question <n>:" labels cut  all
mk_niah_medium, _hard     the letter A-D                   the letter in the last \boxed{}       all
mv_niah_easy              every question of the index      the copies, labels cut                all
mv_niah_medium            the k-th question                the text after the last label         all
mv_niah_hard              the k-th question                the copy, labels cut                  all
mdqa_basic, mdqa_easy     the gold document index(es)      the first run of digits               exact
mdqa_medium               the answer and its aliases       the text after the last "Answer:"     part
mdqa_hard                 the answer and its aliases       the response, leading "Answer:" cut   part
========================  ===============================  ====================================  =====

Math base tasks (RULERv2 Appendix D.2: GSM8K and MATH500 in place of MMLU): a release built with
``--mk-base gsm8k|math500`` gives its multi-key rows a ``base`` column, and those rows get the task
``rulerv2/{domain}_{level}/{base}`` (:func:`task_for_row`). On them multi-key medium and hard are
scored as NeMo-Skills scores math (``nemo_skills/evaluation/evaluator/math.py``): the last
``\boxed{}`` (:func:`eval.scoring.official_math_answer`) compared with the reference answer by
``math_grader.math_equal`` (:func:`eval.scoring.official_math_equal`, math-verify), 1 or 0, under
both scorings; multi-key easy (a copy) keeps its rule.

The code base task (Appendix D.2: MBPP): rows built with ``--mk-base mbpp`` also carry the hidden
problem's ``test_setup_code`` and ``test_list``, which are the references of multi-key medium and
hard (``rulerv2/mk_niah_{medium,hard}/mbpp``): the code is the last ```python block as NeMo-Skills
reads it (``nemo_skills/evaluation/evaluator/code.py`` ``preprocess_code``, :func:`code_block`), run with
the setup code and every assert in a separate Python process (:mod:`eval.code_execution`), 1 if all
pass, else 0, under both scorings. Running the model's code is opt-in (``TaskOptions.allow_code_execution``,
``--allow-code-execution``); each sample's outcome (passed, no code, syntax error, assertion,
error, timeout) is kept as its secondary scores.

In the lenient reading copied questions are compared with whitespace runs collapsed to one space
on both sides (the references keep the question's line breaks between its choices, and a model
may turn them into spaces); this is done here, in the task, so the release keeps the text as the
model saw it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from eval.benchmark import task_from_columns
from eval.code_execution import (
    OUTCOMES,
    Execution,
    program_of_tests,
    refuse_code_execution,
    run_solution,
)
from eval.scoring import (
    Aggregate,
    official_choice_letter,
    official_math_answer,
    official_math_equal,
    official_ruler_score,
    ruler_score,
)
from eval.task import TaskOptions, last_boxed
from generators.rulerv2.spec import BENCHMARK
from needlework.backends.base import Message
from needlework.errors import SpecError

DEPTH_BIN_PERCENT = 10
RULER_METRIC = (
    "RULERv2, official scoring (NeMo-Skills eval_ruler2): per reference max(match, 1 - WER) on the whole response, "
    "lower-cased, match = substring, WER = word edit distance / reference words (no punctuation removal or "
    "clipping); NIAH tasks average over references (multi-value medium on the response's last paragraph), "
    "QA tasks take the best reference after copied 'Document N:' blocks are removed; multi-key medium and "
    "hard read the chosen letter as NeMo-Skills' multiple-choice evaluator (last box, else 'The final answer is', "
    "else 'Answer: X') and score 1 when it equals the gold letter"
)
RULER_LENIENT_METRIC = (
    "RULERv2, lenient scoring (needlework's, not the paper's): per sample max(Recall, 1 - WER) of the extracted "
    "answer, Recall = share of the references found in it (case-insensitive substring), WER (jiwer; lower-cased, "
    "punctuation removed, 1 - WER clipped to [0, 1]) against the references joined by spaces; multi-doc QA "
    "references are alternatives: the best reference's max(match, 1 - WER)"
)

_QUESTION_LABEL = re.compile(r"question\s*\d+\s*:", re.IGNORECASE)
_LATEX_COMMAND = re.compile(r"\\[A-Za-z]+")
_CHOICE = re.compile(r"(?<![A-Za-z])([A-D])(?![A-Za-z])")
_ANSWER_IS_CHOICE = re.compile(r"(?i:answer)(?:\s+is)?[\s:*]*[(\[]?([A-D])(?![A-Za-z])")
_DIGITS = re.compile(r"\d+")
_ANSWER_LABEL = re.compile(r"answer\s*:", re.IGNORECASE)
_LEADING_ANSWER_LABEL = re.compile(r"^\s*answer\s*:", re.IGNORECASE)


def collapse_whitespace(text: str) -> str:
    """``text`` with every run of whitespace (newlines included) made one space, and stripped."""
    return " ".join(text.split())


def whole_response(response: str) -> str:
    """The response as it is (basic NIAH: the value(s) are looked for anywhere in it)."""
    return response


def copied_questions(response: str) -> str:
    """Copied question text (NIAH easy, multi-value hard): every ``Question <digits>:`` label removed.

    The label is part of the copying instruction, not of the reference (the question text), so a
    copy with or without its label scores the same. Whitespace runs are collapsed (see the module
    docstring).
    """
    return collapse_whitespace(_QUESTION_LABEL.sub(" ", response))


def last_copied_question(response: str) -> str:
    """The final copy (multi-value medium): the text after the last ``Question <digits>:`` label.

    The model copies every question of the index and then the k-th one "at the end"; only that
    final copy is the answer, so earlier copies (which contain the reference too) cannot score.
    Any index counts as a label: a final copy under a wrong or mistyped index is still the
    model's final answer. Without a label, the whole response. Whitespace runs are collapsed.
    """
    labels = list(_QUESTION_LABEL.finditer(response))
    return collapse_whitespace(response[labels[-1].end():] if labels else response)


def choice_letter(response: str) -> str:
    """The chosen letter A-D (multi-key medium and hard), or "" when there is none.

    The first standalone capital A-D inside the last ``\\boxed{...}`` after LaTeX commands are
    dropped, so ``\\boxed{B}``, ``\\boxed{\\text{B}}``, ``\\boxed{B.}``, ``\\boxed{(B)}`` and
    ``\\boxed{B. some text}`` all read "B". Without a box, the last "answer is (B)" / "Answer: B"
    (also "**Answer:** B"). A box without a letter reads "" and scores 0: the prompt asks for the
    letter inside the box. Only the letter is returned, so the substring match is exact.
    """
    boxed = last_boxed(response)
    if boxed is not None:
        found = _CHOICE.search(_LATEX_COMMAND.sub(" ", boxed))
        return found.group(1) if found else ""
    stated = _ANSWER_IS_CHOICE.findall(response)
    return stated[-1] if stated else ""


def first_index(response: str) -> str:
    """The first run of digits (multi-doc QA basic and easy: a document index), or "".

    Only the first: a response listing many indices must not score by containing the gold one.
    """
    found = _DIGITS.search(response)
    return found.group() if found else ""


def text_after_last_answer(response: str) -> str:
    """The answer after copied documents (multi-doc QA medium): the text after the last "Answer:".

    Case-insensitive; without an "Answer:", the whole response.
    """
    return _ANSWER_LABEL.split(response)[-1].strip()


def answer_without_label(response: str) -> str:
    """The response (multi-doc QA hard), without a leading "Answer:" the model repeated from the prompt."""
    return _LEADING_ANSWER_LABEL.sub("", response, count=1).strip()


def lenient_score(references: Sequence[str], prediction: str, aggregate: Aggregate) -> float:
    """needlework's score: :func:`eval.scoring.ruler_score` over whitespace-collapsed text."""
    return ruler_score([collapse_whitespace(r) for r in references], collapse_whitespace(prediction), aggregate)


def whole_token(references: Sequence[str], prediction: str) -> float:
    """A one-token answer (a document index) that must equal a reference: for a single word
    ``max(Recall, 1 - WER)`` is exactly that, except that RULER's substring test would accept an
    8-digit number containing a 7-digit index."""
    return 1.0 if prediction.strip() in {r.strip() for r in references} else 0.0


@dataclass(frozen=True)
class TaskRule:
    """How one RULERv2 task reads and scores an answer.

    Attributes:
        extract: The answer inside a response (reasoning already removed).
        score: ``(references, prediction) -> [0, 1]``.
    """

    extract: Callable[[str], str]
    score: Callable[[Sequence[str], str], float]


def official_letter(response: str) -> str:
    """The letter NeMo-Skills' multiple-choice evaluator reads (:func:`eval.scoring.official_choice_letter`), "" for none."""
    return official_choice_letter(response) or ""


def same_letter(references: Sequence[str], prediction: str) -> float:
    """1.0 when the read letter equals the gold one (``mcq.py``: ``predicted_answer == expected_answer``)."""
    return 1.0 if prediction and prediction in {r.strip() for r in references} else 0.0


def math_answer(response: str) -> str:
    """The math answer NeMo-Skills reads (:func:`eval.scoring.official_math_answer`: the last box), "" for none."""
    answer = official_math_answer(response)
    return "" if answer is None else answer


def math_equal(references: Sequence[str], prediction: str) -> float:
    """1.0 when the boxed answer equals a reference answer as ``math_grader.math_equal`` decides
    (:func:`eval.scoring.official_math_equal`); no box (an empty prediction) scores 0."""
    if not prediction:
        return 0.0
    return 1.0 if any(official_math_equal(r, prediction) for r in references) else 0.0


_ALL, _TWO_STEPS, _PART = (partial(official_ruler_score, match=m) for m in ("all", "2steps", "part"))
_LENIENT_ALL, _LENIENT_PART = (partial(lenient_score, aggregate=a) for a in ("all", "part"))
_LETTER = TaskRule(choice_letter, _LENIENT_ALL)
_OFFICIAL_LETTER = TaskRule(official_letter, same_letter)
RULES: dict[str, TaskRule] = {
    "mk_niah_basic": TaskRule(whole_response, _ALL),
    "mk_niah_easy": TaskRule(whole_response, _ALL),
    "mk_niah_medium": _OFFICIAL_LETTER,
    "mk_niah_hard": _OFFICIAL_LETTER,
    "mv_niah_basic": TaskRule(whole_response, _ALL),
    "mv_niah_easy": TaskRule(whole_response, _ALL),
    "mv_niah_medium": TaskRule(whole_response, _TWO_STEPS),
    "mv_niah_hard": TaskRule(whole_response, _ALL),
    "mdqa_basic": TaskRule(whole_response, _PART),
    "mdqa_easy": TaskRule(whole_response, _PART),
    "mdqa_medium": TaskRule(whole_response, _PART),
    "mdqa_hard": TaskRule(whole_response, _PART),
}
"""Task (``{domain}_{level}``, the release config name, :data:`generators.rulerv2.spec.TASKS`) -> its official
rule (NeMo-Skills ``ruler2``: match type per task in ``nemo_skills/dataset/ruler2/prepare_init.py``)."""
LENIENT_RULES: dict[str, TaskRule] = {
    "mk_niah_basic": TaskRule(whole_response, _LENIENT_ALL),
    "mk_niah_easy": TaskRule(copied_questions, _LENIENT_ALL),
    "mk_niah_medium": _LETTER,
    "mk_niah_hard": _LETTER,
    "mv_niah_basic": TaskRule(whole_response, _LENIENT_ALL),
    "mv_niah_easy": TaskRule(copied_questions, _LENIENT_ALL),
    "mv_niah_medium": TaskRule(last_copied_question, _LENIENT_ALL),
    "mv_niah_hard": TaskRule(copied_questions, _LENIENT_ALL),
    "mdqa_basic": TaskRule(first_index, whole_token),
    "mdqa_easy": TaskRule(first_index, whole_token),
    "mdqa_medium": TaskRule(text_after_last_answer, _LENIENT_PART),
    "mdqa_hard": TaskRule(answer_without_label, _LENIENT_PART),
}
"""The rules under ``scoring="lenient"``: needlework's readings (the module docstring's table)."""


_FENCE, _PYTHON_FENCE = "```", "```python"


def code_block(response: str) -> str:
    """The code NeMo-Skills reads from a response (``evaluator/code.py`` ``preprocess_code``, language python).

    Carriage returns dropped; reasoning up to the first ``</think>`` dropped, and a ``<think>`` never
    closed leaves no code; then the content of the last block opened by ```python (by a bare fence
    when there is none) up to the next fence, and no code when that block is never closed (a cut-off
    generation); without any fence the whole text. Stripped. The run's thinking marker is applied
    before this (:meth:`RulerTask.extract`).
    """
    text = response.replace("\r", "")
    if "<think>" in text or "</think>" in text:
        _, closed, text = text.partition("</think>")
        if not closed:
            return ""
    start, fence = text.rfind(_PYTHON_FENCE), _PYTHON_FENCE
    if start == -1:
        start, fence = text.rfind(_FENCE), _FENCE
    if start != -1:
        text = text[start + len(fence):]
        end = text.find(_FENCE)
        text = text[:end] if end != -1 else ""
    return text.strip()


MATH_BASES: tuple[str, ...] = ("gsm8k", "math500")
"""The math base tasks a release's ``base`` column may name (``builders.sources.math_problems.MATH_BASES``)."""
CODE_BASES: tuple[str, ...] = ("mbpp",)
"""The code base tasks (``builders.sources.math_problems.CODE_BASES``): scored by running the row's tests."""
SOLVE_BASES: tuple[str, ...] = (*MATH_BASES, *CODE_BASES)
MATH_TASKS: tuple[str, ...] = ("mk_niah_easy", "mk_niah_medium", "mk_niah_hard")
"""The tasks whose rows hide another base task's problems under a ``base`` (multi-key NIAH easy..hard)."""
_MATH = TaskRule(math_answer, math_equal)
MATH_RULES: dict[str, TaskRule] = {"mk_niah_easy": RULES["mk_niah_easy"], "mk_niah_medium": _MATH, "mk_niah_hard": _MATH}
"""The rules of the math tasks (official scoring): the copy as before, the solve levels by ``math_equal``."""
LENIENT_MATH_RULES: dict[str, TaskRule] = {**MATH_RULES, "mk_niah_easy": LENIENT_RULES["mk_niah_easy"]}
"""Under lenient scoring: the lenient copy rule; a math answer has no more lenient reading than ``math_equal``."""
MATH_TASK_NAMES: tuple[str, ...] = tuple(f"{BENCHMARK}/{task}/{base}" for base in MATH_BASES for task in MATH_TASKS)
"""``rulerv2/mk_niah_medium/gsm8k`` ...: the task names of rows with a math ``base``."""
CODE_TASK_NAMES: tuple[str, ...] = tuple(f"{BENCHMARK}/{task}/{base}" for base in CODE_BASES for task in MATH_TASKS)
"""``rulerv2/mk_niah_medium/mbpp`` ...: the task names of rows with a code ``base``."""
RULER_MATH_METRIC = (
    "RULERv2 multi-key NIAH over a math base task (Appendix D.2), NeMo-Skills math scoring: the last \\boxed{} "
    "compared with the reference answer by math_grader.math_equal (math-verify), 1 or 0"
)
RULER_CODE_METRIC = (
    "RULERv2 multi-key NIAH over MBPP (Appendix D.2): the last ```python block (NeMo-Skills preprocess_code) run "
    "with the problem's test setup and every test_list assert in a separate Python process, 1 if all pass, else 0"
)


def split_math_task(task: str) -> tuple[str, str | None]:
    """``("mk_niah_medium", "gsm8k")`` for ``rulerv2/mk_niah_medium/gsm8k`` (any base of :data:`SOLVE_BASES`),
    ``(name, None)`` without a base."""
    name = task.removeprefix(f"{BENCHMARK}/")
    head, _, base = name.rpartition("/")
    if head in MATH_TASKS and base in SOLVE_BASES:
        return head, base
    return name, None


def task_for_row(row: Mapping[str, Any]) -> str:
    """``rulerv2/{task}_{level}``, with ``/{base}`` for a multi-key row whose ``base`` column names another
    base task (``gsm8k``, ``math500``, ``mbpp``), so that re-scoring from the saved records knows the rule."""
    name = task_from_columns(BENCHMARK, row)
    base = row.get("base")
    task = name.removeprefix(f"{BENCHMARK}/")
    if base and base != "mmlu":
        if base not in SOLVE_BASES or task not in MATH_TASKS:
            raise SpecError(f"rulerv2 row {row.get('id')!r}: no math rule for task {task!r} with base {base!r}; "
                            f"base tasks {', '.join(SOLVE_BASES)} apply to {', '.join(MATH_TASKS)}")
        return f"{name}/{base}"
    return name


def domain_and_level(task: str) -> tuple[str, str] | None:
    """``("mk_niah", "easy")`` for ``mk_niah_easy``, ``rulerv2/mk_niah_easy`` or ``rulerv2/mk_niah_easy/gsm8k``;
    None for other names."""
    name = split_math_task(task)[0]
    if name not in RULES:
        return None
    domain, level = name.rsplit("_", 1)
    return domain, level


def depth_bin(depth_percent: float) -> int:
    """Lower edge of the 10%-wide depth bin (0, 10, ..., 90) holding ``depth_percent``."""
    return min(90, int(depth_percent // DEPTH_BIN_PERCENT) * DEPTH_BIN_PERCENT)


@dataclass(frozen=True)
class RulerTask:
    """One RULERv2 task: the row's prompt as one user turn, read and scored by its :class:`TaskRule`.

    Attributes:
        name: ``rulerv2/{domain}_{level}``, a key of :data:`RULES` after the prefix.
        options: Reasoning marker and answer-prefix placement.
    """

    name: str
    options: TaskOptions
    metric: str = field(init=False, default=RULER_METRIC)
    metadata_columns: tuple[str, ...] = ("length", "depth", "domain", "level")
    rule: TaskRule = field(init=False)
    domain: str = field(init=False)
    level: str = field(init=False)
    executes_code: bool = field(init=False, default=False)
    _executed: dict[tuple[str, tuple[str, ...]], Execution] = field(init=False, default_factory=dict, repr=False,
                                                                    compare=False)

    def __post_init__(self) -> None:
        parts = domain_and_level(self.name)
        if parts is None:
            raise SpecError(f"no RULERv2 task {self.name!r}; tasks: {', '.join(RULES)}")
        task, base = split_math_task(self.name)
        copy_metric = self.options.by_scoring(RULER_METRIC, RULER_LENIENT_METRIC)
        if base is None:
            rules, metric = self.options.by_scoring((RULES, RULER_METRIC), (LENIENT_RULES, RULER_LENIENT_METRIC))
        elif base in CODE_BASES and task != "mk_niah_easy":
            rules, metric = {task: TaskRule(code_block, self._tests_pass)}, RULER_CODE_METRIC
            object.__setattr__(self, "executes_code", True)
        else:
            rules = self.options.by_scoring(MATH_RULES, LENIENT_MATH_RULES)
            metric = RULER_MATH_METRIC if task != "mk_niah_easy" else copy_metric
        object.__setattr__(self, "rule", rules[task])
        object.__setattr__(self, "metric", metric)
        object.__setattr__(self, "domain", parts[0])
        object.__setattr__(self, "level", parts[1])

    def render(self, row: Mapping[str, Any]) -> tuple[Message, ...]:
        """The prompt as built; the answer prefix placed as :class:`TaskOptions` says.

        Moved or dropped, the prefix takes the whitespace before it along (the basic tasks' space,
        the newline of the others), which belongs to neither turn.
        """
        prompt, prefix = row["input"], row.get("answer_prefix") or ""
        if self.options.answer_prefix == "user" or not prefix:
            return ({"role": "user", "content": prompt},)
        if not prompt.endswith(prefix):
            raise ValueError(f"row {row['id']}: input does not end with its answer_prefix")
        question = prompt[: len(prompt) - len(prefix)].rstrip()
        if self.options.answer_prefix == "omit":
            return ({"role": "user", "content": question},)
        return ({"role": "user", "content": question}, {"role": "assistant", "content": prefix.strip()})

    def references(self, row: Mapping[str, Any]) -> list[str]:
        """The row's answers, as released (what each level's answers hold is in the module docstring); for a
        task that runs code, the problem's test program instead (setup code, then the ``test_list`` asserts)."""
        if self.executes_code:
            return [program_of_tests(row.get("test_setup_code") or "", row["test_list"])]
        return list(row["answers"])

    def metadata(self, row: Mapping[str, Any]) -> dict[str, Any]:
        """Target length (tokens; 0 for a golden-context row), depth bin, domain and level.

        The depth bin is given when exactly one needle answers the query and the row has a haystack
        (a golden-context row has none, so its needle's position means nothing).
        """
        needles = row.get("needles") or []
        has_depth = len(needles) == 1 and not row.get("golden")
        depth = depth_bin(float(needles[0]["depth_percent"])) if has_depth else None
        return {"length": int(row["target_tokens"]), "depth": depth, "domain": self.domain, "level": self.level}

    def extract(self, response: str) -> str:
        """This task's answer (:attr:`TaskRule.extract`) in the response after any reasoning.

        Officially a response without the thinking marker is not trimmed: ``eval_ruler2`` scores the
        generation as written, so a trailing blank line still closes a copied ``Document N:`` block
        ("part") and still opens an empty last paragraph ("2steps"). After a marker, NeMo-Skills'
        ``parse_reasoning`` strips the answer, and so does this. The lenient reading always trims.
        """
        after = self.options.by_scoring(self.options.after_reasoning, self.options.strip_reasoning)
        return self.rule.extract(after(response))

    def score(self, prediction: str, references: Sequence[str]) -> float:
        """The task's scorer (:attr:`TaskRule.score`) on the extracted prediction."""
        return self.rule.score(references, prediction)

    def execution(self, prediction: str, references: Sequence[str]) -> Execution:
        """The code ``prediction`` run against the test program (``references[0]``), once per pair
        (scoring and :meth:`secondary_scores` share the run).

        Raises:
            SpecError: Running code was not allowed (``TaskOptions.allow_code_execution``).
        """
        key = (prediction, tuple(references))
        if key not in self._executed:
            refuse_code_execution([self], self.options.allow_code_execution)
            self._executed.clear()
            self._executed[key] = run_solution(prediction, references[0], timeout_s=self.options.code_timeout_s)
        return self._executed[key]

    def _tests_pass(self, references: Sequence[str], prediction: str) -> float:
        """1.0 when every test passes (MBPP's protocol), else 0."""
        return 1.0 if self.execution(prediction, references).passed else 0.0

    def secondary_scores(self, prediction: str, references: Sequence[str]) -> dict[str, float]:
        """For a task that runs code, why the sample scored what it did: 1.0 for its outcome among
        :data:`eval.code_execution.OUTCOMES` (passed, no_code, syntax_error, assertion, error, timeout),
        0.0 for the others (their means are the outcome rates); nothing for the other tasks."""
        if not self.executes_code:
            return {}
        outcome = self.execution(prediction, references).outcome
        return {name: float(name == outcome) for name in OUTCOMES}
