"""MBPP records as base-task problems: RULERv2's multi-key NIAH over MBPP (Appendix D.2).

MBPP (Austin et al. 2021, "Program Synthesis with Large Language Models"; CC BY 4.0) comes in two
schemas, both read here record by record:

- ``full`` (``mbpp.jsonl`` of google-research/mbpp, Hub config ``full``): ``task_id``, ``text`` (the
  description), ``code``, ``test_list``, ``test_setup_code``, ``challenge_test_list``;
- ``sanitized`` (``sanitized-mbpp.json``, Hub config ``sanitized``): ``task_id``, ``prompt`` (the
  edited description), ``code``, ``test_imports`` (a list of import lines), ``test_list``.

Which records are hidden and which are demonstrations follows MBPP's own split by ``task_id``
(google-research/google-research ``mbpp/README.md``: "Task IDs 11-510 are used for evaluation", 1-10
"for few-shot prompting", the paper's three shots being 2, 3 and 4; the Hub dataset's splits name the
rest: 511-600 validation, 601-974 train): test problems are hidden, prompt problems are the
demonstrations, and validation and train problems are not used. A hidden problem is shown as evalplus's MBPP+ prompt, the one NeMo-Skills'
``mbpp`` dataset asks (``nemo_skills/dataset/mbpp/prepare.py`` reads evalplus's ``get_mbpp_plus()``;
evalplus ``tools/mbpp/init_plus.py`` builds it from the sanitized ``prompt`` and ``test_list[0]``): the
description and the first test in a docstring (a line of three double quotes before and after), so
the function's name and call are known.
NeMo-Skills also turns every four spaces into a tab there ("models like tabs more than spaces");
that is not done here, since it would change string literals inside a test.

A solution is scored by running ``test_setup`` and every ``test_list`` assert after it (a solution
passes an MBPP problem when it passes its tests; they are evalplus's base tests), which is why rows
carry both.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from builders.sources.records import record_error, require_field
from generators.rulerv2.pools import Problem

HUB_REPO = "google-research-datasets/mbpp"
HUB_CONFIGS = ("full", "sanitized")
"""The Hub configs (``hub:google-research-datasets/mbpp/sanitized`` picks the second); their ``test``
split is hidden and their ``prompt`` split gives the demonstrations."""
TASK_ID_SPLITS = ((1, 10, "shot"), (11, 510, "test"), (511, 600, "validation"), (601, 974, "train"))
"""MBPP's split by ``task_id`` (inclusive ranges), for a local file of all records."""


def split_of(task_id: int) -> str:
    """``test`` (hidden), ``shot`` (demonstration), ``validation`` or ``train`` for an MBPP ``task_id``;
    ``""`` outside 1..974."""
    return next((split for low, high, split in TASK_ID_SPLITS if low <= task_id <= high), "")


def task_id_of(record: Mapping[str, Any], file: str, index: int) -> int:
    """The record's ``task_id``, an integer (a digit string is accepted)."""
    value = require_field(record, "task_id", file, index)
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool):
        raise record_error(file, index, "task_id", f"expected an integer, got {value!r}")
    return value


def _string(record: Mapping[str, Any], name: str, file: str, index: int, *, empty: bool = False) -> str:
    value = require_field(record, name, file, index)
    if not isinstance(value, str) or (not empty and not value.strip()):
        raise record_error(file, index, name, f"expected a {'' if empty else 'non-empty '}string, got {value!r}")
    return value.replace("\r\n", "\n").replace("\r", "\n").strip()


def _strings(record: Mapping[str, Any], name: str, file: str, index: int, *, empty: bool = False) -> tuple[str, ...]:
    value = require_field(record, name, file, index)
    if hasattr(value, "tolist"):  # a Parquet list read as an array
        value = value.tolist()
    if not isinstance(value, (list, tuple)) or (not empty and not value):
        raise record_error(file, index, name, f"expected a {'' if empty else 'non-empty '}list of strings, got {value!r}")
    bad = [v for v in value if not isinstance(v, str) or not v.strip()]
    if bad:
        raise record_error(file, index, name, f"expected non-empty strings, got {bad[0]!r}")
    return tuple(v.strip() for v in value)


def mbpp_prompt(description: str, first_test: str) -> str:
    """evalplus's MBPP+ prompt without its closing line break: the description and the first test in a docstring."""
    return f'"""\n{description}\n{first_test}\n"""'


def mbpp_problem(record: Mapping[str, Any], file: str, index: int) -> Problem:
    """One MBPP record, in the ``full`` or the ``sanitized`` schema, as a problem (qid ``mbpp/{task_id}``).

    The description is ``text`` (full) or ``prompt`` (sanitized); the setup is ``test_setup_code``
    (full) or the ``test_imports`` lines (sanitized); ``challenge_test_list`` is not used (it is not
    part of MBPP's test protocol, nor of evalplus's base tests).

    Raises:
        InputError: A field is missing or of the wrong type (naming file, record and field).
    """
    task_id = task_id_of(record, file, index)
    if "text" not in record and "prompt" not in record:
        raise record_error(file, index, "text", "missing (or prompt, in the sanitized schema)")
    description = _string(record, "text" if "text" in record else "prompt", file, index)
    tests = _strings(record, "test_list", file, index)
    if "test_setup_code" in record:
        setup = _string(record, "test_setup_code", file, index, empty=True)
    elif "test_imports" in record:
        setup = "\n".join(_strings(record, "test_imports", file, index, empty=True))
    else:
        raise record_error(file, index, "test_setup_code", "missing (or test_imports, in the sanitized schema)")
    code = _string(record, "code", file, index)
    return Problem(f"mbpp/{task_id}", mbpp_prompt(description, tests[0]), code, solution=code, tests=tests,
                   test_setup=setup)
