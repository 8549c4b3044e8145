"""Command-line plumbing shared by ``needlework`` and ``python -m eval``: domain errors and signals to
exit codes."""

from __future__ import annotations

import functools
from typing import Callable, TypeVar

import click

from needlework.errors import NeedleworkError
from needlework.interrupts import Interrupted, signals_unwind

F = TypeVar("F", bound=Callable)


class UserError(click.ClickException):
    """A domain error shown as one ``error: ...`` line with exit status 2."""

    exit_code = 2

    def show(self, file=None) -> None:  # noqa: D102 - click's hook
        click.echo(f"error: {self.format_message()}", err=True)


def domain_errors(fn: F) -> F:
    """Turn needlework and OS errors raised by ``fn`` into one-line user errors.

    The exit status is the error's ``exit_status`` attribute when it has one, else 2.
    """

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except (NeedleworkError, OSError) as err:
            error = UserError(str(err))
            error.exit_code = getattr(err, "exit_status", UserError.exit_code)
            raise error from err

    return wrapper  # type: ignore[return-value]


def interruptible(fn: F) -> F:
    """Run ``fn`` with SIGINT and SIGTERM unwinding it (:func:`needlework.interrupts.signals_unwind`).

    Its ``finally`` blocks run, so atomic writes remove their temporary files and folders; then the
    command ends with one ``error: interrupted by SIGTERM`` line and the shell's status for the
    signal: 130 for SIGINT, 143 for SIGTERM.
    """

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            with signals_unwind():
                return fn(*args, **kwargs)
        except Interrupted as err:
            error = UserError(str(err))
            error.exit_code = err.exit_status
            raise error from None

    return wrapper  # type: ignore[return-value]
