"""An independent solver: answers a relation path from the ``facts`` rows alone.

It knows nothing of how questions were composed. Given a start entity and the relations to
follow, it walks the facts and fails loudly when a step has no answer or more than one, which is
how ambiguous questions are rejected and how the tests re-check every released question.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Iterable, Literal, NamedTuple, Sequence

from needlework.errors import NeedleworkError


class Unsolvable(NeedleworkError, ValueError):
    """A path step has no fact to follow, or several that disagree."""


class Solution(NamedTuple):
    """The answer of a path (an entity id, or a year as text) and the entities walked through."""

    answer: int | str
    path: tuple[int, ...]


class FactSolver:
    """Walks relation paths over ``(subject, relation, object, time)`` facts."""

    def __init__(self, facts: Iterable[tuple[int, str, int | None, str | None]]) -> None:
        self._index: dict[tuple[int, str], list[tuple[int | None, str | None]]] = defaultdict(list)
        for subject, relation, obj, time, *_ in facts:
            self._index[(subject, relation)].append((obj, time))

    def solve(self, start: int, relations: Sequence[str], answer_kind: Literal["entity", "year"]) -> Solution:
        """Follow ``relations`` from ``start``; the last step yields an entity or the fact's year.

        Raises:
            Unsolvable: A step has no matching fact, or more than one distinct answer.
        """
        current, path = start, [start]
        for step, relation in enumerate(relations):
            last = step == len(relations) - 1
            found = self._index.get((current, relation), [])
            if last and answer_kind == "year":
                years = {time[:4] for _, time in found if time}
                if len(years) != 1:
                    raise Unsolvable(f"step {step + 1} ({relation} of entity {current}): {len(years)} distinct years")
                return Solution(years.pop(), tuple(path))
            objects = {obj for obj, _ in found if obj is not None}
            if len(objects) != 1:
                raise Unsolvable(f"step {step + 1} ({relation} of entity {current}): {len(objects)} candidate entities")
            current = objects.pop()
            path.append(current)
        return Solution(current, tuple(path[:-1]))
