"""A long text folded for a reader: the marked spans shown in place with some context, the rest folded away.

A 128K-token prompt is about half a million characters; the report embeds only the stretches a person
debugging retrieval reads (the instruction at the start, the question at the end, a few hundred
characters around each needle) and says how many tokens each folded stretch holds. Offsets are in
characters of the text (Python ``str`` indices); token counts of folded stretches are estimates,
interpolated between anchor points whose token offsets the release knows (:class:`TokenScale`).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass

CJK = re.compile(r"[\u3000-\u9fff\uac00-\ud7af\uff00-\uffef]")
CHARS_PER_TOKEN = 4.0
"""Characters per token of Latin-script text when a text carries no token count (a BPE tokenizer's usual rate)."""
CJK_CHARS_PER_TOKEN = 1.4
"""Characters per token of Chinese, Japanese or Korean text under the same BPE tokenizers."""


@dataclass(frozen=True)
class Mark:
    """A span of a text to light up.

    Attributes:
        start: First character (offset in the text).
        end: One past the last character.
        kind: What it is, which picks its colour: ``needle``, ``gold`` (HaystackCraft's gold documents),
            ``ref`` (EMB-S RefList documents), ``distractor``, ``answer`` (a reference answer inside a
            document), ``extracted`` (what the scorer read from a response) or ``hit`` (a reference
            found in a response).
        label: What a reader is told about it (``needle 2 · depth 41%``, ``rank 3`` ...).
    """

    start: int
    end: int
    kind: str
    label: str


@dataclass(frozen=True)
class Layout:
    """How much of a text to keep: characters at its start and end, around each mark, of a long mark, in all."""

    head: int
    tail: int
    around: int
    long_mark: int
    budget: int


PROMPT_LAYOUT = Layout(head=360, tail=600, around=260, long_mark=700, budget=9000)
RESPONSE_LAYOUT = Layout(head=1200, tail=1500, around=300, long_mark=900, budget=5000)
REASONING_LAYOUT = Layout(head=500, tail=700, around=200, long_mark=400, budget=1200)


def script_tokens(text: str) -> int:
    """Estimated tokens of ``text`` from its script alone (:data:`CHARS_PER_TOKEN`, :data:`CJK_CHARS_PER_TOKEN`)."""
    cjk = len(CJK.findall(text))
    return round((len(text) - cjk) / CHARS_PER_TOKEN + cjk / CJK_CHARS_PER_TOKEN)


class TokenScale:
    """Estimated token offsets of a text's characters, interpolated linearly between anchors.

    Anchors are (character offset, token offset) pairs the release knows: the start (0, 0), each needle's
    ``char_offset``/``token_offset``, the end (length, the row's measured ``n_tokens``). Without an end
    count, tokens are estimated from the script (:data:`CHARS_PER_TOKEN`, :data:`CJK_CHARS_PER_TOKEN`).
    """

    def __init__(self, text: str, anchors: Sequence[tuple[int, int]] = (), total_tokens: int | None = None) -> None:
        points = {(0, 0)} | {(int(c), int(t)) for c, t in anchors if 0 <= int(c) <= len(text)}
        if total_tokens:
            points.add((len(text), int(total_tokens)))
        else:  # from the last anchor on, estimated from the script
            char, token = max(points)
            points.add((len(text), token + script_tokens(text[char:])))
        ordered: list[tuple[int, int]] = []
        for char, token in sorted(points):  # keep token offsets non-decreasing along the text
            if not ordered or (char > ordered[-1][0] and token >= ordered[-1][1]):
                ordered.append((char, token))
        self.chars = [c for c, _ in ordered]
        self.tokens = [t for _, t in ordered]
        self.measured = bool(total_tokens or anchors)

    def at(self, char: int) -> float:
        """The estimated token offset of character ``char``."""
        i = bisect.bisect_right(self.chars, char) - 1
        if i >= len(self.chars) - 1:
            return float(self.tokens[-1])
        c0, c1, t0, t1 = self.chars[i], self.chars[i + 1], self.tokens[i], self.tokens[i + 1]
        return t0 + (t1 - t0) * (char - c0) / (c1 - c0)

    def between(self, start: int, end: int) -> int:
        """Estimated tokens of the characters ``[start, end)``, at least 1 for a non-empty stretch."""
        return max(1 if end > start else 0, round(self.at(end) - self.at(start)))


@dataclass(frozen=True)
class Folded:
    """What is kept of a text.

    Attributes:
        length: The whole text's length in characters.
        parts: (offset, text) of each kept stretch, in order, not touching.
        folds: Estimated tokens of each folded stretch: before the first part, between parts, after the last
            (``len(parts) + 1`` numbers; 0 where nothing is folded).
        marks: The marks that overlap a kept stretch.
        hidden: Marks left out because the text's budget was spent (their windows are folded).
    """

    length: int
    parts: tuple[tuple[int, str], ...]
    folds: tuple[int, ...]
    marks: tuple[Mark, ...]
    hidden: int

    def record(self) -> dict[str, object]:
        """The compact form the page's script reads."""
        return {"n": self.length, "parts": [list(p) for p in self.parts], "folds": list(self.folds),
                "marks": [[m.start, m.end, m.kind, m.label] for m in self.marks], "hidden": self.hidden}


def _snap(text: str, position: int, forward: bool, lines: int = 100, words: int = 24) -> int:
    """``position`` moved to the nearest line break within ``lines`` characters, else to whitespace within ``words``,
    so that folds fall between lines or words."""
    if forward:
        found = text.find("\n", position, position + lines)
        if found >= 0:
            return found
    else:
        found = text.rfind("\n", max(0, position - lines), position)
        if found >= 0:
            return found + 1
    step = 1 if forward else -1
    for offset in range(words):
        p = position + step * offset
        if p <= 0 or p >= len(text):
            return max(0, min(len(text), p))
        if text[p].isspace():
            return p
    return position


def _windows(mark: Mark, layout: Layout) -> list[tuple[int, int]]:
    """The stretches to keep around one mark: all of a short mark, the start and end of a long one."""
    if mark.end - mark.start <= layout.long_mark:
        return [(mark.start - layout.around, mark.end + layout.around)]
    half = layout.long_mark // 2
    return [(mark.start - layout.around, mark.start + half), (mark.end - half // 2, mark.end + layout.around)]


def _merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def fold(text: str, marks: Sequence[Mark], layout: Layout, scale: TokenScale | None = None) -> Folded:
    """Keep the start and end of ``text`` and the windows around its marks, in mark order, within the budget.

    Marks are taken in the order given (put the ones that matter most first); once the kept characters
    would pass ``layout.budget``, the remaining marks are counted in :attr:`Folded.hidden` and not shown.

    Args:
        text: The whole text.
        marks: Spans to show in place; offsets must lie inside ``text``.
        layout: How much to keep.
        scale: Token estimates of the text (a plain script estimate when None).

    Returns:
        The kept parts, the folded stretches' token estimates and the marks shown.
    """
    n = len(text)
    scale = scale or TokenScale(text)
    kept = _merge([(0, min(n, layout.head)), (max(0, n - layout.tail), n)])
    shown: list[Mark] = []
    hidden = 0
    for mark in marks:
        wanted = _merge(kept + [(max(0, a), min(n, b)) for a, b in _windows(mark, layout)])
        if sum(b - a for a, b in wanted) > max(layout.budget, layout.head + layout.tail) and shown:
            hidden += 1
            continue
        kept = wanted
        shown.append(mark)
    spans = _merge([(_snap(text, a, forward=False), _snap(text, b, forward=True)) for a, b in kept])
    if spans and spans[0][0] < 24:  # a fold of a few characters hides nothing worth a label
        spans[0] = (0, spans[0][1])
    if spans and n - spans[-1][1] < 24:
        spans[-1] = (spans[-1][0], n)
    parts = tuple((a, text[a:b]) for a, b in spans)
    edges = [0, *(x for a, b in spans for x in (a, b)), n]
    folds = tuple(scale.between(edges[i], edges[i + 1]) for i in range(0, len(edges), 2))
    visible = tuple(m for m in shown if any(m.start < b and m.end > a for a, b in spans))
    return Folded(n, parts, folds, visible, hidden)
