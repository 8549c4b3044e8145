"""GSM8K, MATH-500 and MBPP as a :class:`ProblemPool`: the other base tasks of RULERv2's Appendix D.2.

RULERv2 reports multi-key NIAH "substituting other base tasks like GSM8K, MATH500, and MBPP" for
MMLU (Appendix D.2, Figure 6 top right). Two entries per base task: the Hub dataset, and a local
file in the original format (JSON Lines, JSON or Parquet records). Records are numbered from 0 in
data order, as in the qids, and a malformed one raises an :class:`InputError` naming the file, the
record and the field. MBPP's two schemas and its split by ``task_id`` are read by
:mod:`builders.sources.mbpp`.

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

A local GSM8K or MATH-500 file may carry a ``split`` column: ``train`` (or ``dev``) records become
demonstrations, the others (``test`` or none) are hidden problems. An MBPP file is split by ``task_id``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from builders.sources import mbpp
from builders.sources.names import CODE_BASES
from builders.sources.records import read_records, record_error, require_field
from generators.rulerv2.pools import Problem, ProblemPool
from needlework.errors import InputError
from needlework.hub import load_hub_dataset

HUB_REPOS = {"gsm8k": ("openai/gsm8k", "main"), "math500": ("HuggingFaceH4/MATH-500", None),
             "mbpp": (mbpp.HUB_REPO, "full")}
"""Each base task's Hub dataset and default config (``load_dataset(repo, config)``)."""
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


def gsm8k_problem(record: Mapping[str, Any], qid: str, file: str, index: int) -> Problem:
    """One GSM8K record (``question``, ``answer``) as a problem."""
    solution = require_field(record, "answer", file, index)
    return Problem(qid, _text(record, "question", file, index), gsm8k_answer(solution, file, index),
                       solution=str(solution).strip())


def math500_problem(record: Mapping[str, Any], qid: str, file: str, index: int) -> Problem:
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
    return Problem(qid, _text(record, "problem", file, index), answer.strip(), subject.strip(), str(solution).strip())


_READERS = {"gsm8k": gsm8k_problem, "math500": math500_problem}


def _read_problem(base: str, record: Mapping[str, Any], split: str, position: int, file: str, index: int) -> Problem:
    """Record ``index`` of ``file`` (a ``base`` record) as a problem; its qid is ``{base}/{split}/{position:04d}``
    (its position in its split), or the source's own id where it has one (MATH-500 ``unique_id``, MBPP ``task_id``)."""
    if base in CODE_BASES:
        return mbpp.mbpp_problem(record, file, index)
    unique = record.get("unique_id")
    qid = f"{base}/{unique}" if base == "math500" and isinstance(unique, str) and unique else f"{base}/{split}/{position:04d}"
    return _READERS[base](record, qid, file, index)


def problem_pool_from_records(
    base: str, test_rows: Iterable[Mapping[str, Any]], shot_rows: Iterable[Mapping[str, Any]], source_label: str
) -> ProblemPool:
    """The pool of ``base`` from rows in the original record shape (the pure half of the readers).

    Args:
        base: ``gsm8k``, ``math500`` or ``mbpp``.
        test_rows: The hidden problems, in order (qids ``{base}/test/{row:04d}``, for MATH-500
            ``math500/{unique_id}`` when the record has one, for MBPP ``mbpp/{task_id}``).
        shot_rows: Demonstration problems (qids ``{base}/train/{row:04d}``; MBPP ``mbpp/{task_id}``).
        source_label: Names the source in error messages.

    Raises:
        InputError: A row is malformed, or there are no test rows.
    """
    questions = tuple(_read_problem(base, r, "test", i, f"{source_label} test", i) for i, r in enumerate(test_rows))
    if not questions:
        raise InputError(f"{source_label} test", None, None, "no problems")
    shots = tuple(_read_problem(base, r, "train", i, f"{source_label} train", i) for i, r in enumerate(shot_rows))
    return ProblemPool(base, questions, shots)


math_pool_from_records = problem_pool_from_records
"""The name the math base tasks' callers know."""


