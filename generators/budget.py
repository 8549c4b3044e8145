"""Token-exact budgets: fill a prompt to a target token count with one verifying encode.

The mechanism every benchmark uses:

1. **Predict.** Each haystack unit (a line, a sentence, a document) has a predicted token count,
   computed once from memoized piece counts (:class:`PieceCounts`) or from a corpus' stored
   ``n_tokens``. Prefix sums over those counts give how many units fit (:func:`units_that_fit`).
2. **Verify.** The rendered prompt is encoded exactly once (:func:`fit_prompt`); the encode also
   gives every token's character offset, from which needle token offsets and realized depths are
   read (:func:`locate`), never estimated.
3. **Correct.** If the exact count exceeds the limit (a prediction was low: tokens can merge
   across unit joins for some tokenizers), units are dropped using the measured overshoot and the
   prompt is verified again; if it falls short by more than the tolerance, units are added.

**Tolerance.** Every emitted prompt satisfies ``n_tokens <= limit`` where
``limit = target_tokens - generation_reserve``, and it is maximal: the prompt with the next unit
either was encoded and exceeded the limit, or is predicted to exceed it. When unit counts add up
exactly (regex pre-tokenized BPEs on units that end in a newline, such as RULER's lines), the
slack ``limit - n_tokens`` is therefore smaller than the next unit's tokens plus
:data:`JOIN_SLACK`; on prose, a join can cost a few tokens more (runs of indentation whitespace,
a needle moving to the next boundary). Generators whose units may be cut make the last unit a
:func:`cut_at_tokens` prefix.

Texts are compared in the tokenizer's normalized form (``tokens.normalize``, NFC for Qwen):
generators receive normalized inputs from the builders, and :func:`fit_prompt` refuses a
rendered prompt that is not normalized, because character offsets would not match.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from needlework.errors import BudgetError, SpecError
from needlework.tokens import TokenCounter

JOIN_SLACK = 4
"""Tokens a prompt may fall short of its limit beyond the unit that did not fit.

