"""Column storage for the world: typed arrays instead of one Python object per field.

A 100M-token MemoryBank has about 160K entities with half a million facts and events. As
dataclasses and named tuples they took about 1.8 KB an entity (issue 21's note), which made the
build's peak memory grow with the bank; as columns they take about a tenth of that. Each column
reads and writes one field by row and gives back exactly the value it was given, so the records
built over them (:mod:`generators.world.model`) compare equal to the plain records they replace.
"""

from __future__ import annotations

from array import array
from collections.abc import Hashable, Iterable
from typing import Generic, TypeVar

import numpy as np

V = TypeVar("V", bound=Hashable)

NONE_INT = -(2**31)
"""The int32 sentinel standing for ``None`` in an :class:`IntColumn`."""


class CodedColumn(Generic[V]):
    """A column of values stored as one int code per row: subclasses give :meth:`encode` and :meth:`decode`."""

    def __init__(self, typecode: str) -> None:
        self.codes = array(typecode)

    def encode(self, value: V) -> int:
        raise NotImplementedError

    def decode(self, code: int) -> V:
        raise NotImplementedError

    def append(self, value: V) -> None:
        self.codes.append(self.encode(value))

    def __getitem__(self, row: int) -> V:
        return self.decode(self.codes[row])

    def __setitem__(self, row: int, value: V) -> None:
        self.codes[row] = self.encode(value)

    def __len__(self) -> int:
        return len(self.codes)


class InternedColumn(CodedColumn[V]):
    """A column of few distinct values (types, relations, genders): one small code per row.

    Codes index the distinct values in order of first appearance, so equal inputs give equal codes.
    """

    def __init__(self, typecode: str = "B") -> None:
        super().__init__(typecode)
        self.values: list[V] = []
        self._code: dict[V, int] = {}

    def encode(self, value: V) -> int:
        """The code of ``value``, assigning the next one to a value not seen before."""
        code = self._code.get(value)
        if code is None:
            code = self._code[value] = len(self.values)
            self.values.append(value)
        return code

    def decode(self, code: int) -> V:
        return self.values[code]


class IntColumn(CodedColumn["int | None"]):
    """A column of optional int32 values (``None`` is :data:`NONE_INT`)."""

    def __init__(self) -> None:
        super().__init__("i")

    def encode(self, value: int | None) -> int:
        return NONE_INT if value is None else value

    def decode(self, code: int) -> int | None:
        return None if code == NONE_INT else code


class TimeColumn(CodedColumn["str | None"]):
    """A column of optional ISO times (``"1952"``, ``"1950-03-14"``) as int32 codes.

    A year is ``year * 10000`` and a date ``year * 10000 + month * 100 + day``; ``None`` is -1. Any
    other text (or one that would not print back identically) is kept as text and coded ``-2 - k``.
    """

    def __init__(self) -> None:
        super().__init__("i")
        self._texts: list[str] = []

    def encode(self, time: str | None) -> int:
        if time is None:
            return -1
        if time.isascii():
            if len(time) == 4 and time.isdigit():
                return int(time) * 10000
            year, month, day = time[:4], time[5:7], time[8:]
            if len(time) == 10 and time[4] == time[7] == "-" and (year + month + day).isdigit() and month != "00":
                return int(year) * 10000 + int(month) * 100 + int(day)
        self._texts.append(time)
        return -1 - len(self._texts)

    def decode(self, code: int) -> str | None:
        if code == -1:
            return None
        if code < -1:
            return self._texts[-2 - code]
        year, rest = divmod(code, 10000)
        if rest == 0:
            return f"{year:04d}"
        return f"{year:04d}-{rest // 100:02d}-{rest % 100:02d}"


class StatementColumns:
    """``subject --relation--> object`` at ``time``, row by row: what facts and events both state."""

    def __init__(self) -> None:
        self.subject = array("i")
        self.relation: InternedColumn[str] = InternedColumn()
        self.object = IntColumn()
        self.time = TimeColumn()

    def append(self, subject: int, relation: str, obj: int | None, time: str | None) -> int:
        """Store a statement; returns its row."""
        self.subject.append(subject)
        self.relation.append(relation)
        self.object.append(obj)
        self.time.append(time)
        return len(self.subject) - 1

    def __getitem__(self, row: int) -> tuple[int, str, int | None, str | None]:
        return self.subject[row], self.relation[row], self.object[row], self.time[row]

    def __len__(self) -> int:
        return len(self.subject)


class TextColumn:
    """A column of strings stored as one UTF-8 buffer with row offsets."""

    def __init__(self) -> None:
        self._data = bytearray()
        self._ends = array("Q")

    def append(self, text: str) -> None:
        self._data += text.encode("utf-8")
        self._ends.append(len(self._data))

    def __getitem__(self, row: int) -> str:
        start = self._ends[row - 1] if row else 0
        return self._data[start:self._ends[row]].decode("utf-8")

    def __len__(self) -> int:
        return len(self._ends)


class RaggedColumn:
    """A column of int tuples of varying length, as one flat array with row offsets."""

    def __init__(self, typecode: str = "i") -> None:
        self._data = array(typecode)
        self._ends = array("Q")

    def append(self, values: Iterable[int]) -> None:
        self._data.extend(values)
        self._ends.append(len(self._data))

    def __getitem__(self, row: int) -> tuple[int, ...]:
        start = self._ends[row - 1] if row else 0
        return tuple(self._data[start:self._ends[row]])

    def __setitem__(self, row: int, values: Iterable[int]) -> None:
        """Replace the last row (rows are written while the world grows, each before the next begins)."""
        if row != len(self._ends) - 1 and row != -1:
            raise IndexError(f"only the last row of a ragged column can be rewritten, not row {row} of {len(self._ends)}")
        start = self._ends[-2] if len(self._ends) > 1 else 0
        del self._data[start:]
        self._data.extend(values)
        self._ends[-1] = len(self._data)

    def __len__(self) -> int:
        return len(self._ends)


class PackedIntSet:
    """A growing set of unsigned 64-bit ints in about 8 bytes each (a Python set of ints takes ~90).

    Members are a sorted array plus a small set of recent additions, merged into the array when it
    reaches :attr:`MERGE_AT`; a lookup is a set probe and a binary search.
    """

    MERGE_AT = 8192

    def __init__(self) -> None:
        self._sorted = np.empty(0, dtype=np.uint64)
        self._recent: set[int] = set()

    def __contains__(self, value: int) -> bool:
        if value in self._recent:
            return True
        i = int(np.searchsorted(self._sorted, np.uint64(value)))
        return i < len(self._sorted) and int(self._sorted[i]) == value

    def add(self, value: int) -> None:
        self._recent.add(value)
        if len(self._recent) >= self.MERGE_AT:
            recent = np.fromiter(self._recent, dtype=np.uint64, count=len(self._recent))
            self._sorted = np.sort(np.concatenate((self._sorted, recent)))
            self._recent.clear()

    def __len__(self) -> int:
        return len(self._sorted) + len(self._recent)
