r"""HaystackCraft static NIAH: read "The correct answer is ..." and score it with MuSiQue's F1.

A static NIAH row (paper §3.1, Appendix B) holds the full prompt in ``input``: the ordered
haystack, the question, and the instruction ``Format your response as follows: "The correct
answer is (insert answer here)".`` The task sends it as one user turn, reads the answer and scores
it with :func:`eval.scoring.max_f1` (paper §4.1: "Following the practice of MuSiQue, we use the
F1 score"). Exact match (:func:`eval.scoring.exact_match`) is reported alongside as a secondary
score (:meth:`HaystackCraftTask.secondary_scores`).

Two readings of the answer (``--scoring``):

- ``official`` (the default): :func:`official_extract_answer`, the reading of the authors' code
  (Graph-COM/HaystackCraft ``utils/llm.py`` ``extract_answer``): the text after the first
  "The correct answer is" its patterns find; a response without the phrase has no answer and
  scores 0, as ``eval.py`` ``eval_f1`` counts it. The official score of a run is

      F1 = (1 / |Q|) * sum over q of [pred_q found] * max over g in {answer_q} ∪ aliases_q of F1_tok(pred_q, g)

  with ``F1_tok`` the SQuAD v1.1 token F1 on normalized text (MuSiQue ``metrics/answer.py``, which
  ``eval.py`` reproduces), i.e. :func:`eval.scoring.max_f1` on the extracted answer, "" when none.
- ``lenient``: :func:`extract_answer`, needlework's reading (last occurrence, other markers, the
  last line as a fall-back), which raises small models' F1 and is not comparable with the paper.

Rows carry no ``task`` column: :func:`task_for_row` recognises a static row of a release whose
manifest names the benchmark ``haystackcraft`` by its ``input``, ``strategy``, ``ordering`` and
``size`` columns.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from eval.scoring import exact_match, max_f1
from eval.task import TaskOptions
from generators.haystackcraft.spec import BENCHMARK, ORDERINGS, RANDOM_PREFIX
from generators.strategies import RETRIEVERS
from needlework.backends.base import Message
from needlework.checks import require_one_of
from needlework.errors import SpecError

STATIC = f"{BENCHMARK}/static"
TASK_NAMES: tuple[str, ...] = (STATIC,)
"""The registered HaystackCraft tasks (dynamic NIAH is not an eval task yet)."""
STATIC_COLUMNS: tuple[str, ...] = ("input", "strategy", "ordering", "size")
"""Columns that make a haystackcraft row a static NIAH row (the materialized ``static-<ordering>`` configs)."""
HAYSTACKCRAFT_METRIC = (
    "HaystackCraft static NIAH, official scoring (paper §4.1; Graph-COM/HaystackCraft utils/llm.py extract_answer "
    "and eval.py eval_f1): token F1 of the answer after the first \"The correct answer is\" against the answer and "
    "each alias, the best one (SQuAD v1.1 normalization, as MuSiQue's evaluation uses); a response without the phrase "
    "scores 0; exact match is reported alongside in the haystackcraft block"
)
HAYSTACKCRAFT_LENIENT_METRIC = (
    "HaystackCraft static NIAH, lenient scoring (needlework's reading, not comparable with the paper): token F1 of the "
    "answer read after the last \"correct answer is\" (then \"answer is\", \"Answer:\", then the last line) against "
    "the answer and each alias, the best one (SQuAD v1.1 normalization); exact match is reported alongside"
)
PLACEHOLDER = "insert answer here"
"""The prompt's placeholder: a model that only repeats the format instruction has not answered."""

