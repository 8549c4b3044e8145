"""Sentence boundaries in English and Chinese text, for needle insertion and filler units."""

from __future__ import annotations

import re

_SENTENCE_END = re.compile(
    r"""
    (?:[.!?]+["'”’)\]]*\s+)            # Latin: terminator, closing quotes/brackets, whitespace
    | (?:[。．！？；…]+[”’」』）)]*\s*)    # CJK: full-width terminator, closers, optional space
    | (?:\n\s*)                        # a line break ends a sentence in both scripts
    """,
    re.VERBOSE,
)


def sentence_ends(text: str) -> list[int]:
    """Character offsets just after each sentence end, excluding 0 and ``len(text)``.

    A sentence ends after ``.``, ``!`` or ``?`` followed by whitespace, after a full-width
    ``。．！？；…`` (no space needed in Chinese), or at a line break; closing quotes and brackets
    stay with their sentence and the following whitespace stays with the ending sentence, so
    every returned offset is where a new sentence starts.
    """
    return [m.end() for m in _SENTENCE_END.finditer(text) if 0 < m.end() < len(text)]


def split_sentences(text: str) -> list[str]:
    """``text`` split into sentences whose concatenation is exactly ``text``."""
    cuts = [0, *sentence_ends(text), len(text)]
    return [text[a:b] for a, b in zip(cuts, cuts[1:]) if b > a]
