"""Verdict tables of official scoring code, and the crafted cases they judge (the differential tests of issue 38).

A table (``tests/eval/data/*_verdicts.json``) holds, per case key ``<group>/<row>/<response name>``, the verdicts the
official functions gave (run outside the repository), and the digest of the rows' references they were computed
against. The rows are rebuilt by the test; if they no longer match the digest, the table is stale and the test
says so instead of comparing against verdicts for other references.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

Rows = Mapping[str, Sequence[tuple[str, Sequence[str]]]]
"""Group (a config or task) -> its rows' ``(task, references)``, in row order."""


def references_digest(rows: Rows) -> str:
    """What a table's verdicts were computed against: a digest of every row's task and references."""
    plain = {group: [[task, list(references)] for task, references in group_rows] for group, group_rows in rows.items()}
    return hashlib.sha256(json.dumps(plain, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def verdict_cases(table: Path, rows: Rows, crafted: Callable[[str, Sequence[str]], dict[str, str]],
                  verdicts: tuple[str, ...]) -> list[dict[str, Any]]:
    """Every crafted response to ``rows`` with the table's verdicts, named ``verdicts`` in the table's order.

    Raises:
        AssertionError: The rows are not those the table was made for, or the table and the crafted responses
            do not name the same cases.
    """
    stored = json.loads(table.read_text(encoding="utf-8"))
    assert stored["references_sha256"] == references_digest(rows), (
        f"the rows changed: rerun the official scorers on the crafted responses and rewrite {table.name} "
        "(see its 'made_by')")
    cases = []
    for group, group_rows in rows.items():
        for index, (task, references) in enumerate(group_rows):
            for name, response in crafted(task, references).items():
                key = f"{group}/{index}/{name}"
                cases.append({"key": key, "task": task, "references": list(references), "response": response,
                              **dict(zip(verdicts, stored["verdicts"][key], strict=True))})
    assert len(cases) == len(stored["verdicts"]), "the table and the crafted responses name different cases"
    return cases
