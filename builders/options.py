"""Build options declared once, on the fields of each builder's frozen spec.

A build spec is a frozen dataclass whose fields are made with :func:`option`: the field's default,
its help text and, where its type does not say it, how the command line spells it. Everything else
is derived from those fields, so nothing restates them:

- :func:`click_options`: the ``needlework build <benchmark>`` options. The flag is ``--`` plus the
  field name with ``-`` for ``_`` unless ``flag`` says otherwise; a ``bool`` field is a flag, a
  ``Literal`` field a choice, a ``tuple`` field a comma-separated list, an ``X | None`` field an
  optional ``X``, and any other shape names its ``parse``.
- :func:`spec_from_options`: the spec from parsed option values. An option not given keeps the
  field's default, so every default is stated once, on the field.
- :func:`reproducing_command`: the command line that rebuilds a spec, recorded in its manifest.

The spec plays the part of a ``datasets`` builder config: the one frozen, validated description of
a build that the CLI, the manifest and the tests all read.
"""

from __future__ import annotations

import dataclasses
import shlex
import types
import typing
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

import click

from needlework.cliutil import UserError
from needlework.errors import NeedleworkError


def parse_ints(text: str) -> tuple[int, ...]:
    """``"4096,8_192"`` -> ``(4096, 8192)``; blanks are dropped, ``_`` may separate digits."""
    try:
        return tuple(int(v.strip().replace("_", "")) for v in text.split(",") if v.strip())
    except ValueError:
        raise ValueError(f"expected comma-separated integers, got {text!r}") from None


def parse_floats(text: str) -> tuple[float, ...]:
    """``"0,12.5,100"`` -> ``(0.0, 12.5, 100.0)``; blanks are dropped."""
    try:
        return tuple(float(v) for v in text.split(",") if v.strip())
    except ValueError:
        raise ValueError(f"expected comma-separated numbers, got {text!r}") from None


def parse_names(text: str) -> tuple[str, ...]:
    """``"en, zh"`` -> ``("en", "zh")``; blanks are dropped."""
    return tuple(v.strip() for v in text.split(",") if v.strip())


def show_value(value: Any) -> str:
    """An option value as the command line spells it: lists comma-joined, numbers as written."""
    if isinstance(value, tuple):
        return ",".join(show_value(v) for v in value)
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


@dataclass(frozen=True)
class Option:
    """How one spec field appears on the command line.

    Attributes:
        help: Help text of the option.
        flag: The option's name when it is not the field's (``--retrievers`` for ``strategies``).
        parse: Text -> value, for a field whose type does not say how to read it.
        show: Value -> text, the inverse of ``parse`` (default :func:`show_value`).
        multiple: A repeatable option: each occurrence adds one string to the tuple.
        default_text: The default as ``--help`` shows it; ``""`` shows none (the help says it),
            ``None`` shows ``show(default)``.
        record: Whether the option is part of the reproducing command (a cache folder is not:
            it changes where work is kept, not what is built).
    """

    help: str
    flag: str = ""
    parse: Callable[[str], Any] | None = None
    show: Callable[[Any], str] = show_value
    multiple: bool = False
    default_text: str | None = None
    record: bool = True


def option(default: Any, help: str, **cli: Any) -> Any:
    """A spec field with its command-line option (keywords: the :class:`Option` attributes)."""
    metadata = {"option": Option(help, **cli)}
    if isinstance(default, (dict, list)):
        return dataclasses.field(default_factory=lambda: type(default)(default), metadata=metadata)
    return dataclasses.field(default=default, metadata=metadata)


@dataclass(frozen=True)
class SpecOption:
    """A spec field joined with its :class:`Option` and resolved type."""

    field: dataclasses.Field
    option: Option
    kind: Any

    @property
    def flag(self) -> str:
        """The option's ``--name``."""
        return "--" + (self.option.flag or self.field.name.replace("_", "-"))

    @property
    def default(self) -> Any:
        """The field's default value."""
        if self.field.default is not dataclasses.MISSING:
            return self.field.default
        return self.field.default_factory()  # type: ignore[misc]

    def parse(self, text: str) -> Any:
        """The value of the option's text (a list type's or the option's own parser)."""
        if self.option.parse is not None:
            return self.option.parse(text)
        return LIST_PARSERS[_item_type(self.kind)](text)


LIST_PARSERS: dict[Any, Callable[[str], tuple]] = {int: parse_ints, float: parse_floats, str: parse_names}


