"""The Builder protocol: what each benchmark's builder declares, and what the registry, the CLI and
the demo read from it.

A builder module (``builders/<benchmark>.py``) holds a frozen spec dataclass whose fields are
options (:mod:`builders.options`), its :class:`builders.features.Features`, its card facts and
``build(spec, out)``, and ends with one :class:`Builder` record that names them. The registry
(:mod:`builders.registry`) lists the records; ``needlework build <id>`` is generated from each.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from builders.card import CardFacts
from builders.features import Features
from needlework.tokens import TokenCounter


class BuildReport(Protocol):
    """What a build wrote (every builder's report has these) and what to tell the user."""

    out: Path | None
    rows: dict[str, int]

    def lines(self) -> list[str]:
        """What ``needlework build`` prints when the build is done, one line each."""
        ...


class Build(Protocol):
    """``build(spec, out, *, tokens=None, progress=True)``: write the release of ``spec`` at ``out``.

    ``tokens`` replaces loading ``spec.tokenizer`` (the demo and tests share one counter);
    ``progress`` shows progress bars.
    """

    def __call__(self, spec: Any, out: Path, *, tokens: TokenCounter | None = None,
                 progress: bool = True) -> BuildReport: ...


@dataclass(frozen=True)
class Builder:
    """One benchmark's builder.

    Attributes:
        id: The benchmark's id from its generator spec: command name, release folder in the demo,
            manifest ``benchmark``, card template ``cards/<id>.md``.
        spec: The frozen build-spec dataclass; its :func:`builders.options.option` fields are the
            command's options.
        features: Config name -> its :class:`builders.features.Features` (every config a release can hold).
        facts: What the card states besides the configs.
        build: Writes a release (:class:`Build`).
        demo: ``(seed, tokenizer) -> spec`` of the small build ``needlework build demo`` makes,
            on the embedded default and offline.
    """

    id: str
    spec: type
    features: Callable[[str], Features]
    facts: CardFacts
    build: Build
    demo: Callable[[int, str], Any]


def wrote_line(out: Path | None, rows: dict[str, int]) -> str:
    """``wrote <out> (<rows> rows in <n> configs)``: the line every build report starts with."""
    return f"wrote {out} ({sum(rows.values()):,} rows in {len(rows)} configs)"