def _file_splits(base: str, records: list[dict[str, Any]], path: Path) -> list[str]:
    """Each record's role in a local file: ``test`` (hidden), ``shot`` (demonstration) or another
    split that is not used (MBPP's ``train`` and ``validation``)."""
    splits = []
    for index, record in enumerate(records):
        if base in CODE_BASES:
            task_id = mbpp.task_id_of(record, str(path), index)
            split = mbpp.split_of(task_id)
            if not split:
                raise record_error(str(path), index, "task_id", f"outside MBPP's task ids 1..974, got {task_id}")
        else:
            split = record.get("split") or "test"
            if split not in ("test", *SHOT_SPLITS):
                raise record_error(str(path), index, "split", f"expected test, train or dev, got {split!r}")
            split = "shot" if split in SHOT_SPLITS else split
        splits.append(split)
    return splits


def read_math_file(base: str, path: Path) -> ProblemPool:
    """Read a local GSM8K, MATH-500 or MBPP file in its original format.

    Args:
        base: ``gsm8k`` (records with ``question`` and ``answer``), ``math500`` (``problem``,
            ``answer``, ...) or ``mbpp`` (``task_id``, ``text`` or ``prompt``, ``code``, ``test_list``, ...).
        path: A ``.jsonl``, ``.json`` (a list of records) or ``.parquet`` file, e.g. GSM8K's
            ``test.jsonl``, MATH-500's ``test.jsonl``, MBPP's ``mbpp.jsonl`` or ``sanitized-mbpp.json``.
            GSM8K/MATH-500 records with ``split`` ``train``/``dev`` are demonstrations; MBPP records
            are split by ``task_id`` (11-510 hidden, 1-10 demonstrations, the others unused).

    Raises:
        InputError: The file is missing, of another type or unreadable, a record is malformed, or
            no record is a test problem.
    """
    records = read_records(path, FILE_SUFFIXES)
    read: dict[str, list[Problem]] = {"test": [], "shot": []}
    for index, (record, split) in enumerate(zip(records, _file_splits(base, records, path))):
        if split in read:  # numbered by file position in errors, by split position in qids
            qid_split = "test" if split == "test" else "train"
            read[split].append(_read_problem(base, record, qid_split, len(read[split]), str(path), index))
    if not read["test"]:
        raise InputError(str(path), None, None, "no problems (no test records)")
    return ProblemPool(base, tuple(read["test"]), tuple(read["shot"]))


def hub_repo_and_config(base: str, repo: str | None) -> tuple[str, str | None]:
    """The dataset and config to load: ``repo`` (default :data:`HUB_REPOS`) with the base task's
    default config, or ``owner/name/config`` naming one (``google-research-datasets/mbpp/sanitized``);
    a local folder (splits as files, e.g. ``data/test-00000-of-00001.parquet``) is loaded as it is."""
    default_repo, config = HUB_REPOS[base]
    repo = repo or default_repo
    if Path(repo).is_dir():
        return repo, None
    if repo.count("/") == 2:
        repo, config = repo.rsplit("/", 1)
    return repo, config


def read_math_hub(base: str, repo: str | None = None) -> ProblemPool:
    """Load a base task's problems with ``datasets``: GSM8K (``test`` hidden, ``train`` as
    demonstrations), MATH-500 (``test``) or MBPP (``test`` hidden, ``prompt`` as demonstrations:
    task ids 11-510 and 1-10).

    Args:
        base: ``gsm8k``, ``math500`` or ``mbpp``.
        repo: A dataset repo id with the original columns, ``owner/name/config`` (MBPP's ``full`` or
            ``sanitized``), or a local folder that ``load_dataset`` reads (default: :data:`HUB_REPOS`).
    """
    repo, config = hub_repo_and_config(base, repo)
    source = f"{repo} ({config})" if config else repo
    loaded = load_hub_dataset(repo, config or None, label=source)
    if "test" not in loaded:
        raise InputError(source, None, None, f"no split test; found {', '.join(sorted(loaded))}")
    shot_split = {"gsm8k": "train", "mbpp": "prompt"}.get(base)
    shots = loaded.get(shot_split, ())
    return problem_pool_from_records(base, loaded["test"], shots, source)