Covers the tokens that merge or split where units meet (a newline joining a period, a space
joining a word), which the per-unit predictions cannot see.
"""

MAX_ROUNDS = 8


@dataclass(frozen=True)
class TokenBudget:
    """A prompt's token budget: the model's context target minus the tokens kept for the answer.

    Attributes:
        target_tokens: The context length the sample stands for (e.g. 8192).
        generation_reserve: Tokens left free for the model's output (reasoning models need
            thousands); recorded per row.
    """

    target_tokens: int
    generation_reserve: int = 0

    def __post_init__(self) -> None:
        if self.target_tokens <= 0:
            raise SpecError(f"target_tokens must be positive, got {self.target_tokens}")
        if not 0 <= self.generation_reserve < self.target_tokens:
            raise SpecError(
                f"generation_reserve must be in [0, target_tokens={self.target_tokens}), "
                f"got {self.generation_reserve}"
            )

    @property
    def limit(self) -> int:
        """The most tokens the prompt may have."""
        return self.target_tokens - self.generation_reserve


class PieceCounts:
    """Memoized token counts of text pieces, for predicting unit counts by summing pieces.

    A piece is counted once per build, however many units reuse it. Predictions are exact
    when the tokenizer never merges across piece boundaries (true for regex pre-tokenized BPEs
    when pieces are split at word starts); otherwise :func:`fit_prompt` corrects them.
    """

    def __init__(self, tokens: TokenCounter) -> None:
        self._tokens = tokens
        self._memo: dict[str, int] = {}

    def counts(self, pieces: Sequence[str]) -> np.ndarray:
        """Token counts of ``pieces`` (int64 array), counting unseen pieces in one batch."""
        missing = sorted({p for p in pieces if p not in self._memo})
        if missing:
            self._memo.update(zip(missing, self._tokens.count_batch(missing).tolist()))
        return np.fromiter((self._memo[p] for p in pieces), dtype=np.int64, count=len(pieces))

    def count(self, piece: str) -> int:
        """Token count of one piece."""
        return int(self.counts([piece])[0])


class DigitCounts:
    """Predicts token counts of digit strings from the counts of all 1- to 3-digit strings.

    Digit runs are split into groups of three from the left, as regex pre-tokenizers that group
    digits do (and single-digit tokenizers count each digit alike), so the 1,110 group counts
    are measured once and any number of digit strings is predicted with array arithmetic.
    """

    def __init__(self, pieces: PieceCounts) -> None:
        self._by_width = [
            pieces.counts([f"{v:0{w}d}" for v in range(10**w)]) for w in (1, 2, 3)
        ]

    def minimum(self, width: int) -> int:
        """The fewest tokens any digit string of ``width`` digits is predicted to take."""
        full, rest = divmod(width, 3)
        return full * int(self._by_width[2].min()) + (int(self._by_width[rest - 1].min()) if rest else 0)

    def predict(self, digits: np.ndarray) -> np.ndarray:
        """Predicted token counts of digit strings given as an ``(n, width)`` array of 0..9."""
        n, width = digits.shape
        total = np.zeros(n, dtype=np.int64)
        for start in range(0, width, 3):
            group = digits[:, start : start + 3]
            w = group.shape[1]
            code = group @ (10 ** np.arange(w - 1, -1, -1))
            total += self._by_width[w - 1][code]
        return total


def units_that_fit(unit_tokens: np.ndarray, available: int) -> int:
    """Largest ``n`` with ``sum(unit_tokens[:n]) <= available``, by prefix sums."""
    if available < 0:
        return 0
    prefix = np.cumsum(unit_tokens)
    return int(np.searchsorted(prefix, available, side="right"))


def boundary_at_depth(unit_tokens: np.ndarray, depth_percent: float) -> int:
    """Index of the unit boundary nearest to ``depth_percent`` of the units' total tokens.

    Boundary ``i`` lies before unit ``i``; ``0`` is the start and ``len(unit_tokens)`` the end.
    """
    if not 0.0 <= depth_percent <= 100.0:
        raise SpecError(f"depth must be within 0..100 percent, got {depth_percent}")
    bounds = np.concatenate(([0], np.cumsum(unit_tokens)))
    goal = bounds[-1] * depth_percent / 100.0
    return int(np.argmin(np.abs(bounds - goal)))


def cut_at_tokens(text: str, max_tokens: int, tokens: TokenCounter) -> str:
    """The longest prefix of ``tokens.normalize(text)`` that ends at a token boundary and has ``<= max_tokens`` tokens.

    The prefix is of the normalized text, because token offsets are positions in it.
    """
    if max_tokens <= 0:
        return ""
    text = tokens.normalize(text)
    ids, offsets = tokens.encode_with_offsets(text)
    if len(ids) <= max_tokens:
        return text
    return text[: int(offsets[max_tokens])]


@dataclass(frozen=True)
class Rendered:
    """A prompt and the character spans a generator needs located in it.

    Attributes:
        text: The full prompt.
        context_span: ``(start, end)`` characters of the haystack inside the prompt; depths are
            measured relative to it.
        needle_starts: Character offset of each needle in ``text``, in needle order.
    """

    text: str
    context_span: tuple[int, int]
    needle_starts: tuple[int, ...]


@dataclass(frozen=True)
class Placement:
    """Where a needle landed in an emitted prompt, measured by the verifying encode."""

    char_offset: int
    token_offset: int
    depth_percent: float


@dataclass(frozen=True)
class Fitted:
    """A prompt that fits its budget, with its exact token count and needle placements."""

    rendered: Rendered
    n_units: int
    n_tokens: int
    placements: tuple[Placement, ...]


def token_indices(token_starts: np.ndarray, chars: Sequence[int] | np.ndarray) -> np.ndarray:
    """Index of the first token that covers each character offset.

    That is the last token starting at or before the character, except where tokens start exactly
    at it: a byte-level BPE splits one CJK character over several tokens that all start there,
    and the first of them is where the character (and a needle beginning with it) starts.
    """
    chars = np.asarray(chars, dtype=np.int64)
    last = np.searchsorted(token_starts, chars, side="right") - 1
    first = np.searchsorted(token_starts, chars, side="left")
    return np.where(token_starts[np.maximum(last, 0)] == chars, first, last)


def locate(rendered: Rendered, token_starts: np.ndarray) -> tuple[Placement, ...]:
    """Token offset and realized depth (percent of context tokens) of each needle.

    The token offset is that of the first token covering the needle's first character
    (:func:`token_indices`).
    """
    start, end = rendered.context_span
    edges = token_indices(token_starts, [start, end]).tolist()
    t0, t1 = edges[0], edges[1] if end < len(rendered.text) else len(token_starts)
    span = max(t1 - t0, 1)
    chars = list(rendered.needle_starts)
    at = token_indices(token_starts, chars).tolist()
    return tuple(Placement(c, t, round(100.0 * (t - t0) / span, 4)) for c, t in zip(chars, at))


def fit_prompt(
    render: Callable[[int], Rendered],
    unit_tokens: np.ndarray,
    fixed_tokens: int,
    budget: TokenBudget,
    tokens: TokenCounter,
) -> Fitted:
    """Choose how many haystack units fill the budget, render, and verify with one encode.

    Args:
        render: Builds the prompt with the first ``n`` units (needles and template included).
        unit_tokens: Predicted token count of each candidate unit, in order; must hold more
            units than can fit, or all of them are used.
        fixed_tokens: Predicted tokens of everything that is not a unit (template, needles).
        budget: The target and generation reserve.
        tokens: The exact tokenizer of the build.

    Returns:
        The largest prompt found whose exact count is ``<= budget.limit``.

    Raises:
        BudgetError: If even zero units exceed the limit (needles and template alone do not fit).
    """
    limit = budget.limit
    n = units_that_fit(unit_tokens, limit - fixed_tokens)
    best: Fitted | None = None
    tried: set[int] = set()
    prefix = np.concatenate(([0], np.cumsum(unit_tokens)))
    for _ in range(MAX_ROUNDS):
        tried.add(n)
        rendered = render(n)
        if tokens.normalize(rendered.text) != rendered.text:
            raise BudgetError(
                f"a rendered prompt is not in {tokens.name}'s normalized form; normalize the "
                "generator's inputs with tokens.normalize() so character offsets stay exact"
            )
        _, starts = tokens.encode_with_offsets(rendered.text)
        measured = len(starts)
        if measured <= limit:
            if best is None or n > best.n_units:
                best = Fitted(rendered, n, measured, locate(rendered, starts))
            slack = limit - measured
            grow = units_that_fit(unit_tokens[n:], slack) if n < len(unit_tokens) else 0
            if grow == 0 or slack < JOIN_SLACK:
                break
            n += grow
        else:
            if n == 0:
                raise BudgetError(
                    f"the template and needles alone take {measured} tokens, more than the "
                    f"limit of {limit} (target {budget.target_tokens} - reserve "
                    f"{budget.generation_reserve})"
                )
            # Drop the fewest trailing units whose predicted tokens cover the overshoot.
            need = prefix[n] - (measured - limit)
            n = min(int(np.searchsorted(prefix, need, side="right")) - 1, n - 1)
        if n in tried:
            break
    if best is None:
        raise BudgetError(f"could not fit a prompt under {limit} tokens in {MAX_ROUNDS} rounds")
    return best


def render_alone(render: Callable[[int], Rendered], tokens: TokenCounter) -> Fitted:
    """The prompt with no haystack units at all (a golden-context baseline), measured with one encode.

    There is no budget to meet: the row records the prompt's exact size and the needles' placements.
    """
    rendered = render(0)
    if tokens.normalize(rendered.text) != rendered.text:
        raise BudgetError(
            f"a rendered prompt is not in {tokens.name}'s normalized form; normalize the generator's inputs"
        )
    _, starts = tokens.encode_with_offsets(rendered.text)
    return Fitted(rendered, 0, len(starts), locate(rendered, starts))
