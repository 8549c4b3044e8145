"""The error hierarchy shared by every needlework package.

Each error also inherits the matching built-in, so callers that already catch ``ValueError`` or
``FileNotFoundError`` keep working; the CLI turns any ``NeedleworkError`` into one line and exit 2.
"""

from __future__ import annotations


class NeedleworkError(Exception):
    """Root of every error needlework raises on purpose."""


class SpecError(NeedleworkError, ValueError):
    """A spec or option has a value outside its valid set."""


class BudgetError(NeedleworkError, ValueError):
    """A token budget cannot hold what must go into it (needles, template, reserve)."""


class TokenizerError(NeedleworkError, LookupError):
    """A tokenizer spec is unknown or its files cannot be found."""


class InputError(NeedleworkError, ValueError):
    """A source file or record is malformed; the message names file, record and field."""

    def __init__(self, file: str, record: str | int | None, field: str | None, problem: str) -> None:
        where = [str(file)]
        if record is not None:
            where.append(f"record {record}")
        if field is not None:
            where.append(f"field {field!r}")
        super().__init__(f"{', '.join(where)}: {problem}")
        self.file, self.record, self.field, self.problem = file, record, field, problem


class ReleaseError(NeedleworkError, ValueError):
    """A release folder is missing files or disagrees with its manifest or card."""


class HubError(NeedleworkError, OSError):
    """A request to the Hugging Face Hub failed (offline, unreachable, no such repository or revision,
    no access, a server error); the message names the repository and what to do
    (:mod:`needlework.hub` makes it from the Hub client's error)."""
