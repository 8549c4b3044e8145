"""An independent solver: answers a relation path from the ``facts`` rows alone.

It knows nothing of how questions were composed. Given a start entity and the relations to
follow, it walks the facts and fails loudly when a step has no answer or more than one, which is
how ambiguous questions are rejected and how the tests re-check every released question.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Sequence
from typing import Literal, NamedTuple

import numpy as np

from needlework.errors import NeedleworkError

NO_OBJECT = np.iinfo(np.int64).min
"""The object of an attribute fact (``None``) in the solver's object column."""


class Unsolvable(NeedleworkError, ValueError):
    """A path step has no fact to follow, or several that disagree."""


class Solution(NamedTuple):
    """The answer of a path (an entity id, or a year as text) and the entities walked through."""

    answer: int | str
    path: tuple[int, ...]


class FactSolver:
    """Walks relation paths over ``(subject, relation, object, time)`` facts.

    The facts are indexed as three arrays sorted by key ``subject << 16 | relation`` (with the object
    and the year code), about 20 bytes a fact, so the solver of a 160K-entity world stays a few MB
    and takes little more to build; a step is a binary search for its key. The same facts sorted by
    ``object << 16 | relation``, built on first use, answer the inverse question, which subjects have a
    fact (:meth:`subjects`).
    """

    RELATION_BITS = 16

    def __init__(self, facts: Iterable[tuple[int, str, int | None, str | None]]) -> None:
        self._relations: dict[str, int] = {}
        self._years: dict[str, int] = {}
        keys, objects, years = array("q"), array("q"), array("i")
        for subject, relation, obj, time, *_ in facts:
            keys.append(subject << self.RELATION_BITS | self._relation_code(relation))
            objects.append(NO_OBJECT if obj is None else obj)
            years.append(self._years.setdefault(time[:4], len(self._years)) if time else -1)
        order = np.argsort(np.frombuffer(keys, dtype=np.int64), kind="stable")
        self._keys = np.frombuffer(keys, dtype=np.int64)[order]
        del keys
        self._objects = np.frombuffer(objects, dtype=np.int64)[order]
        del objects
        self._year_codes = np.frombuffer(years, dtype=np.int32)[order]
        self._year_text = list(self._years)
        self._inverse: tuple[np.ndarray, np.ndarray] | None = None  # built by the first subjects() call

    def _relation_code(self, relation: str) -> int:
        code = self._relations.setdefault(relation, len(self._relations))
        if code >> self.RELATION_BITS:
            raise ValueError(f"more than {1 << self.RELATION_BITS} relations")
        return code

    def _found(self, subject: int, relation: str) -> slice:
        """The index range of ``subject``'s facts with ``relation``."""
        code = self._relations.get(relation)
        if code is None:
            return slice(0, 0)
        key = subject << self.RELATION_BITS | code
        return slice(int(np.searchsorted(self._keys, key, "left")), int(np.searchsorted(self._keys, key, "right")))

    def subjects(self, relation: str, obj: int) -> np.ndarray:
        """The distinct subjects with a ``relation`` fact pointing to entity ``obj``, sorted."""
        code = self._relations.get(relation)
        if code is None:
            return np.empty(0, dtype=np.int64)
        if self._inverse is None:  # most solvers only walk paths: the inverse index waits for its first use
            relations = self._keys & ((1 << self.RELATION_BITS) - 1)
            inverse = np.where(self._objects == NO_OBJECT, -1, self._objects << self.RELATION_BITS | relations)
            by_object = np.argsort(inverse, kind="stable")
            self._inverse = inverse[by_object], (self._keys >> self.RELATION_BITS)[by_object]
        keys, subjects = self._inverse
        key = obj << self.RELATION_BITS | code
        return np.unique(subjects[int(np.searchsorted(keys, key, "left")):int(np.searchsorted(keys, key, "right"))])

    def solve(self, start: int, relations: Sequence[str], answer_kind: Literal["entity", "year"]) -> Solution:
        """Follow ``relations`` from ``start``; the last step yields an entity or the fact's year.

        Raises:
            Unsolvable: A step has no matching fact, or more than one distinct answer.
        """
        current, path = start, [start]
        for step, relation in enumerate(relations):
            last = step == len(relations) - 1
            found = self._found(current, relation)
            if last and answer_kind == "year":
                years = {self._year_text[y] for y in self._year_codes[found].tolist() if y >= 0}
                if len(years) != 1:
                    raise Unsolvable(f"step {step + 1} ({relation} of entity {current}): {len(years)} distinct years")
                return Solution(years.pop(), tuple(path))
            objects = {obj for obj in self._objects[found].tolist() if obj != NO_OBJECT}
            if len(objects) != 1:
                raise Unsolvable(f"step {step + 1} ({relation} of entity {current}): {len(objects)} candidate entities")
            current = objects.pop()
            path.append(current)
        return Solution(current, tuple(path[:-1]))