# Tried in this order; within a marker the last occurrence wins (a model may revise its answer).
ANSWER_MARKERS: tuple[re.Pattern[str], ...] = (
    re.compile(r"correct answer is", re.IGNORECASE),
    re.compile(r"\banswer is\b", re.IGNORECASE),
    re.compile(r"\banswer\s*:", re.IGNORECASE),
)
_BRACKETS = {"(": ")", "[": "]", "{": "}"}
_QUOTES = {'"': '"', "'": "'", "`": "`", "\u201c": "\u201d", "\u2018": "\u2019", "*": "*", "_": "_"}
_TRAILING = ".,;:!"
_LATEX_WRAPPER = re.compile(r"\\(?:boxed|text|textbf|mathrm)\s*\{(.*)\}", re.DOTALL)
# A sentence ends at . ! or ? followed by a space and a capital letter; the word before a period
# must not be an initial ("J."), hold an inner period ("D.C.") or be a common abbreviation ("St.").
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
_ABBREVIATIONS = frozenset({"st", "mt", "ft", "mr", "mrs", "ms", "dr", "jr", "sr", "co", "inc", "ltd",
                            "vs", "gen", "col", "lt", "sgt", "capt", "rev", "prof", "sen", "rep", "gov", "ave"})


def extract_answer(response: str) -> str:
    r"""The answer in a response to the Appendix B prompt (reasoning already removed).

    Rules, in order:

    1. Markdown bold markers ``**`` are removed everywhere, so ``The **correct answer** is`` and
       ``**Answer:** Paris`` still match.
    2. The answer follows the last occurrence of a marker, trying the markers in turn
       (case-insensitive): ``correct answer is``, then ``answer is`` (``the answer is``, ``the final
       answer is``), then ``answer:`` (``Answer:``, ``Final answer:``). Within one marker the last
       occurrence wins: a model that revises ("the correct answer is X... no, the correct answer is
       Y") is read at its final statement.
    3. From the marker: a leading colon is dropped and the text is cut at the first line break; when
       nothing is left on the marker's line (``The correct answer is:\nParis``), the next non-empty
       line is the answer.
    4. The text is cut at the first sentence end: ``.``, ``!`` or ``?`` followed by a space and a
       capital letter (``Paris. The article says ...`` reads ``Paris``), except after an initial,
       a word with an inner period or a common abbreviation (``J. R. R. Tolkien``, ``D.C. United``
       and ``St. Louis`` stay whole).
    5. Cleaning, repeated until nothing changes: surrounding whitespace; trailing ``.,;:!``; a
       wrapping pair of brackets ``()``, ``[]``, ``{}`` that encloses the whole answer (the
       prompt's ``(insert answer here)`` kept as ``(Paris)``; ``(a) or (b)`` is not a pair);
       a wrapping pair of quotes or emphasis marks (``"``, ``'``, backticks, curly quotes,
       ``*``, ``_``); a ``\boxed{}``, ``\text{}``, ``\textbf{}`` or ``\mathrm{}`` wrapper; an
       opening bracket or quote never closed, or a closing one never opened (a cut-off
       ``(Paris`` reads ``Paris``).
    6. An answer that is empty, or holds the prompt's placeholder ``insert answer here`` (a model
       restating the format), does not count: the previous occurrence of the marker is tried, then
       the next marker.
    7. Without any usable marker, the answer is the last non-empty line, cleaned as in 5.

    An empty response reads "" (F1 0). The paper's own extractor cuts at the first period and
    gives no answer without the marker; these rules keep initials and numbers such as ``3.5``
    whole and give a model that skipped the format its last line.

    Args:
        response: The model's response after :meth:`eval.task.TaskOptions.strip_reasoning`.

    Returns:
        The extracted answer, possibly "".
    """
    text = response.replace("**", "")
    for marker in ANSWER_MARKERS:
        for found in reversed(list(marker.finditer(text))):
            answer = _answer_after(text[found.end():])
            if answer and PLACEHOLDER not in answer.lower():
                return answer
    lines = [line for line in text.splitlines() if line.strip()]
    return clean_answer(lines[-1]) if lines else ""


