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

These are needlework's rules (:class:`NoiseRules` defaults). The ``paper`` preset takes the
official code's (miraclefish/Sequential-NIAH-Benchmark), each a named option:

* ``tiny="official"`` (``make_little_moving`` / ``check_moving_idx_box`` in
  ``Sequential_NIAH_building_PPL_with_noise.py``): each needle gets a *box* of the periods
  within 3 of its own (``period_positions[id-3 : id+3+1]``); when a box reaches into the
  previous needle's, the two are split at ``bound = (max(id-3, 0) + prev + 3 + 1) // 2``: the
  previous box ends at ``bound``, the current one runs from ``bound + 1`` to ``id + 2`` (the
  official slice ``[bound_id+1 : id+3]``). A box of more than one period loses the needle's own;
  the new period is drawn uniformly from the box (:func:`official_tiny_boxes`). One departure: the
  official code rebuilds the previous box from ``prev - 3`` when it splits it, which can undo an
  earlier split and let two needles cross (its text then repeats); here an earlier split stands.
* ``significant="official"`` (``make_large_moving``, same file): all ``k`` positions are drawn
  again, uniformly, as ``random.sample(period_positions, k)`` sorted; the needles keep their order.
* ``semantic="generated"`` (``Sequential_NIAH_building_PPL_with_sem_noise.py``): the sentences of
  :mod:`generators.sequential_niah.semantic`, in its variations (``[near]``, ``[irrelevant]``,
  ``[near, irrelevant]``; three topic sentences for real-logical); the sentences of a variation go
  into distinct segments between the needles (``random.sample(range(k + 1), m)`` in
  ``insert_needles_to_text_new``), each after a period of its segment drawn uniformly
  (``insert_after_random_period``). Departure: never at a needle's own sentence end (the
  official segment ends with the needle's period, so a noise sentence may sit just before it).

Under the official rules each variation is drawn on its own, as the official scripts draw them
(two variations may coincide); needlework's rules redraw a variation equal to an earlier one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from itertools import pairwise
from typing import Any

import numpy as np

from generators.seeding import rng_for
from generators.sequential_niah.assemble import (
    Draft,
    Layout,
    OnError,
    layout_of_row,
    make_draft,
    official_frame,
    rows_from_drafts,
    sentence_boundaries,
)
from generators.sequential_niah.qa import SequentialQA
from generators.sequential_niah.semantic import noise_sets
from generators.sequential_niah.spec import BENCHMARK, LENGTH_BUCKETS, LengthBucket, NoiseRules, bucket_named
from generators.sequential_niah.texts import LongText
from needlework.checks import require_one_of
from needlework.errors import BudgetError, SpecError
from needlework.tokens import TokenCounter

NOISE_TYPES: tuple[str, ...] = ("tiny-movement", "significant-movement", "reorder", "semantic-noise")
VARIATIONS = 3
TINY_STEP = 2
"""Tiny movement moves a needle by at most this many sentence positions."""
MIN_FAR = TINY_STEP + 1
MAX_DISTRACTORS = 2
OFFICIAL_TINY_REACH = 3
"""The official tiny movement's reach in periods either way (``period_positions[id-3 : id+3+1]``)."""
ATTEMPTS = 64
"""Draws per variation to find one unlike the original and the earlier variations."""




def official_tiny_boxes(positions: np.ndarray, n: int) -> list[list[int]]:
    """The official tiny movement's candidate positions per needle (see the module docstring).

    ``positions`` are the needles' sentence positions, strictly increasing, among ``n``.
    """
    reach = OFFICIAL_TINY_REACH
    p = [int(x) for x in positions]
    boxes: list[list[int]] = []
    for i, at in enumerate(p):
        low = max(at - reach, 0)
        if boxes and boxes[-1] and boxes[-1][-1] >= low:
            bound = (low + p[i - 1] + reach + 1) // 2
            boxes[-1] = [q for q in boxes[-1] if q <= bound]
            boxes.append(list(range(bound + 1, min(at + reach, n))))
        else:
            boxes.append(list(range(low, min(at + reach + 1, n))))
    return [[q for q in box if q != at] if len(box) > 1 else box for box, at in zip(boxes, p)]


