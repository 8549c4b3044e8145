"""One indexing rule for every made-on-read sequence (:class:`needlework.rows.RowSequence`)."""

from __future__ import annotations

import numpy as np
import pytest

from needlework.rows import RowSequence


class Squares(RowSequence[int]):
    row_name = "square"

    def __init__(self, n: int) -> None:
        self.n, self.made = n, []

    def __len__(self) -> int:
        return self.n

    def _row(self, index: int) -> int:
        self.made.append(index)
        return index * index


def test_rows_are_made_on_read_with_list_semantics():
    squares = Squares(5)
    assert squares[-1] == 16 and squares[np.int64(2)] == 4 and squares[1:4] == [1, 4, 9] and squares[::-2] == [16, 4, 0]
    assert list(squares) == [0, 1, 4, 9, 16] and 9 in squares and squares.index(9) == 3
    assert all(isinstance(i, int) for i in squares.made)
    with pytest.raises(IndexError, match=r"square 5 out of range \(5 squares\)"):
        squares[5]
    with pytest.raises(IndexError):
        squares[-6]
