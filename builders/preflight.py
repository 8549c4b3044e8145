"""What a build checks before any work starts (issue 41): the output folder, and the extras its options need.

A build that fails on a missing extra after a minute of work (its ``error:`` printed into a progress
bar's line) costs the user that minute; these checks take milliseconds, in the order a user would fix
them: where the release goes, then what must be installed.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from builders.release import check_replaceable
from needlework.errors import SpecError

DENSE_MODULES: tuple[str, ...] = ("sentence_transformers",)
"""What a dense (or hybrid) retriever imports: the ``dense`` extra."""


def installed(module: str) -> bool:
    """Whether ``module`` can be imported here (found, not imported)."""
    return importlib.util.find_spec(module) is not None


def retriever_bases(spec: Any) -> set[str]:
    """The base retrievers a build spec asks for (``dense`` of ``dense+ppr``), over every field naming one."""
    names: Iterable[str] = (*getattr(spec, "retrievers", ()), *getattr(spec, "strategies", ()),
                            getattr(spec, "build_retriever", ""))
    return {name.split("+")[0] for name in names if name}


def check_before_work(spec: Any, out: Path) -> None:
    """Refuse a build that would fail later: ``out`` holding something that is not a release, ``--engine ray``
    without Ray, a dense or hybrid retriever without the ``dense`` extra.

    Raises:
        ReleaseError: ``out`` exists and is not a needlework release.
        SpecError: An extra the options need is not installed.
    """
    check_replaceable(out)
    if getattr(spec, "engine", "local") == "ray" and not installed("ray"):
        raise SpecError("--engine ray needs Ray: pip install 'needlework[ray]'")
    wanting = sorted(retriever_bases(spec) & {"dense", "hybrid"})
    missing = [m for m in DENSE_MODULES if not installed(m)]
    if wanting and missing:
        raise SpecError(f"the {' and '.join(wanting)} retriever needs the 'dense' extra ({', '.join(missing)} is not "
                        "installed): pip install 'needlework[dense]', or choose other retrievers")