def spec_options(spec_class: type) -> Iterator[SpecOption]:
    """The fields of ``spec_class`` that are options, in declaration order."""
    hints = typing.get_type_hints(spec_class)
    for field in dataclasses.fields(spec_class):
        declared = field.metadata.get("option")
        if declared is not None:
            yield SpecOption(field, declared, _without_none(hints[field.name]))


def click_options(spec_class: type) -> list[click.Option]:
    """The click options of a build spec, in field order (see the module docstring)."""
    return [_click_option(o) for o in spec_options(spec_class)]


def spec_from_options(spec_class: type, values: Mapping[str, Any]) -> Any:
    """The spec from parsed option values keyed by field name; an option not given keeps the default.

    Not given means ``None`` (or no occurrence of a repeatable option); an explicitly empty list
    (``--lengths ""``) is passed on, for the spec to refuse.

    Raises:
        SpecError: A value is outside its valid set (from the spec's own validation).
    """
    multiple = {o.field.name for o in spec_options(spec_class) if o.option.multiple}
    given = {name: value for name, value in values.items()
             if value is not None and not (name in multiple and value == ())}
    return spec_class(**given)


def spec_summary(spec_class: type, default: str = "") -> str:
    """One line on what a build spec builds: the first line of its docstring (``default`` without one)."""
    return (spec_class.__doc__ or default).strip().splitlines()[0]


def reproducing_command(name: str, spec: Any) -> str:
    """``needlework build <name> --flag value ...``: the command that rebuilds ``spec``.

    Every recorded option is written, defaults included, so the command means the same after a
    later version changes a default; shell-quoted where a value needs it.
    """
    parts = ["needlework", "build", name]
    for spec_option in spec_options(type(spec)):
        if not spec_option.option.record:
            continue
        value = getattr(spec, spec_option.field.name)
        if spec_option.kind is bool:
            parts += [spec_option.flag] if value else []
        elif spec_option.option.multiple:
            for item in value:
                parts += [spec_option.flag, str(item)]
        elif value is not None and (text := spec_option.option.show(value)) != "":
            parts += [spec_option.flag, text]
    return shlex.join(parts)


def _click_option(spec_option: SpecOption) -> click.Option:
    field, declared, kind = spec_option.field, spec_option.option, spec_option.kind
    shown = declared.default_text if declared.default_text is not None else (
        "" if spec_option.default is None else declared.show(spec_option.default))
    # The default is stated in the help, not given to click: an option not given stays None and
    # the field's own default applies (spec_from_options), so the two can never differ.
    settings: dict[str, Any] = {"help": declared.help + (f"  [default: {shown}]" if shown else ""), "default": None}
    if kind is bool:
        if spec_option.default:
            raise TypeError(f"{field.name}: a flag must default to False")
        settings.update(is_flag=True, default=False, help=declared.help)
    elif declared.multiple:
        settings.update(multiple=True, default=())
    elif typing.get_origin(kind) is Literal:
        settings["type"] = click.Choice([str(v) for v in typing.get_args(kind)])
    elif kind in (int, float, str) and declared.parse is None:
        settings["type"] = {int: click.INT, float: click.FLOAT, str: click.STRING}[kind]
    else:
        settings["callback"] = _parsing_callback(spec_option)
    return click.Option([spec_option.flag, field.name], **settings)


def _parsing_callback(spec_option: SpecOption) -> Callable[[click.Context, click.Parameter, str | None], Any]:
    def parse(_ctx: click.Context, _param: click.Parameter, text: str | None) -> Any:
        if text is None:
            return None
        try:
            return spec_option.parse(text)
        except (ValueError, NeedleworkError) as err:  # one `error: --flag: ...` line, exit 2
            raise UserError(f"{spec_option.flag}: {err}") from None

    return parse


def _without_none(kind: Any) -> Any:
    """``X | None`` -> ``X``; other types unchanged."""
    if typing.get_origin(kind) in (typing.Union, types.UnionType):
        rest = [k for k in typing.get_args(kind) if k is not type(None)]
        if len(rest) == 1:
            return rest[0]
    return kind


def _item_type(kind: Any) -> Any:
    """The item type of ``tuple[X, ...]``; a shape without a list parser is a declaration error."""
    args = typing.get_args(kind)
    if typing.get_origin(kind) is tuple and len(args) == 2 and args[1] is Ellipsis and args[0] in LIST_PARSERS:
        return args[0]
    raise TypeError(f"option of type {kind!r} needs a parse= function")
