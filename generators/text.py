"""Sentence boundaries in English and Chinese text, for needle insertion and filler units."""

from __future__ import annotations

import re

_LATIN_END = r"""(?:[.!?]+["'”’)\]]*\s+(?![a-z]))"""  # terminator, closers, whitespace, no lower-case word next
_CJK_END = r"""(?:[。．！？…]+(?:\s*[”’」』）)"'])*\s*)"""  # full-width terminator, closers (spaced too), space

_FIRST = r"(?=[.!?。．！？…\n])"
"""Every sentence end starts at one of these: a cheap test that spares the alternatives at other characters."""
_SENTENCE_END = re.compile(rf"{_FIRST} (?: {_LATIN_END} | {_CJK_END} | (?:\n\s*) )", re.VERBOSE)
_WRAPPED_SENTENCE_END = re.compile(
    rf"""
    {_FIRST} (?: {_LATIN_END} | {_CJK_END}
    | (?P<run>(?<=[a-z][a-z])[.!?])(?=[A-Z][a-z])   # run-together sentences: "a pen.There are"
    | (?:\n[^\S\n]*\n\s*)                            # a blank line (paragraph break)
    )
    """,
    re.VERBOSE,
)


_ABBREVIATION = re.compile(
    r"(?:\b(?:e\.g|i\.e|cf|vs|viz|approx|Mr|Mrs|Ms|Dr|Prof|St|Jr|Sr|Inc|Ltd|Co|No|Fig|Vol|pp|U\.S|a\.m|p\.m)|(?<![\w.])[A-Z])\.$"
)
"""A period that ends an abbreviation or an initial ("e.g.", "Mr.", "J."), not a sentence."""
ABBREVIATION_CHARS = 8
"""How far before a period the abbreviation test looks (the longest abbreviation and its boundary)."""


def sentence_ends(text: str, *, line_breaks: bool = True) -> list[int]:
    """Character offsets just after each sentence end, excluding 0 and ``len(text)``.

    A sentence ends after ``.``, ``!`` or ``?`` followed by whitespace and a word that is not
    lower-case (not after an abbreviation or an initial such as "e.g." or "J."), after a full-width ``。．！？…`` (no space needed in
    Chinese; "；" joins clauses of one sentence, and Sequential-NIAH's official code inserts after "。"), or at a line break; closing quotes and brackets stay with their sentence and the
    following whitespace stays with the ending sentence, so every returned offset is where a new
    sentence starts.

    With ``line_breaks=False`` (hard-wrapped prose such as the NIAH essays) a single line break
    is no sentence end, a blank line is, and so is a terminator run into the next sentence after
    a lower-case word ("a pen.There are"), as texts that lost their paragraph breaks have.
    """
    pattern = _SENTENCE_END if line_breaks else _WRAPPED_SENTENCE_END
    return sorted({m.end() for m in pattern.finditer(text) if 0 < m.end() < len(text)
                   and (m.lastgroup == "run" or not _ABBREVIATION.search(text, max(0, m.start() - ABBREVIATION_CHARS), m.start() + 1))})


def split_sentences(text: str, *, line_breaks: bool = True) -> list[str]:
    """``text`` split into sentences whose concatenation is exactly ``text`` (see :func:`sentence_ends`)."""
    cuts = [0, *sentence_ends(text, line_breaks=line_breaks), len(text)]
    return [text[a:b] for a, b in zip(cuts, cuts[1:]) if b > a]