_OFFICIAL_MARKER = r"The correct answer is\s*:?\s+"
_OFFICIAL_PAREN = re.compile(_OFFICIAL_MARKER + r"\(([^)]+)\)", re.IGNORECASE)
_OFFICIAL_QUOTED = re.compile(_OFFICIAL_MARKER + r'"([^"]+)"', re.IGNORECASE)
_OFFICIAL_BARE = re.compile(_OFFICIAL_MARKER + r'([^(^"].*?)(?:\.|$|\n)', re.IGNORECASE)
_OFFICIAL_OPEN_PAREN = re.compile(_OFFICIAL_MARKER + r"\((.+)", re.IGNORECASE)
_OFFICIAL_OPEN_QUOTE = re.compile(_OFFICIAL_MARKER + r'"(.+)', re.IGNORECASE)
_OFFICIAL_TO_STOP = re.compile(_OFFICIAL_MARKER + r"(.+?)(?:\.|$|\n)", re.IGNORECASE)
_OFFICIAL_TO_END = re.compile(_OFFICIAL_MARKER + r"(.+)", re.IGNORECASE)


def official_extract_answer(response: str) -> str:
    r"""The answer as the authors' code reads it (Graph-COM/HaystackCraft ``utils/llm.py`` ``extract_answer``).

    Every ``*`` is removed and the response stripped. Then, case-insensitively, with ``M`` =
    ``The correct answer is`` followed by optional whitespace, an optional colon and at least one
    whitespace character, the first of these that matches wins, each at its FIRST occurrence in the
    response:

    1. ``M(answer)``: the text inside the parentheses;
    2. ``M"answer"``: the text inside the quotes;
    3. ``M`` then text not starting with ``(``, ``^`` or ``"``, up to the first period or line
       end (``J. R. R. Tolkien`` reads ``J``), if non-empty after stripping;
    4. ``M(answer...`` never closed: the rest, trailing periods stripped;
    5. ``M"answer...`` never closed: the rest, trailing quotes and periods stripped;
    6. ``M`` then anything up to the first period or line end, an unpaired leading ``(`` or ``"``
       dropped, if non-empty; then ``M`` then the rest of the response, cleaned the same way.

    A response with no ``M`` has no answer: "" here, which scores 0 (``eval.py`` counts a missing
    prediction as 0 F1). So "The correct answer is Paris. No, the correct answer is Lyon." reads
    ``Paris`` (the lenient :func:`extract_answer` reads ``Lyon``), and "Answer: Paris" reads "".

    Args:
        response: The model's response after :meth:`eval.task.TaskOptions.strip_reasoning`.

    Returns:
        The extracted answer, "" when there is none.
    """
    return official_answer_or_none(response) or ""


def official_answer_or_none(response: str) -> str | None:
    """:func:`official_extract_answer` as the authors' ``extract_answer`` returns it: ``None`` when no rule
    matched, else the match, which rules 1, 2, 4 and 5 may leave empty ("The correct answer is ( )."). The
    authors' ``infer_variable.py`` stops a variable round early whenever that is not ``None``, empty or not."""
    text = response.replace("*", "").strip()
    for pattern in (_OFFICIAL_PAREN, _OFFICIAL_QUOTED):
        found = pattern.search(text)
        if found:
            return found.group(1).strip()
    found = _OFFICIAL_BARE.search(text)
    if found and found.group(1).strip():
        return found.group(1).strip()
    found = _OFFICIAL_OPEN_PAREN.search(text)
    if found:
        return found.group(1).strip().rstrip(".").strip()
    found = _OFFICIAL_OPEN_QUOTE.search(text)
    if found:
        return found.group(1).strip().rstrip('"').rstrip(".").strip()
    for pattern in (_OFFICIAL_TO_STOP, _OFFICIAL_TO_END):
        found = pattern.search(text)
        if found:
            answer = _drop_unpaired_opening(found.group(1).strip())
            if answer:
                return answer
    return None