def official_tiny_movement(positions: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """New positions, each drawn uniformly from its :func:`official_tiny_boxes` box (at most 3 away, in order).

    Raises:
        BudgetError: A box is empty (two needles on neighbouring sentence ends at the text's end;
            the official code fails there too).
    """
    boxes = official_tiny_boxes(positions, n)
    if any(not box for box in boxes):
        raise BudgetError(f"no period to move a needle to among {n} sentence ends (needles at {positions.tolist()})")
    return np.asarray([box[int(rng.integers(len(box)))] for box in boxes], dtype=positions.dtype)


def official_significant_movement(positions: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """``k`` positions drawn uniformly without replacement from all ``n`` and sorted, the needles
    keeping their order (``random.sample(period_positions, num_strings)`` then ``sort()`` in ``make_large_moving``)."""
    return np.sort(rng.choice(n, size=len(positions), replace=False)).astype(positions.dtype)


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
                  rng: np.random.Generator, variations: int = VARIATIONS,
                  rules: NoiseRules = NoiseRules()) -> list[Layout]:
    """``variations`` layouts of ``noise_type`` derived from ``original`` by ``rules`` (see the module docstring).

    Generated semantic noise makes as many variations as :func:`generators.sequential_niah.semantic.noise_sets`
    gives (three), whatever ``variations`` says.

    Raises:
        BudgetError: A significant movement is impossible in this text, an official tiny-movement
            box is empty, or no semantic noise can be generated for ``qa``.
        SpecError: Unknown ``noise_type``.
    """
    require_one_of("noise type", noise_type, NOISE_TYPES)
    if noise_type == "semantic-noise" and rules.semantic == "distractors" and not qa.distractors:
        return []
    all_bounds = sentence_boundaries(raw)
    bounds = all_bounds[: int(np.searchsorted(all_bounds, original.text_end, side="left"))]
    positions = positions_of(original.cuts, bounds)
    if noise_type == "semantic-noise" and rules.semantic == "generated":
        return [_with_sentences(original, bounds, positions, sentences, rng) for sentences in noise_sets(qa, rng)]
    tiny = official_tiny_movement if rules.tiny == "official" else tiny_movement
    significant = official_significant_movement if rules.significant == "official" else significant_movement
    draw: Callable[[], Layout] = {
        "tiny-movement": lambda: _moved(original, bounds, tiny(positions, len(bounds), rng)),
        "significant-movement": lambda: _moved(original, bounds, significant(positions, len(bounds), rng)),
        "reorder": lambda: replace(original, order=reorder(original.order, rng)),
        "semantic-noise": lambda: _with_distractors(original, qa, bounds, positions, rng),
    }[noise_type]
    official = {"tiny-movement": rules.tiny == "official", "significant-movement": rules.significant == "official"}
    seen = {original}
    layouts: list[Layout] = []
    for _ in range(variations):
        layout = draw()
        for _ in range(0 if official.get(noise_type) else ATTEMPTS):
            if layout not in seen:
                break
            layout = draw()
        seen.add(layout)
        layouts.append(layout)
    return layouts


def variant_drafts(row: dict[str, Any], qa: SequentialQA, text: LongText, *, seed: int, tokens: TokenCounter,
                   types: Iterable[str] = NOISE_TYPES, variations: int = VARIATIONS,
                   buckets: tuple[LengthBucket, ...] = LENGTH_BUCKETS,
                   rules: NoiseRules = NoiseRules()) -> Iterator[Draft]:
    """Drafts of the noise variants of one original row, type by type, variation by variation.

    The draws of a type come from ``rng_for(seed, "sequential-niah", "noise-<type>", original_id)``;
    the rules' own streams (``official-<type>`` for the official ones) keep needlework's draws
    unchanged. A variant keeps its original's frame.
    """
    original = layout_of_row(row)
    if rules.frames == "official":
        original = replace(original, frame=official_frame(seed, row["id"], row["lang"]))
    bucket = bucket_named(row["length_bucket"], buckets)
    for noise_type in types:
        official = {"tiny-movement": rules.tiny, "significant-movement": rules.significant,
                    "semantic-noise": rules.semantic}.get(noise_type) in ("official", "generated")
        rng = rng_for(seed, BENCHMARK, f"{'official-' if official else ''}noise-{noise_type}", row["id"])
        layouts = noise_layouts(original, qa, text.text, noise_type, rng, variations, rules)
        for v, layout in enumerate(layouts, start=1):
            yield make_draft(qa, text, layout, tokens, bucket=bucket, variant=f"{noise_type}/{v}", original_id=row["id"])


def generate_noise(originals: Iterable[tuple[dict[str, Any], SequentialQA, LongText]], *, seed: int,
                   tokens: TokenCounter, types: Iterable[str] = NOISE_TYPES, variations: int = VARIATIONS,
                   buckets: tuple[LengthBucket, ...] = LENGTH_BUCKETS,
                   on_error: OnError | None = None, rules: NoiseRules = NoiseRules()) -> Iterator[dict[str, Any]]:
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
        rules: Needlework's or the official noise rules (:class:`NoiseRules`).
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
                                              variations=variations, buckets=buckets, rules=rules)
                except BudgetError as err:
                    if on_error is None:
                        raise
                    on_error(f"{row['id']}/{noise_type}", err)

    return rows_from_drafts(drafts(), tokens, on_error)


