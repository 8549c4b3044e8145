"""MMLU, and any multiple-choice table with the same columns, as an :class:`McqPool`.

Three entries: the MMLU folder layout (``dev/`` and ``test/`` of per-subject CSVs, with or without
a header row), the Hub dataset ``cais/mmlu``, and any other table of questions with four choices
(JSON Lines, JSON, Parquet or CSV). Records are numbered from 0 in data order, as in the qids, and a
malformed one raises an :class:`InputError` naming the file, the record and the field. Text is kept
as in the source except for stripping surrounding whitespace; normalisation is the builder's job.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from builders.sources.records import (
    TABLE_SUFFIXES,
    csv_rows,
    read_records,
    record_error,
    require_field,
)
from generators.rulerv2.pools import LETTERS, Mcq, McqPool
from needlework.checks import is_one_of, one_of_message
from needlework.errors import InputError
from needlework.hub import load_hub_dataset

SPLITS = ("test", "dev")
MMLU_HEADERS = (
    ("question", "choice0", "choice1", "choice2", "choice3", "answer"),
    ("question", "a", "b", "c", "d", "answer"),
)
"""Header rows a per-subject CSV may start with (compared lower-cased); the original has none."""
CHOICE_COLUMNS = (("choice0", "choice1", "choice2", "choice3"), LETTERS)
"""Flat alternatives to a ``choices`` list column, in the order they are tried."""


# --- Entries -----------------------------------------------------------------------------------


def read_mmlu_folder(path: Path) -> McqPool:
    """Read MMLU from its folder layout: ``test/<subject>_test.csv`` and ``dev/<subject>_dev.csv``.

    This is the layout of the original release (``data/test``, ``data/dev``), so the paper's source
    can be used from a local copy without the Hub. Each file may be the original headerless
    six-column CSV with an answer letter, or have a ``question,choice0..choice3,answer`` header with a
    0-based answer index; the dialect is detected per file. A ``val/`` folder is ignored.

    Args:
        path: The folder that holds ``test/`` and, optionally, ``dev/``.

    Returns:
        A pool named ``mmlu``: the test split as questions, the dev split as few-shot shots, with
        qids ``mmlu/{split}/{subject}/{row:04d}``.

    Raises:
        InputError: ``test/`` is missing or holds no questions, or a row is malformed.
    """
    questions = _read_mmlu_split(path, "test")
    if not questions:
        raise InputError(str(path / "test"), None, None, "no questions: expected <subject>_test.csv files (MMLU layout)")
    return McqPool("mmlu", questions, _read_mmlu_split(path, "dev"))


def read_mmlu_hub(repo: str = "cais/mmlu", config: str = "all") -> McqPool:
    """Load MMLU from the Hub (or a local folder in the Hub's layout) with ``datasets``.

    Args:
        repo: A dataset repo id with ``cais/mmlu``'s columns (``question``, ``subject``,
            ``choices``, ``answer`` as an index), or a local folder that ``load_dataset`` reads.
        config: The config to load; ``all`` holds every subject.

    Returns:
        The same pool :func:`read_mmlu_folder` returns for the same data (see
        :func:`mcq_pool_from_records`).

    Raises:
        InputError: The dataset lacks a ``test`` or ``dev`` split, or a row is malformed.
    """
    source = f"{repo} ({config})"
    loaded = load_hub_dataset(repo, config, label=source)
    missing = [split for split in SPLITS if split not in loaded]
    if missing:
        raise InputError(source, None, None, f"no split {', '.join(missing)}; found {', '.join(sorted(loaded))}")
    return mcq_pool_from_records("mmlu", loaded["test"], loaded["dev"], source)


def mcq_pool_from_records(
    name: str, test_rows: Iterable[Mapping[str, Any]], dev_rows: Iterable[Mapping[str, Any]], source_label: str
) -> McqPool:
    """Convert rows shaped like ``cais/mmlu``'s into a pool; the pure half of :func:`read_mmlu_hub`.

    Rows are numbered within their subject and split, so that Hub rows in the original order get
    the same qids as :func:`read_mmlu_folder` gives the CSV files.

    Args:
        name: Pool name and qid prefix (``mmlu``).
        test_rows: Rows with ``question``, ``subject``, ``choices`` (4) and ``answer`` (0-3 or A-D).
        dev_rows: Rows of the same shape, used as few-shot shots.
        source_label: Names the source in error messages, e.g. ``cais/mmlu (all)``.

    Returns:
        A pool with qids ``{name}/{split}/{subject}/{row:04d}``.

    Raises:
        InputError: A row is malformed, or there are no test rows.
    """
    questions = _records_split(name, "test", test_rows, source_label)
    if not questions:
        raise InputError(f"{source_label} test", None, None, "no rows")
    return McqPool(name, questions, _records_split(name, "dev", dev_rows, source_label))


def read_mcq_table(path: Path) -> McqPool:
    """Read any multiple-choice table with MMLU's columns (the paper's substitutes for MMLU).

    Columns: ``question``; ``choices`` (a list of 4 strings) or ``choice0..choice3`` or ``A..D``;
    ``answer`` (a letter A-D or an index 0-3); optional ``subject``; optional ``split`` (``test``
    or ``dev``; ``dev`` rows become few-shot shots, the rest are questions).

    Args:
        path: A ``.jsonl``, ``.json`` (a list of objects), ``.parquet`` or ``.csv`` (with a header) file.

    Returns:
        A pool named after the file's stem, with qids ``{stem}/{row:05d}``.

    Raises:
        InputError: The file is missing, of another type or unreadable, a record is malformed, or
            no record is a test question.
    """
    questions: list[Mcq] = []
    shots: list[Mcq] = []
    for index, record in enumerate(read_records(path, TABLE_SUFFIXES)):
        split = record.get("split") or "test"
        if not is_one_of(split, SPLITS):
            raise record_error(str(path), index, "split", one_of_message("split", split, SPLITS))
        subject = record.get("subject") or ""
        choices = _table_choices(record, str(path), index)
        mcq = _mcq(f"{path.stem}/{index:05d}", require_field(record, "question", str(path), index), choices,
                   require_field(record, "answer", str(path), index), subject, str(path), index)
        (shots if split == "dev" else questions).append(mcq)
    if not questions:
        raise InputError(str(path), None, None, "no test questions (the file is empty or every record has split 'dev')")
    return McqPool(path.stem, tuple(questions), tuple(shots))


def read_mcq_distractors(path: Path) -> tuple[Mcq, ...]:
    """Read the questions that fill RULERv2 contexts under the ``paper`` preset: MMLU ``auxiliary_train``.

    ``prepare_mmlu.py`` (NVIDIA-NeMo/Skills ``nemo_skills/dataset/ruler2``) hides one MMLU test question
    among questions of ``cais/mmlu``'s ``auxiliary_train`` split. Offline, that split is the original
    release's ``data/auxiliary_train/`` folder of headerless six-column CSVs (``arc_easy.csv``,
    ``race.csv`` ...).

    Args:
        path: A folder of CSV files (every ``*.csv`` in it, headerless or with an MMLU header; any
            MMLU split folder such as ``dev/`` can stand in), or an MCQ table file (every record).

    Returns:
        The questions, with qids ``mmlu/{folder name}/{file stem}/{row:04d}`` for a folder.

    Raises:
        InputError: The path is missing, holds no questions, or a row is malformed.
    """
    if path.is_dir():
        questions = tuple(mcq for file in sorted(path.glob("*.csv")) for mcq in _read_mmlu_csv(file, path.name, suffix=""))
        if not questions:
            raise InputError(str(path), None, None, "no questions: expected CSV files of MMLU questions (auxiliary_train layout)")
        return questions
    if path.is_file():
        pool = read_mcq_table(path)
        return pool.questions + pool.shots
    raise InputError(str(path), None, None, "no such file or folder (MMLU auxiliary_train folder or an MCQ table)")


def read_mcq_distractors_hub(repo: str = "cais/mmlu", config: str = "all", split: str = "auxiliary_train") -> tuple[Mcq, ...]:
    """The ``auxiliary_train`` questions of ``cais/mmlu`` (or a local folder in its layout), with ``datasets``."""
    source = f"{repo} ({config}, {split})"
    rows = load_hub_dataset(repo, config, split=split, label=source)
    return _records_split("mmlu", split, rows, source)


# --- MMLU folders ------------------------------------------------------------------------------


def _read_mmlu_split(root: Path, split: str) -> tuple[Mcq, ...]:
    folder = root / split
    files = sorted(folder.glob(f"*_{split}.csv")) if folder.is_dir() else []
    return tuple(mcq for file in files for mcq in _read_mmlu_csv(file, split))


def _read_mmlu_csv(file: Path, split: str, suffix: str | None = None) -> list[Mcq]:
    subject = file.name.removesuffix(f"_{split}.csv") if suffix is None else file.stem
    rows = csv_rows(file)
    if rows and tuple(cell.strip().lower() for cell in rows[0]) in MMLU_HEADERS:
        rows = rows[1:]
    mcqs = []
    for index, row in enumerate(rows):
        if len(row) != 6:
            raise record_error(str(file), index, None, f"expected 6 columns (question, A, B, C, D, answer), got {len(row)}")
        qid = f"mmlu/{split}/{subject}/{index:04d}"
        mcqs.append(_mcq(qid, row[0], row[1:5], row[5], subject, str(file), index))
    return mcqs


# --- Records -----------------------------------------------------------------------------------


def _records_split(name: str, split: str, rows: Iterable[Mapping[str, Any]], source_label: str) -> tuple[Mcq, ...]:
    where = f"{source_label} {split}"
    per_subject: Counter[str] = Counter()
    mcqs = []
    for index, row in enumerate(rows):
        subject = require_field(row, "subject", where, index)
        if not isinstance(subject, str):
            raise record_error(where, index, "subject", f"expected a string, got {type(subject).__name__}")
        qid = f"{name}/{split}/{subject}/{per_subject[subject]:04d}"
        per_subject[subject] += 1
        mcqs.append(_mcq(qid, require_field(row, "question", where, index), require_field(row, "choices", where, index),
                         require_field(row, "answer", where, index), subject, where, index))
    return tuple(mcqs)


def _table_choices(record: Mapping[str, Any], file: str, index: int) -> Any:
    if "choices" in record:
        return record["choices"]
    for columns in CHOICE_COLUMNS:
        if all(column in record for column in columns):
            return [record[column] for column in columns]
    raise record_error(file, index, "choices", "missing: give choices (a list of 4), choice0..choice3 or A..D")


def _mcq(qid: str, question: Any, choices: Any, answer: Any, subject: Any, file: str, index: int) -> Mcq:
    if not isinstance(question, str) or not question.strip():
        raise record_error(file, index, "question", f"expected a non-empty string, got {question!r}")
    if not isinstance(choices, (list, tuple)) or len(choices) != 4:
        got = f"{len(choices)} choices" if isinstance(choices, (list, tuple)) else type(choices).__name__
        raise record_error(file, index, "choices", f"expected a list of 4 strings, got {got}")
    if not all(isinstance(choice, str) for choice in choices):
        raise record_error(file, index, "choices", f"expected 4 strings, got {[type(c).__name__ for c in choices]}")
    if not isinstance(subject, str):
        raise record_error(file, index, "subject", f"expected a string, got {type(subject).__name__}")
    choice_texts = (choices[0], choices[1], choices[2], choices[3])
    return Mcq(qid, question, choice_texts, _answer_letter(answer, file, index), subject.strip())


def _answer_letter(value: Any, file: str, index: int) -> str:
    if isinstance(value, str) and value.strip() in LETTERS:
        return value.strip()
    if isinstance(value, str) and value.strip() in ("0", "1", "2", "3"):
        return LETTERS[int(value)]
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(LETTERS):
        return LETTERS[value]
    raise record_error(file, index, "answer", f"expected a letter A-D or an index 0-3, got {value!r}")


# --- File formats ------------------------------------------------------------------------------
