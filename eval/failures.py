"""When a run's failures stop it, and how they are told: the error budget and the all-failed rule.

Kept apart from :mod:`eval.runner` (which imports the release reader, the benchmarks and the
backends) so that the command line can state the budget in ``--help`` without loading a run.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from needlework.errors import NeedleworkError

MIN_SAMPLES_FOR_ERROR_BUDGET = 20
"""The error budget is checked once this many samples of an invocation finished: a smaller run is
never stopped by it, but one whose samples all failed still exits non-zero (:class:`RunFailed`)."""
ERROR_KINDS_SHOWN = 3


class ErrorBudgetExceeded(NeedleworkError, RuntimeError):
    """Too many samples failed; the run stopped early and can be resumed."""

    exit_status = 3


class RunFailed(NeedleworkError, RuntimeError):
    """Every sample of the run failed: it has no score. Its records are kept; re-running resumes."""

    exit_status = 3


def describe_failures(errors: Iterable[Mapping[str, Any]]) -> str:
    """The most frequent error kinds with counts and an example each:
    ``10 connection (connection refused ...), 2 timeout (no response within 600 s)``."""
    counts: Counter[str] = Counter()
    example: dict[str, str] = {}
    for error in errors:
        counts[error["kind"]] += 1
        example.setdefault(error["kind"], str(error.get("message") or "")[:160])
    shown = counts.most_common(ERROR_KINDS_SHOWN)
    parts = [f"{n} {kind} ({example[kind]})" if example[kind] else f"{n} {kind}" for kind, n in shown]
    rest = counts.total() - sum(n for _, n in shown)
    return ", ".join(parts) + (f", {rest} other" if rest else "")
