"""``samples.jsonl``: one JSON line per finished request, appended and flushed as it completes.

A run killed at any point leaves at most one torn line at the end; opening the store for append
cuts that line off, so the file always holds whole records and a resumed run neither loses nor
duplicates a sample.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any, Iterator

from needlework.errors import InputError

SAMPLES = "samples.jsonl"
FSYNC_EVERY_S = 1.0


def is_done(record: dict[str, Any]) -> bool:
    """A record is done when it has an answer or a final error; transient errors are retried."""
    error = record.get("error")
    return error is None or bool(error.get("final"))


def read_records(path: Path) -> Iterator[dict[str, Any]]:
    """Every whole record in ``path``, in file order; a torn last line (from a kill) is ignored."""
    if not path.is_file():
        return
    with path.open("rb") as handle:
        lines = handle.read().split(b"\n")
    last = len(lines) - 1
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            if number - 1 == last:
                return
            raise InputError(str(path), f"line {number}", None, "not a JSON record") from None
        if not isinstance(record, dict) or "key" not in record:
            raise InputError(str(path), f"line {number}", "key", "missing; not a sample record")
        yield record


def latest_records(path: Path) -> dict[str, dict[str, Any]]:
    """The record that counts for each key: the last done one, else the last one written."""
    latest: dict[str, dict[str, Any]] = {}
    for record in read_records(path):
        previous = latest.get(record["key"])
        if previous is None or not is_done(previous) or is_done(record):
            latest[record["key"]] = record
    return latest


class SampleWriter:
    """Appends records to ``samples.jsonl``: flushed per record, fsynced at most once a second."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        _cut_torn_tail(path)
        self._handle = path.open("ab")
        self._synced_at = time.monotonic()

    def append(self, record: dict[str, Any]) -> None:
        """Write one record as a line and flush it to the OS."""
        self._handle.write(json.dumps(record, ensure_ascii=False, sort_keys=True).encode("utf-8") + b"\n")
        self._handle.flush()
        if time.monotonic() - self._synced_at >= FSYNC_EVERY_S:
            os.fsync(self._handle.fileno())
            self._synced_at = time.monotonic()

    def close(self) -> None:
        """Flush, fsync and close."""
        if not self._handle.closed:
            self._handle.flush()
            os.fsync(self._handle.fileno())
            self._handle.close()

    def __enter__(self) -> "SampleWriter":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _cut_torn_tail(path: Path) -> None:
    """Make the file end on a newline: a partial last line (a record cut by a kill) is truncated;
    a whole record that lost only its newline gets it back."""
    if not path.is_file() or path.stat().st_size == 0:
        return
    with path.open("rb+") as handle:
        handle.seek(0, os.SEEK_END)
        size = handle.tell()
        chunk = min(size, 1 << 20)
        while True:
            handle.seek(size - chunk)
            tail = handle.read(chunk)
            cut = tail.rfind(b"\n")
            if cut >= 0 or chunk == size:
                break
            chunk = min(size, chunk * 2)
        keep = size - chunk + cut + 1 if cut >= 0 else 0
        if keep == size:
            return
        handle.seek(keep)
        if _is_record(handle.read(size - keep)):
            handle.seek(size)
            handle.write(b"\n")
        else:
            handle.truncate(keep)


def _is_record(line: bytes) -> bool:
    try:
        record = json.loads(line)
    except json.JSONDecodeError:
        return False
    return isinstance(record, dict) and "key" in record
