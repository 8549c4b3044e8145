"""A suite file: which releases, configs, rows and settings ``python -m eval suite`` runs, read and checked.

A suite file is YAML (the convention of lm-eval's task files and HELMET's configs)::

    output_dir: eval-runs            # optional: the root of the run directories (default eval-runs)
    report_dir: reports/paper        # optional: where the one report goes (default <root>/reports/<suite>/<model>)
    defaults:                        # optional: any entry field, for every entry that does not set it
      generation: {temperature: 0}
    entries:
      - dataset: demo-releases/needlebench      # a release folder (relative to the working directory) or a Hub id
        configs: [s-rt-en, m-rt-en]
        lengths: [2k]
        limit: 3

An entry is one ``python -m eval run``: its fields are that command's options, spelled with underscores
(:data:`ENTRY_FIELDS`); the model, its server and the run's failure rules come from the command line, one model
per invocation. ``generation`` and ``judge`` of an entry are merged key by key over those of ``defaults``.

:func:`load_suite` reads a file and checks every field's type and value without opening a release or
reaching a model; a problem is a :class:`SuiteError` whose message names the file, the entry and the field
(``suites/demo.yaml: entries[2].configs: ...``; entries count from 0). What needs the release (its configs,
the selected values, the run directory) is checked by :mod:`eval.suite_run` before any request, with the same
naming. The module imports no heavy library, so ``python -m eval --help`` stays fast.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eval.code_execution import DEFAULT_TIMEOUT_S
from eval.task import ANSWER_PREFIXES, REASONING_MODES, SCORINGS, live_retriever_problem
from generators.embs.spec import scale_label
from needlework.backends import BACKENDS
from needlework.backends.base import OVER_WINDOW, check_generation
from needlework.errors import NeedleworkError, SpecError
from needlework.lengths import parse_token_list

MODEL_PLACEHOLDER = "{model}"
"""In an entry's ``run_dir`` and a judge's ``model``: the evaluated model (``--model``; in ``run_dir`` made safe as a
folder name, as ``eval run``'s default run directory makes it)."""
DEFAULT_OUTPUT_ROOT = Path("eval-runs")
"""The root of the run directories when neither the suite nor ``--output-dir`` names one: ``eval run``'s."""


class SuiteError(NeedleworkError, ValueError):
    """A suite file that cannot be run: one line naming the file, the entry and the field. Exit status 2."""

    exit_status = 2

    def __init__(self, path: str | Path, where: str, message: str) -> None:
        self.path, self.where = str(path), where
        super().__init__(f"{path}: {where}: {message}" if where else f"{path}: {message}")


@dataclass(frozen=True)
class JudgeSettings:
    """The LLM judge of an entry whose benchmark has a judge rubric (``python -m eval judge``'s options).

    Attributes:
        model: The judge model; ``{model}`` is the evaluated model.
        base_url: Its endpoint(s); None: the evaluated model's ``--base-url``.
        backend: ``openai`` or ``vllm``.
        api_key_env: The environment variable holding its API key.
        concurrency: Requests in flight per endpoint.
        generation: Judge generation settings (default: ``temperature=0``).
    """

    model: str
    base_url: str | tuple[str, ...] | None = None
    backend: str = "openai"
    api_key_env: str = "OPENAI_API_KEY"
    concurrency: int = 16
    generation: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SuiteEntry:
    """One entry of a suite: one ``python -m eval run``, validated (field meanings: that command's ``--help``).

    Attributes:
        index: The entry's position in ``entries`` (from 0), for messages.
        name: A label for messages and the report (default: the dataset and configs).
        judge: The judge of its answers; None: not judged.
        run_dir: The run directory below the output root, ``{model}`` replaced; None: ``eval run``'s default.
    """

    index: int
    dataset: str
    configs: tuple[str, ...]
    name: str = ""
    revision: str | None = None
    split: str = "test"
    lengths: tuple[int, ...] = ()
    sizes: tuple[int, ...] = ()
    buckets: tuple[str, ...] = ()
    scales: tuple[str, ...] = ()
    retrievers: tuple[str, ...] = ()
    tasks: tuple[str, ...] = ()
    limit: int | None = None
    generation: Mapping[str, Any] = field(default_factory=dict)
    seed: int = 0
    generations: int = 1
    thinking_end: str | None = "</think>"
    reasoning: str = "auto"
    answer_prefix: str = "user"
    scoring: str = "official"
    rag_k: int = 10
    live_retriever: str = ""
    code_timeout: float = DEFAULT_TIMEOUT_S
    over_window: str | None = None
    run_dir: str | None = None
    judge: JudgeSettings | None = None

    @property
    def where(self) -> str:
        """``entries[2]``: how messages name this entry."""
        return f"entries[{self.index}]"

    @property
    def label(self) -> str:
        """The entry's name, or its dataset and configs."""
        return self.name or f"{self.dataset} {','.join(self.configs)}"


@dataclass(frozen=True)
class Suite:
    """A checked suite file.

    Attributes:
        path: The file as named on the command line.
        entries: Its entries, in order (runs, the report's columns and the totals follow it).
        output_dir: The root of the run directories it names (None: ``--output-dir`` or :data:`DEFAULT_OUTPUT_ROOT`).
        report_dir: Where the report goes (None: ``<root>/reports/<suite file stem>/<model>``).
        description: Free text, shown by ``--dry-run``.
    """

    path: Path
    entries: tuple[SuiteEntry, ...]
    output_dir: Path | None = None
    report_dir: Path | None = None
    description: str = ""

    def error(self, where: str, message: str) -> SuiteError:
        """A :class:`SuiteError` of this file at ``where`` (``entries[2].configs``)."""
        return SuiteError(self.path, where, message)


# --- field parsers: each takes the YAML value and returns the field's value, or raises ValueError ---------------


def _text(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"expected a non-empty string, got {_shown(value)}")
    return value.strip()


def _optional_text(value: Any) -> str | None:
    return None if value is None else _text(value)


def _names(value: Any) -> tuple[str, ...]:
    """A list of names, or one comma-separated string; repeats dropped, order kept."""
    items = value.split(",") if isinstance(value, str) else value
    if not isinstance(items, list) or not all(isinstance(i, str | int) and not isinstance(i, bool) for i in items):
        raise ValueError(f"expected a list of names or a comma-separated string, got {_shown(value)}")
    return tuple(dict.fromkeys(str(i).strip() for i in items if str(i).strip()))


def _configs(value: Any) -> tuple[str, ...]:
    configs = _names(value)
    if not configs:
        raise ValueError("name at least one config")
    return configs


def _tokens(value: Any) -> tuple[int, ...]:
    """Token counts as ``eval run --lengths`` takes them: a list of integers and strings (``8k``, ``4Ki``), or one string."""
    items = value if isinstance(value, list) else [value]
    counts: list[int] = []
    for item in items:
        if isinstance(item, bool) or not isinstance(item, int | str):
            raise ValueError(f"expected token counts (4096, 8k, 4ki), got {_shown(value)}")
        try:
            counts += [item] if isinstance(item, int) else parse_token_list(item)
        except SpecError as err:
            raise ValueError(str(err)) from None
    if any(c < 0 for c in counts):
        raise ValueError(f"token counts are >= 0, got {_shown(value)}")
    return tuple(dict.fromkeys(counts))


def _buckets(value: Any) -> tuple[str, ...]:
    return tuple(dict.fromkeys(name.lower() for name in _names(value)))


def _scales(value: Any) -> tuple[str, ...]:
    try:
        return tuple(dict.fromkeys(scale_label(label) for label in _names(value)))
    except SpecError as err:
        raise ValueError(str(err)) from None


def _integer(minimum: int) -> Callable[[Any], int]:
    def parse(value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise ValueError(f"expected a whole number >= {minimum}, got {_shown(value)}")
        return value
    return parse


def _optional_integer(minimum: int) -> Callable[[Any], int | None]:
    parse = _integer(minimum)
    return lambda value: None if value is None else parse(value)


def _seconds(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise ValueError(f"expected seconds > 0, got {_shown(value)}")
    return float(value)


def _choice(*choices: str, optional: bool = False) -> Callable[[Any], str | None]:
    def parse(value: Any) -> str | None:
        if value is None and optional:
            return None
        if value not in choices:
            raise ValueError(f"expected one of {', '.join(choices)}, got {_shown(value)}")
        return value
    return parse


def _thinking_end(value: Any) -> str | None:
    if value is None or value == "":
        return None  # as eval run's --thinking-end '': keep the whole response
    if not isinstance(value, str):
        raise ValueError(f"expected a marker string, or '' to keep the whole response, got {_shown(value)}")
    return value


def _live_retriever(value: Any) -> str:
    if value is None or value == "":
        return ""
    problem = "" if isinstance(value, str) else f"expected bm25, dense or dense:<model>, got {_shown(value)}"
    problem = problem or live_retriever_problem(value) or ""
    if problem:
        raise ValueError(problem)
    return value


def _generation(value: Any) -> dict[str, Any]:
    """Generation settings as ``--gen-kwargs`` gives them: a mapping of names to numbers, strings, booleans or lists."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValueError(f"expected a mapping such as {{temperature: 0, max_tokens: 256}}, got {_shown(value)}")
    for name, setting in value.items():
        if not isinstance(name, str):
            raise ValueError(f"setting names are strings, got {_shown(name)}")
        if isinstance(setting, dict):
            raise ValueError(f"{name}: expected a number, string, boolean or list, got a mapping")
    try:
        check_generation(value, option="")
    except SpecError as err:
        raise ValueError(str(err).strip()) from None
    return dict(value)


def _base_url(value: Any) -> str | tuple[str, ...] | None:
    if value is None:
        return None
    urls = [value] if isinstance(value, str) else value
    if not isinstance(urls, list) or not urls or not all(isinstance(u, str) and u.strip() for u in urls):
        raise ValueError(f"expected a URL or a list of URLs, got {_shown(value)}")
    return urls[0] if len(urls) == 1 else tuple(urls)


def _run_dir(value: Any) -> str | None:
    if value is None:
        return None
    text = _text(value)
    if Path(text).is_absolute() or ".." in Path(text).parts:
        raise ValueError(f"expected a folder below the output root (relative, without '..'), got {_shown(value)}")
    return text


JUDGE_FIELDS: Mapping[str, Callable[[Any], Any]] = {
    "model": _text,
    "base_url": _base_url,
    "backend": _choice(*BACKENDS),
    "api_key_env": _text,
    "concurrency": _integer(1),
    "generation": _generation,
}
"""The fields of a ``judge`` mapping (``python -m eval judge``'s options)."""

ENTRY_FIELDS: Mapping[str, Callable[[Any], Any]] = {
    "name": _text,
    "dataset": _text,
    "revision": _optional_text,
    "configs": _configs,
    "split": _text,
    "lengths": _tokens,
    "sizes": _tokens,
    "buckets": _buckets,
    "scales": _scales,
    "retrievers": _names,
    "tasks": _names,
    "limit": _optional_integer(1),
    "generation": _generation,
    "seed": _integer(-(2**63)),
    "generations": _integer(1),
    "thinking_end": _thinking_end,
    "reasoning": _choice(*REASONING_MODES),
    "answer_prefix": _choice(*ANSWER_PREFIXES),
    "scoring": _choice(*SCORINGS),
    "rag_k": _integer(1),
    "live_retriever": _live_retriever,
    "code_timeout": _seconds,
    "over_window": _choice(*OVER_WINDOW, optional=True),
    "run_dir": _run_dir,
    "judge": None,  # a mapping of JUDGE_FIELDS or false: read by _judge
}
"""Every field an entry may set, with its parser: ``python -m eval run``'s options, plus ``name``, ``run_dir`` and ``judge``."""
REQUIRED = ("dataset", "configs")
PER_ENTRY_ONLY = ("name", "dataset", "revision", "run_dir")
"""Fields that name one entry's release or run, so ``defaults`` may not set them."""
MERGED = ("generation", "judge")
"""Mappings an entry merges key by key over ``defaults``' (an entry's ``judge: false`` turns the judge off)."""
TOP_FIELDS = ("description", "output_dir", "report_dir", "defaults", "entries")


def load_suite(path: str | Path) -> Suite:
    """Read and check a suite file (module docstring): every field's type and value, without opening a release.

    Raises:
        SuiteError: The file is missing, not YAML, or a field is unknown, missing or has a bad value; the
            message names the file, the entry and the field.
    """
    import yaml  # PyYAML: a dependency of datasets and huggingface_hub

    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise SuiteError(path, "", f"cannot read the suite file ({getattr(err, 'strerror', None) or err})") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = getattr(err, "problem", None) or str(err).splitlines()[0]
        raise SuiteError(path, where, f"not valid YAML: {problem}") from None
    return parse_suite(data, path)


def parse_suite(data: Any, path: str | Path) -> Suite:
    """Check a suite file's parsed content (:func:`load_suite`); ``path`` names it in messages."""
    path = Path(path)
    if not isinstance(data, dict):
        raise SuiteError(path, "", f"expected a mapping with 'entries', got {_shown(data)}")
    _no_unknown(path, "", data, TOP_FIELDS)
    defaults = data.get("defaults") or {}
    if not isinstance(defaults, dict):
        raise SuiteError(path, "defaults", f"expected a mapping of entry fields, got {_shown(defaults)}")
    _no_unknown(path, "defaults", defaults, [f for f in ENTRY_FIELDS if f not in PER_ENTRY_ONLY],
                refused={f: "names one entry's release or run; set it in each entry" for f in PER_ENTRY_ONLY})
    entries = data.get("entries")
    if not isinstance(entries, list) or not entries:
        raise SuiteError(path, "entries", f"expected a non-empty list of entries, got {_shown(entries)}")
    parsed = tuple(_entry(path, index, raw, defaults) for index, raw in enumerate(entries))
    named: dict[str, SuiteEntry] = {}
    for entry in parsed:
        if entry.name and named.setdefault(entry.name, entry) is not entry:
            raise SuiteError(path, f"{entry.where}.name", f"{entry.name!r} is {named[entry.name].where}'s name too; "
                                                          "names are unique")
    description = data.get("description") or ""
    if not isinstance(description, str):
        raise SuiteError(path, "description", f"expected text, got {_shown(description)}")
    return Suite(path=path, entries=parsed, output_dir=_folder(path, "output_dir", data.get("output_dir")),
                 report_dir=_folder(path, "report_dir", data.get("report_dir")), description=description.strip())


def _entry(path: Path, index: int, raw: Any, defaults: Mapping[str, Any]) -> SuiteEntry:
    where = f"entries[{index}]"
    if not isinstance(raw, dict):
        raise SuiteError(path, where, f"expected a mapping with dataset and configs, got {_shown(raw)}")
    _no_unknown(path, where, raw, ENTRY_FIELDS)
    merged: dict[str, Any] = {**defaults, **raw}
    for name in ("generation",):
        if isinstance(defaults.get(name), dict) and isinstance(raw.get(name), dict):
            merged[name] = {**defaults[name], **raw[name]}
    for name in REQUIRED:
        if merged.get(name) is None:
            raise SuiteError(path, f"{where}.{name}", "missing; every entry names its " + (
                "release (a folder or a Hub dataset id)" if name == "dataset" else "configs"))
    values: dict[str, Any] = {}
    for name, value in merged.items():
        if name == "judge":
            values["judge"] = _judge(path, f"{where}.judge", defaults.get("judge"), raw.get("judge", _UNSET))
            continue
        try:
            values[name] = ENTRY_FIELDS[name](value)
        except ValueError as err:
            origin = f"{where}.{name}" if name in raw else f"defaults.{name}"
            raise SuiteError(path, origin, str(err)) from None
    return SuiteEntry(index=index, **values)


_UNSET = object()


def _judge(path: Path, where: str, default: Any, own: Any) -> JudgeSettings | None:
    """The entry's judge: its own ``judge`` merged over ``defaults``'; ``false`` or none: no judge."""
    layers = []
    for origin, value in (("defaults.judge", default), (where, own)):
        if value is _UNSET or value is None:
            continue
        if value is False:
            layers = [False]
            continue
        if not isinstance(value, dict):
            raise SuiteError(path, origin, f"expected a mapping (model, base_url, ...) or false, got {_shown(value)}")
        _no_unknown(path, origin, value, JUDGE_FIELDS)
        layers.append((origin, value))
    if not layers or layers[-1] is False:
        return None
    settings: dict[str, Any] = {}
    origins: dict[str, str] = {}
    for origin, value in [layer for layer in layers if layer is not False]:
        for name, setting in value.items():
            settings[name], origins[name] = setting, origin
    if "model" not in settings:
        raise SuiteError(path, f"{where}.model", "missing; name the judge model ('{model}' for the evaluated model)")
    parsed: dict[str, Any] = {}
    for name, setting in settings.items():
        try:
            parsed[name] = JUDGE_FIELDS[name](setting)
        except ValueError as err:
            raise SuiteError(path, f"{origins[name]}.{name}", str(err)) from None
    return JudgeSettings(**parsed)


def _no_unknown(path: Path, where: str, data: Mapping[Any, Any], known: Sequence[str],
                refused: Mapping[str, str] | None = None) -> None:
    for name in data:
        if refused and name in refused:
            raise SuiteError(path, f"{where}.{name}" if where else str(name), refused[name])
        if name not in known:
            close = difflib.get_close_matches(str(name), known, n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise SuiteError(path, f"{where}.{name}" if where else str(name),
                             f"unknown field; {hint}fields: {', '.join(known)}")


def _folder(path: Path, name: str, value: Any) -> Path | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise SuiteError(path, name, f"expected a folder path, got {_shown(value)}")
    return Path(value)


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
