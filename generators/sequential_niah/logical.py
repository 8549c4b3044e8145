"""Real-logical needles (paper §3.1.3): questions whose answers are ordered steps, items rephrased as needles.

The source is any set of questions with an ordered list of items (a procedure, a sequence of
stages). Inserting bare items would be abrupt, so each item becomes a needle that ties it to its
question ("Step 3 of the process to renew a passport: ...", "更换护照的流程第3步：..."); the paper
rewrites with GPT-4o, needlework with several deterministic phrasings per language. A question
either numbers its steps in every needle or in none (the model must then order them by their
logic), by :attr:`LogicalSpec.numbered_share`. Logical questions always ask for the items in order.

Distractors are steps of *other* questions, phrased as steps of those questions, so they resemble
needles but never belong to the answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple, Sequence

import numpy as np

from needlework.errors import SpecError
from generators.seeding import rng_for
from generators.sequential_niah.qa import SequentialQA
from generators.sequential_niah.spec import BENCHMARK, LANGS, NEEDLE_COUNT_RANGE

PIPELINE = "real-logical"


class OrderedQuestion(NamedTuple):
    """A question and its answer items in their required order, from any source.

    Attributes:
        key: Stable id within the source (a record id or index).
        lang: ``en`` or ``zh``.
        question: The question text.
        items: The ordered answer items.
        source: A label for the source (file name, ``world``).
        task: Optional noun phrase naming the procedure (``the renewal of a passport``,
            ``护照更换``); derived from the question when absent.
    """

    key: str
    lang: str
    question: str
    items: tuple[str, ...]
    source: str
    task: str | None = None


ORDER_WORDS: dict[str, re.Pattern[str]] = {
    "en": re.compile(r"\b(chronological(ly)?|in (the )?(right |correct )?order|in sequence|sequential(ly)?|step[- ]by[- ]step"
                     r"|by date|in date order|order (in which )?they happened)\b", re.IGNORECASE),
    "zh": re.compile(r"顺序|按日期|按时间|先后|依次|逐步"),
}
"""Wording that asks for ordered output (the paper's 'w/ order' questions)."""

ORDER_SUFFIX: dict[str, str] = {"en": " List them in order.", "zh": "请按顺序列出。"}
"""Appended to a logical question that does not already ask for order."""

NEEDLES: dict[str, dict[bool, tuple[str, ...]]] = {
    "en": {
        True: (
            "Step {n} of {task}: {item}",
            "The {ordinal} step in {task} is this: {item}",
            "In {task}, step {n} is: {item}",
            "{Ordinal}, as part of {task}: {item}",
            "Regarding {task}, step number {n}: {item}",
        ),
        False: (
            "One step in {task}: {item}",
            "Part of {task}: {item}",
            "A note on {task}: {item}",
            "As part of {task}, remember this: {item}",
        ),
    },
    "zh": {
        True: (
            "{task}第{n}步：{item}",
            "{task}中的第{n}步是：{item}",
            "关于{task}，第{n}步：{item}",
            "在{task}中，第{cn}步需要：{item}",
        ),
        False: (
            "{task}中的一步：{item}",
            "关于{task}，有这样一步：{item}",
            "{task}中需要做的一件事：{item}",
        ),
    },
}
"""Needle phrasings by language and whether they number the step: ``{task}`` the procedure,
``{n}`` the step number, ``{ordinal}``/``{Ordinal}`` its English word, ``{cn}`` its Chinese numeral."""

REFERENCE_HEAD: dict[str, str] = {"en": "The steps, in order:", "zh": "步骤按顺序如下："}

_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
             "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth", "seventeenth",
             "eighteenth", "nineteenth", "twentieth")
_CN_DIGITS = "零一二三四五六七八九"

_EN_TASK = (
    re.compile(r"^how to (?P<v>.+)$", re.IGNORECASE),
    re.compile(r"^how (?:do|can|should|would|could|does|must|might) (?:i|you|we|one|they|people|someone|a person|he|she|it) "
               r"(?P<v>.+)$", re.IGNORECASE),
    re.compile(r"^what (?:are|were|is) the (?:main |basic |key |necessary |required |correct )?"
               r"(?:steps|procedures?|process|stages|phases) (?:(?:needed|required|involved) )?(?P<prep>to|for|of|in) (?P<v>.+)$",
               re.IGNORECASE),
)
_ZH_TASK = (
    re.compile(r"^(?:请问)?(?:如何|怎样|怎么样|怎么)(?P<v>.+)$"),
    re.compile(r"^(?:请问)?(?P<v>.+?)的?(?:具体|主要|基本)?(?:步骤|流程|过程|程序)(?:是什么|有哪些|是怎样的|是怎么样的|如何)$"),
    re.compile(r"^(?:请问)?(?P<v>.+?)需要(?:哪些|什么)(?:步骤|流程)$"),
)


@dataclass(frozen=True)
class LogicalSpec:
    """How to turn ordered questions into real-logical QAs.

    Attributes:
        min_needles: Questions with fewer items are skipped (the paper: 3).
        max_needles: Questions with more items are skipped (the paper: 15).
        distractors: Steps of other questions per question.
        numbered_share: Share of questions whose needles state their step numbers.
    """

    min_needles: int = NEEDLE_COUNT_RANGE[PIPELINE][0]
    max_needles: int = NEEDLE_COUNT_RANGE[PIPELINE][1]
    distractors: int = 2
    numbered_share: float = 0.5

    def __post_init__(self) -> None:
        if not 2 <= self.min_needles <= self.max_needles <= len(_ORDINALS):
            raise SpecError(f"need 2 <= min_needles <= max_needles <= {len(_ORDINALS)}, got {self.min_needles} and {self.max_needles}")
        if self.distractors < 0:
            raise SpecError(f"distractors must be >= 0, got {self.distractors}")
        if not 0.0 <= self.numbered_share <= 1.0:
            raise SpecError(f"numbered_share must be in [0, 1], got {self.numbered_share}")


