"""Needles inserted at token depths between the sentences of a filler text, fitted to a budget.

This is the shared assembler for filler-based haystacks (essays, prose, articles): the filler is
split into units (sentences) whose token counts are known, each needle goes to the unit boundary
nearest its requested depth, and :func:`generators.budget.fit_prompt` picks how much filler fits
and verifies the result with one encode.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from generators.budget import Fitted, Rendered, TokenBudget, boundary_at_depth, fit_prompt
from needlework.tokens import TokenCounter

Slots = Callable[[np.ndarray], Sequence[int]]
"""Where needles go instead of the nearest unit boundary: from the token counts of the units in use, each needle's
boundary index (``0`` the start, ``len(weights)`` the end), in needle order."""


@dataclass(frozen=True)
class Frame:
    """The prompt around a haystack: ``prefix + context + suffix``."""

    prefix: str
    suffix: str


def needle_renderer(
    units: Sequence[str],
    weights: np.ndarray,
    needles: Sequence[str],
    depths_percent: Sequence[float],
    frame: Frame,
    slots: Slots | None = None,
) -> Callable[[int], Rendered]:
    """A renderer for :func:`fit_prompt`: the first ``n`` units with needles at depths among them.

    Each needle goes to the unit boundary nearest its depth, measured with ``weights`` (the
    units' token counts), or to the boundary ``slots`` picks; needles at the same boundary keep
    their depth order, then their given order.
    """
    by_depth = sorted(range(len(needles)), key=lambda i: (depths_percent[i], i))

    def render(n: int) -> Rendered:
        if slots is None:
            order = by_depth
            at = [boundary_at_depth(weights[:n], depths_percent[i]) for i in order]
        else:
            chosen = [int(b) for b in slots(weights[:n])]
            order = sorted(by_depth, key=lambda i: chosen[i])
            at = [chosen[i] for i in order]
        parts: list[str] = [frame.prefix]
        pos = len(frame.prefix)
        starts = [0] * len(needles)
        cursor = 0
        for i, slot in zip(order, at):
            chunk = "".join(units[cursor:slot])
            parts.append(chunk)
            pos += len(chunk)
            starts[i] = pos
            parts.append(needles[i])
            pos += len(needles[i])
            cursor = slot
        tail = "".join(units[cursor:n])
        parts.append(tail)
        end = pos + len(tail)
        parts.append(frame.suffix)
        return Rendered("".join(parts), (len(frame.prefix), end), tuple(starts))

    return render


def fill_haystack(
    units: Sequence[str],
    unit_tokens: np.ndarray,
    needles: Sequence[str],
    needle_tokens: np.ndarray,
    depths_percent: Sequence[float],
    frame: Frame,
    frame_tokens: int,
    budget: TokenBudget,
    tokens: TokenCounter,
    slots: Slots | None = None,
) -> Fitted:
    """Fill ``frame`` with as many filler units as fit, needles at the nearest unit boundaries (or at ``slots``).

    Args:
        units: Filler units in reading order; each should end with its own separator (a
            sentence with its trailing space), and needles likewise, so that concatenation
            needs no joiner.
        unit_tokens: Token count of each unit, measured once per corpus.
        needles: Needle texts.
        needle_tokens: Token count of each needle.
        depths_percent: Requested depth of each needle, 0 (start) to 100 (end of the context).
        frame: Instruction before and question after the context.
        frame_tokens: Token count of ``frame.prefix + frame.suffix``.
        budget: Target and reserve.
        tokens: The build's exact tokenizer (one verifying encode per prompt).
        slots: Each needle's unit boundary from the token counts of the units in use (:data:`Slots`);
            ``None`` for the boundary nearest its depth.

    Returns:
        The fitted prompt; its placements give each needle's character and token offset and
        its realized depth.
    """
    fixed = frame_tokens + int(np.sum(needle_tokens))
    render = needle_renderer(units, unit_tokens, needles, depths_percent, frame, slots)
    return fit_prompt(render, unit_tokens, fixed, budget, tokens)