def _drop_unpaired_opening(answer: str) -> str:
    """Rule 6 of :func:`official_extract_answer`: a leading ``(`` or ``"`` dropped (patterns 1 and 2
    found no closed pair when this runs)."""
    if answer.startswith("("):
        return answer.lstrip("(").strip()
    if answer.startswith('"'):
        return answer.lstrip('"').strip()
    return answer


def _answer_after(rest: str) -> str:
    """Rules 3-5 on the text after a marker."""
    lines = rest.split("\n")
    first = lines[0].strip().lstrip(":").strip()
    if not first:
        first = next((line.strip() for line in lines[1:] if line.strip()), "")
    return clean_answer(first_sentence(first))


def first_sentence(text: str) -> str:
    """``text`` up to its first sentence end (rule 4 of :func:`extract_answer`)."""
    for boundary in _SENTENCE_END.finditer(text):
        before = text[: boundary.start()]
        word = before.rstrip(".!?").rsplit(None, 1)[-1] if before.rstrip(".!?").split() else ""
        if before.endswith(".") and (len(word) <= 1 or "." in word or word.lower() in _ABBREVIATIONS):
            continue
        return before
    return text


def clean_answer(text: str) -> str:
    """Strip wrappers and trailing punctuation from an extracted answer (rule 5 of :func:`extract_answer`)."""
    previous = None
    while text != previous:
        previous = text
        text = text.strip().rstrip(_TRAILING).strip()
        latex = _LATEX_WRAPPER.fullmatch(text)
        if latex:
            text = latex.group(1)
            continue
        if len(text) >= 2 and text[0] in _BRACKETS and _encloses(text, text[0], _BRACKETS[text[0]]):
            text = text[1:-1]
            continue
        if len(text) >= 2 and text[0] in _QUOTES and text[-1] == _QUOTES[text[0]]:
            text = text[1:-1]
            continue
        text = _drop_unpaired(text)
    return text


def _encloses(text: str, opening: str, closing: str) -> bool:
    """Whether the bracket at ``text[0]`` closes at ``text[-1]`` (and not before)."""
    depth = 0
    for position, char in enumerate(text):
        depth += (char == opening) - (char == closing)
        if depth == 0:
            return position == len(text) - 1
    return False


def _drop_unpaired(text: str) -> str:
    """Drop an opening bracket or quote at the start never closed, and a closing one at the end never opened."""
    if text and text[0] in _BRACKETS and _BRACKETS[text[0]] not in text:
        return text[1:]
    closers = {close: open_ for open_, close in _BRACKETS.items()}
    if text and text[-1] in closers and closers[text[-1]] not in text:
        return text[:-1]
    if text and text[0] in _QUOTES and text[0] not in "'_" and _QUOTES[text[0]] not in text[1:]:
        return text[1:]
    quote_openers = {close: open_ for open_, close in _QUOTES.items()}
    if text and text[-1] in quote_openers and text[-1] not in "'_" and quote_openers[text[-1]] not in text[:-1]:
        return text[:-1]
    return text


def task_for_row(row: Mapping[str, Any]) -> str:
    """The eval task of a haystackcraft row that has no ``task`` column: static NIAH when it has
    :data:`STATIC_COLUMNS` (a materialized ``static-<ordering>`` config).

    Raises:
        SpecError: The row lacks one of those columns (a ``corpus``, ``qa`` or doc-id haystack config).
    """
    missing = [column for column in STATIC_COLUMNS if column not in row]
    if missing:
        raise SpecError(f"{BENCHMARK} row {row.get('id')!r} is not a static NIAH row (no {', '.join(missing)} "
                        "column); run the materialized static-<ordering> configs")
    return STATIC


def split_strategy(strategy: str) -> tuple[str, bool]:
    """``"dense+ppr"`` -> ``("dense", True)``; ``"bm25"`` -> ``("bm25", False)``."""
    base, _, rerank = strategy.partition("+")
    return base, rerank == "ppr"


