r"""Sequential-NIAH's order-aware item scorer: deterministic, no model call.

A response is scored against the reference items in their true order with :func:`score_items`:

1. **Items.** :func:`parse_items` reads the numbered or bulleted lines (``1.``, ``1)``, ``(1)``,
   ``1、``, ``-``, ``*``, ``•``, ``Step 1:``, ``第1步：``, ``①``...). Lines indented under an item
   (sub-bullets, a date header's event) and a line right after an item that ends in a colon or
   holds only a date belong to that item; lead and closing sentences outside the list are not
   items. A response without a list is split into sentences (and at semicolons). A needle copied
   word for word is never split: with its own line breaks (a diary entry's title, date and text) it
   is read as one line, in prose as one sentence.
2. **Normalization** (:func:`normalize_item`): NFKC, markdown emphasis removed, dates in any
   common format (``October 12, 2007``, ``12th Oct 2007``, ``In May 2014, on the 21st``,
   ``2007/10/12``, ``February-15-2006``, ``2006年2月1日``...) rewritten as ``YYYY-MM-DD``
   (``YYYY-MM`` for a month), casefolded, punctuation made spaces.
3. **Matching** (:func:`match_items`): an item can match answer item ``j`` in either of two wordings,
   the reference item's or the needle's that states it (the paper asks for the needles' content,
   §3, and a model that copies from the document writes the needle's words, its step number and
   date format included). It matches a wording when their similarity (:func:`item_similarity`,
   rapidfuzz's ``WRatio`` without token sets; partial alignment tolerates added commentary) is at
   least :data:`MATCH_THRESHOLD`, the item's numbers (dates included) are a sub-multiset of that
   wording's (a wrong date never matches), and the words agree (:func:`word_checks`): the item holds at
   least :data:`WORD_COVERAGE` of the wording's distinctive words, those no sibling wording has
   (:func:`distinctive_words`), and, when the two are of comparable length, at least as much of the item's
   words are the wording's; so a frame
   shared by every needle (a diary's name, a procedure, the actors) or one changed verb ("Retired
   from" for "Joined" the same college) cannot carry a wrong item over the threshold. The assignment
   is one-to-one and optimal (:func:`scipy.optimize.linear_sum_assignment`, most matches first, then
   highest similarity).
4. **Verdict.** Correct (score 1) when every reference item is matched, no item is left over
   (in prose, a leftover sentence counts only when it holds a number or resembles a reference
   item or needle), and, when the question asks for order, the matched items appear in reference
   order: the labelling rule of the paper's §4 and Appendix A (missing, redundant and incorrect
   items are wrong; shuffled items are wrong only where order is asked).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from functools import lru_cache
from itertools import pairwise
from typing import Any

import numpy as np
from rapidfuzz import fuzz, process

from generators.text import sentence_ends

MATCH_THRESHOLD = 80.0
"""Least :func:`item_similarity` (0-100) of a normalized item and reference item that can match."""
COMMENTARY_SPREAD = 1.5
"""A text at least this many times as long as another is read as the other plus commentary: similarity then aligns
the shorter inside the longer (:func:`item_similarity`), and the word check reads only the shorter's words."""
PROSE_EXTRA_SIMILARITY = 50.0
"""In a response without a list, a leftover sentence with at least this similarity to some
reference item (or with a number) counts as an extra item; other sentences are commentary."""

# Dates ------------------------------------------------------------------------------------------------

_MONTHS = {name: index for index, names in enumerate(
    [("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",), ("june", "jun"),
     ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"), ("october", "oct"), ("november", "nov"),
     ("december", "dec")], start=1) for name in names}
