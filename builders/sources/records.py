"""Read files of records (JSON Lines, JSON, Parquet, CSV) for every source adapter, with clear errors.

A malformed file or record raises an :class:`InputError` naming the file, the record and the field.
Records and lines are numbered from 1 wherever a user sees them (the first record of a JSON Lines
file on its first line is "record 1", "line 1"); code keeps 0-based positions, and
:func:`record_error` converts.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from needlework.errors import InputError

TABLE_SUFFIXES = (".csv", ".json", ".jsonl", ".parquet")


def record_error(file: str, index: int, field: str | None, problem: str) -> InputError:
    """The :class:`InputError` for the record at 0-based position ``index``, which users call record ``index + 1``."""
    return InputError(file, index + 1, field, problem)


def read_records(path: Path, suffixes: Collection[str]) -> list[dict[str, Any]]:
    """Read a file of records (objects) by its suffix, so every source accepts the same formats.

    Args:
        path: The file; ``.jsonl`` holds one object per line (blank lines skipped), ``.json`` a
            list of objects, ``.parquet`` a table, ``.csv`` a header row and data rows.
        suffixes: The suffixes the caller supports (a subset of :data:`TABLE_SUFFIXES`).

    Returns:
        The records in file order.

    Raises:
        InputError: The suffix is not supported, the file is missing or unreadable, or a record is
            not an object.
    """
    suffix = path.suffix.lower()
    if not path.is_file():
        raise InputError(str(path), None, None, "file not found")
    if suffix not in suffixes:
        raise InputError(str(path), None, None, f"unsupported file type {path.suffix!r}; supported: {', '.join(suffixes)}")
    records = _READERS[suffix](path)
    for index, record in enumerate(records):
        if not isinstance(record, dict):
            raise record_error(str(path), index, None, f"expected an object, got {type(record).__name__}")
    return records


def require_field(record: Mapping[str, Any], name: str, file: str, index: int) -> Any:
    """The value of a record's field, so that a missing one is reported with file, record and field.

    ``index`` is the record's 0-based position.

    Raises:
        InputError: The field is missing.
    """
    if name not in record:
        raise record_error(file, index, name, "missing")
    return record[name]


def csv_rows(path: Path) -> list[list[str]]:
    """The non-empty rows of a CSV file, as lists of fields (MMLU's files may lack a header)."""
    # utf-8-sig: spreadsheet exports start with a byte-order mark; newline="" keeps quoted newlines.
    try:
        with path.open(encoding="utf-8-sig", newline="") as handle:
            return [row for row in csv.reader(handle) if row]
    except UnicodeDecodeError as err:
        raise InputError(str(path), None, None, f"not UTF-8 text ({err.reason} at byte {err.start})") from err
    except csv.Error as err:
        raise InputError(str(path), None, None, f"not valid CSV ({err})") from err


def _csv_records(path: Path) -> list[dict[str, Any]]:
    rows = csv_rows(path)
    if not rows:
        return []
    header = [cell.strip() for cell in rows[0]]
    for index, row in enumerate(rows[1:]):
        if len(row) != len(header):
            raise record_error(str(path), index, None, f"expected {len(header)} columns as in the header, got {len(row)}")
    return [dict(zip(header, row)) for row in rows[1:]]


def _json_records(path: Path) -> list[Any]:
    try:
        records = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise InputError(str(path), None, None, f"not valid JSON ({err})") from err
    if not isinstance(records, list):
        raise InputError(str(path), None, None, f"expected a list of objects, got {type(records).__name__}")
    return records


def json_lines(path: Path) -> list[Any]:
    """The values of a JSON Lines file in file order, blank lines skipped (the ``.jsonl`` reader of
    :func:`read_records`, for callers that take a file of any name); a bad line is named by record and line.

    Raises:
        InputError: The file is not UTF-8 or a line is not JSON.
    """
    try:
        # split("\n"), not splitlines(): JSON strings may hold U+2028 and other line breaks unescaped.
        lines = path.read_text(encoding="utf-8").split("\n")
    except UnicodeDecodeError as err:
        raise InputError(str(path), None, None, f"not UTF-8 text ({err.reason} at byte {err.start})") from err
    records = []
    for line_number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError as err:
            raise record_error(str(path), len(records), None, f"line {line_number} is not valid JSON ({err})") from err
    return records


def _parquet_records(path: Path) -> list[dict[str, Any]]:
    try:
        return pq.read_table(path).to_pylist()
    except (pa.ArrowInvalid, OSError) as err:
        raise InputError(str(path), None, None, f"unreadable Parquet ({err})") from err


_READERS = {".csv": _csv_records, ".json": _json_records, ".jsonl": json_lines, ".parquet": _parquet_records}
