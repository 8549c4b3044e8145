"""A run directory's files, and the one class that reads and writes them: :class:`RunDirectory`.

A run directory holds these files, named here and nowhere else:

- :data:`RUN_FILE` (``run.json``): what is being run, written first (no secrets);
- :data:`SAMPLES` (``samples.jsonl``): one JSON line per finished request, appended and flushed
  as it completes;
- :data:`RESULTS` (``results.json``): the scores, rewritten from the records alone;
- :data:`JUDGE` (``judge.jsonl``): an LLM judge's verdicts on the answers, appended like the samples;
- :data:`EXECUTIONS` (``executions.jsonl``): for tasks scored by running the model's code, how each
  (solution, tests, timeout) ran, so re-scoring does not run it again (:mod:`eval.code_execution`).

The line files are append-only logs. A run killed at any point leaves at most one torn line at
the end; opening a log for append cuts that line off, so the file always holds whole records and
a resumed run neither loses nor duplicates a sample.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any, Iterator, Mapping

from needlework.atomic import atomic_write
from needlework.errors import InputError, SpecError

RUN_FILE = "run.json"
SAMPLES = "samples.jsonl"
RESULTS = "results.json"
JUDGE = "judge.jsonl"
EXECUTIONS = "executions.jsonl"
FSYNC_EVERY_S = 1.0


class RunDirectory:
    """The files of one run directory: reads and writes them, and knows their names.

    Args:
        path: The run directory (it need not exist yet; writers create it).
    """

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)

    def __repr__(self) -> str:
        return f"RunDirectory({str(self.path)!r})"

    @property
    def run_file(self) -> Path:
        """What is being run: :data:`RUN_FILE`."""
        return self.path / RUN_FILE

    @property
    def samples_file(self) -> Path:
        """The model's answers: :data:`SAMPLES`."""
        return self.path / SAMPLES

    @property
    def results_file(self) -> Path:
        """The scores: :data:`RESULTS`."""
        return self.path / RESULTS

    @property
    def judge_file(self) -> Path:
        """The judge's verdicts: :data:`JUDGE`."""
        return self.path / JUDGE

    # The run file ------------------------------------------------------------------------------

    def is_run(self) -> bool:
        """Whether the directory holds a run file (a run was started here)."""
        return self.run_file.is_file()

    def read_run(self) -> dict[str, Any]:
        """The run file's content.

        Raises:
            SpecError: There is no such directory, or no run file in it: not an eval run directory.
            InputError: The run file is not valid JSON.
        """
        if not self.path.is_dir():
            raise SpecError(f"{self.path}: no such run directory")
        if not self.is_run():
            raise SpecError(f"{self.path}: no {RUN_FILE}; not an eval run directory")
        try:
            return json.loads(self.run_file.read_text(encoding="utf-8"))
        except json.JSONDecodeError as err:
            raise InputError(str(self.run_file), None, None, f"not valid JSON ({err.msg})") from err

    def write_run(self, saved: Mapping[str, Any]) -> None:
        """Write the run file atomically, compact (it lists thousands of samples: the compact encoder is 3x faster).

        Raises:
            SpecError: The directory is a file, or it is no run directory but holds a file a run writes
                (``samples.jsonl`` would be appended to, ``results.json`` replaced): nothing is written.
        """
        self.check_can_hold_a_run()
        _write_json(self.run_file, saved, indent=None)

    def check_can_hold_a_run(self) -> None:
        """Refuse a path that is a file, or a folder that is no run directory but holds a run's file names.

        Raises:
            SpecError: Naming the path and the files a run would overwrite.
        """
        if self.path.exists() and not self.path.is_dir():
            raise SpecError(f"{self.path}: a file, not a run directory; choose another --output-dir")
        if self.path.is_dir() and not self.is_run():
            clashing = [name for name in (SAMPLES, RESULTS, JUDGE, EXECUTIONS) if (self.path / name).exists()]
            if clashing:
                raise SpecError(f"{self.path}: no {RUN_FILE}, not an eval run directory, but it holds {', '.join(clashing)}, "
                                "which a run would overwrite; choose another --output-dir")

    # Samples -----------------------------------------------------------------------------------

    def latest_samples(self) -> dict[str, dict[str, Any]]:
        """The sample record that counts for each key (:func:`latest_records`); empty before the first answer."""
        return latest_records(self.samples_file)

    def sample_writer(self) -> "SampleWriter":
        """An appender to the samples log (torn tail repaired first)."""
        return SampleWriter(self.samples_file)

    # Results -----------------------------------------------------------------------------------

    def read_results(self) -> dict[str, Any]:
        """The results file's content, a JSON object.

        Raises:
            SpecError: There is no such directory.
            InputError: The file is missing, is not valid JSON, or is not an object.
        """
        path = self.results_file
        if not self.path.is_dir():
            raise SpecError(f"{self.path}: no such run directory")
        if not path.is_file():
            raise InputError(str(path), None, None, f"no {RESULTS} in run directory {self.path} (is the run finished?)")
        try:
            results = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise InputError(str(path), None, None, f"not valid JSON: {exc.msg} at line {exc.lineno}") from exc
        if not isinstance(results, dict):
            raise InputError(str(path), None, None, f"expected a JSON object, got {type(results).__name__}")
        return results

    def previous_results(self) -> dict[str, Any] | None:
        """The results file's content, or None when there is none yet or it is unreadable (it is rewritten anyway)."""
        try:
            return json.loads(self.results_file.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            return None

    def write_results(self, results: Mapping[str, Any]) -> None:
        """Write the results file atomically, indented, keys sorted."""
        _write_json(self.results_file, results, indent=2)

    # Judge verdicts ----------------------------------------------------------------------------

    def has_judgements(self) -> bool:
        """Whether a judge has written verdicts here."""
        return self.judge_file.is_file()

    def latest_judgements(self) -> dict[str, dict[str, Any]]:
        """The verdict record that counts for each sample key (:func:`latest_records`)."""
        return latest_records(self.judge_file)

    def judge_writer(self) -> "SampleWriter":
        """An appender to the judge log (torn tail repaired first)."""
        return SampleWriter(self.judge_file)

    # Code executions ---------------------------------------------------------------------------

    @property
    def executions_file(self) -> Path:
        """How the model's code ran against its tests: :data:`EXECUTIONS`."""
        return self.path / EXECUTIONS

    def stamp(self) -> tuple[tuple[int, int], ...]:
        """(size, mtime in ns) of the run file, the samples and the verdicts, (0, 0) for a missing one:
        changes whenever what a summary computed from them would."""
        stamps = []
        for path in (self.run_file, self.samples_file, self.judge_file):
            stat = path.stat() if path.is_file() else None
            stamps.append((stat.st_size, stat.st_mtime_ns) if stat else (0, 0))
        return tuple(stamps)


def _write_json(path: Path, data: Mapping[str, Any], indent: int | None) -> None:
    atomic_write(path, json.dumps(data, indent=indent, sort_keys=True, ensure_ascii=False) + "\n")


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
    records = 0  # counted from 1 in messages, as lines are
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        records += 1
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            if number - 1 == last:
                return
            raise InputError(str(path), records, None, f"line {number} is not a JSON record") from None
        if not isinstance(record, dict) or "key" not in record:
            raise InputError(str(path), records, "key", f"line {number}: missing; not a sample record")
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
    """Appends records to a log (samples or verdicts): flushed per record, fsynced at most once a second."""

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
