"""OpenCompass NeedleBench v2's needle insertion: needles go at a token position of the filler, not at a sentence end.

Source (open-compass/opencompass at a5acc4bba3b658f151617a3b393602110fb7a740, read, not copied): the
``_generate_context`` helpers of ``opencompass/datasets/needlebench_v2/origin.py`` (S-RT), ``parallel.py`` (M-RT) and
``multi.py`` (M-RS); v1's ``opencompass/datasets/needlebench/origin.py`` inserts the same way. Each keeps the first
``max(length - length_buffer - needle tokens, 0)`` tokens of the filler, cut at a token wherever it falls, and
splices each needle's tokens (``'\\n' + needle + '\\n'``) into that token list, ``F`` tokens long:

* origin.py and parallel.py: ``int(F * (depth / 100))`` filler tokens before a needle at ``depth``; parallel.py
  shifts each later needle by the needles already inserted, so with its depths in increasing order (as the configs
  give them) every needle has its own share of the filler before it.
* multi.py (``diff = 10``): the first needle at ``int(F * (depth / 100))``; each next one at
  ``int(previous + tokens of the previous needle + F * (diff / 100))``, capped at ``F`` plus the needles before it,
  and then shifted once more by every needle inserted before it. So the filler before needle ``i`` is
  ``depth + i * diff`` percent of ``F`` *plus the tokens of the needles before it*: at 1K tokens in English
  (``F`` about 375) five kinship needles put the last one some 25 points further than ``depth + 40``.
  :func:`asked_depths` says where that rule asks each needle to go, as a percent of the filler.

needlework cuts the filler into pieces at its tokens (:func:`token_pieces`, one encode), so that the prompt fitter
counts it token by token, and puts each needle before the piece holding the official position's token: a needle
lands exactly where the official code puts it, except where that token starts inside a character (a byte-level BPE
splits many CJK characters over two or three tokens), where it goes before that character instead of splitting it
(the official decode would write U+FFFD there).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

import numpy as np

from generators.haystack import Slots
from needlework.tokens import TokenCounter

DIFF_LAYOUT = "diff"
"""The layout that follows multi.py's steps (:data:`generators.needlebench.spec.MRT_LAYOUTS`)."""


def token_pieces(text: str, tokens: TokenCounter) -> tuple[list[str], np.ndarray]:
    """``text`` cut before each of its tokens that starts a character: the pieces and their token counts.

    A piece is one token, or the two or three tokens that share a character; the counts add up to the tokens of
    ``text`` (one encode).
    """
    if not text:
        return [], np.zeros(0, dtype=np.int64)
    _, starts = tokens.encode_with_offsets(text)
    cuts, counts = np.unique(np.asarray(starts, dtype=np.int64), return_counts=True)
    bounds = [0, *cuts[1:].tolist(), len(text)]
    return [text[a:b] for a, b in pairwise(bounds)], counts.astype(np.int64)


def insertion_points(filler_tokens: int, depths: Sequence[float], needle_tokens: Sequence[int], layout: str,
                     diff_percent: float) -> list[int]:
    """Filler tokens before each needle, as the official code computes them (needles in insertion order).

    Args:
        filler_tokens: ``F``, the tokens of the filler the needles go into.
        depths: Each needle's depth in percent; under ``diff`` only the first one's is read.
        needle_tokens: Tokens of each needle as inserted (with its line breaks).
        layout: ``diff`` for multi.py's steps, anything else for origin.py's and parallel.py's rule.
        diff_percent: multi.py's ``diff``.
    """
    total = int(filler_tokens)
    if layout != DIFF_LAYOUT:
        return [min(int(total * (float(d) / 100)), total) for d in depths]
    points: list[int] = []
    for i, length in enumerate(needle_tokens):
        if i == 0:
            point = int(total * (float(depths[0]) / 100))
        else:
            point = int(points[-1] + int(needle_tokens[i - 1]) + total * (diff_percent / 100))
        points.append(min(point, total + int(sum(needle_tokens[:i]))))
    # The splice loop adds every earlier needle's tokens once more, so whatever exceeds F lands at the end.
    return [min(p, total) for p in points]


def asked_depths(filler_tokens: int, depths: Sequence[float], needle_tokens: Sequence[int], layout: str,
                 diff_percent: float) -> list[float]:
    """Where the official rule asks each needle to go, in percent of the filler: ``depths`` as given, except under
    ``diff``, where needle ``i`` is asked ``depths[0] + i * diff`` percent plus the tokens of the needles before it
    (:func:`insertion_points` without its rounding), at most 100."""
    if layout != DIFF_LAYOUT or filler_tokens <= 0:
        return [float(d) for d in depths]
    first = float(depths[0])
    return [min(first + i * diff_percent + 100.0 * float(sum(needle_tokens[:i])) / filler_tokens, 100.0)
            for i in range(len(needle_tokens))]


def official_slots(depths: Sequence[float], needle_tokens: Sequence[int], layout: str, diff_percent: float) -> Slots:
    """:data:`generators.haystack.Slots` placing needles at :func:`insertion_points` among token pieces: each needle
    before the piece that holds its token (the last boundary at or before it)."""
    lengths = [int(t) for t in needle_tokens]

    def slots(weights: np.ndarray) -> list[int]:
        bounds = np.concatenate(([0], np.cumsum(weights, dtype=np.int64)))
        points = insertion_points(int(bounds[-1]), depths, lengths, layout, diff_percent)
        return (np.searchsorted(bounds, points, side="right") - 1).tolist()

    return slots