def asks_for_order(question: str, lang: str) -> bool:
    """Whether a question asks for its items in order (chronological, step by step, 按时间顺序 ...)."""
    return bool(ORDER_WORDS[lang].search(question))


def chinese_numeral(n: int) -> str:
    """``1`` -> ``一``, ``10`` -> ``十``, ``15`` -> ``十五``, ``20`` -> ``二十`` (1 to 99)."""
    tens, ones = divmod(n, 10)
    head = "" if tens == 0 else ("十" if tens == 1 else _CN_DIGITS[tens] + "十")
    return head + (_CN_DIGITS[ones] if ones else "")


def task_phrase(question: str, lang: str) -> str:
    """A noun phrase naming the procedure a question asks about, for needles ("the process to renew a passport").

    How-to questions give ``the process to <verb phrase>`` (``<verb phrase>的流程``); any other
    question gives ``the answer to “<question>”`` (``问题“<question>”的解答``).
    """
    text = question.strip().rstrip("?？.。!！ ")
    if lang == "en":
        for pattern in _EN_TASK:
            match = pattern.match(text)
            if match:
                prep = match.groupdict().get("prep") or "to"
                return f"the process {'of' if prep == 'in' else prep.lower()} {match['v']}"
        return f"the answer to \u201c{question.strip()}\u201d"
    for pattern in _ZH_TASK:
        match = pattern.match(text)
        if match and match["v"].strip():
            return f"{match['v'].strip()}的流程"
    return f"问题\u201c{question.strip()}\u201d的解答"


def render_step(task: str, item: str, n: int, lang: str, numbered: bool, rng: np.random.Generator) -> str:
    """One needle: step ``n`` (1-based) of ``task`` stating ``item``, in a drawn phrasing."""
    templates = NEEDLES[lang][numbered]
    ordinal_word = _ORDINALS[n - 1]
    text = templates[int(rng.integers(len(templates)))].format(
        task=task, item=item, n=n, ordinal=ordinal_word, Ordinal=ordinal_word.capitalize(), cn=chinese_numeral(n))
    return text[:1].upper() + text[1:]


def clean_items(items: Sequence[str]) -> tuple[str, ...]:
    """Items stripped, empty ones dropped, repeats dropped (first kept)."""
    return tuple(dict.fromkeys(i.strip() for i in items if i and i.strip()))


def eligible(question: OrderedQuestion, spec: LogicalSpec) -> bool:
    """Whether a question becomes a QA: a known language and ``min..max`` distinct items."""
    return question.lang in LANGS and spec.min_needles <= len(clean_items(question.items)) <= spec.max_needles


def logical_qa(question: OrderedQuestion, others: Sequence[OrderedQuestion], spec: LogicalSpec, *, seed: int) -> SequentialQA:
    """The real-logical QA of one eligible question; ``others`` (same language) supply distractors."""
    lang = question.lang
    rng = rng_for(seed, BENCHMARK, PIPELINE, f"{lang}/{question.source}/{question.key}")
    items = clean_items(question.items)
    task = question.task or task_phrase(question.question, lang)
    numbered = bool(rng.random() < spec.numbered_share)
    needles = tuple(render_step(task, item, n, lang, numbered, rng) for n, item in enumerate(items, start=1))
    text = question.question.strip()
    if not asks_for_order(text, lang):
        text += ORDER_SUFFIX[lang]
    reference = "\n".join([REFERENCE_HEAD[lang], *(f"- {i}" for i in items)])
    distractors = _distractors(question, items, needles, others, spec, numbered, rng)
    return SequentialQA(f"{PIPELINE}/{lang}/{question.source}/{question.key}", lang, PIPELINE, text, items, needles,
                        True, reference, distractors, question.source, subject=task)


def _distractors(question: OrderedQuestion, items: tuple[str, ...], needles: tuple[str, ...],
                 others: Sequence[OrderedQuestion], spec: LogicalSpec, numbered: bool,
                 rng: np.random.Generator) -> tuple[str, ...]:
    pool = [o for o in others if o.lang == question.lang and (o.source, o.key) != (question.source, question.key)
            and o.question.strip() != question.question.strip()]
    out: list[str] = []
    for _ in range(4 * spec.distractors):
        if len(out) == spec.distractors or not pool:
            break
        other = pool[int(rng.integers(len(pool)))]
        other_items = clean_items(other.items)
        if not other_items:
            continue
        n = int(rng.integers(len(other_items)))
        if other_items[n] in items:
            continue
        task = other.task or task_phrase(other.question, other.lang)
        text = render_step(task, other_items[n], min(n + 1, len(_ORDINALS)), question.lang, numbered, rng)
        if text not in out and text not in needles:
            out.append(text)
    return tuple(out)


def logical_qas(questions: Sequence[OrderedQuestion], spec: LogicalSpec, *, seed: int) -> list[SequentialQA]:
    """Real-logical QAs of every eligible question, in input order (see :func:`eligible`).

    Args:
        questions: Ordered questions, any languages; distractors come from the same language.
        spec: Needle-count bounds, distractors, numbering.
        seed: Build seed; a QA depends on (seed, language, source, key), its question and the pool.
    """
    kept = [q for q in questions if eligible(q, spec)]
    by_lang = {lang: [q for q in kept if q.lang == lang] for lang in LANGS}
    return [logical_qa(q, by_lang[q.lang], spec, seed=seed) for q in kept]
