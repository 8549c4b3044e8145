"""Command-line plumbing shared by ``needlework`` and ``python -m eval``: domain errors and signals to
exit codes, and the click side of token counts (:mod:`needlework.lengths`)."""

from __future__ import annotations

import functools
import sys
from typing import Callable, TypeVar

import click

from needlework.errors import NeedleworkError, SpecError
from needlework.interrupts import Interrupted, signals_unwind
from needlework.lengths import parse_token_list, parse_tokens

F = TypeVar("F", bound=Callable)


class UserError(click.ClickException):
    """A domain error shown as one ``error: ...`` line with exit status 2."""

    exit_code = 2

    def show(self, file=None) -> None:  # noqa: D102 - click's hook
        close_progress_bars()
        click.echo(f"error: {self.format_message()}", err=True)


def close_progress_bars() -> None:
    """Close the progress bars a failing command left open (innermost first), so that its error starts a line
    of its own instead of running on from a bar's ``0/60 [00:00<?, ?doc/s]``; without tqdm loaded, nothing."""
    tqdm_module = sys.modules.get("tqdm")
    if tqdm_module is None:
        return
    for bar in sorted(list(getattr(tqdm_module.tqdm, "_instances", ())), key=lambda b: -abs(getattr(b, "pos", 0))):
        bar.close()


class OneLineErrors(click.Group):
    """A command group whose usage errors, its subcommands' included, are one ``error:`` line, exit 2.

    click shows a bad option value, a missing option or an unknown command as three lines (the usage, a
    hint, then ``Error: ...``); here they become ``error: Invalid value for '--seed': 'abc' is not a valid
    integer. (see: needlework build rulerv2 --help)``, like every other error of both commands. A group
    called without a subcommand still prints its help.
    """

    def make_context(self, info_name, args, parent=None, **extra):  # noqa: D102 - click's hook
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except click.UsageError as err:
            raise one_line_usage_error(err) from None

    def invoke(self, ctx: click.Context):  # noqa: D102 - click's hook
        try:
            return super().invoke(ctx)
        except click.UsageError as err:
            raise one_line_usage_error(err) from None


def one_line_usage_error(err: click.UsageError) -> click.ClickException:
    """click's usage error as one :class:`UserError` line naming the command's help; a group's help asked
    for by calling it without a subcommand stays as it is."""
    if isinstance(err, click.exceptions.NoArgsIsHelpError):
        return err
    message = " ".join(err.format_message().split())
    hint = f" (see: {err.ctx.command_path} --help)" if err.ctx is not None else ""
    error = UserError(message + hint)
    error.exit_code = err.exit_code
    return error


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


class TokenCount(click.ParamType):
    """A click type for one number of tokens, as :func:`needlework.lengths.parse_tokens` reads it
    (``8000``, ``8k`` = ``8K``, ``8ki``); a value it refuses is one ``error: --option: ...`` line, exit 2.

    Attributes:
        minimum: The smallest count accepted.
    """

    name = "tokens"

    def __init__(self, minimum: int = 0) -> None:
        self.minimum = minimum

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> int:
        try:
            count = value if isinstance(value, int) else parse_tokens(str(value))
        except SpecError as err:
            raise UserError(f"{option_name(param)}: {err}") from None
        if count < self.minimum:
            raise UserError(f"{option_name(param)}: {count:,} tokens is below the minimum of {self.minimum:,}")
        return count


def token_list(_ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> tuple[int, ...]:
    """click callback of a repeatable option of comma-separated token counts: the counts in order, repeats
    dropped (``--lengths 8k --lengths 8000,16K`` -> ``(8000, 16000)``); a bad item is one ``error:`` line."""
    try:
        return tuple(dict.fromkeys(n for value in values for n in parse_token_list(value)))
    except SpecError as err:
        raise UserError(f"{option_name(param)}: {err}") from None


def option_name(param: click.Parameter | None) -> str:
    """How an error names an option: its longest flag (``--max-model-len``), else its name."""
    if param is None:
        return "value"
    return max(param.opts, key=len) if param.opts else str(param.name)