_MONTH = r"(?<![A-Za-z])(?P<month>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")(?![A-Za-z])\.?"
_DAY = r"(?<!\d)(?P<day>\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?<!\d)(?P<year>\d{4})(?!\d)"
_DATE_PATTERNS: tuple[re.Pattern[str], ...] = tuple(re.compile(p, re.IGNORECASE) for p in (
    rf"{_MONTH}[\s\-]+{_DAY}(?:\s*,\s*|[\s\-]+){_YEAR}",              # October 12, 2007 / February-15-2006
    rf"{_DAY}(?:\s+of)?[\s\-]+{_MONTH},?[\s\-]+{_YEAR}",               # 12 October 2007 / 12th of Oct, 2007
    rf"{_MONTH},?\s+{_YEAR},?\s+on\s+the\s+{_DAY}(?![0-9A-Za-z])",     # May 2014, on the 21st
    r"(?<!\d)(?P<year>\d{4})\s*[-/.]\s*(?P<month>\d{1,2})\s*[-/.]\s*(?P<day>\d{1,2})(?!\d)",  # 2007-10-12, 2010/11/09
    r"(?<!\d)(?P<year>\d{4})\s*年\s*(?P<month>\d{1,2})\s*月\s*(?P<day>\d{1,2})\s*[日号]",   # 2006年2月1日
))
_MONTH_PATTERNS: tuple[re.Pattern[str], ...] = tuple(re.compile(p, re.IGNORECASE) for p in (
    rf"{_MONTH},?\s+{_YEAR}",                                              # October 2007
    r"(?<!\d)(?P<year>\d{4})\s*年\s*(?P<month>\d{1,2})\s*月",         # 2006年2月
))


def _month_number(text: str) -> int:
    return int(text) if text.isdigit() else _MONTHS[text.casefold().rstrip(".")]


def canonical_dates(text: str) -> str:
    """Full dates rewritten as ``YYYY-MM-DD`` and month-year dates as ``YYYY-MM``; impossible dates kept."""
    def full(match: re.Match[str]) -> str:
        month, day = _month_number(match["month"]), int(match["day"])
        if not (1 <= month <= 12 and 1 <= day <= 31):
            return match.group(0)
        return f" {int(match['year']):04d}-{month:02d}-{day:02d} "

    def partial(match: re.Match[str]) -> str:
        month = _month_number(match["month"])
        return f" {int(match['year']):04d}-{month:02d} " if 1 <= month <= 12 else match.group(0)

    for pattern in _DATE_PATTERNS:
        text = pattern.sub(full, text)
    for pattern in _MONTH_PATTERNS:
        text = pattern.sub(partial, text)
    return text


# Items ------------------------------------------------------------------------------------------------

_EMPHASIS = re.compile(r"\*\*|__|`")
_HEADING = re.compile(r"^\s*#{1,6}\s+")
_MARKER = re.compile(
    r"""^(?P<indent>[ \t]*)(?:
        [-*•·●○◦▪▫■□‣⁃+]\s+                             # bullets
      | [(（]?\d{1,3}\s*(?:[.．:：](?!\d)|[)）、])\s*     # 1.  1)  (1)  1、  1:  (not 1.5, 12:30)
      | (?:step|item)\s*\d{1,3}(?:\s*[.:：)\-–—]\s*|\s+(?!(?-i:[a-z])))  # Step 1: (not "Step 1 of")
      | 第\s*[\d一二三四五六七八九十百]+\s*(?:[步项点条][:：、.．,，]?|[:：、.．,，])\s*  # 第1步： 第一、 (not 第一次)
      | 步骤\s*[\d一二三四五六七八九十]+\s*[:：、.．,，]?\s*  # 步骤1：
      | [一二三四五六七八九十]+\s*[、.．]\s*               # 一、
      | [\u2460-\u2473]\s*                               # ① .. ⑳
    )""", re.IGNORECASE | re.VERBOSE)
_ORDINAL = re.compile(r"(\d+)(?:st|nd|rd|th)\b", re.IGNORECASE)
_PUNCTUATION = re.compile(r"[^\w]+|_")
_NUMBER = re.compile(r"\d+")


def normalize_item(text: str) -> str:
    """An item as matching compares it: NFKC, no markdown emphasis, dates canonical
    (:func:`canonical_dates`), ordinal suffixes dropped, casefolded, punctuation as single spaces."""
    text = _EMPHASIS.sub("", unicodedata.normalize("NFKC", text))
    text = _ORDINAL.sub(r"\1", canonical_dates(text)).casefold()
    return " ".join(_PUNCTUATION.sub(" ", text).split())


def _numbers(normalized: str) -> Counter[int]:
    return Counter(int(n) for n in _NUMBER.findall(normalized))


