"""The noise variants of §5.3: new layouts of an original sample's needles in the same raw text.

Positions are counted in sentence units: a needle's *position* is the index of its cut among
the raw text's sentence ends before ``text_end`` (:func:`generators.sequential_niah.assemble.sentence_boundaries`),
so moving a needle by one position moves it past one sentence. Each type has
:data:`VARIATIONS` variations, rows ``"<type>/<1..3>"`` whose ``original_id`` is the original's
id; every variation differs from the original and, where the text allows, from the other
variations. All keep the original's ``text_end``, questions and answers, and are re-fitted to the
bucket (:func:`generators.sequential_niah.assemble.fit_draft`), which recomputes offsets and
``n_tokens``.

* **tiny-movement**: every needle moves by one or two positions forward or backward (by none
  only when no move is possible), the needles' order in the text unchanged (two needles may come
  to share a position; they then follow each other in the same order).
* **significant-movement**: every needle moves by at least :func:`far_distance` positions, at
  least half the mean segment length ``n / (k + 1)`` for ``n`` sentence ends and ``k`` needles (and
  never fewer than 3, beyond tiny movement), to distinct positions, the order unchanged. The
  brief's "a quarter of the text" cannot be met in general with the order kept: a needle near
  the start must move forward and one near the end backward, and a monotone sequence of positions
  that switches from forward to backward moves needs a gap of twice the distance between two
  neighbours. Half the mean segment always can: the largest gap between neighbouring needles
  (or a text edge) is at least ``n / (k + 1)``; needles before it move forward, those after it
  backward, each by a random amount of at least the distance.
* **reorder**: the cuts stay; the needles are laid out in a different random permutation.
* **semantic-noise**: one or two of the QA's distractors (chosen at random; one if it has only
  one) go at random sentence ends not used by a needle; needles, answers and cuts unchanged.
  A QA without distractors gets no semantic-noise rows.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Iterator

import numpy as np

from needlework.errors import BudgetError, SpecError
from generators.seeding import rng_for
from generators.sequential_niah.assemble import (
    Draft, Layout, OnError, layout_of_row, make_draft, rows_from_drafts, sentence_boundaries,
)
from generators.sequential_niah.qa import SequentialQA
from generators.sequential_niah.spec import BENCHMARK, LENGTH_BUCKETS, LengthBucket
from generators.sequential_niah.texts import LongText, bucket_named
from needlework.tokens import TokenCounter

NOISE_TYPES: tuple[str, ...] = ("tiny-movement", "significant-movement", "reorder", "semantic-noise")
VARIATIONS = 3
TINY_STEP = 2
"""Tiny movement moves a needle by at most this many sentence positions."""
MIN_FAR = TINY_STEP + 1
MAX_DISTRACTORS = 2
ATTEMPTS = 64
"""Draws per variation to find one unlike the original and the earlier variations."""


def far_distance(n_positions: int, k: int) -> int:
    """The least move of every needle in a significant movement, in sentence positions.

    ``max(3, floor((ceil(n / (k + 1)) - 1) / 2))`` for ``n`` positions (sentence ends of the text
    used) and ``k`` needles: about half the mean segment length, always reachable with the order
    kept (see the module docstring).
    """
    mean_gap = -(-n_positions // (k + 1))
    return max(MIN_FAR, (mean_gap - 1) // 2)


def positions_of(cuts: Iterable[int], bounds: np.ndarray) -> np.ndarray:
    """The sentence positions (indices into ``bounds``) of cuts that are sentence ends.

    Raises:
        BudgetError: A cut is not a sentence end of the text.
    """
    cuts = np.asarray(list(cuts), dtype=np.int64)
    at = np.searchsorted(bounds, cuts)
    if len(cuts) and (at.max() >= len(bounds) or np.any(bounds[np.minimum(at, len(bounds) - 1)] != cuts)):
        raise BudgetError(f"cuts {cuts.tolist()} are not all sentence ends of the text")
    return at


def tiny_movement(positions: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """New positions: each moved by 1..:data:`TINY_STEP` either way, non-decreasing, in ``[0, n)``."""
    out = np.empty_like(positions)
    floor = 0
    for i, p in enumerate(positions.tolist()):
        options = [p + d for d in range(-TINY_STEP, TINY_STEP + 1) if floor <= p + d < n]
        moved = [q for q in options if q != p]
        q = int(rng.choice(moved if moved else options))
        out[i] = floor = q
    return out


def significant_movement(positions: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """New distinct increasing positions in ``[0, n)``, each at least :func:`far_distance` from the old one.

    A pivot is drawn among the gaps wide enough to turn around in (the first or last gap when it
    exceeds the distance, an inner gap when it exceeds twice the distance); the needles before
    it move forward and those after it backward, into positions drawn at random.

    Raises:
        BudgetError: The text has too few sentence ends for the distance (``n < 7 (k + 1)``, roughly).
    """
    k = len(positions)
    far = far_distance(n, k)
    p = positions.tolist()
    pivots = [j for j in range(k + 1) if _pivot_room(p, n, j, far)]
    if not pivots:
        raise BudgetError(f"{n} sentence ends are too few to move {k} needles by {far} positions each in order")
    j = int(rng.choice(pivots))
    # Needles 0..j-1 move forward, into (.., split]; needles j..k-1 backward, into [split + 1, ..).
    low_split = p[j - 1] + far if j > 0 else -1
    high_split = p[j] - far - 1 if j < k else n - 1
    split = int(rng.integers(low_split, high_split + 1))
    forward = _staircase([q + far for q in p[:j]], split, rng)
    backward = [n - 1 - q for q in _staircase([n - 1 - (q - far) for q in reversed(p[j:])], n - 1 - (split + 1), rng)]
    return np.asarray(forward + list(reversed(backward)), dtype=positions.dtype)


def reorder(order: tuple[int, ...], rng: np.random.Generator) -> tuple[int, ...]:
    """A random permutation of the needles different from ``order`` (there is one for ``k >= 2``)."""
    while True:
        new = tuple(np.asarray(order)[rng.permutation(len(order))].tolist())
        if new != order:
            return new


def noise_layouts(original: Layout, qa: SequentialQA, raw: str, noise_type: str,
                  rng: np.random.Generator, variations: int = VARIATIONS) -> list[Layout]:
    """``variations`` layouts of ``noise_type`` derived from ``original`` (see the module docstring).

    Raises:
        BudgetError: A significant movement is impossible in this text.
        SpecError: Unknown ``noise_type``.
    """
    if noise_type not in NOISE_TYPES:
        raise SpecError(f"unknown noise type {noise_type!r}; valid: {', '.join(NOISE_TYPES)}")
    if noise_type == "semantic-noise" and not qa.distractors:
        return []
    all_bounds = sentence_boundaries(raw)
    bounds = all_bounds[: int(np.searchsorted(all_bounds, original.text_end, side="left"))]
    positions = positions_of(original.cuts, bounds)
    draw: Callable[[], Layout] = {
        "tiny-movement": lambda: _moved(original, bounds, tiny_movement(positions, len(bounds), rng)),
        "significant-movement": lambda: _moved(original, bounds, significant_movement(positions, len(bounds), rng)),
        "reorder": lambda: Layout(original.text_end, original.cuts, reorder(original.order, rng)),
        "semantic-noise": lambda: _with_distractors(original, qa, bounds, positions, rng),
    }[noise_type]
    seen = {original}
    layouts: list[Layout] = []
    for _ in range(variations):
        layout = draw()
        for _ in range(ATTEMPTS):
            if layout not in seen:
                break
            layout = draw()
        seen.add(layout)
        layouts.append(layout)
    return layouts


def variant_drafts(row: dict[str, Any], qa: SequentialQA, text: LongText, *, seed: int, tokens: TokenCounter,
                   types: Iterable[str] = NOISE_TYPES, variations: int = VARIATIONS,
                   buckets: tuple[LengthBucket, ...] = LENGTH_BUCKETS) -> Iterator[Draft]:
    """Drafts of the noise variants of one original row, type by type, variation by variation.

    The draws of a type come from ``rng_for(seed, "sequential-niah", "noise-<type>", original_id)``.
    """
    original = layout_of_row(row)
    bucket = bucket_named(row["length_bucket"], buckets)
    for noise_type in types:
        rng = rng_for(seed, BENCHMARK, f"noise-{noise_type}", row["id"])
        for v, layout in enumerate(noise_layouts(original, qa, text.text, noise_type, rng, variations), start=1):
            yield make_draft(qa, text, layout, tokens, bucket=bucket, variant=f"{noise_type}/{v}", original_id=row["id"])


def generate_noise(originals: Iterable[tuple[dict[str, Any], SequentialQA, LongText]], *, seed: int,
                   tokens: TokenCounter, types: Iterable[str] = NOISE_TYPES, variations: int = VARIATIONS,
                   buckets: tuple[LengthBucket, ...] = LENGTH_BUCKETS,
                   on_error: OnError | None = None) -> Iterator[dict[str, Any]]:
    """Noise rows of many original rows (each with its QA and raw text), encoded one ahead.

    Args:
        originals: ``(row, qa, text)``: an original row and the QA and long text it was built from.
        seed: The build seed.
        tokens: The build's tokenizer.
        types: Noise types to make, of :data:`NOISE_TYPES`.
        variations: Variations per type.
        buckets: The buckets the rows' ``length_bucket`` names refer to.
        on_error: Receives ``(id, error)`` of a variant (or, for a type that cannot be drawn, of
            ``"<original id>/<type>"``) that cannot be built; ``None`` raises.
    """
    types = tuple(types)
    unknown = [t for t in types if t not in NOISE_TYPES]
    if unknown:
        raise SpecError(f"unknown noise types {', '.join(unknown)}; valid: {', '.join(NOISE_TYPES)}")

    def drafts() -> Iterator[Draft]:
        for row, qa, text in originals:
            for noise_type in types:
                try:
                    yield from variant_drafts(row, qa, text, seed=seed, tokens=tokens, types=(noise_type,),
                                              variations=variations, buckets=buckets)
                except BudgetError as err:
                    if on_error is None:
                        raise
                    on_error(f"{row['id']}/{noise_type}", err)

    return rows_from_drafts(drafts(), tokens, on_error)


def _moved(original: Layout, bounds: np.ndarray, positions: np.ndarray) -> Layout:
    return Layout(original.text_end, tuple(bounds[positions].tolist()), original.order)


def _with_distractors(original: Layout, qa: SequentialQA, bounds: np.ndarray, positions: np.ndarray,
                      rng: np.random.Generator) -> Layout:
    count = int(rng.integers(1, MAX_DISTRACTORS + 1)) if len(qa.distractors) >= MAX_DISTRACTORS else 1
    chosen = rng.choice(len(qa.distractors), size=count, replace=False)
    free = np.setdiff1d(np.arange(len(bounds)), positions)
    if len(free) < count:
        raise BudgetError(f"no free sentence end for {count} distractors")
    at = np.sort(rng.choice(free, size=count, replace=False))
    noise = tuple((int(bounds[a]), qa.distractors[int(c)]) for a, c in zip(at.tolist(), chosen.tolist()))
    return Layout(original.text_end, original.cuts, original.order, noise)


def _pivot_room(p: list[int], n: int, j: int, far: int) -> bool:
    """Whether needles before gap ``j`` can all move forward and those after it backward by ``far``."""
    k = len(p)
    if j == 0:
        return p[0] - far >= 0
    if j == k:
        return p[-1] + far <= n - 1
    return p[j] - p[j - 1] >= 2 * far + 1


def _staircase(lower: list[int], top: int, rng: np.random.Generator) -> list[int]:
    """Random strictly increasing values ``v_i >= lower[i]`` with ``v_-1 <= top``, given ``lower`` increasing
    and ``lower[i] <= top - (len - 1 - i)``: a sorted uniform draw from ``[lower[0], top]``, lifted."""
    m = len(lower)
    if m == 0:
        return []
    draw = np.sort(rng.choice(top - lower[0] + 1, size=m, replace=False)) + lower[0]
    out: list[int] = []
    for i in range(m):
        v = max(int(draw[i]), lower[i], out[-1] + 1 if out else lower[i])
        out.append(v)
    return out
