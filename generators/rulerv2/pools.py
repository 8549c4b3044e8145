"""The base tasks RULERv2 hides in its contexts, as plain in-memory tables.

Multi-key and multi-value NIAH (easy to hard) hide multiple-choice questions (MMLU in the paper;
any source with the same columns, or the synthetic world's); multi-doc QA hides the gold documents
of a question among distractor documents (HotpotQA in the paper, or the world's articles and
questions). Builders read real sources into these tables; generators only read the tables.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

from needlework.checks import require_one_of
from needlework.errors import SpecError

LETTERS = ("A", "B", "C", "D")


@dataclass(frozen=True)
class Mcq:
    """One multiple-choice question with four options.

    Attributes:
        qid: Stable id within its source, e.g. ``mmlu/test/astronomy/0007``.
        question: The question stem as its source gives it (spaces around it kept: the ``paper``
            preset renders them as the official script does, :meth:`official_text`).
        choices: The four options, in order A to D, as given.
        answer: The correct letter, ``A`` to ``D``.
        subject: MMLU subject or another grouping (few-shot demonstrations prefer the same one).
    """

    qid: str
    question: str
    choices: tuple[str, str, str, str]
    answer: str
    subject: str = ""

    def __post_init__(self) -> None:
        if len(self.choices) != 4:
            raise SpecError(f"{self.qid}: a question needs 4 choices, got {len(self.choices)}")
        require_one_of(f"{self.qid}: answer", self.answer, LETTERS)

    def render(self) -> str:
        """The question as it appears after ``Question {index}:``: the stem, then one line per choice,
        each stripped."""
        lines = [self.question.strip()] + [f"{letter}. {choice.strip()}" for letter, choice in zip(LETTERS, self.choices)]
        return "\n".join(lines)

    def official_text(self) -> str:
        """The question as NeMo-Skills' ``ruler2/prepare_mmlu.py`` hides it: the stem and ``\\nA. <choice>``
        lines as given, every whitespace run then made one space (``re.sub(r"\\s+", " ", ...)``), so a
        stem's leading space or the last choice's trailing space stays, as one space."""
        lines = [self.question] + [f"{letter}. {choice}" for letter, choice in zip(LETTERS, self.choices)]
        return re.sub(r"\s+", " ", "\n".join(lines))


@dataclass(frozen=True)
class McqPool:
    """The questions of a multiple-choice source.

    Attributes:
        name: Source name recorded in each row (``mmlu``, ``world``, or a file's name).
        questions: Questions hidden as needles and distractors (MMLU's test split).
        shots: Questions used as few-shot demonstrations (MMLU's dev split); never needles.
        distractors: Questions that fill the context instead of ``questions`` when given (the
            ``paper`` preset: MMLU ``auxiliary_train``, as ``prepare_mmlu.py``'s haystack); empty
            means the other ``questions`` are the distractors.
    """

    name: str
    questions: tuple[Mcq, ...]
    shots: tuple[Mcq, ...] = ()
    distractors: tuple[Mcq, ...] = ()

    def __post_init__(self) -> None:
        if not self.questions:
            raise SpecError(f"{self.name}: the question pool is empty")


@dataclass(frozen=True)
class Problem:
    """One problem of a base task solved in place of an MMLU question (RULERv2 Appendix D.2): a math
    word problem with a reference answer (GSM8K, MATH-500), or a programming problem with its tests (MBPP).

    Attributes:
        qid: Stable id within its source, e.g. ``gsm8k/test/0007``, ``math500/test/algebra/1.json`` or ``mbpp/11``.
        question: The problem as it is hidden, stripped (MBPP: its description and first test, see
            :mod:`builders.sources.mbpp`).
        answer: The reference answer as the source states it (GSM8K: the number after ``####``,
            commas removed; MATH-500: the ``answer`` field, LaTeX; MBPP: the reference code, shown
            only when the problem is a demonstration).
        subject: MATH's subject, or "" (few-shot demonstrations prefer the same one).
        solution: The worked solution, kept for reference; never shown in a prompt.
        tests: The tests a solution must pass (MBPP ``test_list``: one ``assert`` each); empty for math.
        test_setup: Code run before the tests (MBPP ``test_setup_code`` or the sanitized ``test_imports``).
    """

    qid: str
    question: str
    answer: str
    subject: str = ""
    solution: str = ""
    tests: tuple[str, ...] = ()
    test_setup: str = ""

    def __post_init__(self) -> None:
        if not self.answer.strip():
            raise SpecError(f"{self.qid}: a problem needs a reference answer")

    def render(self) -> str:
        """The problem as it appears after ``Question {index}:``: its text alone."""
        return self.question


@dataclass(frozen=True)
class ProblemPool:
    """The problems of a base task that replaces MMLU in multi-key NIAH (RULERv2 Appendix D.2).

    Shaped like :class:`McqPool` (the item tasks read ``questions``, ``shots`` and ``distractors`` the
    same way), with the base task's name in :attr:`base` so that prompts and rows say how to answer.

    Attributes:
        name: Source name recorded in each row: ``gsm8k``, ``math500`` or ``mbpp``.
        questions: Problems hidden as needles and distractors (the test split).
        shots: Problems used as few-shot demonstrations (GSM8K's train split, MBPP's prompt split);
            empty means the demonstrations are other problems of :attr:`questions` (MATH-500 has
            only a test split).
        distractors: Always empty (the ``paper`` preset's separate distractors are MMLU's).
    """

    name: str
    questions: tuple[Problem, ...]
    shots: tuple[Problem, ...] = ()
    distractors: tuple[Problem, ...] = ()

    def __post_init__(self) -> None:
        if not self.questions:
            raise SpecError(f"{self.name}: the problem pool is empty")

    @property
    def base(self) -> str:
        """The base task: the pool's name (``gsm8k``, ``math500`` or ``mbpp``)."""
        return self.name

    @cached_property
    def _by_qid(self) -> dict[str, Problem]:
        return {q.qid: q for q in self.questions}

    def problem(self, qid: str) -> Problem:
        """The hidden problem whose id is ``qid`` (a row's ``qid``)."""
        try:
            return self._by_qid[qid]
        except KeyError:
            raise SpecError(f"{self.name}: no problem {qid!r}") from None


@dataclass(frozen=True)
class Document:
    """One document of a multi-doc QA pool (a HotpotQA paragraph, a world article)."""

    title: str
    text: str

    def render(self) -> str:
        """The document as it appears after ``Document {index}:``: the title line, then the text."""
        return f"{self.title}\n{self.text}"


@dataclass(frozen=True)
class DocQuestion:
    """A question answered by some documents of its pool.

    Attributes:
        qid: Stable id in the source (HotpotQA ``_id``, world ``qid``).
        question: The question text.
        answers: Accepted answers (the first is the canonical one).
        gold: Indices into :attr:`DocQaPool.documents` of the supporting documents.
        distractors: Indices of the question's own distractors (HotpotQA's distractor-setting
            paragraphs), preferred over random documents when filling the context.
        context_order: The question's own documents (gold and distractors) in the source's context
            order, when known; the ``paper`` preset's basic level queries the first gold in this
            order (``prepare_qa.py``: ``curr_needle["context"][0]``).
    """

    qid: str
    question: str
    answers: tuple[str, ...]
    gold: tuple[int, ...]
    distractors: tuple[int, ...] = ()
    context_order: tuple[int, ...] = ()

    def first_gold(self) -> int:
        """The first gold document in context order (``gold[0]`` when the order is unknown)."""
        return next((i for i in self.context_order if i in self.gold), self.gold[0])


@dataclass(frozen=True)
class DocQaPool:
    """Documents (unique by title) and the questions over them.

    ``filler`` lists the documents that may fill a context at random; empty means all of them. The
    ``paper`` preset fills from HotpotQA train paragraphs only (``prepare_qa.py``'s haystack).
    """

    name: str
    documents: tuple[Document, ...]
    questions: tuple[DocQuestion, ...]
    filler: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if not self.questions:
            raise SpecError(f"{self.name}: no questions")
        n = len(self.documents)
        for q in self.questions:
            if not q.gold or not q.answers:
                raise SpecError(f"{self.name}: question {q.qid} needs gold documents and answers")
            bad = [i for i in (*q.gold, *q.distractors) if not 0 <= i < n]
            if bad:
                raise SpecError(f"{self.name}: question {q.qid} points at documents {bad} outside 0..{n - 1}")
            if set(q.gold) & set(q.distractors):
                raise SpecError(f"{self.name}: question {q.qid} lists a gold document as a distractor")