def _is_header(text: str) -> bool:
    """An item so far is only a header: it ends in a colon, or holds no word besides a date."""
    stripped = text.rstrip()
    return stripped.endswith((":", "：")) or not re.sub(r"[\d\s]", "", normalize_item(stripped))


def parse_items(response: str, needles: Sequence[str] = ()) -> tuple[list[str], bool]:
    """The answer items of a response and whether they came from a list (see the module docstring).

    Args:
        response: The answer (reasoning removed).
        needles: The question's needles: one copied word for word is never split (:func:`joined_needles`).

    Returns:
        (items, listed): the items in the order written, markers removed; ``listed`` is False
        when the response had no list and was split into sentences.
    """
    response = joined_needles(response, needles)
    lines = [_HEADING.sub("", line.replace("**", "")).expandtabs(4) for line in response.replace("\r\n", "\n").split("\n")]
    marked = [_MARKER.match(line) for line in lines]
    indents = [len(m["indent"]) for m in marked if m]
    if not indents:
        return _prose_items(response, needles), False
    top = min(indents)
    items: list[str] = []
    open_item = False
    for line, match in zip(lines, marked):
        indent = len(line) - len(line.lstrip())
        if match and indent <= top + 1:
            items.append(line[match.end():].strip())
            open_item = True
        elif not line.strip():
            open_item = open_item and _is_header(items[-1])
        elif open_item and (indent > top or match or _is_header(items[-1])):
            body = line[match.end():] if match else line
            items[-1] = f"{items[-1]} {body.strip()}".strip()
        else:
            open_item = False
    return [item for item in items if item], True


_ABBREVIATED_MONTH = re.compile(r"(?<![A-Za-z])(?:jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\.\s*(?=\d)", re.IGNORECASE)
_SEMICOLON = re.compile(r"[;；]\s*")


def _prose_items(response: str, needles: Sequence[str] = ()) -> list[str]:
    """Sentences and semicolon-separated parts; no cut after an abbreviated month (``Aug. 10``) or inside a
    needle copied word for word."""
    kept = [m.span() for needle in needles if (pattern := _needle_pattern(needle)) for m in pattern.finditer(response)]
    kept += [(m.start(), m.end() + 1) for m in _ABBREVIATED_MONTH.finditer(response)]
    cuts = sorted({*sentence_ends(response), *(m.end() for m in _SEMICOLON.finditer(response))})
    cuts = [c for c in cuts if not any(start < c < end for start, end in kept)]
    pieces = (response[a:b].strip().rstrip(";；").strip() for a, b in zip([0, *cuts], [*cuts, len(response)]))
    return [piece for piece in pieces if piece]


