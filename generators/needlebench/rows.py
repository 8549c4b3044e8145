"""The row every NeedleBench generator emits, and the pieces they share."""

from __future__ import annotations

from typing import Any, Sequence

from generators.budget import Placement

NEEDLE_SEPARATOR: dict[str, str] = {"en": " ", "zh": ""}
"""What follows a needle sentence placed between filler sentences (English needs a space)."""


def spread_depths(depth_percent: float, count: int) -> list[float]:
    """Depths of ``count`` needles whose first is at ``depth_percent``: evenly spaced from there to the end.

    ``d + i * (100 - d) / count`` for ``i = 0 .. count - 1`` (one needle: ``[d]``); at 100 % all
    needles sit at the end, in order.
    """
    return [depth_percent + i * (100.0 - depth_percent) / count for i in range(count)]


def needle_records(texts: Sequence[str], chars: Sequence[int], tokens: Sequence[int], depths: Sequence[float],
                   keywords: Sequence[str], requested: Sequence[float | None]) -> list[dict[str, Any]]:
    """The ``needles`` column from parallel lists: each needle's text, character and token offset,
    realized depth (percent of context tokens), keyword and requested depth."""
    return [
        {"text": t, "char_offset": c, "token_offset": o, "depth_percent": d, "requested_depth": want, "keyword": k}
        for t, c, o, d, k, want in zip(texts, chars, tokens, depths, keywords, requested)
    ]


def placed_needles(texts: Sequence[str], placements: Sequence[Placement], keywords: Sequence[str],
                   requested: Sequence[float | None]) -> list[dict[str, Any]]:
    """:func:`needle_records` of needles placed by :func:`generators.budget.fit_prompt`."""
    return needle_records(texts, [p.char_offset for p in placements], [p.token_offset for p in placements],
                          [p.depth_percent for p in placements], keywords, requested)


def row(*, id: str, input: str, answers: list[str], query: str, task: str, lang: str, target_tokens: int | None,
        depth: float | None, needle_count: int, question_type: str, repeat: int, n_tokens: int, length_buffer: int | None,
        tokenizer: str, filler: str, needles: list[dict[str, Any]]) -> dict[str, Any]:
    """One release row (the column order of :data:`builders.needlebench.FEATURES`)."""
    return {
        "id": id, "input": input, "answers": answers, "query": query, "task": task, "lang": lang,
        "target_tokens": target_tokens, "depth": depth, "needle_count": needle_count, "question_type": question_type,
        "repeat": repeat, "n_tokens": n_tokens, "length_buffer": length_buffer, "tokenizer": tokenizer,
        "filler": filler, "needles": needles,
    }
