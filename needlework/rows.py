"""Sequences whose rows are made when read: one indexing rule (ints, negatives, slices) for all of them."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Iterator, Sequence
from typing import TypeVar, overload

T = TypeVar("T")


class RowSequence(Sequence[T]):
    """A read-only sequence of ``len(self)`` rows, row ``i`` made by :meth:`_row` when asked.

    Subclasses give ``__len__`` and ``_row(i)`` for ``0 <= i < len``; indexing accepts negative
    positions and NumPy integers, a slice gives a list, and a position out of range is an
    ``IndexError`` naming :attr:`row_name`.
    """

    row_name = "row"

    @abstractmethod
    def _row(self, index: int) -> T:
        """Row ``index``, ``0 <= index < len(self)``."""

    @overload
    def __getitem__(self, index: int) -> T: ...
    @overload
    def __getitem__(self, index: slice) -> list[T]: ...
    def __getitem__(self, index: int | slice) -> T | list[T]:
        n = len(self)
        if isinstance(index, slice):
            return [self._row(i) for i in range(*index.indices(n))]
        if not -n <= index < n:
            raise IndexError(f"{self.row_name} {index} out of range ({n} {self.row_name}s)")
        return self._row(int(index) % n)

    def __iter__(self) -> Iterator[T]:
        return (self._row(i) for i in range(len(self)))