@dataclass(frozen=True)
class ItemScore:
    """How a response's items met the reference items.

    Attributes:
        items: The response's items (:func:`parse_items`).
        listed: Whether they came from a list (else sentences).
        matched: ``(item index, reference index, similarity)`` per matched pair, in item order.
        missing: Reference indices no item matched.
        extra: Indices of items that count as extra (unmatched list items; unmatched sentences that
            look like items).
        order_ok: Whether the matched items appear in reference order.
        ordered: Whether order was required.
        correct: The verdict.
        needle_worded: Indices of the matched items that matched in their needle's wording (and not
            as well in the reference item's).
    """

    items: tuple[str, ...]
    listed: bool
    matched: tuple[tuple[int, int, float], ...]
    missing: tuple[int, ...]
    extra: tuple[int, ...]
    order_ok: bool
    ordered: bool
    correct: bool
    needle_worded: tuple[int, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        """The details as plain JSON-ready values."""
        return {**asdict(self), "matched": [list(m) for m in self.matched]}


def item_similarity(items: Sequence[str], references: Sequence[str]) -> np.ndarray:
    """Similarity (0-100) of every (item, reference) pair of normalized texts: rapidfuzz's ``WRatio``
    without its token-set parts (which score any two texts sharing one word as 85.5).

        sim = max(ratio, 0.95 * token_sort_ratio, s * partial_ratio)

    with ``s = 0`` when the longer text is less than :data:`COMMENTARY_SPREAD` times the shorter, 0.9 up to 8 times
    (an item with added commentary still aligns with its reference) and 0.6 beyond.
    """
    if not items or not references:
        return np.zeros((len(items), len(references)))
    ratio = process.cdist(items, references, scorer=fuzz.ratio, dtype=np.float64)
    token_sort = process.cdist(items, references, scorer=fuzz.token_sort_ratio, dtype=np.float64)
    partial = process.cdist(items, references, scorer=fuzz.partial_ratio, dtype=np.float64)
    lengths_i = np.array([max(len(t), 1) for t in items], dtype=np.float64)[:, None]
    lengths_j = np.array([max(len(t), 1) for t in references], dtype=np.float64)[None, :]
    spread = np.maximum(lengths_i, lengths_j) / np.minimum(lengths_i, lengths_j)
    scale = np.where(spread < COMMENTARY_SPREAD, 0.0, np.where(spread < 8, 0.9, 0.6))
    return np.maximum(np.maximum(ratio, 0.95 * token_sort), scale * partial)


def similarity_matrix(items: Sequence[str], references: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """(similarity, feasible): :func:`item_similarity` of every normalized (item, wording) pair, and
    whether the pair may match: similarity >= :data:`MATCH_THRESHOLD`, the item's numbers a
    sub-multiset of the wording's, and the words check of :func:`word_checks`."""
    normalized_items = [normalize_item(item) for item in items]
    normalized_refs = [normalize_item(reference) for reference in references]
    similarity = item_similarity(normalized_items, normalized_refs)
    ref_numbers = [_numbers(r) for r in normalized_refs]
    feasible = (similarity >= MATCH_THRESHOLD) & word_checks(normalized_items, normalized_refs)
    for i, item in enumerate(normalized_items):
        numbers = _numbers(item)
        for j in np.flatnonzero(feasible[i]):
            feasible[i, j] = not numbers - ref_numbers[j]
    return similarity, feasible


# Words and needles ---------------------------------------------------------------------------------------

WORD_COVERAGE = 0.8
"""Least share of a wording's distinctive words (:func:`distinctive_words`) an item must hold to match it, and,
at comparable lengths, of the item's words the wording must hold."""
_WORD = re.compile(r"[\u2e80-\u9fff\uf900-\ufaff]|[^\s\u2e80-\u9fff\uf900-\ufaff]+")
"""A word of a normalized text: a run of letters and digits, or one CJK character (Chinese has no spaces)."""


def _words(normalized: str) -> set[str]:
    return set(_WORD.findall(normalized))


def distinctive_words(word_sets: Sequence[set[str]]) -> list[set[str]]:
    """Per text of a question (its words, :func:`normalize_item` then a CJK character per word), the words no other
    text has: what tells this answer item, or this needle, from its siblings (the verb of "Joined" / "Retired
    from" the same college, the place a chain of needles leads to, a diary entry's event). The words they share
    are a frame (the diary's name, the procedure, the two actors)."""
    everywhere: Counter[str] = Counter(word for words in word_sets for word in words)
    return [{word for word in words if everywhere[word] == 1} for words in word_sets]


def word_checks(items: Sequence[str], wordings: Sequence[str]) -> np.ndarray:
    """Whether each normalized item may match each normalized wording by its words: it holds at least
    :data:`WORD_COVERAGE` of the wording's distinctive words (:func:`distinctive_words`; a wording with none
    passes), and, where neither is :data:`COMMENTARY_SPREAD` times the other's length (no room for
    commentary), at least that share of the item's words are the wording's: "Retired from X" is not
    "Joined X" although most of its letters are."""
    item_words = [_words(item) for item in items]
    wording_words = [_words(wording) for wording in wordings]
    own = distinctive_words(wording_words)
    passes = np.ones((len(items), len(wordings)), dtype=bool)
    for i, (item, words) in enumerate(zip(items, item_words)):
        for j, (wording, theirs) in enumerate(zip(wordings, wording_words)):
            if own[j] and len(own[j] & words) / len(own[j]) < WORD_COVERAGE:
                passes[i, j] = False
            elif words and max(len(item), len(wording)) < COMMENTARY_SPREAD * max(1, min(len(item), len(wording))):
                passes[i, j] = len(words & theirs) / len(words) >= WORD_COVERAGE
    return passes


@lru_cache(maxsize=1024)
def _needle_pattern(needle: str) -> re.Pattern[str] | None:
    """A needle as copied into a response, whatever whitespace between its words; None for a one-word needle."""
    words = needle.split()
    return re.compile(r"\s+".join(map(re.escape, words))) if len(words) > 1 else None


def joined_needles(response: str, needles: Sequence[str]) -> str:
    """The response with every multi-line needle it copies word for word (whatever whitespace between the
    words) put on one line, so that a diary entry's title, date and text stay one item."""
    for needle in needles:
        pattern = _needle_pattern(needle)
        if pattern is not None and "\n" in needle.strip():
            one_line = " ".join(needle.split())
            response = pattern.sub(lambda _: one_line, response)  # noqa: B023 - used at once, in this iteration
    return response


# Verdict ------------------------------------------------------------------------------------------------


def match_items(items: Sequence[str], references: Sequence[str], *, ordered: bool, listed: bool = True,
                needles: Sequence[str] | None = None) -> ItemScore:
    """Match items to answer items one-to-one and give the verdict (module docstring, steps 3-4).

    Args:
        items: The response's items in the order written.
        references: The reference items in their true order.
        ordered: Whether the question asks for the items in order.
        listed: Whether the items came from a list; from prose, unmatched sentences count as extra
            only when they hold a number or reach :data:`PROSE_EXTRA_SIMILARITY` with a reference
            item or needle.
        needles: ``needles[j]`` is the needle that states ``references[j]``; an item may match
            either. None (a record saved without them) matches the reference wording only.

    Raises:
        ValueError: No reference item, or needles not one per reference item.
    """
    if not references:
        raise ValueError("Sequential-NIAH scoring needs at least one reference item")
    similarity, feasible = similarity_matrix(items, references)
    by_needle = np.zeros_like(feasible)
    if needles is not None:
        if len(needles) != len(references):
            raise ValueError(f"Sequential-NIAH scoring needs one needle per reference item, got {len(needles)} "
                             f"needles for {len(references)} items")
        needle_similarity, needle_feasible = similarity_matrix(items, needles)
        # The better of the two wordings that may match (of both when neither may: prose extras read it).
        by_needle = needle_feasible & (~feasible | (needle_similarity > similarity))
        similarity = np.where(by_needle | ~(feasible | needle_feasible), np.maximum(similarity, needle_similarity),
                              similarity)
        feasible = feasible | needle_feasible
    pairs: list[tuple[int, int, float]] = []
    if items:
        # Imported here: scipy.optimize costs every eval command ~0.4 s, and only this scorer needs it.
        from scipy.optimize import linear_sum_assignment

        gain = np.where(feasible, 1_000.0 + similarity, 0.0)
        rows, cols = linear_sum_assignment(gain, maximize=True)
        pairs = sorted((int(i), int(j), round(float(similarity[i, j]), 2)) for i, j in zip(rows, cols) if feasible[i, j])
    matched_items = {i for i, _, _ in pairs}
    matched_refs = {j for _, j, _ in pairs}
    extra = tuple(i for i in range(len(items)) if i not in matched_items and (
        listed or _NUMBER.search(normalize_item(items[i])) or similarity[i].max(initial=0.0) >= PROSE_EXTRA_SIMILARITY))
    missing = tuple(j for j in range(len(references)) if j not in matched_refs)
    order = [j for _, j, _ in pairs]
    order_ok = all(a < b for a, b in pairwise(order))
    correct = not missing and not extra and (order_ok or not ordered)
    needle_worded = tuple(i for i, j, _ in pairs if by_needle[i, j])
    return ItemScore(tuple(items), listed, tuple(pairs), missing, extra, order_ok, ordered, correct, needle_worded)


def score_items(response: str, references: Sequence[str], *, ordered: bool,
                needles: Sequence[str] | None = None) -> ItemScore:
    """:func:`parse_items` then :func:`match_items`: the order-aware verdict on a response (reasoning removed).
    With ``needles`` (one per reference item), a needle copied across lines is read as one item
    (:func:`joined_needles`) and an item may match the needle's wording."""
    items, listed = parse_items(response, needles or ())
    return match_items(items, references, ordered=ordered, listed=listed, needles=needles)