def _moved(original: Layout, bounds: np.ndarray, positions: np.ndarray) -> Layout:
    return replace(original, cuts=tuple(bounds[positions].tolist()))


def _with_distractors(original: Layout, qa: SequentialQA, bounds: np.ndarray, positions: np.ndarray,
                      rng: np.random.Generator) -> Layout:
    count = int(rng.integers(1, MAX_DISTRACTORS + 1)) if len(qa.distractors) >= MAX_DISTRACTORS else 1
    chosen = rng.choice(len(qa.distractors), size=count, replace=False)
    free = np.setdiff1d(np.arange(len(bounds)), positions)
    if len(free) < count:
        raise BudgetError(f"no free sentence end for {count} distractors")
    at = np.sort(rng.choice(free, size=count, replace=False))
    noise = tuple((int(bounds[a]), qa.distractors[int(c)]) for a, c in zip(at.tolist(), chosen.tolist()))
    return replace(original, noise=noise)


def official_noise_cuts(positions: np.ndarray, n: int, m: int, rng: np.random.Generator) -> list[int]:
    """Sentence positions for ``m`` noise sentences by the official rule: ``m`` distinct segments of
    the ``k + 1`` around the needles drawn uniformly, then in each a sentence end drawn uniformly
    (``insert_needles_to_text_new`` / ``insert_after_random_period`` in
    ``Sequential_NIAH_building_PPL_with_sem_noise.py``), never a needle's own; segments without a
    free sentence end are left out of the draw. Returned in the order of the sentences.

    Raises:
        BudgetError: Fewer than ``m`` segments have a free sentence end.
    """
    p = [int(x) for x in positions]
    edges = [-1, *p, n]
    free = [[q for q in range(lo + 1, hi) if q not in p] for lo, hi in pairwise(edges)]
    open_segments = [j for j, f in enumerate(free) if f]
    if len(open_segments) < m:
        raise BudgetError(f"{len(open_segments)} segments have a free sentence end, {m} noise sentences to place")
    segments = rng.choice(len(open_segments), size=m, replace=False)
    out = []
    for j in segments.tolist():
        choices = free[open_segments[j]]
        out.append(choices[int(rng.integers(len(choices)))])
    return out


def _with_sentences(original: Layout, bounds: np.ndarray, positions: np.ndarray, sentences: tuple[str, ...],
                    rng: np.random.Generator) -> Layout:
    at = official_noise_cuts(positions, len(bounds), len(sentences), rng)
    noise = sorted((int(bounds[a]), s) for a, s in zip(at, sentences))
    return replace(original, noise=tuple(noise))


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
