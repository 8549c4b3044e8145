"""GSM8K and MATH-500 as a :class:`MathPool`: the math base tasks of RULERv2's Appendix D.2.

RULERv2 reports multi-key NIAH "substituting other base tasks like GSM8K, MATH500, and MBPP" for
MMLU (Appendix D.2, Figure 6 top right). Two entries per base task: the Hub dataset, and a local
file in the original format (JSON Lines, JSON or Parquet records). Records are numbered from 0 in
data order, as in the qids, and a malformed one raises an :class:`InputError` naming the file, the
record and the field.

- GSM8K (``openai/gsm8k``, config ``main``; Cobbe et al. 2021): ``question`` and ``answer``, the
  worked solution ending ``#### <number>``. The reference answer is the text after ``####`` with
  commas removed and stripped, as NeMo-Skills prepares it (``nemo_skills/dataset/gsm8k/prepare.py``:
  ``answer.split("####")``, ``.replace(",", "").strip()``). Test problems are hidden; train problems
  are the few-shot demonstrations.
- MATH-500 (``HuggingFaceH4/MATH-500``; the 500-problem test subset of Hendrycks et al.'s MATH
  chosen by Lightman et al.): ``problem``, ``solution``, ``answer``, ``subject``, ``level``,
  ``unique_id``. The reference answer is ``answer`` as released (NeMo-Skills
  ``nemo_skills/dataset/math-500/prepare.py`` renames it ``expected_answer`` unchanged). It has a
  test split only, so demonstrations come from the other problems (see
  :mod:`generators.rulerv2.items`).

A local file may carry a ``split`` column: ``train`` (or ``dev``) records become demonstrations,
the others (``test`` or none) are hidden problems.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from builders.sources.records import read_records, record_error, require_field
from generators.rulerv2.pools import MathPool, MathProblem
from needlework.errors import InputError

MATH_BASES = ("gsm8k", "math500")
"""The math base tasks a multi-key NIAH build can hide instead of MMLU (``--mk-base``)."""
HUB_REPOS = {"gsm8k": ("openai/gsm8k", "main"), "math500": ("HuggingFaceH4/MATH-500", None)}
"""Each base task's Hub dataset and config (``load_dataset(repo, config)``)."""
FILE_SUFFIXES = (".json", ".jsonl", ".parquet")
SHOT_SPLITS = ("train", "dev")
GSM8K_MARK = "####"


def gsm8k_answer(solution: str, file: str, index: int) -> str:
    """The reference answer of a GSM8K ``answer`` field: the text after ``####``, commas removed, stripped."""
    if not isinstance(solution, str) or GSM8K_MARK not in solution:
        raise record_error(file, index, "answer", f"expected a solution ending '#### <number>', got {str(solution)[-60:]!r}")
    answer = solution.rsplit(GSM8K_MARK, 1)[1].replace(",", "").strip()
    if not answer:
        raise record_error(file, index, "answer", "nothing after '####'")
    return answer


def _text(record: Mapping[str, Any], name: str, file: str, index: int) -> str:
    value = require_field(record, name, file, index)
    if not isinstance(value, str) or not value.strip():
        raise record_error(file, index, name, f"expected a non-empty string, got {value!r}")
    return value.strip()


def gsm8k_problem(record: Mapping[str, Any], qid: str, file: str, index: int) -> MathProblem:
    """One GSM8K record (``question``, ``answer``) as a problem."""
    solution = require_field(record, "answer", file, index)
    return MathProblem(qid, _text(record, "question", file, index), gsm8k_answer(solution, file, index),
                       solution=str(solution).strip())


