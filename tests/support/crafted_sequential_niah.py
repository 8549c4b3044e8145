"""Crafted answers to Sequential-NIAH questions, labelled by the paper's rule, for the scorer's differential test.

The paper labels an answer by its items (§4, Appendix A; Figure 3's four groups): the reference items, all
of them and nothing else, are correct; missing items, redundant items and incorrect items (a wrong item in
place of a right one) are wrong; shuffled items are wrong only where the question asks for order. No code of
the authors' applies this rule (their judge data came from GPT-4o and a fine-tuned judge), so the label of a
crafted answer is the rule applied to how the answer was made.

:func:`crafted_answers` makes, per question, answers in six classes:

- ``reference-worded``: the reference items in order;
- ``needle-worded``: the needles in answer order, as a model that copies from the document writes them
  (their own date formats, step numbers and frames; multi-line needles with their line breaks, or on one line);
- ``missing``, ``redundant``, ``reordered``, ``wrong``: in both wordings; one item dropped, one wrong item
  added, two neighbouring items swapped (correct where order is not asked), one item replaced by a wrong one.

A wrong item is one of three kinds, in turn: the item's date moved to a day no answer has (temporal
questions), the item's event or step replaced by another question's in the same frame (the diary's name,
the procedure), or another question's item.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta

import numpy as np

from generators.sequential_niah.dates import format_date
from generators.sequential_niah.semantic import find_date

CLASSES = ("reference-worded", "needle-worded", "missing", "redundant", "reordered", "wrong")
WORDINGS = ("reference", "needle")


@dataclass(frozen=True)
class Question:
    """What a crafted answer is made from: a question's answer items in true order and the needle of each."""

    qid: str
    lang: str
    pipeline: str
    ordered: bool
    answers: tuple[str, ...]
    needles: tuple[str, ...]


@dataclass(frozen=True)
class CraftedAnswer:
    """One crafted answer to ``question`` and its label by the paper's rule (``cls``: its class, one of
    :data:`CLASSES`; ``wording``: reference or needle)."""

    key: str
    label: bool
    cls: str
    wording: str
    question: Question
    response: str


def _rng(*parts: str) -> np.random.Generator:
    digest = hashlib.sha256("/".join(parts).encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "little"))


def _one_line(text: str) -> str:
    return " ".join(text.split())


_EN_MARKERS = ("{n}. ", "- ", "{n}) ", "* ", "Step {n}: ")
_ZH_MARKERS = ("{n}. ", "- ", "{n}、", "（{n}）", "第{n}步：")
_LEADS = {"en": "Here is what the document says:", "zh": "根据文档，内容如下："}


def render(items: Sequence[str], lang: str, style: int) -> str:
    """Items as a model lists them: ``style`` picks the marker; even styles keep an item's own line breaks
    (a needle copied as written), odd ones put it on one line; style 5 writes prose (items as sentences)."""
    if style % 6 == 5:
        return ("" if lang == "zh" else " ").join(_one_line(i) if re.search(r"[.!?。！？]$", i.strip()) else
                                                  _one_line(i) + ("。" if lang == "zh" else ".") for i in items)
    markers = _ZH_MARKERS if lang == "zh" else _EN_MARKERS
    marker = markers[style % len(markers)]
    lines = [marker.format(n=n) + (item.strip() if style % 2 == 0 else _one_line(item)) for n, item in enumerate(items, 1)]
    return _LEADS[lang] + "\n" + "\n".join(lines)


def moved_date(text: str, taken: set[date], rng: np.random.Generator) -> str | None:
    """``text`` with its first date moved 1-30 days to a day not in ``taken``, in the same format; None without a date."""
    found = find_date(text)
    if found is None:
        return None
    day, style, start, end = found
    moves = [d for d in range(-30, 31) if d and day + timedelta(days=d) not in taken]
    new = day + timedelta(days=int(rng.choice(moves)))
    return text[:start] + format_date(new, style) + text[end:]


def _content(answer: str, pipeline: str, lang: str) -> str:
    """The part of an answer item its needle states word for word: a diary entry's event, a step."""
    if pipeline == "synthetic-temporal":
        return answer.split("：" if lang == "zh" else ": ", 1)[-1]
    return answer


def wrong_item(question: Question, index: int, wording: str, others: Sequence[Question], kind: int,
               rng: np.random.Generator) -> str:
    """A wrong item in place of item ``index`` in ``wording``: kind 0 moves its date, 1 puts another question's
    event or step into its frame, 2 is another question's item; a kind that cannot apply gives way to the next."""
    own = question.needles[index] if wording == "needle" else question.answers[index]
    peers = [o for o in others if o.qid != question.qid and o.pipeline == question.pipeline and o.lang == question.lang]
    peers = peers or [o for o in others if o.qid != question.qid]
    for attempt in range(12):
        current = (kind + attempt) % 3
        if current == 0 and question.pipeline != "real-logical":
            taken = {found[0] for a in question.answers if (found := find_date(a)) is not None}
            moved = moved_date(own, taken, rng)
            if moved is not None and moved != own:
                return moved
        if current == 1 and question.pipeline != "real-temporal" and peers:
            content = _content(question.answers[index], question.pipeline, question.lang)
            peer = peers[int(rng.integers(len(peers)))]
            other = _content(peer.answers[int(rng.integers(len(peer.answers)))], peer.pipeline, peer.lang)
            if content in own and other not in question.answers:
                return own.replace(content, other, 1)
        if current == 2 and peers:
            peer = peers[int(rng.integers(len(peers)))]
            j = int(rng.integers(len(peer.answers)))
            if peer.answers[j] not in question.answers:
                return peer.needles[j] if wording == "needle" else peer.answers[j]
    raise ValueError(f"{question.qid}: no wrong item can be made for item {index}")


def crafted_answers(question: Question, others: Sequence[Question]) -> list[CraftedAnswer]:
    """The crafted answers to ``question`` (module docstring); ``others`` lend wrong items."""
    rng = _rng("crafted-sequential-niah", question.qid)
    n = len(question.answers)
    out: list[CraftedAnswer] = []

    def add(cls: str, wording: str, items: Sequence[str], label: bool) -> None:
        style = int(rng.integers(6))
        out.append(CraftedAnswer(f"{question.qid}/{cls}/{wording}", label, cls, wording, question,
                                 render(items, question.lang, style)))

    add("reference-worded", "reference", question.answers, True)
    add("needle-worded", "needle", question.needles, True)
    kind = int(rng.integers(3))
    for wording in WORDINGS:
        items = list(question.needles if wording == "needle" else question.answers)
        drop = int(rng.integers(n))
        add("missing", wording, items[:drop] + items[drop + 1:], False)
        extra = wrong_item(question, int(rng.integers(n)), wording, others, kind, rng)
        at = int(rng.integers(n + 1))
        add("redundant", wording, items[:at] + [extra] + items[at:], False)
        swap = int(rng.integers(n - 1))
        swapped = items[:swap] + [items[swap + 1], items[swap]] + items[swap + 2:]
        add("reordered", wording, swapped, not question.ordered)
        replaced = int(rng.integers(n))
        wrong = wrong_item(question, replaced, wording, others, kind + 1, rng)
        add("wrong", wording, items[:replaced] + [wrong] + items[replaced + 1:], False)
        kind += 2
    return out