def strategy_order(strategy: str) -> tuple[int, int, str]:
    """Sort key of a strategy: without PPR first, then base retrievers in the order of
    :data:`generators.strategies.RETRIEVERS` (the paper's: sparse, dense, hybrid)."""
    base, ppr = split_strategy(strategy)
    return (int(ppr), RETRIEVERS.index(base) if base in RETRIEVERS else len(RETRIEVERS), strategy)


def ordering_order(ordering: str) -> tuple[int, str]:
    """Sort key of an ordering: :data:`generators.haystackcraft.spec.ORDERINGS` order (the report's; the three
    ``random-k`` are averaged as the paper's Appendix N), unknown ones last by name."""
    return (ORDERINGS.index(ordering) if ordering in ORDERINGS else len(ORDERINGS), ordering)


def is_random(ordering: str) -> bool:
    """Whether an ordering is one of the seeded random permutations: ``random-<k>`` (``random-0``, ``random-1``...)."""
    return ordering.startswith(RANDOM_PREFIX) and ordering.removeprefix(RANDOM_PREFIX).isdigit()


@dataclass(frozen=True)
class HaystackCraftTask:
    """Static NIAH: the Appendix B prompt as one user turn, answer read by :func:`official_extract_answer`
    (``--scoring official``, the default) or :func:`extract_answer` (``--scoring lenient``), F1 scored.

    Attributes:
        name: ``haystackcraft/static``.
        options: Reasoning marker and scoring (static rows have no answer prefix).
    """

    name: str
    options: TaskOptions
    metric: str = field(init=False, default=HAYSTACKCRAFT_METRIC)
    metadata_columns: tuple[str, ...] = ("strategy", "retriever", "ppr", "ordering", "size", "hops", "qid", "source")
    reader: Callable[[str], str] = field(init=False, default=official_extract_answer)

    def __post_init__(self) -> None:
        require_one_of("HaystackCraft task", self.name, TASK_NAMES)
        reader, metric = self.options.by_scoring((official_extract_answer, HAYSTACKCRAFT_METRIC),
                                                 (extract_answer, HAYSTACKCRAFT_LENIENT_METRIC))
        object.__setattr__(self, "reader", reader)
        object.__setattr__(self, "metric", metric)

    def render(self, row: Mapping[str, Any]) -> tuple[Message, ...]:
        """The row's ``input`` (the full Appendix B prompt) as one user turn."""
        return ({"role": "user", "content": row["input"]},)

    def references(self, row: Mapping[str, Any]) -> list[str]:
        """The row's ``answers``: the answer, then its aliases."""
        return list(row["answers"])

    def metadata(self, row: Mapping[str, Any]) -> dict[str, Any]:
        """Retrieval strategy, its base retriever and PPR flag, ordering, context size (target haystack
        tokens; 0 = needles only), hop count, question id and QA source."""
        return {
            "strategy": str(row["strategy"]),
            "retriever": str(row["retriever"]),
            "ppr": bool(row["ppr"]),
            "ordering": str(row["ordering"]),
            "size": int(row["size"]),
            "hops": int(row["hops"]),
            "qid": str(row["qid"]),
            "source": str(row["source"]),
        }

    def extract(self, response: str) -> str:
        """The scoring's reader (:func:`official_extract_answer` or :func:`extract_answer`) on the
        response after any reasoning."""
        return self.reader(self.options.strip_reasoning(response))

    def score(self, prediction: str, references: Sequence[str]) -> float:
        """MuSiQue's F1 (:func:`eval.scoring.max_f1`): the best token F1 over the answer and aliases."""
        return max_f1(prediction, references)

    def secondary_scores(self, prediction: str, references: Sequence[str]) -> dict[str, float]:
        """Scores reported beside F1: ``{"em": exact match against the answer or an alias}``."""
        return {"em": exact_match(prediction, references)}