def math500_problem(record: Mapping[str, Any], qid: str, file: str, index: int) -> MathProblem:
    """One MATH-500 record (``problem``, ``answer``, optional ``solution`` and ``subject``) as a problem."""
    subject = record.get("subject") or ""
    if not isinstance(subject, str):
        raise record_error(file, index, "subject", f"expected a string, got {type(subject).__name__}")
    solution = record.get("solution") or ""
    answer = require_field(record, "answer", file, index)
    if isinstance(answer, (int, float)) and not isinstance(answer, bool):
        answer = str(answer)
    if not isinstance(answer, str) or not answer.strip():
        raise record_error(file, index, "answer", f"expected a non-empty string, got {answer!r}")
    return MathProblem(qid, _text(record, "problem", file, index), answer.strip(), subject.strip(), str(solution).strip())


_READERS = {"gsm8k": gsm8k_problem, "math500": math500_problem}


def math_pool_from_records(
    base: str, test_rows: Iterable[Mapping[str, Any]], shot_rows: Iterable[Mapping[str, Any]], source_label: str
) -> MathPool:
    """The pool of ``base`` from rows in the original record shape (the pure half of the readers).

    Args:
        base: ``gsm8k`` or ``math500``.
        test_rows: The hidden problems, in order (qids ``{base}/test/{row:04d}``, or for MATH-500
            ``math500/{unique_id}`` when the record has one).
        shot_rows: Demonstration problems (qids ``{base}/train/{row:04d}``).
        source_label: Names the source in error messages.

    Raises:
        InputError: A row is malformed, or there are no test rows.
    """
    read = _READERS[base]

    def qid(split: str, index: int, record: Mapping[str, Any]) -> str:
        unique = record.get("unique_id")
        return f"{base}/{unique}" if base == "math500" and isinstance(unique, str) and unique else f"{base}/{split}/{index:04d}"

    questions = tuple(read(r, qid("test", i, r), f"{source_label} test", i) for i, r in enumerate(test_rows))
    if not questions:
        raise InputError(f"{source_label} test", None, None, "no problems")
    shots = tuple(read(r, qid("train", i, r), f"{source_label} train", i) for i, r in enumerate(shot_rows))
    return MathPool(base, questions, shots)


def read_math_file(base: str, path: Path) -> MathPool:
    """Read a local GSM8K or MATH-500 file in its original format.

    Args:
        base: ``gsm8k`` (records with ``question`` and ``answer``) or ``math500`` (``problem``,
            ``answer``, ...).
        path: A ``.jsonl``, ``.json`` (a list of records) or ``.parquet`` file, e.g. GSM8K's
            ``test.jsonl`` or MATH-500's ``test.jsonl``. Records with ``split`` ``train``/``dev``
            are demonstrations.

    Raises:
        InputError: The file is missing, of another type or unreadable, a record is malformed, or
            no record is a test problem.
    """
    records = read_records(path, FILE_SUFFIXES)
    for index, record in enumerate(records):
        split = record.get("split") or "test"
        if split not in ("test", *SHOT_SPLITS):
            raise record_error(str(path), index, "split", f"expected test, train or dev, got {split!r}")
    test = [r for r in records if (r.get("split") or "test") == "test"]
    shots = [r for r in records if (r.get("split") or "test") in SHOT_SPLITS]
    return math_pool_from_records(base, test, shots, str(path))


def read_math_hub(base: str, repo: str | None = None) -> MathPool:
    """Load GSM8K (``test`` hidden, ``train`` as demonstrations) or MATH-500 (``test``) with ``datasets``.

    Args:
        base: ``gsm8k`` or ``math500``.
        repo: A dataset repo id with the original columns, or a local folder that ``load_dataset``
            reads (default: :data:`HUB_REPOS`).
    """
    import datasets  # lazy: loading the Hub dataset is the only thing here that needs it

    default_repo, config = HUB_REPOS[base]
    repo = repo or default_repo
    source = f"{repo} ({config})" if config else repo
    loaded = datasets.load_dataset(repo, config) if config else datasets.load_dataset(repo)
    if "test" not in loaded:
        raise InputError(source, None, None, f"no split test; found {', '.join(sorted(loaded))}")
    shots = loaded["train"] if base == "gsm8k" and "train" in loaded else ()
    return math_pool_from_records(base, loaded["test"], shots, source)
