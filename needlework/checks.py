"""One check, written once, for "this value must be one of these choices".

Specs, generators and source adapters all reject a value outside a fixed set (a preset, a
language, a layout, a record's split). Writing that check by hand at each site gave several
wordings ("must be one of ..., got", "expected one of", "is not one of") and one real defect:
choices joined with ``str`` hide the empty string, so ``preset`` read "must be one of , paper".
Here the message has one format, and every choice is written as ``repr`` like the value given,
so ``''`` and ``'4'`` versus ``4`` stay visible.
"""

from __future__ import annotations

from collections.abc import Collection

from needlework.errors import SpecError


def one_of_message(what: str, value: object, choices: Collection[object]) -> str:
    """The one wording of a value outside its choices: ``{what} must be one of {choices}; got {value!r}``.

    Choices are written with ``repr`` in their iteration order (a tuple's order, a dict's keys),
    joined by ``", "``; e.g. ``preset must be one of '', 'paper'; got 'papr'``. Sites that raise
    another error type than :class:`SpecError` use it to keep the same wording, e.g. a record
    field's :class:`~needlework.errors.InputError`, whose file, record and field come first.

    Args:
        what: What the value is, as the message should name it; it may carry a prefix that
            places it, such as ``"{qid}: lang"`` or ``"text 7: lang"``.
        value: The value given.
        choices: The valid values.
    """
    return f"{what} must be one of {', '.join(repr(choice) for choice in choices)}; got {value!r}"


def require_one_of(what: str, value: object, choices: Collection[object]) -> None:
    """Raise :class:`SpecError` (a ``ValueError``) unless ``value`` is one of ``choices``.

    Why one helper: every spec and option check then says the same thing in the same format
    (:func:`one_of_message`), and a value that cannot be looked up in ``choices`` (an unhashable
    list read from a record, checked against a dict's keys) is reported like any other wrong
    value instead of escaping as a ``TypeError``.

    Args:
        what: What the value is, as the message should name it (see :func:`one_of_message`).
        value: The value given.
        choices: The valid values; the message lists them in iteration order.

    Raises:
        SpecError: ``value`` is not in ``choices``.
    """
    if not is_one_of(value, choices):
        raise SpecError(one_of_message(what, value, choices))


def is_one_of(value: object, choices: Collection[object]) -> bool:
    """Whether ``value`` is in ``choices``; an unhashable value looked up in a dict or set is not."""
    try:
        return value in choices
    except TypeError:
        return False
